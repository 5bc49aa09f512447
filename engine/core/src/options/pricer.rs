//! European options: Black–Scholes–Merton with a dividend yield, and Black-76 (the underlying's
//! price read as a futures price, i.e. a carry equal to the rate). Φ (`phi`, Cody's erfc) and e^x are
//! the engine's own, so every build prices to the same bits; no fused multiply-add anywhere.
//! A column of revaluations at once (`Setup::revalue`) is in `column`.

use super::phi::cdf as normal_cdf;
use crate::math::{exp, ln, normal_pdf};

mod column;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Call,
    Put,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Model {
    BlackScholes,
    Black76,
}

/// One option's terms (per unit of the underlying): strike, σ, r, dividend yield q (ignored by
/// Black-76, whose carry is r).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contract {
    pub kind: Kind,
    pub model: Model,
    pub strike: f64,
    pub volatility: f64,
    pub rate: f64,
    pub dividend: f64,
}

/// Price and sensitivities per unit: Δ = ∂V/∂S, Γ = ∂²V/∂S², vega = ∂V/∂σ (per 1.0 of σ),
/// θ = ∂V/∂t (per year of calendar time, = −∂V/∂τ).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Greeks {
    pub price: f64,
    pub delta: f64,
    pub gamma: f64,
    pub vega: f64,
    pub theta: f64,
}

/// What depends on τ only, computed once per option and time (the fast path's hoisting). With
/// τ ≤ 0 the option is at its intrinsic value.
#[derive(Clone, Copy, Debug)]
pub struct Setup {
    contract: Contract,
    live: bool,
    tau: f64,
    /// σ√τ
    spread: f64,
    /// (r − q + σ²/2)·τ
    drift: f64,
    /// e^{−qτ} (e^{−rτ} for Black-76)
    carry_discount: f64,
    /// e^{−rτ}
    discount: f64,
}

impl Setup {
    pub fn new(contract: Contract, tau: f64) -> Setup {
        let q = match contract.model {
            Model::BlackScholes => contract.dividend,
            Model::Black76 => contract.rate,
        };
        let live = tau > 0.0;
        let t = if live { tau } else { 0.0 };
        let s = contract.volatility;
        Setup {
            contract,
            live,
            tau: t,
            spread: s * t.sqrt(),
            drift: (contract.rate - q + 0.5 * s * s) * t,
            carry_discount: exp(-q * t),
            discount: exp(-contract.rate * t),
        }
    }

    fn intrinsic(&self, spot: f64) -> f64 {
        let k = self.contract.strike;
        let v = match self.contract.kind {
            Kind::Call => spot - k,
            Kind::Put => k - spot,
        };
        if v > 0.0 {
            v
        } else {
            0.0
        }
    }

    /// (d1, d2) at `spot` (live options only).
    #[inline(always)]
    fn d(&self, spot: f64) -> (f64, f64) {
        let d1 = (ln(spot / self.contract.strike) + self.drift) / self.spread;
        (d1, d1 - self.spread)
    }

    /// The price per unit at `spot` of a live option of `kind`.
    #[inline(always)]
    fn live_price(&self, kind: Kind, spot: f64) -> f64 {
        self.live_price_at(kind, spot, self.d(spot).0)
    }

    /// The price per unit at `spot` of a live option of `kind` given its d1 (the kind passed in,
    /// so that a loop over one kind compiles without the match).
    #[inline(always)]
    fn live_price_at(&self, kind: Kind, spot: f64, d1: f64) -> f64 {
        let d2 = d1 - self.spread;
        let forward = spot * self.carry_discount;
        let strike = self.contract.strike * self.discount;
        let v = match kind {
            Kind::Call => forward * normal_cdf(d1) - strike * normal_cdf(d2),
            Kind::Put => strike * normal_cdf(-d2) - forward * normal_cdf(-d1),
        };
        // Far out of the money the difference can round below zero; a price never is.
        if v > 0.0 {
            v
        } else {
            0.0
        }
    }

    /// The price per unit at `spot`.
    #[inline(always)]
    pub fn price(&self, spot: f64) -> f64 {
        if self.live {
            self.live_price(self.contract.kind, spot)
        } else {
            self.intrinsic(spot)
        }
    }

    /// Price and Greeks per unit at `spot`. Expired: intrinsic value, Δ the step, the rest 0.
    pub fn greeks(&self, spot: f64) -> Greeks {
        let c = &self.contract;
        if !self.live {
            let itm = match c.kind {
                Kind::Call => spot > c.strike,
                Kind::Put => spot < c.strike,
            };
            let delta = match (c.kind, itm) {
                (_, false) => 0.0,
                (Kind::Call, true) => 1.0,
                (Kind::Put, true) => -1.0,
            };
            let price = self.intrinsic(spot);
            return Greeks {
                price,
                delta,
                gamma: 0.0,
                vega: 0.0,
                theta: 0.0,
            };
        }
        let (d1, d2) = self.d(spot);
        let forward = spot * self.carry_discount;
        let strike = c.strike * self.discount;
        let density = normal_pdf(d1);
        let q = match c.model {
            Model::BlackScholes => c.dividend,
            Model::Black76 => c.rate,
        };
        let decay = -forward * density * c.volatility / (2.0 * self.tau.sqrt());
        let (delta, theta) = match c.kind {
            Kind::Call => (
                self.carry_discount * normal_cdf(d1),
                decay - c.rate * strike * normal_cdf(d2) + q * forward * normal_cdf(d1),
            ),
            Kind::Put => (
                -self.carry_discount * normal_cdf(-d1),
                decay + c.rate * strike * normal_cdf(-d2) - q * forward * normal_cdf(-d1),
            ),
        };
        Greeks {
            price: self.price(spot),
            delta,
            gamma: self.carry_discount * density / (spot * self.spread),
            vega: forward * density * self.tau.sqrt(),
            theta,
        }
    }
}

/// The naive scalar pricer: everything computed again for each spot. `Setup` once, then `price`
/// per scenario, gives the same bits.
pub fn price_at(contract: Contract, spot: f64, tau: f64) -> f64 {
    Setup::new(contract, tau).price(spot)
}
