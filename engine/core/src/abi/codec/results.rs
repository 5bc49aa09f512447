//! Every book's figures and the comparison (`OP_FINALIZE`, `OP_RUN`, `OP_PARAMETRIC`).

use crate::abi::constants::{COMPARISON_NONE, COMPARISON_WHAT_IF, METRICS_SCALARS};
use crate::metrics::{Metrics, Results};

/// Results layout: [0, books, comparison], per book [N, VaR, ES, mean, volatility, P(loss), worst,
/// best, VaR SE, ES SE, percentiles(9), n, component ES(n), standalone VaR(n), component VaR(n),
/// bins, edges(bins + 1 or 0), counts(bins)], then with a what-if [incremental VaR, incremental
/// ES, their standard errors].
pub fn encode_results(results: &Results) -> Vec<f64> {
    let comparison = if results.what_if.is_some() {
        COMPARISON_WHAT_IF
    } else {
        COMPARISON_NONE
    };
    let mut out = vec![0.0, results.books.len() as f64, comparison as f64];
    for m in &results.books {
        encode_metrics(&mut out, m);
    }
    if let Some(w) = &results.what_if {
        out.extend_from_slice(&[
            w.incremental_var,
            w.incremental_es,
            w.incremental_var_standard_error,
            w.incremental_es_standard_error,
        ]);
    }
    out
}

fn encode_metrics(out: &mut Vec<f64>, m: &Metrics) {
    let scalars: [f64; METRICS_SCALARS] = [
        m.scenarios as f64,
        m.value_at_risk,
        m.expected_shortfall,
        m.expected_pnl,
        m.volatility,
        m.probability_of_loss,
        m.worst_loss,
        m.best_gain,
        m.value_at_risk_standard_error,
        m.expected_shortfall_standard_error,
    ];
    out.extend_from_slice(&scalars);
    out.extend_from_slice(&m.percentiles);
    out.push(m.component_es.len() as f64);
    out.extend_from_slice(&m.component_es);
    out.extend_from_slice(&m.standalone_var);
    out.extend_from_slice(&m.component_var);
    out.push(m.counts.len() as f64);
    out.extend_from_slice(&m.bin_edges);
    out.extend_from_slice(&m.counts);
}
