//! Books with any sign, several books on one scenario set, and the what-if comparison: against
//! single-book runs, brute-force order statistics and the Euler identities.
mod common;

use common::*;
use risk_engine_core::kernels::{price_block, scaled_factor, Priced, Workspace};
use risk_engine_core::metrics::Metrics;
use risk_engine_core::select::rank_of_level;
use risk_engine_core::spec::{var_window, Book, Comparison, Method, Mode, SpecFields, BLOCK};

/// Every method and mode over the three-asset fixture, `scenarios` draws for Monte Carlo.
fn every_model(scenarios: usize) -> Vec<SpecFields> {
    let mut out = Vec::new();
    for mode in [Mode::BuyAndHold, Mode::Rebalanced] {
        out.push(spec(Method::MonteCarloNormal, mode, scenarios));
        out.push(spec(Method::MonteCarloStudentT, mode, scenarios));
        out.push(historical_spec(mode, 1_200));
    }
    out
}

/// Long/short, dollar-neutral, all-short and a book with a zero position: weights a = e / C.
fn desk_books() -> Vec<Book> {
    vec![
        book(2e6, &[0.75, -0.25, 0.0]),
        book(2e6, &[0.5, -0.5, 0.0]),
        book(1.5e6, &[-2.0 / 3.0, 0.0, -1.0 / 3.0]),
        book(1e6, &[0.5, 0.3, 0.2]),
    ]
}

