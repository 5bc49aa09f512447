//! Option layouts. OP_OPTION_UNITS input: [length, kept(length), assets, horizon days, options,
//! per option OPTION_FIELDS], kept as OP_UNITS gave it (`codec::kept`); result [0, kept] with the
//! option columns appended to the units (their tails are computed at pricing).
//! OP_SIMULATE_OPTIONS input: [length, kept(length), assets, horizon days, options, per option
//! OPTION_FIELDS, spec], the spec over the assets and then one column per option; its result
//! OP_SIMULATE_KEPT's on OP_OPTION_UNITS' answer.
//! OP_OPTION_GREEKS input: [options, per option OPTION_FIELDS]; result [0, options, per option
//! price, Δ, Γ, vega, θ per unit]. Option fields: [underlying, valuation, type, model, spot,
//! strike, volatility, rate, dividend yield, τ in years, fx unit column or OPTION_NO_FX]; a given
//! sensitivity (VALUATION_GIVEN) [underlying, valuation, 0, 0, δ, γ, 0, 0, 0, 0, OPTION_NO_FX].

use super::kept::{decode_kept, encode_tails, tails_length};
use crate::abi::constants::{
    MODEL_BLACK76, MODEL_BLACK_SCHOLES, OPTION_CALL, OPTION_FIELDS, OPTION_NO_FX, OPTION_PUT,
    VALUATION_DELTA, VALUATION_DELTA_GAMMA, VALUATION_FULL, VALUATION_GIVEN,
};
use crate::abi::reader::Reader;
use crate::error::{ensure, EngineError, Result};
use crate::finite::all_finite;
use crate::limits::check_options;
use crate::options::option_blocks::write_option_units;
use crate::options::pricer::{Contract, Kind, Model, Setup};
use crate::options::revalue::{
    check_option_units, option_overflow, option_units_length, OptionColumn, Valuation,
};

fn code(r: &mut Reader, what: &str) -> Result<usize> {
    r.count()
        .map_err(|_| EngineError::invalid(format!("{what} code")))
}

fn decode_option(r: &mut Reader) -> Result<OptionColumn> {
    let underlying = r.count()?;
    let valuation = match code(r, "valuation")? {
        VALUATION_GIVEN => return decode_given(r, underlying),
        VALUATION_FULL => Valuation::Full,
        VALUATION_DELTA_GAMMA => Valuation::DeltaGamma,
        VALUATION_DELTA => Valuation::Delta,
        _ => return Err(EngineError::invalid("valuation code")),
    };
    let kind = match code(r, "option type")? {
        OPTION_CALL => Kind::Call,
        OPTION_PUT => Kind::Put,
        _ => return Err(EngineError::invalid("option type code")),
    };
    let model = match code(r, "option model")? {
        MODEL_BLACK_SCHOLES => Model::BlackScholes,
        MODEL_BLACK76 => Model::Black76,
        _ => return Err(EngineError::invalid("option model code")),
    };
    let v = r.take(OPTION_FIELDS - 5)?;
    let fx = fx_unit(r)?;
    Ok(OptionColumn {
        underlying,
        fx,
        valuation,
        contract: Contract {
            kind,
            model,
            strike: v[1],
            volatility: v[2],
            rate: v[3],
            dividend: v[4],
        },
        spot: v[0],
        tau: v[5],
    })
}

/// A given sensitivity: δ and γ in the spot and strike slots, the other words unread. Its terms are
/// a placeholder the column never prices (`Valuation::Given`).
fn decode_given(r: &mut Reader, underlying: usize) -> Result<OptionColumn> {
    let v = r.take(OPTION_FIELDS - 3)?;
    let mut given = OptionColumn::given(underlying, v[2], v[3]);
    // Validation refuses a sensitivity with an fx unit.
    given.fx = fx_unit(r)?;
    Ok(given)
}

/// The fx unit word: a column, or OPTION_NO_FX for an option in the reporting currency.
fn fx_unit(r: &mut Reader) -> Result<Option<usize>> {
    let k = code(r, "fx unit")?;
    Ok(if k == OPTION_NO_FX { None } else { Some(k) })
}

fn decode_options(r: &mut Reader, count: usize) -> Result<Vec<OptionColumn>> {
    check_options(count)?;
    (0..count).map(|_| decode_option(r)).collect()
}

