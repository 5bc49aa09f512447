//! Options as extra columns of kept units (OP_OPTION_UNITS, OP_SIMULATE_OPTIONS; written by
//! `option_blocks`). A block's units (asset-major, BLOCK
//! per asset: e^{R_i} − 1) gain one column per option, holding its P&L per unit of the option (full
//! revaluation or a Taylor step), or, for `delta`, the underlying's unit itself; a book then prices
//! an option as a linear position in its column (exposure quantity × multiplier, or for `delta` the
//! money delta), so OP_SIMULATE_KEPT and the usual finalize give every figure, components included.
//! An option on a foreign underlying (api.md §14–15) names a second column, its conversion's unit
//! f = e^{F} − 1: its value in its own currency is converted at (1 + f), so the column holds
//! (1 + f)·V(S(1 + u), τ_h) − V(S, τ), priced at exposure size × the last rate.

use super::pricer::{Contract, Kind, Model};
use crate::error::{ensure, EngineError, Result};
use crate::limits::{
    check_assets, check_option_scenarios, check_options, MAX_VOLATILITY, MIN_VOLATILITY,
};
use crate::spec::BLOCK;

/// Trading days per year of the horizon: τ moves by T/252 (api.md §15).
pub const TRADING_DAYS: f64 = 252.0;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Valuation {
    Full,
    DeltaGamma,
    Delta,
    /// Bring your own Greeks (api.md §15): δ·x + ½γ·x² in money per unit relative move; the
    /// column's terms, spot and τ are not read.
    Given {
        delta: f64,
        gamma: f64,
    },
}

/// Largest |δ| or |γ| of a given sensitivity (as a position's market value): its P&L stays finite.
pub const MAX_SENSITIVITY: f64 = 1e15;

/// One option position's column: its underlying (an asset index), valuation, terms, spot S₀ and τ
/// now; with `fx`, the column of its conversion's unit e^{F} − 1 (an option on a foreign
/// underlying). A book may hold the same option in two columns (full and delta: the nonlinearity).
#[derive(Clone, Copy, Debug)]
pub struct OptionColumn {
    pub underlying: usize,
    pub fx: Option<usize>,
    pub valuation: Valuation,
    pub contract: Contract,
    pub spot: f64,
    pub tau: f64,
}

impl OptionColumn {
    /// A given sensitivity on `underlying` (api.md §15): its terms, spot and τ are placeholders the
    /// column never prices.
    pub fn given(underlying: usize, delta: f64, gamma: f64) -> OptionColumn {
        OptionColumn {
            underlying,
            fx: None,
            valuation: Valuation::Given { delta, gamma },
            contract: Contract {
                kind: Kind::Call,
                model: Model::BlackScholes,
                strike: 1.0,
                volatility: 1.0,
                rate: 0.0,
                dividend: 0.0,
            },
            spot: 1.0,
            tau: 0.0,
        }
    }

    /// Checks what the pricer needs to return finite values.
    pub fn validate(&self, assets: usize) -> Result<()> {
        let c = &self.contract;
        ensure(self.underlying < assets, "option underlying out of range")?;
        if let Some(fx) = self.fx {
            ensure(fx < assets, "option fx unit out of range")?;
            ensure(
                fx != self.underlying,
                "option fx unit must differ from its underlying",
            )?;
        }
        if let Valuation::Given { delta, gamma } = self.valuation {
            ensure(self.fx.is_none(), "a given sensitivity takes no fx unit")?;
            let bounded = |v: f64| v.is_finite() && v.abs() <= MAX_SENSITIVITY;
            return ensure(
                bounded(delta) && bounded(gamma),
                "a sensitivity's delta and gamma must be finite, at most 1e15 in size",
            );
        }
        ensure(
            self.spot.is_finite() && self.spot > 0.0,
            "option spot must be positive",
        )?;
        ensure(
            c.strike.is_finite() && c.strike > 0.0,
            "strike must be positive",
        )?;
        ensure(
            (MIN_VOLATILITY..=MAX_VOLATILITY).contains(&c.volatility),
            "volatility must be in [1e-6, 5]",
        )?;
        ensure(
            c.rate.is_finite() && c.rate.abs() <= 1.0,
            "rate must be in [-1, 1]",
        )?;
        ensure(
            c.dividend.is_finite() && c.dividend.abs() <= 1.0,
            "dividend yield must be in [-1, 1]",
        )?;
        ensure(
            self.tau >= 0.0 && self.tau <= 100.0,
            "time to expiry must be in [0, 100] years",
        )
    }
}

/// What a column that left double precision is refused as (`write_option_units` said so).
pub fn option_overflow() -> EngineError {
    EngineError::Overflow(
        "an option's value or Greeks overflow double precision (its spot too small or too large for its volatility, dividend yield and time to expiry)"
            .into(),
    )
}

/// Checks what `write_option_units` needs (so that it cannot fail) and gives the blocks' count.
pub fn check_option_units(units: &[f64], assets: usize, options: &[OptionColumn]) -> Result<usize> {
    // Bounded before `assets × BLOCK` is formed: usize is 32 bits on wasm32, where 2²⁴ assets
    // (BLOCK 256) would wrap the product to 0.
    check_assets(assets)?;
    check_options(options.len())?;
    let per_block = assets * BLOCK;
    ensure(
        units.len() % per_block == 0,
        "units must be whole blocks of the assets",
    )?;
    let blocks = units.len() / per_block;
    check_option_scenarios(options.len(), blocks * BLOCK)?;
    for o in options {
        o.validate(assets)?;
    }
    Ok(blocks)
}

/// The words of `option_units`' answer: every block's units and option columns.
pub fn option_units_length(blocks: usize, assets: usize, options: usize) -> usize {
    blocks * (assets + options) * BLOCK
}

#[cfg(test)]
mod tests;
