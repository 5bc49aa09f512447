//! `Setup::revalue`: a column of one option's full revaluations, a group of lanes at a time.

use super::{Kind, Setup};
use crate::math::ln;
use crate::options::phi_lanes::{erfc_lanes, LANES};
use std::f64::consts::FRAC_1_SQRT_2;

/// What a column's cells share: ln(S₀/K) + drift, 1/(σ√τ), S₀ and the price it is measured from.
struct Cell {
    offset: f64,
    inverse_spread: f64,
    spot: f64,
    base: f64,
}

impl Setup {
    /// `out[i] = price(spot · (1 + u[i])) − base`: a column of full revaluations, given
    /// `logs[i] = ln(1 + u[i])`. ln(S/K) = ln(S₀/K) + ln(1 + u), and the logs are the
    /// underlying's, shared by all its options, so a cell needs no ln and no division of its own
    /// (d1 = (ln(1 + u) + ln(S₀/K) + drift) · 1/(σ√τ)); it agrees with `price` to a few ulps of
    /// d1. The option's kind and whether it is live are settled once, outside the loop, and Φ is
    /// taken a group of lanes at a time (`erfc_lanes`, the bits of `normal_cdf`), so the loop body
    /// is straight-line and vectorises.
    pub fn revalue(&self, spot: f64, base: f64, u: &[f64], logs: &[f64], out: &mut [f64]) {
        if !self.live {
            for (o, x) in out.iter_mut().zip(u) {
                *o = self.intrinsic(spot * (1.0 + x)) - base;
            }
            return;
        }
        let cell = Cell {
            offset: ln(spot / self.contract.strike) + self.drift,
            inverse_spread: 1.0 / self.spread,
            spot,
            base,
        };
        match self.contract.kind {
            Kind::Call => self.revalue_live(Kind::Call, &cell, u, logs, out),
            Kind::Put => self.revalue_live(Kind::Put, &cell, u, logs, out),
        }
    }

    /// `revalue` of a live option of `kind` (passed in so each kind compiles without the match):
    /// whole groups of lanes, then the rest one by one.
    #[inline(always)]
    fn revalue_live(&self, kind: Kind, cell: &Cell, u: &[f64], logs: &[f64], out: &mut [f64]) {
        let whole = out.len() / LANES * LANES;
        let (groups, rest) = out.split_at_mut(whole);
        let inputs = u.chunks_exact(LANES).zip(logs.chunks_exact(LANES));
        for (o, (x, l)) in groups.chunks_exact_mut(LANES).zip(inputs) {
            self.revalue_group(kind, cell, x, l, o);
        }
        for ((o, x), l) in rest.iter_mut().zip(&u[whole..]).zip(&logs[whole..]) {
            let d1 = (l + cell.offset) * cell.inverse_spread;
            *o = self.live_price_at(kind, cell.spot * (1.0 + x), d1) - cell.base;
        }
    }

    /// One group of `LANES` cells: `live_price_at`'s operations in its order, with both Φ of the
    /// group taken by `erfc_lanes` (Φ(d) = ½·erfc(−d/√2), Φ(−d) = ½·erfc(d/√2)).
    #[inline(always)]
    fn revalue_group(&self, kind: Kind, cell: &Cell, u: &[f64], logs: &[f64], out: &mut [f64]) {
        let mut first = [0.0; LANES];
        let mut second = [0.0; LANES];
        for ((a, b), l) in first.iter_mut().zip(second.iter_mut()).zip(logs) {
            let d1 = (l + cell.offset) * cell.inverse_spread;
            let d2 = d1 - self.spread;
            // Call: Φ(d1), Φ(d2); put: Φ(−d2), Φ(−d1).
            (*a, *b) = match kind {
                Kind::Call => (-d1 * FRAC_1_SQRT_2, -d2 * FRAC_1_SQRT_2),
                Kind::Put => (d2 * FRAC_1_SQRT_2, d1 * FRAC_1_SQRT_2),
            };
        }
        let (first, second) = (erfc_lanes(&first), erfc_lanes(&second));
        let strike = self.contract.strike * self.discount;
        let cells = out.iter_mut().zip(u).zip(first.iter().zip(&second));
        for ((o, x), (a, b)) in cells {
            let forward = cell.spot * (1.0 + x) * self.carry_discount;
            let v = match kind {
                Kind::Call => forward * (0.5 * a) - strike * (0.5 * b),
                Kind::Put => strike * (0.5 * a) - forward * (0.5 * b),
            };
            let price = if v > 0.0 { v } else { 0.0 };
            *o = price - cell.base;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Contract, Model};
    use super::*;
    use crate::rng::XorShift;

    /// Each cell of `revalue` (groups of lanes, then the rest) is `live_price_at` on it, bit for bit.
    #[test]
    fn a_column_in_groups_is_the_cell_by_cell_price() {
        let mut draw = XorShift(0x2545_f491_4f6c_dd1d_u64);
        let mut uniform = || draw.uniform();
        for case in 0..400 {
            let kind = if case % 2 == 0 { Kind::Call } else { Kind::Put };
            let contract = Contract {
                kind,
                model: if case % 3 == 0 {
                    Model::Black76
                } else {
                    Model::BlackScholes
                },
                strike: 50.0 + 100.0 * uniform(),
                volatility: 0.01 + 2.0 * uniform(),
                rate: 0.1 * uniform() - 0.02,
                dividend: 0.05 * uniform(),
            };
            let setup = Setup::new(contract, 0.001 + 3.0 * uniform());
            let (spot, base) = (100.0, 3.0);
            // 8·k + 3 cells: whole groups and a rest; moves up to ±(5 − 60)% across cases.
            let reach = 0.05 + 0.55 * uniform();
            let u: Vec<f64> = (0..8 * (case % 5) + 3)
                .map(|_| reach * (2.0 * uniform() - 1.0))
                .collect();
            let logs: Vec<f64> = u.iter().map(|x| ln(1.0 + x)).collect();
            let mut out = vec![0.0; u.len()];
            setup.revalue(spot, base, &u, &logs, &mut out);
            let offset = ln(spot / contract.strike) + setup.drift;
            for ((o, x), l) in out.iter().zip(&u).zip(&logs) {
                let d1 = (l + offset) * (1.0 / setup.spread);
                let want = setup.live_price_at(kind, spot * (1.0 + x), d1) - base;
                assert_eq!(
                    o.to_bits(),
                    want.to_bits(),
                    "case {case}: {o:e} vs {want:e}"
                );
            }
        }
    }
}
