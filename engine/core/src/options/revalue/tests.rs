//! Option columns: a given sensitivity's Taylor step; prices over the volatility's whole range.

use super::*;
use crate::options::option_blocks::option_units;

fn given(delta: f64, gamma: f64) -> OptionColumn {
    OptionColumn::given(1, delta, gamma)
}

#[test]
fn a_given_sensitivity_is_its_taylor_step_on_the_underlying() {
    let units: Vec<f64> = (0..2 * BLOCK)
        .map(|i| (i as f64 - 300.0) / 1000.0)
        .collect();
    let out = option_units(&units, 2, 10, &[given(5000.0, -20000.0)]).unwrap();
    for (i, x) in units[BLOCK..].iter().enumerate() {
        let want = 5000.0 * x - 10000.0 * x * x;
        assert!((out[2 * BLOCK + i] - want).abs() <= 1e-12 * (1.0 + want.abs()));
    }
    // Without gamma: δ times the underlying's unit.
    let linear = option_units(&units, 2, 10, &[given(7.0, 0.0)]).unwrap();
    for (a, x) in linear[2 * BLOCK..].iter().zip(&units[BLOCK..]) {
        assert_eq!(a.to_bits(), (7.0 * x).to_bits());
    }
    for bad in [f64::NAN, f64::INFINITY, 2e15] {
        assert!(option_units(&units, 2, 10, &[given(bad, 0.0)]).is_err());
        assert!(option_units(&units, 2, 10, &[given(0.0, bad)]).is_err());
    }
    assert!(option_units(&units, 1, 10, &[given(1.0, 1.0)]).is_err());
}

#[test]
fn volatility_is_taken_from_its_least_to_its_most_and_prices_finitely() {
    let units: Vec<f64> = (0..BLOCK).map(|i| (i as f64 - 128.0) / 500.0).collect();
    let option = |volatility: f64| OptionColumn {
        underlying: 0,
        fx: None,
        valuation: Valuation::Full,
        contract: Contract {
            kind: Kind::Call,
            model: Model::BlackScholes,
            strike: 100.0,
            volatility,
            rate: 0.03,
            dividend: 0.0,
        },
        spot: 100.0,
        tau: 2.0 / 365.0,
    };
    for good in [MIN_VOLATILITY, 0.2, MAX_VOLATILITY] {
        let out = option_units(&units, 1, 1, &[option(good)]).unwrap();
        assert!(out.iter().all(|x| x.is_finite()), "σ {good}");
    }
    let below = MIN_VOLATILITY - MIN_VOLATILITY * f64::EPSILON;
    for bad in [
        f64::MIN_POSITIVE * f64::EPSILON,
        1e-7,
        below,
        0.0,
        -0.1,
        5.000_000_001,
        f64::NAN,
    ] {
        assert!(
            option_units(&units, 1, 1, &[option(bad)]).is_err(),
            "σ {bad}"
        );
    }
}

#[test]
fn an_asset_count_beyond_the_bound_is_refused_before_it_is_multiplied() {
    use crate::limits::MAX_ASSETS;
    let units = vec![0.0; BLOCK];
    let option = [given(1.0, 0.0)];
    // 2²⁴ × BLOCK wraps to 0 in 32 bits; usize::MAX overflows either width.
    for assets in [0, MAX_ASSETS + 1, 1 << 24, u32::MAX as usize, usize::MAX] {
        let refused = check_option_units(&units, assets, &option);
        assert!(
            matches!(refused, Err(EngineError::InvalidInput(_))),
            "{assets}"
        );
    }
    // Its underlying is asset 1: two assets, one block.
    let two = vec![0.0; 2 * BLOCK];
    assert_eq!(check_option_units(&two, 2, &option).unwrap(), 1);
}