/// OP_OPTION_UNITS' header and its options: (assets, horizon days, options).
pub fn decode_option_header(r: &mut Reader) -> Result<(usize, usize, Vec<OptionColumn>)> {
    let assets = r.count()?;
    let horizon = r.count()?;
    let m = r.count()?;
    Ok((assets, horizon, decode_options(r, m)?))
}

/// An OP_OPTION_UNITS call decoded and checked: it can no longer fail, and its answer's length is
/// known before it runs, so a host can allocate the answer where it will live and have it written
/// there once (an answer can be 10⁸ words; copying it took as long as pricing it).
pub struct OptionUnitsCall<'a> {
    units: &'a [f64],
    tails: Vec<f64>,
    assets: usize,
    horizon: usize,
    options: Vec<OptionColumn>,
    blocks: usize,
}

impl<'a> OptionUnitsCall<'a> {
    pub fn decode(kept: &'a [f64], input: &[f64]) -> Result<OptionUnitsCall<'a>> {
        // The units and tails are copied into the answer: a lead holding another value would put
        // it there (`decode_kept` refuses tails that are not finite).
        let (units, tails) = decode_kept(kept)?;
        ensure(all_finite(units), "kept scenarios must be finite")?;
        let mut r = Reader::new(input);
        let (assets, horizon, options) = decode_option_header(&mut r)?;
        r.end()?;
        let blocks = check_option_units(units, assets, &options)?;
        let mut encoded_tails = Vec::with_capacity(tails_length(&tails));
        encode_tails(&mut encoded_tails, &tails);
        Ok(OptionUnitsCall {
            units,
            tails: encoded_tails,
            assets,
            horizon,
            options,
            blocks,
        })
    }

    fn units_length(&self) -> usize {
        option_units_length(self.blocks, self.assets, self.options.len())
    }

    /// [status, count, units…, tails].
    pub fn length(&self) -> usize {
        2 + self.units_length() + self.tails.len()
    }

    /// The answer written into `out` when it is `length()` words and every value is finite; false
    /// otherwise (`out` untouched when its length is wrong, else holding what was written): then
    /// `call_led` answers `codec::option_overflow_answer`.
    pub fn write(&self, out: &mut [f64]) -> bool {
        if out.len() != self.length() {
            return false;
        }
        let count = self.units_length();
        let (head, rest) = out.split_at_mut(2);
        let (units, tails) = rest.split_at_mut(count);
        head.copy_from_slice(&[0.0, count as f64]);
        tails.copy_from_slice(&self.tails);
        write_option_units(units, self.units, self.assets, self.horizon, &self.options)
    }
}

/// OP_OPTION_UNITS on its lead, the kept scenarios (read in place), and the rest of its input.
pub fn option_units_parts(kept: &[f64], input: &[f64]) -> Result<Vec<f64>> {
    let call = OptionUnitsCall::decode(kept, input)?;
    let mut out = vec![0.0; call.length()];
    // Its own length, so false only for a value past double precision.
    if !call.write(&mut out) {
        return Err(option_overflow());
    }
    Ok(out)
}

/// OP_OPTION_GREEKS: every option's price and Greeks per unit at its spot, now.
pub fn option_greeks_encoded(input: &[f64]) -> Result<Vec<f64>> {
    let mut r = Reader::new(input);
    let m = r.count()?;
    let options = decode_options(&mut r, m)?;
    r.end()?;
    let mut out = vec![0.0, m as f64];
    for o in &options {
        // Neither the underlying index nor the fx unit is read here (the price is per unit in the
        // option's own currency): any asset count ≥ its index + 1 will do.
        let own = OptionColumn { fx: None, ..*o };
        own.validate(o.underlying + 1)?;
        let g = Setup::new(o.contract, o.tau).greeks(o.spot);
        let greeks = [g.price, g.delta, g.gamma, g.vega, g.theta];
        // Γ = φ(d₁)/(S·σ√τ) leaves double precision for a spot near the smallest doubles, the
        // price and θ for one near the largest: said, not answered as ∞ or NaN.
        if !all_finite(&greeks) {
            return Err(option_overflow());
        }
        out.extend_from_slice(&greeks);
    }
    Ok(out)
}
