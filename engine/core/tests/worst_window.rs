//! The worst window (OP_WORST_WINDOW) against a brute force over every window, through the ABI,
//! and the earliest of equal windows.
use risk_engine_core::abi::call;
use risk_engine_core::abi::constants::*;
use risk_engine_core::deadline::Deadline;
use risk_engine_core::stress::worst_window::{worst_windows, WorstWindowInput};

/// The worst window by brute force: every start, P&L summed the plain way, the earliest minimum.
fn brute_force(exposures: &[f64], prices: &[f64], horizon: usize) -> f64 {
    let n = exposures.len();
    let rows = prices.len() / n;
    let mut best = (f64::INFINITY, WORST_WINDOW_NONE);
    for from in 0..rows.saturating_sub(horizon) {
        let pnl: f64 = (0..n)
            .map(|i| exposures[i] * (prices[(from + horizon) * n + i] / prices[from * n + i] - 1.0))
            .sum();
        if pnl < best.0 {
            best = (pnl, from as f64);
        }
    }
    best.1
}

#[test]
fn the_worst_window_is_the_brute_forces_through_the_abi() {
    let (rows, n) = (60, 3);
    let prices: Vec<f64> = (0..rows * n)
        .map(|k| 100.0 * (1.0 + 0.3 * ((k as f64 * 0.754_877_666).fract() - 0.5)))
        .collect();
    let exposures = vec![1e6, -4e5, 2.5e5];
    let horizons = [1.0, 5.0, 59.0, 60.0, 1000.0];
    let mut input = vec![0.0, rows as f64, n as f64, horizons.len() as f64];
    input.extend(horizons);
    input.extend(&exposures);
    input.extend(&prices);
    let out = call(OP_WORST_WINDOW, &input);
    assert_eq!(&out[..WORST_WINDOW_RESULT_HEADER_LEN], &[0.0, 5.0]);
    for (k, h) in horizons.iter().enumerate() {
        assert_eq!(
            out[WORST_WINDOW_RESULT_HEADER_LEN + k],
            brute_force(&exposures, &prices, *h as usize),
            "horizon {h}"
        );
    }
    assert_eq!(
        out[WORST_WINDOW_RESULT_HEADER_LEN + 3],
        WORST_WINDOW_NONE,
        "60 rows span 59 days"
    );
}

#[test]
fn equal_windows_give_the_earliest() {
    let prices = vec![100.0, 90.0, 100.0, 90.0];
    let out = worst_windows(
        &WorstWindowInput::new(vec![1.0], prices, vec![1]).unwrap(),
        &Deadline::none(),
    )
    .unwrap();
    assert_eq!(out, vec![Some(0)]);
}
