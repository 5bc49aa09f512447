//! The naive reference pricer, written from the textbook formulas with nothing shared with
//! `pricer` but Φ and e^x, and the properties the fast path is held to: Hull's oracle, put–call
//! parity, Greeks against central differences, expiry at intrinsic value, option columns (those in
//! `option_columns`).

use super::pricer::{Contract, Kind, Model, Setup};
use crate::math::{exp, ln, normal_cdf};

mod option_columns;

/// Generalised Black–Scholes with carry b (b = r − q, or 0 for Black-76), straight from the book.
fn reference(c: Contract, s: f64, tau: f64) -> f64 {
    let k = c.strike;
    if tau <= 0.0 {
        return match c.kind {
            Kind::Call => (s - k).max(0.0),
            Kind::Put => (k - s).max(0.0),
        };
    }
    let b = match c.model {
        Model::BlackScholes => c.rate - c.dividend,
        Model::Black76 => 0.0,
    };
    let v = c.volatility * tau.sqrt();
    let d1 = (ln(s / k) + (b + c.volatility * c.volatility / 2.0) * tau) / v;
    let d2 = d1 - v;
    let fwd = s * exp((b - c.rate) * tau);
    let disc = k * exp(-c.rate * tau);
    match c.kind {
        Kind::Call => fwd * normal_cdf(d1) - disc * normal_cdf(d2),
        Kind::Put => disc * normal_cdf(-d2) - fwd * normal_cdf(-d1),
    }
}

/// xorshift64*: inputs drawn over the domain, the same every run.
struct Draw(u64);
impl Draw {
    fn unit(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
    }
    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
    fn contract(&mut self, kind: Kind) -> Contract {
        Contract {
            kind,
            model: if self.unit() < 0.5 {
                Model::BlackScholes
            } else {
                Model::Black76
            },
            strike: self.range(1.0, 500.0),
            volatility: self.range(0.01, 5.0),
            rate: self.range(-0.05, 0.3),
            dividend: self.range(0.0, 0.2),
        }
    }
}

fn rel(a: f64, b: f64, scale: f64) -> f64 {
    (a - b).abs() / scale
}

const HULL: Contract = Contract {
    kind: Kind::Call,
    model: Model::BlackScholes,
    strike: 40.0,
    volatility: 0.2,
    rate: 0.1,
    dividend: 0.0,
};

#[test]
fn hull_oracle() {
    // docs/oracles.md (Hull): call 4.759422392871535, put 0.8085993729000958.
    let call = Setup::new(HULL, 0.5).price(42.0);
    let put = Setup::new(
        Contract {
            kind: Kind::Put,
            ..HULL
        },
        0.5,
    )
    .price(42.0);
    assert!((call - 4.759_422_392_871_535).abs() < 1e-12, "{call}");
    assert!((put - 0.808_599_372_900_095_8).abs() < 1e-12, "{put}");
}

#[test]
fn fast_pricer_matches_reference_and_parity_holds() {
    let mut d = Draw(0x9e37_79b9_7f4a_7c15);
    for _ in 0..20_000 {
        let call = d.contract(Kind::Call);
        let put = Contract {
            kind: Kind::Put,
            ..call
        };
        let s = d.range(0.5, 1000.0);
        let tau = if d.unit() < 0.05 {
            0.0
        } else {
            d.range(1.0 / 365.0, 10.0)
        };
        let (c, p) = (
            Setup::new(call, tau).price(s),
            Setup::new(put, tau).price(s),
        );
        let scale = s + call.strike;
        assert!(
            rel(c, reference(call, s, tau), scale) < 1e-13,
            "{call:?} {s} {tau}"
        );
        assert!(
            rel(p, reference(put, s, tau), scale) < 1e-13,
            "{put:?} {s} {tau}"
        );
        let q = match call.model {
            Model::BlackScholes => call.dividend,
            Model::Black76 => call.rate,
        };
        let parity = s * exp(-q * tau) - call.strike * exp(-call.rate * tau);
        assert!(
            rel(c - p, parity, scale) < 1e-12,
            "parity {call:?} {s} {tau}"
        );
        assert!(c >= 0.0 && p >= 0.0 && c.is_finite() && p.is_finite());
    }
}

#[test]
fn greeks_match_central_differences() {
    let mut d = Draw(42);
    for _ in 0..2_000 {
        let kind = if d.unit() < 0.5 {
            Kind::Call
        } else {
            Kind::Put
        };
        let mut c = d.contract(kind);
        c.volatility = d.range(0.05, 1.0);
        let s = c.strike * d.range(0.7, 1.4);
        let tau = d.range(0.05, 3.0);
        let g = Setup::new(c, tau).greeks(s);
        let p = |s: f64, tau: f64, c: Contract| Setup::new(c, tau).price(s);
        let h = s * 1e-4;
        let delta = (p(s + h, tau, c) - p(s - h, tau, c)) / (2.0 * h);
        let gamma = (p(s + h, tau, c) - 2.0 * p(s, tau, c) + p(s - h, tau, c)) / (h * h);
        let dv = 1e-5;
        let up = Contract {
            volatility: c.volatility + dv,
            ..c
        };
        let down = Contract {
            volatility: c.volatility - dv,
            ..c
        };
        let vega = (p(s, tau, up) - p(s, tau, down)) / (2.0 * dv);
        let dt = 1e-5;
        let theta = -(p(s, tau + dt, c) - p(s, tau - dt, c)) / (2.0 * dt);
        let close = |a: f64, b: f64, tol: f64, scale: f64| (a - b).abs() <= tol * scale;
        assert!(close(g.delta, delta, 1e-6, 1.0), "delta {c:?} {s} {tau}");
        assert!(
            close(g.gamma, gamma, 1e-3, g.gamma.abs() + 1e-4),
            "gamma {c:?} {s} {tau}: {} {gamma}",
            g.gamma
        );
        assert!(close(g.vega, vega, 1e-6, s), "vega {c:?} {s} {tau}");
        assert!(close(g.theta, theta, 1e-6, s), "theta {c:?} {s} {tau}");
        assert_eq!(g.price.to_bits(), Setup::new(c, tau).price(s).to_bits());
    }
}

#[test]
fn expired_options_are_worth_their_intrinsic_value() {
    let put = Contract {
        kind: Kind::Put,
        ..HULL
    };
    assert_eq!(Setup::new(HULL, 0.0).price(42.0), 2.0);
    assert_eq!(Setup::new(put, 0.0).price(42.0), 0.0);
    assert_eq!(Setup::new(put, -1.0).price(30.0), 10.0);
    let g = Setup::new(HULL, 0.0).greeks(42.0);
    assert_eq!((g.delta, g.gamma, g.vega, g.theta), (1.0, 0.0, 0.0, 0.0));
}
