//! OP_GARCH_FIT and OP_BOOTSTRAP_PATHS cases of the corpus.

use crate::common::*;
use risk_engine_core::abi::call;
use risk_engine_core::abi::constants::*;

/// OP_GARCH_FIT over synthetic returns, one all-zero column among them, and a refusal.
pub fn garch_cases(cases: &mut Vec<(String, Vec<f64>)>) {
    let (rows, assets) = (300, 3);
    let mut returns = synthetic_returns(rows, assets);
    let mut input = vec![0.0, rows as f64, assets as f64];
    input.extend_from_slice(&returns);
    cases.push(("garch fit".to_string(), call(OP_GARCH_FIT, &input)));
    returns[1..]
        .iter_mut()
        .step_by(assets)
        .for_each(|x| *x = 0.0);
    input.truncate(GARCH_FIT_HEADER_LEN);
    input.extend_from_slice(&returns);
    cases.push((
        "garch fit, a zero column".to_string(),
        call(OP_GARCH_FIT, &input),
    ));
    cases.push((
        "garch fit truncated".to_string(),
        call(OP_GARCH_FIT, &[0.0, 3.0, 1.0, 0.01]),
    ));
}

/// OP_BOOTSTRAP_PATHS: EWMA and GARCH assets over synthetic standardised rows, a split of the
/// paths, and refusals (beyond MAX_BOOTSTRAP_STEPS, a truncated input).
pub fn bootstrap_cases(cases: &mut Vec<(String, Vec<f64>)>) {
    let (rows, assets, horizon, paths) = (120, 3, 10, 40);
    let z = synthetic_returns(rows, assets);
    let input = |first: usize, end: usize| {
        let mut v = vec![
            0.0,
            rows as f64,
            assets as f64,
            horizon as f64,
            paths as f64,
            20_261_126.0,
            first as f64,
            end as f64,
        ];
        v.extend([0.012, 0.02, 0.008]);
        v.extend([0.0, 2e-6, 1e-6]);
        v.extend([0.06, 0.08, 0.05]);
        v.extend([0.94, 0.9, 0.93]);
        v.extend(z.iter().map(|x| x * 60.0));
        v
    };
    cases.push((
        "bootstrap paths".to_string(),
        call(OP_BOOTSTRAP_PATHS, &input(0, paths)),
    ));
    cases.push((
        "bootstrap paths 13..31".to_string(),
        call(OP_BOOTSTRAP_PATHS, &input(13, 31)),
    ));
    let mut beyond = input(0, paths);
    beyond[4] = (MAX_BOOTSTRAP_STEPS / (horizon * assets) + 1) as f64;
    cases.push((
        "bootstrap beyond its bound".to_string(),
        call(OP_BOOTSTRAP_PATHS, &beyond),
    ));
    cases.push((
        "bootstrap truncated".to_string(),
        call(
            OP_BOOTSTRAP_PATHS,
            &input(0, paths)[..BOOTSTRAP_HEADER_LEN + 2],
        ),
    ));
}