fn same_bits(a: &Metrics, b: &Metrics) -> bool {
    let bits = |m: &Metrics| -> Vec<u64> {
        let mut v = vec![
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
        v.extend_from_slice(&m.percentiles);
        v.extend(
            m.component_es
                .iter()
                .chain(&m.component_var)
                .chain(&m.standalone_var),
        );
        v.extend(m.bin_edges.iter().chain(&m.counts));
        v.iter().map(|x| x.to_bits()).collect()
    };
    bits(a) == bits(b)
}

#[test]
fn each_book_of_a_batch_equals_its_single_run_bit_for_bit() {
    for base in every_model(3_000) {
        let mut batch = base.clone();
        batch.books = desk_books();
        let together = run_all(&batch);
        assert!(together.what_if.is_none());
        for (b, alone_book) in desk_books().into_iter().enumerate() {
            let mut single = base.clone();
            single.books = vec![alone_book];
            let alone = run(&single);
            assert!(
                same_bits(&together.books[b], &alone),
                "{:?} {:?} book {b}",
                base.method,
                base.mode
            );
        }
        // And across a split into tasks, through the flat ABI.
        let whole = run_split(&batch, &[]);
        assert_eq!(
            whole,
            run_split(&batch, &[1, blocks(&batch) - 1]),
            "{:?} {:?}",
            base.method,
            base.mode
        );
    }
}

/// Per-asset P&L of book 0 over every scenario, [asset][scenario], from the kernels directly.
fn asset_pnl(f: &SpecFields) -> Vec<Vec<f64>> {
    let spec = build(f);
    let n = spec.n_assets();
    let factor_t = scaled_factor(&spec);
    let mut ws = Workspace::new(n, 1);
    let mut out = vec![Vec::new(); n];
    for block in 0..spec.blocks() {
        let count = BLOCK.min(spec.scenarios() - block * BLOCK);
        price_block(&spec, &factor_t, &mut ws, block, &mut |priced| {
            if let Priced::Book {
                book: 0, assets, ..
            } = priced
            {
                for (i, col) in out.iter_mut().enumerate() {
                    col.extend((0..count).map(|s| assets.at(i, s)));
                }
            }
        });
    }
    out
}

#[test]
fn long_short_figures_follow_their_definitions() {
    for base in every_model(4_000) {
        for (b, desk) in desk_books().into_iter().enumerate() {
            let what = format!("{:?} {:?} book {b}", base.method, base.mode);
            let mut f = base.clone();
            f.books = vec![desk.clone()];
            let m = run(&f);
            assert!(m.all_finite(), "{what}");
            // Euler: components of ES and of VaR add up to the totals, for any signs.
            let es_sum: f64 = m.component_es.iter().sum();
            let var_sum: f64 = m.component_var.iter().sum();
            assert!(
                (es_sum / m.expected_shortfall - 1.0).abs() < 1e-9,
                "{what}: ES {es_sum} vs {}",
                m.expected_shortfall
            );
            assert!(
                (var_sum / m.value_at_risk - 1.0).abs() < 1e-9,
                "{what}: VaR {var_sum} vs {}",
                m.value_at_risk
            );
            // A zero position contributes nothing.
            for (i, w) in desk.weights.iter().enumerate() {
                if *w == 0.0 {
                    assert_eq!(
                        (m.component_es[i], m.component_var[i]),
                        (0.0, 0.0),
                        "{what}: asset {i}"
                    );
                }
            }
            // Standalone VaR: the k-th worst P&L of the asset on its own, shorts included.
            let columns = asset_pnl(&f);
            let n_scen = columns[0].len();
            let k = rank_of_level(1.0 - f.confidence, n_scen);
            for (i, col) in columns.iter().enumerate() {
                let mut sorted = col.clone();
                sorted.sort_by(f64::total_cmp);
                assert_eq!(
                    m.standalone_var[i],
                    -sorted[k - 1],
                    "{what}: standalone {i}"
                );
            }
            // Component VaR: the window of ranks k − m ..= k + m, rescaled to VaR.
            let portfolio: Vec<f64> = (0..n_scen)
                .map(|s| columns.iter().map(|c| c[s]).sum())
                .collect();
            let mut order: Vec<usize> = (0..n_scen).collect();
            order.sort_by(|&x, &y| portfolio[x].total_cmp(&portfolio[y]).then(x.cmp(&y)));
            let w = var_window(k);
            let window = &order[k.saturating_sub(w + 1)..(k + w).min(n_scen)];
            let raw: Vec<f64> = columns
                .iter()
                .map(|c| -window.iter().map(|&s| c[s]).sum::<f64>() / window.len() as f64)
                .collect();
            let total: f64 = raw.iter().sum();
            for (i, r) in raw.iter().enumerate() {
                let want = r * m.value_at_risk / total;
                assert!(
                    (m.component_var[i] - want).abs() <= 1e-9 * m.value_at_risk.abs(),
                    "{what}: component VaR {i}"
                );
            }
        }
    }
}

#[test]
fn a_short_book_loses_when_prices_rise() {
    let mut f = spec(Method::MonteCarloNormal, Mode::BuyAndHold, 20_000);
    f.books = vec![book(1e6, &[-1.0, 0.0, 0.0])];
    let short = run(&f);
    f.books = vec![book(1e6, &[1.0, 0.0, 0.0])];
    let long = run(&f);
    // The short's worst scenario is the long's best, and the other way round (same draws).
    assert_eq!(short.worst_loss, -long.best_gain);
    assert_eq!(short.best_gain, -long.worst_loss);
    assert!(short.value_at_risk > 0.0 && short.standalone_var[0] == short.value_at_risk);
}

#[test]
fn what_if_differences_have_far_smaller_errors_than_the_levels() {
    for base in every_model(100_000) {
        if base.method == Method::Historical {
            continue; // 1,200 returns: too few windows for batch errors to say much
        }
        let what = format!("{:?} {:?}", base.method, base.mode);
        let before = book(1e6, &[0.5, 0.3, 0.2]);
        // A small trade: +1 % of the capital in asset 2.
        let mut after = before.clone();
        after.weights[2] += 0.01;
        let mut f = base.clone();
        f.books = vec![before.clone(), after.clone()];
        f.comparison = Comparison::WhatIf;
        let r = run_all(&f);
        let w = r.what_if.expect("a what-if");
        let (b, a) = (&r.books[0], &r.books[1]);
        assert_eq!(
            w.incremental_var,
            a.value_at_risk - b.value_at_risk,
            "{what}"
        );
        assert_eq!(
            w.incremental_es,
            a.expected_shortfall - b.expected_shortfall,
            "{what}"
        );
        // Common random numbers: the difference's error is a small fraction of the level's.
        assert!(
            w.incremental_es_standard_error < 0.05 * b.expected_shortfall_standard_error,
            "{what}: {w:?} vs {}",
            b.expected_shortfall_standard_error
        );
        assert!(
            w.incremental_var_standard_error < 0.2 * b.value_at_risk_standard_error,
            "{what}: {w:?}"
        );
        // Euler: ΔES ≈ Δe · marginal ES of asset 2 (= component / exposure) within the error.
        let trade = 0.01 * 1e6;
        let marginal = b.component_es[2] / (1e6 * 0.2);
        let euler = trade * marginal;
        assert!(
            (w.incremental_es - euler).abs()
                < 4.0 * w.incremental_es_standard_error + 0.05 * euler.abs(),
            "{what}: ΔES {} vs Euler {euler} (se {})",
            w.incremental_es,
            w.incremental_es_standard_error
        );
    }
}

#[test]
fn euler_components_add_up_on_paths_that_swing_far_beyond_their_end() {
    // A 120× short, rebalanced daily for three years, passes near zero and changes sign: its gains
    // swing orders of magnitude beyond the final P&L, where summing them lost up to 6e-4 of ES.
    for (method, seed) in [Method::MonteCarloNormal, Method::MonteCarloStudentT]
        .into_iter()
        .flat_map(|m| (1..4).map(move |s| (m, s)))
    {
        for weights in [[-120.0, 0.0, 0.0], [-120.0, 70.0, 0.0]] {
            let mut f = spec(method, Mode::Rebalanced, 600);
            f.seed = seed;
            f.horizon = 774;
            f.confidence = 0.5;
            f.books = vec![book(2.4e7, &weights)];
            let m = run(&f);
            assert!(m.all_finite(), "{method:?} {weights:?}");
            let es_sum: f64 = m.component_es.iter().sum();
            assert!(
                (es_sum - m.expected_shortfall).abs() <= 1e-12 * m.expected_shortfall.abs(),
                "{method:?} {weights:?}: ES {es_sum} vs {}",
                m.expected_shortfall
            );
            assert_eq!(
                m.component_es[2], 0.0,
                "a zero position contributes nothing"
            );
        }
    }
}
