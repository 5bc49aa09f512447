//! The estimation's input (`OP_ESTIMATE`), a covariance part's input and result
//! (`OP_COVARIANCE_PART`) and the estimation's result.

use crate::abi::constants::{
    COVARIANCE_PART_HEADER_LEN, COVARIANCE_PART_RESULT_HEADER_LEN, ESTIMATION_HEADER_LEN,
    ESTIMATION_RESULT_HEADER_LEN,
};
use crate::abi::constants::{OP_COVARIANCE_PART, OP_ESTIMATE};
use crate::abi::reader::{product, Reader};
use crate::error::{ensure, Result};
use crate::estimation::covariance_part::{covariance_part, CovariancePart};
use crate::estimation::estimate::{estimate_after, Estimation};
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
    let h = read_estimation_header(r)?;
    let prices = r.take(h.prices)?;
    let covariance_lower = match h.covariance_lower {
        Some(entries) => Some(r.take(entries)?),
        None => None,
    };
    Ok(h.input(prices, covariance_lower))
}

/// An estimation input's header: the options, and how many prices and covariance entries follow.
struct EstimationHeader {
    n_dates: usize,
    n_assets: usize,
    lookback: usize,
    zero_drift: bool,
    covariance: Covariance,
    prices: usize,
    covariance_lower: Option<usize>,
}

fn read_estimation_header(r: &mut Reader) -> Result<EstimationHeader> {
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
    let covariance_lower = if covariance_given {
        Some(product(n_assets, n_assets.saturating_add(1))? / 2)
    } else {
        None
    };
    Ok(EstimationHeader {
        n_dates,
        n_assets,
        lookback,
        zero_drift,
        covariance: if ewma {
            Covariance::Ewma(lambda)
        } else {
            Covariance::Sample
        },
        prices: product(n_dates, n_assets)?,
        covariance_lower,
    })
}

impl EstimationHeader {
    fn input<'a>(&self, prices: &'a [f64], lower: Option<&'a [f64]>) -> EstimationInput<'a> {
        EstimationInput {
            prices,
            n_dates: self.n_dates,
            n_assets: self.n_assets,
            lookback: self.lookback,
            zero_drift: self.zero_drift,
            covariance: self.covariance,
            covariance_lower: lower,
        }
    }
}

/// OP_ESTIMATE's input given as parts [header, prices] or [header, prices, Σ's lower triangle],
/// or OP_COVARIANCE_PART's as [its header, an estimation input]: answered where the parts lie (a
/// host then joins no prices), or None for any other split and for parts that do not decode as
/// that (then the joined input is decoded, so every answer, an error included, is the joined one's).
pub fn estimation_in_parts(op: u32, parts: &[&[f64]]) -> Option<Result<Vec<f64>>> {
    match (op, parts) {
        (OP_ESTIMATE, [header, prices, rest @ ..]) if rest.len() <= 1 => {
            let mut r = Reader::new(header);
            let h = read_estimation_header(&mut r).ok()?;
            r.end().ok()?;
            let given = rest.first().copied();
            let whole = prices.len() == h.prices && given.map(|l| l.len()) == h.covariance_lower;
            whole.then(|| estimate_encoded(&h.input(prices, given)))
        }
        (OP_COVARIANCE_PART, [header, estimation]) => {
            let mut r = Reader::new(header);
            let (part, parts) = read_part(&mut r).ok()?;
            r.end().ok()?;
            let input = decode_estimation_input(estimation).ok()?;
            Some(covariance_part_encoded(&input, part, parts))
        }
        _ => None,
    }
}

/// Covariance part input: [part, parts, estimation input without a covariance].
pub fn decode_covariance_part_input(data: &[f64]) -> Result<(EstimationInput<'_>, usize, usize)> {
    let mut r = Reader::new(data);
    let (part, parts) = read_part(&mut r)?;
    let input = read_estimation_input(&mut r)?;
    r.end()?;
    Ok((input, part, parts))
}

/// A covariance part's own header: [part, parts].
fn read_part(r: &mut Reader) -> Result<(usize, usize)> {
    let part = r.count()?;
    let parts = r.count()?;
    debug_assert_eq!(r.position(), COVARIANCE_PART_HEADER_LEN);
    Ok((part, parts))
}

/// Part `part` of `parts` of Σ's rows for `input`, encoded (`encode_covariance_part`).
pub fn covariance_part_encoded(
    input: &EstimationInput,
    part: usize,
    parts: usize,
) -> Result<Vec<f64>> {
    covariance_part(input, part, parts).map(|p| encode_covariance_part(&p))
}

/// Covariance part result: [0, loadings, first row, end row, lower-triangle rows…]; loadings 1
/// (and no rows) when the window samples through loadings, so Σ is not needed.
fn encode_covariance_part(part: &Option<CovariancePart>) -> Vec<f64> {
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

/// The estimation of `input`, encoded: [0, observations, first date, last date, jitter, factor
/// columns, mean(n), sample mean(n), covariance(n²), factor(n² or n·m), volatility(n),
/// returns(observations·n)].
pub fn estimate_encoded(input: &EstimationInput) -> Result<Vec<f64>> {
    estimate_after(input, ESTIMATION_RESULT_HEADER_LEN).and_then(encode_estimation)
}

fn encode_estimation(e: Estimation) -> Result<Vec<f64>> {
    let header: [f64; ESTIMATION_RESULT_HEADER_LEN] = [
        0.0,
        e.observations as f64,
        e.first_date as f64,
        e.last_date as f64,
        e.jitter,
        e.factor_columns as f64,
    ];
    // The vectors already lie in this layout's order after room for the header (`estimate_after`).
    let (mut buffer, front) = e.into_buffer();
    ensure(
        front == header.len(),
        "an estimation encoded with room for its header",
    )?;
    buffer[..front].copy_from_slice(&header);
    Ok(buffer)
}
