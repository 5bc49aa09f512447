//! Option columns written one block at a time (`OptionBlocks`): a block's units (asset-major,
//! BLOCK per asset) with each option's column appended, as OP_OPTION_UNITS answers them for every
//! block, or as OP_SIMULATE_OPTIONS prices them where they are used.

use super::pricer::Setup;
use super::revalue::{
    check_option_units, option_overflow, option_units_length, OptionColumn, Valuation, TRADING_DAYS,
};
use crate::error::Result;
use crate::finite::all_finite;
use crate::math::ln;
use crate::spec::BLOCK;

/// `units` (whole blocks of `assets` columns) with one column per option appended to each block.
pub fn option_units(
    units: &[f64],
    assets: usize,
    horizon_days: usize,
    options: &[OptionColumn],
) -> Result<Vec<f64>> {
    let blocks = check_option_units(units, assets, options)?;
    let mut out = vec![0.0; option_units_length(blocks, assets, options.len())];
    if !write_option_units(&mut out, units, assets, horizon_days, options) {
        return Err(option_overflow());
    }
    Ok(out)
}

/// `option_units` written into `out`, of `option_units_length` words, after `check_option_units`:
/// a host can allocate an answer of 10⁸ words where it will live, and it is written once. False
/// when a column value is not finite (a spot near the ends of the doubles: Γ·S² of Γ = φ/(S·σ√τ),
/// or a forward S·e^{−qτ} past them), which the caller refuses as `option_overflow`.
pub fn write_option_units(
    out: &mut [f64],
    units: &[f64],
    assets: usize,
    horizon_days: usize,
    options: &[OptionColumn],
) -> bool {
    let mut widen = OptionBlocks::new(assets, horizon_days, options);
    let width = widen.width();
    let mut finite = true;
    for (block, written) in units
        .chunks_exact(assets * BLOCK)
        .zip(out.chunks_exact_mut(width))
    {
        finite &= widen.write(block, written);
    }
    finite
}

/// One block at a time, its units with the option columns appended: `write_option_units`' block,
/// or a block priced where it is used (OP_SIMULATE_OPTIONS: no answer of 10⁸ words written and
/// read back). Its options must have passed `check_option_units`.
pub struct OptionBlocks<'a> {
    assets: usize,
    options: &'a [OptionColumn],
    terms: Vec<Terms>,
    logged: Vec<bool>,
    logs: Vec<f64>,
    /// Whether its full revaluations' tails are seeded (`tail_seeds`): not when priced again
    /// after a seed misjudged.
    pub(crate) seeding: bool,
}

/// What every block of one option's column reads, worked out once: the pricer at the horizon, the
/// value now, and the delta-gamma step's Δ·S, ½Γ·S² and θ·dt (zero for other valuations).
struct Terms {
    later: Setup,
    base: f64,
    delta: f64,
    gamma: f64,
    carry: f64,
}

impl Terms {
    fn new(o: &OptionColumn, dt: f64) -> Terms {
        let later = if o.tau - dt > 0.0 { o.tau - dt } else { 0.0 };
        let now = Setup::new(o.contract, o.tau);
        let spot = o.spot;
        let (delta, gamma, carry) = if o.valuation == Valuation::DeltaGamma {
            let g = now.greeks(spot);
            (g.delta * spot, 0.5 * g.gamma * spot * spot, g.theta * dt)
        } else {
            (0.0, 0.0, 0.0)
        };
        Terms {
            later: Setup::new(o.contract, later),
            base: now.price(spot),
            delta,
            gamma,
            carry,
        }
    }
}

