//! A mean lies between the values it averages: where every scenario has one P&L, rounding must
//! not carry ES past the worst loss, the mean off that P&L or the volatility above zero.
mod common;

use common::*;
use risk_engine_core::metrics::Metrics;
use risk_engine_core::spec::{Method, Mode};

/// Figures of a sample whose scenarios all share one P&L: the rounded sums of a mean must not
/// carry ES past the worst loss, the mean off that P&L or the volatility above zero.
fn assert_degenerate_figures(m: &Metrics, what: &str) {
    let x = m.worst_loss;
    assert_eq!(x.to_bits(), m.best_gain.to_bits(), "{what}: not one P&L");
    assert_eq!(m.value_at_risk, -x, "{what}: VaR");
    assert_eq!(m.expected_shortfall, -x, "{what}: ES");
    assert_eq!(m.expected_pnl, x, "{what}: mean");
    assert_eq!(m.volatility, 0.0, "{what}: volatility");
}

#[test]
fn one_common_pnl_gives_exact_figures() {
    for capital in [1.0, 960_431_379_709_924.9, 3.3e14, 1e15] {
        for confidence in [0.5, 0.9, 0.99] {
            // Every day's returns equal: each historical window has the same P&L.
            let mut s = historical_spec(Mode::BuyAndHold, 1_009);
            s.returns = vec![-0.012_345_7; s.returns.len()];
            s.books = vec![book(capital, &[0.5, 0.3, 0.2])];
            s.confidence = confidence;
            assert_degenerate_figures(&run(&s), &format!("historical C={capital} c={confidence}"));
            // A leveraged short that loses 90 % a day on every path: after 265 days its value is
            // below an ulp of C, so every path's P&L is −C exactly (the paths differ before).
            let mut s = spec(Method::MonteCarloNormal, Mode::Rebalanced, 100);
            s.books = vec![book(capital, &[-100.0, 0.0, 0.0])];
            s.mean = vec![0.009, 0.0, 0.0];
            s.factor.iter_mut().for_each(|f| *f *= 1e-3);
            s.horizon = 265;
            s.confidence = confidence;
            for seed in [0, 1] {
                s.seed = seed;
                s.importance_sampling = false;
                let m = run(&s);
                assert_degenerate_figures(&m, &format!("ruined C={capital} c={confidence}"));
                assert_eq!(m.value_at_risk, capital);
                // Weighted, the tail's weights fill α·N exactly: ES is still the one loss (the
                // weighted mean P&L, Σw·x/N, need not be, as Σw is not N).
                s.importance_sampling = true;
                let w = run(&s);
                assert_eq!(w.worst_loss.to_bits(), w.best_gain.to_bits());
                assert_eq!((w.value_at_risk, w.expected_shortfall), (capital, capital));
            }
        }
    }
}
