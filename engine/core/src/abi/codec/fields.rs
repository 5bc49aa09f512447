//! Fields several layouts share: the comparison code, the books, the time budget and per-asset
//! columns of non-negative parameters.

use crate::abi::constants::{COMPARISON_NONE, COMPARISON_WHAT_IF};
use crate::abi::reader::Reader;
use crate::error::{ensure, EngineError, Result};
use crate::limits::check_books;
use crate::spec::{Book, Comparison};

pub(super) fn comparison(code: usize) -> Result<Comparison> {
    match code {
        COMPARISON_NONE => Ok(Comparison::None),
        COMPARISON_WHAT_IF => Ok(Comparison::WhatIf),
        _ => Err(EngineError::invalid("unknown comparison code")),
    }
}

pub(super) fn comparison_code(c: Comparison) -> usize {
    match c {
        Comparison::None => COMPARISON_NONE,
        Comparison::WhatIf => COMPARISON_WHAT_IF,
    }
}

/// `count` books of `n` weights each: [capital, weights(n)] per book.
pub(super) fn read_books(r: &mut Reader, count: usize, n: usize) -> Result<Vec<Book>> {
    check_books(count)?;
    (0..count)
        .map(|_| {
            Ok(Book {
                capital: r.scalar()?,
                weights: r.take(n)?.to_vec(),
            })
        })
        .collect()
}

pub(super) fn write_books(out: &mut Vec<f64>, books: &[Book]) {
    for b in books {
        out.push(b.capital);
        out.extend_from_slice(&b.weights);
    }
}

/// A time budget in ms (0 = none).
pub(super) fn read_budget(r: &mut Reader) -> Result<f64> {
    let budget_ms = r.scalar()?;
    ensure(
        budget_ms.is_finite() && budget_ms >= 0.0,
        "time budget must be finite, ≥ 0",
    )?;
    Ok(budget_ms)
}

/// `len` values, each finite and ≥ 0, else InvalidInput(`what`).
pub(super) fn read_nonnegative(r: &mut Reader, len: usize, what: &str) -> Result<Vec<f64>> {
    let xs = r.take(len)?.to_vec();
    ensure(xs.iter().all(|x| x.is_finite() && *x >= 0.0), what)?;
    Ok(xs)
}
