//! An option book over the three assets of `spec`, in OP_OPTION_UNITS' words.

use risk_engine_core::abi::constants::*;

/// [assets, horizon, options, fields…]: every valuation of a call and a put, Black-76, an expired
/// option, a given sensitivity and an option on asset 0 converted by asset 2's unit.
pub fn input() -> Vec<f64> {
    let no_fx = OPTION_NO_FX as f64;
    let option = |u: usize, v: usize, kind: usize, model: usize, tau: f64, fx: f64| {
        let terms = [100.0, 95.0, 0.25, 0.03, 0.01, tau, fx];
        let mut w = vec![u as f64, v as f64, kind as f64, model as f64];
        w.extend_from_slice(&terms);
        w
    };
    let mut fields = Vec::new();
    for v in [VALUATION_FULL, VALUATION_DELTA_GAMMA, VALUATION_DELTA] {
        fields.extend(option(0, v, OPTION_CALL, MODEL_BLACK_SCHOLES, 0.5, no_fx));
        fields.extend(option(1, v, OPTION_PUT, MODEL_BLACK76, 1.5, no_fx));
        fields.extend(option(0, v, OPTION_PUT, MODEL_BLACK_SCHOLES, 0.5, 2.0));
    }
    fields.extend(option(
        2,
        VALUATION_FULL,
        OPTION_CALL,
        MODEL_BLACK_SCHOLES,
        0.01,
        no_fx,
    ));
    let given = [
        1.0,
        VALUATION_GIVEN as f64,
        0.0,
        0.0,
        5e3,
        -2e4,
        0.0,
        0.0,
        0.0,
        0.0,
        no_fx,
    ];
    fields.extend_from_slice(&given);
    let count = fields.len() / OPTION_FIELDS;
    let mut input = vec![3.0, 10.0, count as f64];
    input.extend(fields);
    input
}
