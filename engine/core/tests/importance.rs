//! Importance sampling: the weighted figures estimate the same model as plain Monte Carlo, hit the
//! closed forms, report honest standard errors, and do it with far smaller ones.
mod common;

use common::*;
use risk_engine_core::metrics::Metrics;
use risk_engine_core::spec::{Comparison, Method, Mode, SpecFields, FACTOR_TRIANGULAR};

/// Oracle (oracles.md): one asset, μ = 0.0005, σ = 0.02, T = 10, c = 0.99, buy-and-hold normal.
const VAR_PCT: f64 = 0.132_492_531_7;
const ES_PCT: f64 = 0.150_724_164_5;

fn one_asset(scenarios: usize, seed: u64, confidence: f64) -> SpecFields {
    let mut f = spec(Method::MonteCarloNormal, Mode::BuyAndHold, scenarios);
    f.books = vec![book(1.0, &[1.0])];
    f.mean = vec![0.0005];
    f.factor = vec![0.02];
    f.factor_columns = FACTOR_TRIANGULAR;
    f.seed = seed;
    f.confidence = confidence;
    f.importance_sampling = true;
    f
}

fn plain(mut f: SpecFields) -> SpecFields {
    f.importance_sampling = false;
    f
}

fn within(m: &Metrics, var: f64, es: f64, sigmas: f64) -> bool {
    (m.value_at_risk - var).abs() <= sigmas * m.value_at_risk_standard_error
        && (m.expected_shortfall - es).abs() <= sigmas * m.expected_shortfall_standard_error
}

#[test]
fn the_single_asset_closed_form_lies_within_three_standard_errors() {
    let mut misses = 0;
    for seed in 0..20 {
        let m = run(&one_asset(20_000, seed, 0.99));
        misses += usize::from(!within(&m, VAR_PCT, ES_PCT, 3.0));
        assert!(m.value_at_risk_standard_error > 0.0 && m.expected_shortfall_standard_error > 0.0);
    }
    // Three standard errors miss about 0.3 % of the time; 20 seeds may see one.
    assert!(misses <= 1, "{misses} of 20 seeds outside 3 SE");
}

#[test]
fn the_standard_errors_shrink_far_below_plain_monte_carlo() {
    for (confidence, least) in [(0.95, 5.0), (0.99, 20.0), (0.999, 100.0)] {
        let weighted = run(&one_asset(50_000, 7, confidence));
        let unweighted = run(&plain(one_asset(50_000, 7, confidence)));
        let factor = (unweighted.expected_shortfall_standard_error
            / weighted.expected_shortfall_standard_error)
            .powi(2);
        assert!(
            factor >= least,
            "ES variance reduction at {confidence}: {factor:.1} (at least {least})"
        );
    }
}

#[test]
fn the_reported_standard_error_matches_the_spread_over_seeds() {
    let runs: Vec<Metrics> = (100..300)
        .map(|seed| run(&one_asset(8_192, seed, 0.99)))
        .collect();
    let spread = |figure: &dyn Fn(&Metrics) -> f64| {
        let xs: Vec<f64> = runs.iter().map(figure).collect();
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (xs.len() - 1) as f64).sqrt()
    };
    let mean_of = |figure: &dyn Fn(&Metrics) -> f64| runs.iter().map(figure).sum::<f64>() / 200.0;
    for (name, sd, se) in [
        (
            "VaR",
            spread(&|m| m.value_at_risk),
            mean_of(&|m| m.value_at_risk_standard_error),
        ),
        (
            "ES",
            spread(&|m| m.expected_shortfall),
            mean_of(&|m| m.expected_shortfall_standard_error),
        ),
    ] {
        assert!(
            (se / sd - 1.0).abs() <= 0.2,
            "{name}: SE {se:e}, spread {sd:e}"
        );
    }
}

