//! The corpus's simulation specs: Monte Carlo variants and historical ones.

use crate::common::*;
use risk_engine_core::spec::{Comparison, Method, Mode, SpecFields};

/// Monte Carlo variants: methods × modes × antithetic × what-if × importance sampling × factor form.
pub fn monte_carlo_specs() -> Vec<(String, SpecFields)> {
    let mut out = Vec::new();
    for method in [Method::MonteCarloNormal, Method::MonteCarloStudentT] {
        for mode in [Mode::BuyAndHold, Mode::Rebalanced] {
            for (antithetic, what_if, importance) in [
                (false, false, false),
                (true, false, false),
                (false, true, false),
                (false, false, true),
                (true, true, true),
            ] {
                let mut f = spec(method, mode, 1_500);
                f.antithetic = antithetic;
                f.importance_sampling = importance;
                if what_if {
                    f.books.push(book(1_200_000.0, &[0.2, 0.5, 0.3]));
                    f.comparison = Comparison::WhatIf;
                }
                let name = format!(
                    "{method:?} {mode:?} antithetic={antithetic} what_if={what_if} is={importance}"
                );
                out.push((name, f));
            }
        }
    }
    // Loadings (n × m) instead of the triangular factor, a short horizon, few bins.
    let mut f = spec(Method::MonteCarloNormal, Mode::Rebalanced, 700);
    f.factor = (0..6).map(|k| 0.004 + 0.002 * k as f64).collect();
    f.factor_columns = 2;
    f.horizon = 3;
    f.histogram_bins = 7;
    f.confidence = 0.975;
    out.push(("loadings rebalanced".to_string(), f.clone()));
    f.importance_sampling = true;
    f.mode = Mode::BuyAndHold;
    out.push(("loadings buy-and-hold is".to_string(), f));
    // Many books, a seed near the top of the exact range, a long horizon.
    let mut f = spec(Method::MonteCarloStudentT, Mode::BuyAndHold, 600);
    f.books = (0..5)
        .map(|b| book(1e5 * (b + 1) as f64, &[0.1 * b as f64, -0.3, 1.2]))
        .collect();
    f.seed = (1u64 << 53) - 1;
    f.horizon = 250;
    f.degrees_of_freedom = 30.0;
    out.push(("many books student-t".to_string(), f));
    // A wide book: 40 assets, so its P&L adds three groups' sums (16, 16 and 8 assets), long and
    // short, then with a what-if book.
    let n = 40;
    let mut f = spec(Method::MonteCarloNormal, Mode::BuyAndHold, 1_100);
    f.mean = (0..n).map(|i| 0.0002 * ((i % 7) as f64 - 3.0)).collect();
    f.factor = vec![0.0; n * n];
    for i in 0..n {
        f.factor[i * n + i] = 0.01 + 0.0005 * i as f64;
        if i > 0 {
            f.factor[i * n + i - 1] = 0.003;
        }
    }
    let long_short: Vec<f64> = (0..n)
        .map(|i| if i % 3 == 0 { -0.02 } else { 0.04 })
        .collect();
    f.books = vec![book(2_000_000.0, &long_short)];
    out.push(("wide buy-and-hold, three P&L groups".to_string(), f.clone()));
    let long: Vec<f64> = (0..n).map(|i| 0.02 + 0.0001 * i as f64).collect();
    f.books.push(book(1_000_000.0, &long));
    f.comparison = Comparison::WhatIf;
    out.push(("wide what-if, three P&L groups".to_string(), f));
    out
}

pub fn historical_specs() -> Vec<(String, SpecFields)> {
    let mut out = Vec::new();
    for mode in [Mode::BuyAndHold, Mode::Rebalanced] {
        for what_if in [false, true] {
            let mut f = historical_spec(mode, 900);
            if what_if {
                f.books.push(book(500_000.0, &[-0.4, 0.9, 0.5]));
                f.comparison = Comparison::WhatIf;
            }
            out.push((format!("historical {mode:?} what_if={what_if}"), f));
        }
    }
    out
}
