//! Variance filter input and result (see `constants::FILTER_HEADER_LEN`).

use super::fields::read_nonnegative;
use crate::abi::constants::{FILTER_HEADER_LEN, FILTER_RESULT_HEADER_LEN};
use crate::abi::reader::{product, Reader};
use crate::error::{ensure, Result};
use crate::filter::variance::{filter_returns, FilteredInto, Recursions};
use crate::finite::all_finite;
use crate::limits::check_assets;

/// The filter of its lead, `returns` (observations × assets, read in place), with the rest of the input:
/// [observations, assets, standardised 1 or 0], then ω, α, β per asset (assets values each).
/// Result: [0, observations, assets, standardised 1 or 0], then σ_{m+1} and the long-run
/// volatility per asset, the filtered returns, and z when asked for (each [observation][asset]),
/// written in place by the filter.
pub fn filter_parts(returns: &[f64], data: &[f64]) -> Result<Vec<f64>> {
    let mut r = Reader::new(data);
    let observations = r.count()?;
    let assets = r.count()?;
    let with_standardised = r.flag()?;
    debug_assert_eq!(r.position(), FILTER_HEADER_LEN);
    check_assets(assets)?;
    let mut column =
        || read_nonnegative(&mut r, assets, "recursion parameters must be finite, ≥ 0");
    let (omega, alpha, beta) = (column()?, column()?, column()?);
    r.end()?;
    let cells = product(observations, assets)?;
    ensure(
        returns.len() == cells,
        "returns number observations × assets",
    )?;
    ensure(all_finite(returns), "returns must be finite")?;
    let z_cells = if with_standardised { cells } else { 0 };
    let mut out = vec![0.0; FILTER_RESULT_HEADER_LEN + 2 * assets + cells + z_cells];
    let (header, rest) = out.split_at_mut(FILTER_RESULT_HEADER_LEN);
    header.copy_from_slice(&[
        0.0,
        observations as f64,
        assets as f64,
        if with_standardised { 1.0 } else { 0.0 },
    ]);
    let (current, rest) = rest.split_at_mut(assets);
    let (long_run, rest) = rest.split_at_mut(assets);
    let (filtered, z) = rest.split_at_mut(cells);
    filter_returns(
        returns,
        assets,
        &Recursions { omega, alpha, beta },
        FilteredInto {
            returns: filtered,
            current,
            long_run,
            standardised: if with_standardised { Some(z) } else { None },
        },
    )?;
    Ok(out)
}
