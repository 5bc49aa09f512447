//! The naive reference pricer, written from the textbook formulas with nothing shared with
//! `pricer` but Φ and e^x, and the properties the fast path is held to: Hull's oracle, put–call
//! parity, Greeks against central differences, expiry at intrinsic value, option columns.

use super::option_blocks::option_units;
use super::pricer::{Contract, Kind, Model, Setup};
use super::revalue::{OptionColumn, Valuation};
use crate::math::{exp, ln, normal_cdf};
use crate::spec::BLOCK;

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

fn column(u: f64, valuation: Valuation, o: &OptionColumn, days: usize) -> f64 {
    let block: Vec<f64> = (0..2 * BLOCK)
        .map(|i| if i < BLOCK { 0.01 } else { u })
        .collect();
    let out = option_units(&block, 2, days, &[OptionColumn { valuation, ..*o }]).unwrap();
    assert_eq!(out.len(), 3 * BLOCK);
    assert_eq!(&out[..2 * BLOCK], &block[..]);
    out[2 * BLOCK + 7]
}

#[test]
fn option_columns_revalue_each_scenario() {
    let o = OptionColumn {
        underlying: 1,
        fx: None,
        valuation: Valuation::Full,
        contract: HULL,
        spot: 42.0,
        tau: 0.5,
    };
    for u in [-0.3, -0.01, 0.0, 0.02, 0.5] {
        let full = column(u, Valuation::Full, &o, 5);
        let expect =
            reference(HULL, 42.0 * (1.0 + u), 0.5 - 5.0 / 252.0) - reference(HULL, 42.0, 0.5);
        assert!((full - expect).abs() < 1e-12, "{u}");
        assert_eq!(column(u, Valuation::Delta, &o, 5).to_bits(), u.to_bits());
        let g = Setup::new(HULL, 0.5).greeks(42.0);
        let dg = g.delta * 42.0 * u + 0.5 * g.gamma * 42.0 * 42.0 * u * u + g.theta * 5.0 / 252.0;
        assert!((column(u, Valuation::DeltaGamma, &o, 5) - dg).abs() < 1e-12);
    }
    // A horizon past expiry leaves the intrinsic value.
    let short = OptionColumn {
        tau: 1.0 / 365.0,
        ..o
    };
    let at_expiry = column(0.1, Valuation::Full, &short, 1);
    let expect = 42.0 * 1.1 - 40.0 - reference(HULL, 42.0, 1.0 / 365.0);
    assert!((at_expiry - expect).abs() < 1e-12);
}

#[test]
fn option_columns_refuse_bad_terms() {
    let o = OptionColumn {
        underlying: 0,
        fx: None,
        valuation: Valuation::Full,
        contract: HULL,
        spot: 42.0,
        tau: 0.5,
    };
    let units = vec![0.0; BLOCK];
    let bad = [
        OptionColumn { underlying: 1, ..o },
        // The fx unit out of range, or the underlying itself.
        OptionColumn { fx: Some(1), ..o },
        OptionColumn { fx: Some(0), ..o },
        OptionColumn { spot: 0.0, ..o },
        OptionColumn { tau: f64::NAN, ..o },
        OptionColumn {
            contract: Contract {
                strike: 0.0,
                ..HULL
            },
            ..o
        },
        OptionColumn {
            contract: Contract {
                volatility: 5.01,
                ..HULL
            },
            ..o
        },
        OptionColumn {
            contract: Contract {
                volatility: 0.0,
                ..HULL
            },
            ..o
        },
    ];
    for b in bad {
        assert!(option_units(&units, 1, 1, &[b]).is_err(), "{b:?}");
    }
    assert!(option_units(&units[1..], 1, 1, &[o]).is_err());
}

#[test]
fn foreign_option_columns_convert_at_the_fx_unit() {
    let o = OptionColumn {
        underlying: 1,
        fx: Some(0),
        valuation: Valuation::Full,
        contract: HULL,
        spot: 42.0,
        tau: 0.5,
    };
    for (u, f) in [(-0.3, 0.02), (0.0, -0.05), (0.02, 0.0), (0.5, 0.1)] {
        // Column 0 the fx unit f, column 1 the underlying's u.
        let block: Vec<f64> = (0..2 * BLOCK)
            .map(|i| if i < BLOCK { f } else { u })
            .collect();
        let at = |valuation| {
            let out = option_units(&block, 2, 5, &[OptionColumn { valuation, ..o }]).unwrap();
            out[2 * BLOCK + 3]
        };
        let now = reference(HULL, 42.0, 0.5);
        let later = reference(HULL, 42.0 * (1.0 + u), 0.5 - 5.0 / 252.0);
        let full = (1.0 + f) * later - now;
        assert!((at(Valuation::Full) - full).abs() < 1e-12, "{u} {f}");
        let delta = (1.0 + f) * (1.0 + u) - 1.0;
        assert_eq!(at(Valuation::Delta).to_bits(), delta.to_bits());
        let g = Setup::new(HULL, 0.5).greeks(42.0);
        let step = g.delta * 42.0 * u + 0.5 * g.gamma * 42.0 * 42.0 * u * u + g.theta * 5.0 / 252.0;
        let dg = (1.0 + f) * (now + step) - now;
        assert!((at(Valuation::DeltaGamma) - dg).abs() < 1e-12);
        // f = 0: the reporting currency's column to the bit.
        if f == 0.0 {
            let plain = OptionColumn { fx: None, ..o };
            assert_eq!(
                at(Valuation::Full).to_bits(),
                column(u, Valuation::Full, &plain, 5).to_bits()
            );
        }
    }
}
