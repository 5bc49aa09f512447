//! The closed form's input (`OP_PARAMETRIC`).

use super::fields::{comparison, read_books};
use crate::abi::constants::PARAMETRIC_HEADER_LEN;
use crate::abi::reader::{product, Reader};
use crate::error::Result;
use crate::limits::check_assets;
use crate::parametric::{CovarianceForm, ParametricInput, COVARIANCE_DENSE};

/// Parametric layout: [n, books, T, c, comparison, per book (capital, weights(n)), mean(n),
/// covariance(n²)].
pub fn decode_parametric(data: &[f64]) -> Result<ParametricInput> {
    let mut r = Reader::new(data);
    let n = r.count()?;
    check_assets(n)?;
    let book_count = r.count()?;
    let horizon = r.count()?;
    let confidence = r.scalar()?;
    let comparison = comparison(r.count()?)?;
    debug_assert_eq!(r.position(), PARAMETRIC_HEADER_LEN);
    let books = read_books(&mut r, book_count, n)?;
    let mean = r.take(n)?.to_vec();
    let covariance = match r.count()? {
        COVARIANCE_DENSE => CovarianceForm::Dense(r.take(product(n, n)?)?.to_vec()),
        columns => CovarianceForm::Loadings {
            columns,
            values: r.take(product(n, columns)?)?.to_vec(),
        },
    };
    r.end()?;
    Ok(ParametricInput {
        horizon,
        confidence,
        comparison,
        books,
        mean,
        covariance,
    })
}
