//! Flat encodings of the stress operations: conditional scenarios (`OP_CONDITIONAL`) and the worst
//! historical windows (`OP_WORST_WINDOW`).

use super::fields::read_budget;
use crate::abi::constants::{
    CONDITIONAL_HEADER_LEN, CONDITIONAL_RESULT_HEADER_LEN, WORST_WINDOW_HEADER_LEN,
    WORST_WINDOW_NONE, WORST_WINDOW_RESULT_HEADER_LEN,
};
use crate::abi::reader::{product, Reader};
use crate::deadline::Deadline;
use crate::error::{ensure, Result};
use crate::parametric::{CovarianceForm, COVARIANCE_DENSE};
use crate::stress::conditional::{ConditionalInput, ConditionalOutcome, ConditionalScenario};
use crate::stress::worst_window::WorstWindowInput;

/// Input: [budget ms, n, own, columns, jitter, scenarios], mean(n), then Σ (n², columns =
/// COVARIANCE_DENSE) or loadings (n·columns); per scenario [horizon, s, (index, ln(1 + shock))·s].
pub fn decode_conditional(data: &[f64]) -> Result<(ConditionalInput, Deadline)> {
    let mut r = Reader::new(data);
    let deadline = Deadline::after_ms(read_budget(&mut r)?);
    let n = r.count()?;
    let own = r.count()?;
    let columns = r.count()?;
    let jitter = r.scalar()?;
    let count = r.count()?;
    debug_assert_eq!(r.position(), CONDITIONAL_HEADER_LEN);
    let mean = r.take(n)?.to_vec();
    let covariance = if columns == COVARIANCE_DENSE {
        CovarianceForm::Dense(r.take(product(n, n)?)?.to_vec())
    } else {
        CovarianceForm::Loadings {
            columns,
            values: r.take(product(n, columns)?)?.to_vec(),
        }
    };
    // Each scenario takes at least 4 values: a count beyond the rest of the input is malformed.
    ensure(
        count <= data.len() - r.position(),
        "input shorter than its header says",
    )?;
    let mut scenarios = Vec::with_capacity(count);
    for _ in 0..count {
        let horizon = r.count()?;
        let s = r.count()?;
        let pairs = r.take(product(s, 2)?)?;
        let mut shocked = Vec::with_capacity(s);
        for pair in pairs.chunks_exact(2) {
            shocked.push(Reader::new(&pair[..1]).count()?);
        }
        let log_shocks = pairs.chunks_exact(2).map(|p| p[1]).collect();
        scenarios.push(ConditionalScenario {
            horizon,
            shocked,
            log_shocks,
        });
    }
    r.end()?;
    Ok((
        ConditionalInput::new(own, mean, covariance, jitter, scenarios)?,
        deadline,
    ))
}

/// Result: [0, scenarios, own], then per scenario the log means (own) and the deviations (own).
pub fn encode_conditional(own: usize, outcomes: &[ConditionalOutcome]) -> Vec<f64> {
    let mut out = Vec::with_capacity(CONDITIONAL_RESULT_HEADER_LEN + outcomes.len() * 2 * own);
    out.extend([0.0, outcomes.len() as f64, own as f64]);
    for o in outcomes {
        out.extend_from_slice(&o.log_means);
        out.extend_from_slice(&o.sds);
    }
    out
}

/// Input: [budget ms, rows, assets, horizons], horizons, exposures(assets), prices(rows × assets).
pub fn decode_worst_window(data: &[f64]) -> Result<(WorstWindowInput, Deadline)> {
    let mut r = Reader::new(data);
    let deadline = Deadline::after_ms(read_budget(&mut r)?);
    let rows = r.count()?;
    let assets = r.count()?;
    let count = r.count()?;
    debug_assert_eq!(r.position(), WORST_WINDOW_HEADER_LEN);
    let horizons = r.take(count)?;
    let horizons = horizons
        .iter()
        .map(|h| Reader::new(std::slice::from_ref(h)).count())
        .collect::<Result<Vec<_>>>()?;
    let exposures = r.take(assets)?.to_vec();
    let prices = r.take(product(rows, assets)?)?.to_vec();
    r.end()?;
    Ok((
        WorstWindowInput::new(exposures, prices, horizons)?,
        deadline,
    ))
}

/// Result: [0, horizons], then each horizon's start row (WORST_WINDOW_NONE: too few rows).
pub fn encode_worst_window(starts: &[Option<usize>]) -> Vec<f64> {
    let mut out = Vec::with_capacity(WORST_WINDOW_RESULT_HEADER_LEN + starts.len());
    out.extend([0.0, starts.len() as f64]);
    out.extend(
        starts
            .iter()
            .map(|s| s.map_or(WORST_WINDOW_NONE, |row| row as f64)),
    );
    out
}
