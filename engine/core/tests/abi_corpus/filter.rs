//! OP_FILTER cases of the corpus: EWMA and GARCH assets with and without z, fewer rows than the
//! seed window, and refusals.

use crate::common::*;
use risk_engine_core::abi::call;
use risk_engine_core::abi::constants::*;

fn input(rows: usize, assets: usize, standardised: bool, returns: &[f64]) -> Vec<f64> {
    let mut v = vec![(rows * assets) as f64];
    v.extend_from_slice(&returns[..rows * assets]);
    v.extend([
        rows as f64,
        assets as f64,
        if standardised { 1.0 } else { 0.0 },
    ]);
    v.extend([0.0, 2e-6, 1e-6]);
    v.extend([0.06, 0.08, 0.05]);
    v.extend([0.94, 0.9, 0.93]);
    v
}

pub fn filter_cases(cases: &mut Vec<(String, Vec<f64>)>) {
    let (rows, assets) = (300, 3);
    let returns = synthetic_returns(rows, assets);
    for (name, rows, standardised) in [
        ("filter", rows, false),
        ("filter with z", rows, true),
        ("filter, 12 rows", 12, true),
        ("filter, no rows", 0, false),
    ] {
        let out = call(OP_FILTER, &input(rows, assets, standardised, &returns));
        cases.push((name.to_string(), out));
    }
    let mut negative = input(rows, assets, false, &returns);
    negative[1 + rows * assets + FILTER_HEADER_LEN + 3] = -0.06;
    cases.push((
        "filter, a negative α".to_string(),
        call(OP_FILTER, &negative),
    ));
    let whole = input(rows, assets, false, &returns);
    cases.push((
        "filter truncated".to_string(),
        call(OP_FILTER, &whole[..whole.len() - 1]),
    ));
}
