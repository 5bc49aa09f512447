//! Option columns of kept units (`revalue`, written by `option_blocks`) against the reference
//! pricer: full, delta and delta–gamma valuation, a horizon past expiry, refused terms, and a
//! foreign underlying converted at its fx unit.

use super::{reference, HULL};
use crate::options::option_blocks::option_units;
use crate::options::pricer::{Contract, Setup};
use crate::options::revalue::{OptionColumn, Valuation};
use crate::spec::BLOCK;

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