impl<'a> OptionBlocks<'a> {
    pub fn new(
        assets: usize,
        horizon_days: usize,
        options: &'a [OptionColumn],
    ) -> OptionBlocks<'a> {
        let dt = horizon_days as f64 / TRADING_DAYS;
        let terms = options.iter().map(|o| Terms::new(o, dt)).collect();
        // ln(1 + u) of each underlying a full revaluation reads, once per block for all its options.
        let mut logged = vec![false; assets];
        for o in options {
            logged[o.underlying] |= o.valuation == Valuation::Full;
        }
        OptionBlocks {
            assets,
            options,
            terms,
            logged,
            logs: vec![0.0; assets * BLOCK],
            seeding: true,
        }
    }

    /// The same columns, their tails not seeded.
    pub(crate) fn unseeded(self) -> OptionBlocks<'a> {
        OptionBlocks {
            seeding: false,
            ..self
        }
    }

    /// Words of one widened block: the assets' units, then one column per option.
    pub fn width(&self) -> usize {
        (self.assets + self.options.len()) * BLOCK
    }

    /// Words of one block of the units it widens.
    pub fn kept_width(&self) -> usize {
        self.assets * BLOCK
    }

    /// Options it widens by.
    pub fn options(&self) -> usize {
        self.options.len()
    }

    /// The unit column option `j`'s column copies value for value (an option at its delta in the
    /// reporting currency: `column`'s `Delta`), whose tails are then that unit's.
    pub fn copied_unit(&self, j: usize) -> Option<usize> {
        let o = &self.options[j];
        (o.valuation == Valuation::Delta && o.fx.is_none()).then_some(o.underlying)
    }

    /// Option `j`'s underlying where its column is a function of that unit alone which moves one
    /// way with it (a full revaluation in the reporting currency: a European price is monotone in
    /// its spot); else None.
    pub fn monotone_underlying(&self, j: usize) -> Option<usize> {
        let o = &self.options[j];
        (o.valuation == Valuation::Full && o.fx.is_none()).then_some(o.underlying)
    }

    /// Option `j`'s column values at its underlying's units `u`, as `write_column` prices them
    /// (an option without FX).
    pub fn values_at(&self, j: usize, u: [f64; 2]) -> [f64; 2] {
        let (o, t) = (&self.options[j], &self.terms[j]);
        let mut out = [0.0; 2];
        column(
            &mut out,
            &u,
            &u.map(|x| ln(1.0 + x)),
            o.spot,
            t,
            o.valuation,
        );
        out
    }

    /// The block's units (`assets` × BLOCK) and then its option columns into `out` (`width()`
    /// words); false when a column value is not finite.
    pub fn write(&mut self, block: &[f64], out: &mut [f64]) -> bool {
        self.prepare(block, out);
        let (_, columns) = out.split_at_mut(self.assets * BLOCK);
        let mut finite = true;
        for (j, cell) in columns.chunks_exact_mut(BLOCK).enumerate() {
            finite &= self.write_column(j, block, cell);
        }
        finite
    }

    /// The block's units into the first `assets` × BLOCK words of `out`, and the logs its full
    /// revaluations read: then `write_column` writes any option's column of the block.
    pub fn prepare(&mut self, block: &[f64], out: &mut [f64]) {
        out[..self.assets * BLOCK].copy_from_slice(block);
        let pairs = self
            .logs
            .chunks_exact_mut(BLOCK)
            .zip(block.chunks_exact(BLOCK));
        for ((l, u), _) in pairs.zip(&self.logged).filter(|(_, &yes)| yes) {
            for (l, x) in l.iter_mut().zip(u) {
                *l = ln(1.0 + x);
            }
        }
    }

    /// Option `j`'s column of the block `prepare` was given into `cell` (BLOCK words); false when
    /// a value is not finite.
    pub fn write_column(&self, j: usize, block: &[f64], cell: &mut [f64]) -> bool {
        let (o, t) = (&self.options[j], &self.terms[j]);
        let at = o.underlying * BLOCK;
        let (u, l) = (&block[at..][..BLOCK], &self.logs[at..][..BLOCK]);
        match o.fx {
            None => column(cell, u, l, o.spot, t, o.valuation),
            Some(k) => {
                let f = &block[k * BLOCK..][..BLOCK];
                converted(cell, u, l, f, o.spot, t, o.valuation)
            }
        }
        all_finite(cell)
    }
}

/// One block of an option's column from its underlying's units `u` (and, for a full
/// revaluation, their logs ln(1 + u)).
fn column(out: &mut [f64], u: &[f64], logs: &[f64], spot: f64, t: &Terms, valuation: Valuation) {
    match valuation {
        Valuation::Delta => out.copy_from_slice(u),
        Valuation::Full => {
            t.later.revalue(spot, t.base, u, logs, out);
        }
        Valuation::DeltaGamma => {
            for (o, x) in out.iter_mut().zip(u) {
                *o = t.delta * x + t.gamma * (x * x) + t.carry;
            }
        }
        Valuation::Given { delta, gamma } => {
            let half = 0.5 * gamma;
            for (o, x) in out.iter_mut().zip(u) {
                *o = delta * x + half * (x * x);
            }
        }
    }
}

/// One block of a foreign option's column: its value in its currency at the horizon converted at
/// (1 + f), less its value now, (1 + f)·V_h − V — each valuation's V_h (delta: V(1 + u)).
fn converted(
    out: &mut [f64],
    u: &[f64],
    logs: &[f64],
    f: &[f64],
    spot: f64,
    t: &Terms,
    valuation: Valuation,
) {
    let base = t.base;
    match valuation {
        // Never here (refused at validation): a given sensitivity is in the reporting currency.
        Valuation::Given { .. } => column(out, u, logs, spot, t, valuation),
        // Δ·S·((1 + f)(1 + u) − 1): the unit of a foreign stock, R + F.
        Valuation::Delta => {
            for ((o, x), y) in out.iter_mut().zip(u).zip(f) {
                *o = (1.0 + y) * (1.0 + x) - 1.0;
            }
        }
        Valuation::Full => {
            // The price at the horizon (less 0: the bits of the price), then converted.
            t.later.revalue(spot, 0.0, u, logs, out);
            for (o, y) in out.iter_mut().zip(f) {
                *o = (1.0 + y) * *o - base;
            }
        }
        Valuation::DeltaGamma => {
            for ((o, x), y) in out.iter_mut().zip(u).zip(f) {
                let step = t.delta * x + t.gamma * (x * x) + t.carry;
                *o = (1.0 + y) * (base + step) - base;
            }
        }
    }
}
