//! The estimation's input (`OP_ESTIMATE`), a covariance part's input and result
//! (`OP_COVARIANCE_PART`) and the estimation's result.

use crate::abi::constants::{
    COVARIANCE_PART_HEADER_LEN, COVARIANCE_PART_RESULT_HEADER_LEN, ESTIMATION_HEADER_LEN,
    ESTIMATION_RESULT_HEADER_LEN,
};
use crate::abi::reader::{product, Reader};
use crate::error::Result;
use crate::estimation::covariance_part::CovariancePart;
use crate::estimation::estimate::Estimation;
use crate::estimation::returns::{Covariance, EstimationInput};

/// Estimation input layout: [dates, assets, lookback, zero drift, ewma, λ, covariance given,
/// prices(dates·assets)], then when given Σ's lower triangle row by row (assets·(assets + 1)/2).
pub fn decode_estimation_input(data: &[f64]) -> Result<EstimationInput<'_>> {
    let mut r = Reader::new(data);
    let input = read_estimation_input(&mut r)?;
    r.end()?;
    Ok(input)
}

fn read_estimation_input<'a>(r: &mut Reader<'a>) -> Result<EstimationInput<'a>> {
    // Relative to where it starts: a covariance part's input has its own header before it.
    let start = r.position();
    let n_dates = r.count()?;
    let n_assets = r.count()?;
    let lookback = r.count()?;
    let zero_drift = r.flag()?;
    let ewma = r.flag()?;
    let lambda = r.scalar()?;
    let covariance_given = r.flag()?;
    debug_assert_eq!(r.position() - start, ESTIMATION_HEADER_LEN);
    let prices = r.take(product(n_dates, n_assets)?)?;
    let covariance_lower = if covariance_given {
        let entries = product(n_assets, n_assets.saturating_add(1))? / 2;
        Some(r.take(entries)?)
    } else {
        None
    };
    Ok(EstimationInput {
        prices,
        n_dates,
        n_assets,
        lookback,
        zero_drift,
        covariance: if ewma {
            Covariance::Ewma(lambda)
        } else {
            Covariance::Sample
        },
        covariance_lower,
    })
}

/// Covariance part input: [part, parts, estimation input without a covariance].
pub fn decode_covariance_part_input(data: &[f64]) -> Result<(EstimationInput<'_>, usize, usize)> {
    let mut r = Reader::new(data);
    let part = r.count()?;
    let parts = r.count()?;
    debug_assert_eq!(r.position(), COVARIANCE_PART_HEADER_LEN);
    let input = read_estimation_input(&mut r)?;
    r.end()?;
    Ok((input, part, parts))
}

/// Covariance part result: [0, loadings, first row, end row, lower-triangle rows…]; loadings 1
/// (and no rows) when the window samples through loadings, so Σ is not needed.
pub fn encode_covariance_part(part: &Option<CovariancePart>) -> Vec<f64> {
    match part {
        None => vec![0.0, 1.0, 0.0, 0.0],
        Some(p) => {
            let header: [f64; COVARIANCE_PART_RESULT_HEADER_LEN] =
                [0.0, 0.0, p.rows.start as f64, p.rows.end as f64];
            let mut out = Vec::with_capacity(header.len() + p.lower.len());
            out.extend_from_slice(&header);
            out.extend_from_slice(&p.lower);
            out
        }
    }
}

/// Estimation result layout: [0, observations, first date, last date, jitter, factor columns,
/// mean(n), sample mean(n), covariance(n²), factor(n² or n·m), volatility(n),
/// returns(observations·n)].
pub fn encode_estimation(e: &Estimation) -> Vec<f64> {
    let header: [f64; ESTIMATION_RESULT_HEADER_LEN] = [
        0.0,
        e.observations as f64,
        e.first_date as f64,
        e.last_date as f64,
        e.jitter,
        e.factor_columns as f64,
    ];
    let parts = [
        &e.mean,
        &e.sample_mean,
        &e.covariance,
        &e.factor,
        &e.volatility,
        &e.returns,
    ];
    // Its whole length at once: a wide book's answer is tens of MB, and growing it by doubling
    // copied it over and over.
    let length = header.len() + parts.iter().map(|p| p.len()).sum::<usize>();
    let mut out = Vec::with_capacity(length);
    out.extend_from_slice(&header);
    for part in parts {
        out.extend_from_slice(part);
    }
    out
}
