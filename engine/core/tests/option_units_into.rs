//! OP_OPTION_UNITS written where the host keeps it (`prepare_led`, then `length` and `write`): the same
//! words as `call_led`, bit for bit, for every valuation and an option on a foreign underlying;
//! input it refuses is not prepared, and a buffer of another length is left untouched.
mod common;

use common::option_book::input;
use common::*;
use risk_engine_core::abi::constants::*;
use risk_engine_core::abi::{call, call_led, prepare_led};
use risk_engine_core::spec::{Method, Mode};

/// Kept scenarios of the three assets (OP_UNITS after its status word): 3 blocks.
fn kept() -> Vec<f64> {
    let f = spec(Method::MonteCarloNormal, Mode::BuyAndHold, 700);
    let units = call(OP_UNITS, &encode_spec(&f, 0, blocks(&f)));
    assert_eq!(units[0], 0.0, "units failed");
    units[1..].to_vec()
}

#[test]
fn written_in_place_it_is_call_leds_answer() {
    let (lead, input) = (kept(), input());
    let want = call_led(OP_OPTION_UNITS, &lead, &input);
    assert_eq!(want[0], 0.0, "option units failed");
    let call = prepare_led(OP_OPTION_UNITS, &lead, &input).expect("a known length");
    let length = call.length();
    assert_eq!(length, want.len());
    let mut out = vec![f64::NAN; length];
    assert!(call.write(&mut out));
    assert!(same_bits(&out, &want), "written in place differs");
}

#[test]
fn refused_input_or_another_length_leaves_the_buffer_untouched() {
    let (lead, input) = (kept(), input());
    let call = prepare_led(OP_OPTION_UNITS, &lead, &input).expect("a known length");
    let length = call.length();
    for wrong in [0, 1, length - 1, length + 1] {
        let mut out = vec![7.0; wrong];
        assert!(!call.write(&mut out));
        assert!(out.iter().all(|&x| x == 7.0));
    }
    // A strike of 0 (the first option's), an underlying out of range, a short lead.
    let mut bad_strike = input.clone();
    bad_strike[3 + 5] = 0.0;
    let mut bad_underlying = input.clone();
    bad_underlying[3] = 3.0;
    let short = &lead[..lead.len() - 1];
    for (lead, input) in [
        (&lead[..], &bad_strike),
        (&lead[..], &bad_underlying),
        (short, &input),
    ] {
        assert_ne!(call_led(OP_OPTION_UNITS, lead, input)[0], 0.0);
        assert!(prepare_led(OP_OPTION_UNITS, lead, input).is_none());
    }
    // Other operations' answers are not known before they run.
    let f = spec(Method::MonteCarloNormal, Mode::BuyAndHold, 700);
    let spec_input = encode_spec(&f, 0, blocks(&f));
    assert!(prepare_led(OP_SIMULATE_KEPT, &lead, &spec_input).is_none());
}

/// A column past double precision is refused as an overflow by every entry point, never answered
/// as ∞ or NaN: a delta-gamma option on a spot of 1e-303 (Γ = φ/(S·σ√τ) overflows, so Γ·S² does),
/// and a full revaluation at a spot of 1e300 with a dividend yield of −1 over 100 years (the
/// forward S·e^{−qτ} overflows: ∞ − ∞). Prepared, the write declines and `call_led` says why.
/// Kept units or tails that are not finite are refused as input.
#[test]
fn a_column_past_double_precision_is_an_overflow() {
    let lead = kept();
    let option = |valuation: usize, spot: f64, volatility: f64, dividend: f64, tau: f64| {
        vec![
            3.0,
            1.0,
            1.0,
            0.0,
            valuation as f64,
            OPTION_CALL as f64,
            MODEL_BLACK_SCHOLES as f64,
            spot,
            spot,
            volatility,
            0.0,
            dividend,
            tau,
            OPTION_NO_FX as f64,
        ]
    };
    for input in [
        option(VALUATION_DELTA_GAMMA, 1e-303, 1e-6, 0.0, 1.0 / 365.0),
        option(VALUATION_FULL, 1e300, 0.2, -1.0, 100.0),
    ] {
        let answer = call_led(OP_OPTION_UNITS, &lead, &input);
        assert_eq!(answer[0], ERR_OVERFLOW as f64, "{input:?}");
        let call = prepare_led(OP_OPTION_UNITS, &lead, &input).expect("valid terms");
        let mut out = vec![0.0; call.length()];
        assert!(!call.write(&mut out), "{input:?}");
    }
    // Kept units or tails that are not finite are refused: the answer copies them (the fuzzer's
    // case: a NaN among the tails).
    let ordinary = option(VALUATION_FULL, 100.0, 0.2, 0.0, 1.0);
    let tail_word = lead.len() - 2;
    for (at, bad) in [(5, f64::INFINITY), (5, f64::NAN), (tail_word, f64::NAN)] {
        let mut lead = lead.clone();
        lead[at] = bad;
        assert_eq!(
            call_led(OP_OPTION_UNITS, &lead, &ordinary)[0],
            ERR_INVALID_INPUT as f64
        );
        assert!(prepare_led(OP_OPTION_UNITS, &lead, &ordinary).is_none());
    }
    // The same options at an ordinary spot price finitely.
    for input in [
        option(VALUATION_DELTA_GAMMA, 100.0, 1e-6, 0.0, 1.0 / 365.0),
        option(VALUATION_FULL, 100.0, 0.2, -1.0, 100.0),
    ] {
        let answer = call_led(OP_OPTION_UNITS, &lead, &input);
        assert_eq!(answer[0], 0.0, "{input:?}");
        assert!(answer.iter().all(|x| x.is_finite()));
    }
}
