//! Option cases of the bit-for-bit corpus: option columns of kept units in each valuation (then
//! priced as a book, from the written columns and where each block is), price and Greeks of calls, puts, Black-76 and expired options, bad input.

use super::canonical_kept;
use crate::common::*;
use risk_engine_core::abi::constants::*;
use risk_engine_core::abi::{call, call_led};
use risk_engine_core::spec::{Method, Mode, SpecFields};

/// [underlying, valuation, type, model, spot, strike, σ, r, q, τ, fx unit] of a few options on
/// three assets, in `valuation`, in the reporting currency (OPTION_NO_FX).
fn options(valuation: usize) -> Vec<f64> {
    let v = valuation as f64;
    let x = OPTION_NO_FX as f64;
    vec![
        0.0, v, 0.0, 0.0, 100.0, 95.0, 0.25, 0.03, 0.01, 0.5, x, //
        1.0, v, 1.0, 0.0, 50.0, 55.0, 0.4, 0.02, 0.0, 0.1, x, //
        2.0, v, 0.0, 1.0, 80.0, 80.0, 0.3, 0.05, 0.0, 1.5, x, //
        0.0, v, 1.0, 1.0, 100.0, 120.0, 4.9, -0.01, 0.0, 0.002, x, //
        1.0, v, 0.0, 0.0, 50.0, 45.0, 0.2, 0.03, 0.0, 0.0, x,
    ]
}

pub fn option_cases(cases: &mut Vec<(String, Vec<f64>)>) {
    let f = spec(Method::MonteCarloNormal, Mode::BuyAndHold, 1_500);
    let units = call(OP_UNITS, &encode_spec(&f, 0, blocks(&f)));
    let m = options(0).len() / OPTION_FIELDS;
    for (name, valuation) in [
        ("full", VALUATION_FULL),
        ("delta_gamma", VALUATION_DELTA_GAMMA),
        ("delta", VALUATION_DELTA),
        // A given sensitivity: δ and γ in the spot and strike slots (100·x + ½·95·x², ...).
        ("given", VALUATION_GIVEN),
    ] {
        // [length, kept]: the kept scenarios as OP_UNITS gave them.
        let mut input = vec![(units.len() - 1) as f64];
        input.extend_from_slice(&units[1..]);
        input.extend_from_slice(&[3.0, 10.0, m as f64]);
        input.extend_from_slice(&options(valuation));
        let out = call(OP_OPTION_UNITS, &input);
        // The kept scenarios read in place (a host's shared lead) give the same bits.
        let led = call_led(OP_OPTION_UNITS, &units[1..], &input[units.len()..]);
        assert!(
            led.len() == out.len()
                && led
                    .iter()
                    .zip(&out)
                    .all(|(a, b)| a.to_bits() == b.to_bits()),
            "option units {name}: call_led differs from call"
        );
        cases.push((format!("option units {name}"), canonical_kept(&out)));
        // The columns priced as a book of the three assets and the options.
        let mut g = f.clone();
        g.mean.extend(std::iter::repeat(0.0).take(m));
        g.books = vec![book(
            1_000_000.0,
            &[0.2, -0.1, 0.3, 0.001, -0.002, 0.0015, 0.003, -0.0005],
        )];
        let g3 = {
            let mut k = vec![(out.len() - 1) as f64];
            k.extend_from_slice(&out[1..]);
            let g = with_columns(&g, 3 + m);
            k.extend(encode_spec(&g, 0, blocks(&g)));
            k
        };
        let book = call(OP_SIMULATE_KEPT, &g3);
        // Priced where each block is (OP_SIMULATE_OPTIONS): the same bits but for the order of
        // the tails (seeded from the kept ones), so no case of its own.
        let in_place = {
            let g = with_columns(&g, 3 + m);
            let mut k = input.clone();
            k.extend(encode_spec(&g, 0, blocks(&g)));
            call(OP_SIMULATE_OPTIONS, &k)
        };
        assert!(
            same_bits(&canonical_partial(&in_place), &canonical_partial(&book)),
            "option book {name}: priced in place differs"
        );
        cases.push((format!("option book {name}"), canonical_partial(&book)));
    }
    let mut input = vec![m as f64];
    input.extend_from_slice(&options(VALUATION_FULL));
    cases.push(("option greeks".to_string(), call(OP_OPTION_GREEKS, &input)));
    let mut bad = input.clone();
    bad[6] = 0.0; // strike
    cases.push((
        "option greeks bad strike".to_string(),
        call(OP_OPTION_GREEKS, &bad),
    ));
    bad[3] = 2.0; // type
    cases.push((
        "option greeks bad type".to_string(),
        call(OP_OPTION_GREEKS, &bad),
    ));
}

/// `f` over `n` columns as loadings (the triangular factor's rows, then zero rows), so the option
/// columns draw nothing: their values come from the kept units.
fn with_columns(f: &SpecFields, n: usize) -> SpecFields {
    let mut g = f.clone();
    g.factor = f.factor.clone();
    g.factor.resize(n * 3, 0.0);
    g.factor_columns = 3;
    g
}
