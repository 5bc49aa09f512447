//! Filtered bootstrap input and result (see `constants::BOOTSTRAP_HEADER_LEN`).

use super::fields::{read_budget, read_nonnegative};
use crate::abi::constants::{BOOTSTRAP_HEADER_LEN, BOOTSTRAP_RESULT_HEADER_LEN};
use crate::abi::reader::{product, Reader};
use crate::deadline::Deadline;
use crate::error::{ensure, Result};
use crate::filter::bootstrap::PathModel;
use crate::finite::all_finite;
use crate::limits::{check_assets, check_bootstrap_steps, check_horizon, check_scenarios};

/// Input: [budget ms, observations, assets, horizon, paths, seed, first path, end path], then per
/// asset σ_{m+1}, ω, α, β (assets values each), then z (observations × assets).
pub fn decode_bootstrap(data: &[f64]) -> Result<(PathModel, usize, usize, Deadline)> {
    let mut r = Reader::new(data);
    let deadline = Deadline::after_ms(read_budget(&mut r)?);
    let observations = r.count()?;
    let assets = r.count()?;
    let horizon = r.count()?;
    let paths = r.count()?;
    let seed = r.integer()?;
    let first = r.count()?;
    let end = r.count()?;
    debug_assert_eq!(r.position(), BOOTSTRAP_HEADER_LEN);
    ensure(observations >= 1, "a bootstrap draws from at least one row")?;
    check_assets(assets)?;
    check_horizon(horizon)?;
    check_scenarios(paths)?;
    check_bootstrap_steps(paths, horizon, assets)?;
    ensure(
        first <= end && end <= paths,
        "paths first..end within 0..paths",
    )?;
    let mut column = || {
        read_nonnegative(
            &mut r,
            assets,
            "volatilities and recursion parameters must be finite, ≥ 0",
        )
    };
    let (current, omega, alpha, beta) = (column()?, column()?, column()?, column()?);
    let z = r.take(product(observations, assets)?)?.to_vec();
    r.end()?;
    ensure(all_finite(&z), "standardised returns must be finite")?;
    let model = PathModel {
        observations,
        assets,
        horizon,
        seed,
        current,
        omega,
        alpha,
        beta,
        z,
    };
    Ok((model, first, end, deadline))
}

/// Result: [0, paths, assets], then each path's T-day log returns.
pub fn encode_bootstrap(paths: usize, assets: usize, sums: &[f64]) -> Vec<f64> {
    let mut out = Vec::with_capacity(BOOTSTRAP_RESULT_HEADER_LEN + sums.len());
    out.extend([0.0, paths as f64, assets as f64]);
    out.extend_from_slice(sums);
    out
}
