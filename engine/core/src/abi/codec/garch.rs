//! GARCH fit input and result (see `constants::GARCH_FIT_HEADER_LEN`).

use super::fields::read_budget;
use crate::abi::constants::{GARCH_FIT_HEADER_LEN, GARCH_FIT_RESULT_HEADER_LEN, GARCH_FIT_WORDS};
use crate::abi::reader::{product, Reader};
use crate::deadline::Deadline;
use crate::error::{ensure, Result};
use crate::filter::garch::Fit;
use crate::finite::all_finite;

/// The returns of a fit: `observations` rows of `assets`, row-major.
pub struct GarchFitInput {
    pub observations: usize,
    pub assets: usize,
    pub returns: Vec<f64>,
}

/// Input: [budget ms, observations, assets, returns (observations × assets)].
pub fn decode_garch_fit(data: &[f64]) -> Result<(GarchFitInput, Deadline)> {
    let mut r = Reader::new(data);
    let deadline = Deadline::after_ms(read_budget(&mut r)?);
    let observations = r.count()?;
    let assets = r.count()?;
    debug_assert_eq!(r.position(), GARCH_FIT_HEADER_LEN);
    let returns = r.take(product(observations, assets)?)?.to_vec();
    r.end()?;
    ensure(all_finite(&returns), "returns must be finite")?;
    Ok((
        GarchFitInput {
            observations,
            assets,
            returns,
        },
        deadline,
    ))
}

/// Result: [0, assets], then per asset [ω, α, β, log-likelihood, usable 1 or 0].
pub fn encode_garch_fit(fits: &[Fit]) -> Vec<f64> {
    let mut out = Vec::with_capacity(GARCH_FIT_RESULT_HEADER_LEN + GARCH_FIT_WORDS * fits.len());
    out.extend([0.0, fits.len() as f64]);
    for f in fits {
        out.extend([
            f.params.omega,
            f.params.alpha,
            f.params.beta,
            f.log_likelihood,
            if f.usable { 1.0 } else { 0.0 },
        ]);
    }
    out
}