/// Plain and weighted runs of the three-asset book agree within their combined standard errors,
/// for every Monte Carlo model the option applies to; failures are counted against the rate.
#[test]
fn weighted_and_plain_figures_agree_on_every_model() {
    let models = [
        (Method::MonteCarloNormal, Mode::BuyAndHold, false),
        (Method::MonteCarloNormal, Mode::BuyAndHold, true),
        (Method::MonteCarloStudentT, Mode::BuyAndHold, false),
        (Method::MonteCarloNormal, Mode::Rebalanced, false),
        (Method::MonteCarloStudentT, Mode::Rebalanced, false),
    ];
    let mut misses = 0;
    let mut cases = 0;
    for (method, mode, antithetic) in models {
        let (mut plain_variance, mut weighted_variance) = (0.0, 0.0);
        for seed in 0..6 {
            let mut f = spec(method, mode, 20_000);
            f.seed = 1_000 + seed;
            f.horizon = 5;
            f.antithetic = antithetic;
            f.books = vec![book(1e6, &[0.7, -0.5, 0.8])];
            let p = run(&f);
            f.importance_sampling = true;
            let w = run(&f);
            let var_se = p
                .value_at_risk_standard_error
                .hypot(w.value_at_risk_standard_error);
            let es_se = p
                .expected_shortfall_standard_error
                .hypot(w.expected_shortfall_standard_error);
            cases += 2;
            misses += usize::from((p.value_at_risk - w.value_at_risk).abs() > 3.0 * var_se);
            misses +=
                usize::from((p.expected_shortfall - w.expected_shortfall).abs() > 3.0 * es_se);
            plain_variance += p.expected_shortfall_standard_error.powi(2);
            weighted_variance += w.expected_shortfall_standard_error.powi(2);
            let components: f64 = w.component_es.iter().sum();
            assert!((components - w.expected_shortfall).abs() <= 1e-9 * w.expected_shortfall);
            let parts: f64 = w.component_var.iter().sum();
            assert!((parts - w.value_at_risk).abs() <= 1e-9 * w.value_at_risk);
        }
        // Measured: normal models 30–190×, Student-t at ν = 5 3–5× (see `importance_shift`).
        let least = if method == Method::MonteCarloStudentT {
            2.0
        } else {
            10.0
        };
        assert!(
            weighted_variance < plain_variance / least,
            "{method:?} {mode:?}: weighted ES variance {weighted_variance:e}, plain {plain_variance:e}"
        );
    }
    // 3 SE: about 0.3 % per comparison; 60 comparisons expect 0.16 misses.
    assert!(
        misses <= 2,
        "{misses} of {cases} comparisons outside 3 combined SE"
    );
}

/// The likelihood ratios average to one (the weighted histogram holds N scenarios in
/// expectation): the mean over seeds of Σw/N against its own standard error. Their variance,
/// e^{a²} − 1, is why the option is for the tail: the centre of the distribution is far noisier.
#[test]
fn the_likelihood_ratios_average_to_one() {
    let totals: Vec<f64> = (0..40)
        .map(|seed| {
            let mut f = spec(Method::MonteCarloNormal, Mode::BuyAndHold, 20_000);
            f.seed = 5_000 + seed;
            f.importance_sampling = true;
            run(&f).counts.iter().sum::<f64>() / 20_000.0
        })
        .collect();
    let mean = totals.iter().sum::<f64>() / 40.0;
    let sd = (totals.iter().map(|t| (t - mean).powi(2)).sum::<f64>() / 39.0).sqrt();
    assert!(
        (mean - 1.0).abs() <= 4.0 * sd / 40f64.sqrt(),
        "mean Σw/N {mean} (sd {sd})"
    );
}

#[test]
fn standalone_var_estimates_each_asset_alone() {
    let mut f = spec(Method::MonteCarloNormal, Mode::BuyAndHold, 40_000);
    f.books = vec![book(1e6, &[0.5, 0.3, 0.2])];
    let p = run(&f);
    f.importance_sampling = true;
    let w = run(&f);
    for (a, b) in p.standalone_var.iter().zip(&w.standalone_var) {
        assert!((a / b - 1.0).abs() < 0.05, "standalone VaR {a} vs {b}");
    }
}

#[test]
fn a_split_run_gives_the_bits_of_one_task() {
    let mut f = spec(Method::MonteCarloStudentT, Mode::Rebalanced, 3_000);
    f.importance_sampling = true;
    f.books = vec![book(1e6, &[0.5, 0.3, 0.2]), book(1e6, &[0.6, 0.3, 0.2])];
    f.comparison = Comparison::WhatIf;
    let whole = run_split(&f, &[]);
    assert_eq!(whole[0], 0.0);
    assert_eq!(whole, run_split(&f, &[3]));
    assert_eq!(whole, run_split(&f, &[1, 5, 9]));
    assert!(run_all(&f).what_if.is_some());
}

#[test]
fn a_book_without_risk_draws_unshifted_and_unweighted() {
    let mut f = spec(Method::MonteCarloNormal, Mode::BuyAndHold, 2_000);
    f.books = vec![book(1e6, &[0.0, 0.0, 0.0])];
    f.importance_sampling = true;
    assert!(build(&f).shift().iter().all(|&t| t == 0.0));
    let mut g = f.clone();
    g.books = vec![book(1e6, &[0.5, 0.3, 0.2])];
    let w = run(&g);
    assert!(build(&g).shift().iter().any(|&t| t != 0.0));
    assert!(w.value_at_risk.is_finite());
}

#[test]
fn historical_specs_and_heavy_student_t_refuse_importance_sampling() {
    let mut f = historical_spec(Mode::BuyAndHold, 300);
    f.importance_sampling = true;
    assert!(risk_engine_core::spec::Spec::new(f).is_err());
    let mut t = spec(Method::MonteCarloStudentT, Mode::BuyAndHold, 300);
    t.importance_sampling = true;
    t.degrees_of_freedom = 4.0;
    assert!(risk_engine_core::spec::Spec::new(t.clone()).is_err());
    t.degrees_of_freedom = 5.0;
    assert!(risk_engine_core::spec::Spec::new(t).is_ok());
}
