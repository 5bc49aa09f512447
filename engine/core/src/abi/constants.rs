//! The numbers both sides of the flat ABI must agree on, one name each. `OP_ABI` reports every one of
//! them by name (see `TABLE`), so the TypeScript binding can compare its own copies at load time.

pub use crate::error::{
    ERR_DEADLINE_EXCEEDED, ERR_INSUFFICIENT_DATA, ERR_INVALID_INPUT, ERR_LIMIT_EXCEEDED,
    ERR_OVERFLOW, ERR_TAILS_SHORT,
};
pub use crate::filter::variance::FILTER_SEED_RETURNS;
pub use crate::group_sums::{GROUP_SUMS_HEADER, PNL_GROUP, ROW_CACHE_PER_BLOCK};
pub use crate::limits::{
    MAX_BOOKS, MAX_BOOTSTRAP_STEPS, MAX_COUNT, MAX_EXACT_INT, MAX_OPTIONS, MAX_OPTION_SCENARIOS,
    MAX_PRICED_SCENARIOS, MAX_VOLATILITY, MIN_IMPORTANCE_DEGREES_OF_FREEDOM, MIN_VOLATILITY,
};
pub use crate::metrics::PERCENTILES;
pub use crate::parametric::COVARIANCE_DENSE;
pub use crate::spec::{BLOCK, FACTOR_TRIANGULAR};

// Operation codes of `call`.
pub const OP_ESTIMATE: u32 = 1;
pub const OP_SIMULATE: u32 = 2;
pub const OP_FINALIZE: u32 = 3;
pub const OP_PARAMETRIC: u32 = 4;
/// Simulate and finalize in one step (one task holds every block).
pub const OP_RUN: u32 = 5;
/// Benchmark only (cargo feature `bench-ops`): draw `count` normals of `seed`'s block streams.
/// Without the feature the code stays reserved and answers "unknown operation".
pub const OP_NORMALS: u32 = 6;
/// Benchmark only (cargo feature `bench-ops`, codes from 32, clear of the product's): the
/// no-FMA multiply-add peak and the dense kernels (see `abi::bench_kernels`). Reserved otherwise.
pub const OP_BENCH_PEAK: u32 = 32;
pub const OP_BENCH_COVARIANCE: u32 = 33;
pub const OP_BENCH_CORRELATE: u32 = 34;
/// This table: [0, count, then per constant: name length, name bytes, value].
pub const OP_ABI: u32 = 7;
/// Some rows of Σ for an estimation split over workers (see `estimation::covariance_part`).
pub const OP_COVARIANCE_PART: u32 = 8;
/// Conditional stress scenarios: each book symbol's conditional mean and deviation.
pub const OP_CONDITIONAL: u32 = 9;
/// The worst historical window of a book for each of some horizons.
pub const OP_WORST_WINDOW: u32 = 10;
/// A buy-and-hold spec's units (e^{R_i} − 1) over its range: [0, count, values], for live books.
pub const OP_UNITS: u32 = 11;
/// OP_SIMULATE on units OP_UNITS gave: input [count, units(count), spec].
pub const OP_SIMULATE_KEPT: u32 = 12;
/// GARCH(1,1) fits of some assets' returns (filtered historical simulation).
pub const OP_GARCH_FIT: u32 = 13;
/// Filtered history's T-day bootstrap paths (filter::bootstrap).
pub const OP_BOOTSTRAP_PATHS: u32 = 16;
/// Filtered history's variance filter at T = 1 (filter::variance).
pub const OP_FILTER: u32 = 18;
/// Kept units with one column per option (its P&L per unit, or Taylor step): see `codec::options`.
pub const OP_OPTION_UNITS: u32 = 14;
/// Options' price and Greeks per unit at their spot, now.
pub const OP_OPTION_GREEKS: u32 = 15;
/// A finalize split over workers: OP_FINALIZE's input for some of the partials, answered with
/// their exactly mergeable summary (merge::part_summary).
pub const OP_FINALIZE_PART: u32 = 19;
/// OP_FINALIZE given its parts: input [parts, OP_FINALIZE_PART results…, then OP_FINALIZE's input].
pub const OP_FINALIZE_SPLIT: u32 = 20;
/// OP_SIMULATE_KEPT with options priced block by block where they are used (the answer of
/// OP_SIMULATE_KEPT on OP_OPTION_UNITS's, without it): its lead the kept scenarios, then OP_OPTION_UNITS's
/// header and option fields, then the spec over the assets and one column per option.
pub const OP_SIMULATE_OPTIONS: u32 = 21;
/// OP_SIMULATE keeping tails sized to the task's own share of the scenarios (`Spec::task_tail`,
/// `Spec::task_worst_tail`) rather than the calculation's whole: the same merged figures, bit for bit, or ERR_TAILS_SHORT
/// from the merge when a kept tail cannot be proved long enough (the host then uses OP_SIMULATE).
pub const OP_SIMULATE_OWN_TAILS: u32 = 22;

/// Option layouts: OP_OPTION_UNITS header [assets, horizon, options] after the units; per option
/// [underlying, valuation, type, model, spot, strike, σ, r, q, τ, fx unit] (fx unit: the column
/// of e^{F} − 1 converting the option's currency into the reporting one, or OPTION_NO_FX).
pub const OPTION_HEADER_LEN: usize = 3;
pub const OPTION_FIELDS: usize = 11;
/// An option priced in the reporting currency: no FX unit column.
pub const OPTION_NO_FX: usize = 4_294_967_295;
pub const OPTION_CALL: usize = 0;
pub const OPTION_PUT: usize = 1;
pub const MODEL_BLACK_SCHOLES: usize = 0;
pub const MODEL_BLACK76: usize = 1;
pub const VALUATION_FULL: usize = 0;
pub const VALUATION_DELTA_GAMMA: usize = 1;
pub const VALUATION_DELTA: usize = 2;
/// A sensitivity given by the caller (api.md §15): [underlying, VALUATION_GIVEN, 0, 0, δ, γ, 0, 0, 0, 0, OPTION_NO_FX].
pub const VALUATION_GIVEN: usize = 3;

// Method codes, the first word of a spec.
pub const METHOD_MONTE_CARLO_NORMAL: usize = 0;
pub const METHOD_MONTE_CARLO_STUDENT_T: usize = 1;
pub const METHOD_HISTORICAL: usize = 2;

// Mode codes, the second word of a spec (read as a flag: any other value is rebalanced).
pub const MODE_BUY_AND_HOLD: usize = 0;
pub const MODE_REBALANCED: usize = 1;

/// Estimation input: [dates, assets, lookback, zero drift, ewma, λ, covariance given] before the
/// prices (and the given covariance's lower triangle).
pub const ESTIMATION_HEADER_LEN: usize = 7;
/// Covariance part input: [part, parts] before an estimation input.
pub const COVARIANCE_PART_HEADER_LEN: usize = 2;
/// Covariance part result, status word included: [0, loadings, first row, end row].
pub const COVARIANCE_PART_RESULT_HEADER_LEN: usize = 4;
/// Spec: [method, mode, n, books, T, ν, seed, antithetic, N, c, bins, first, end, budget ms,
/// comparison, variance reduction]; per book [capital, weights(n)] follow.
pub const SPEC_HEADER_LEN: usize = 16;
/// Partial, status word included: [0, N, n, c, books, bins, comparison, lanes, first, count,
/// worst count, tail count, weighted, ranked].
pub const PARTIAL_HEADER_LEN: usize = 14;
/// Variance reduction codes, the last word of a spec's header: none, or importance sampling.
pub const VARIANCE_REDUCTION_NONE: usize = 0;
pub const VARIANCE_REDUCTION_IMPORTANCE_SAMPLING: usize = 1;
/// Estimation result, status word included: [0, observations, first date, last date, jitter,
/// factor columns].
pub const ESTIMATION_RESULT_HEADER_LEN: usize = 6;
/// Results header, status word included: [0, books, comparison]; per book its metrics follow.
pub const RESULTS_HEADER_LEN: usize = 3;
/// A what-if's figures after the books: [incremental VaR, incremental ES, their standard errors].
pub const COMPARISON_FIGURES: usize = 4;
/// Comparison codes: none, or a what-if of book 1 (after) against book 0 (before).
pub const COMPARISON_NONE: usize = 0;
pub const COMPARISON_WHAT_IF: usize = 1;
/// Metrics scalars of a book: N, VaR, ES, mean, volatility, P(loss), worst, best,
/// VaR SE, ES SE; the PERCENTILES percentiles follow.
pub const METRICS_SCALARS: usize = 10;
/// Parametric input: [n, books, T, c, comparison]; per book [capital, weights(n)], then mean(n),
/// and (COVARIANCE_DENSE, Σ(n²)) or (m, loadings(n·m)).
pub const PARAMETRIC_HEADER_LEN: usize = 5;
/// Conditional input: [budget ms, n, own, columns, jitter, scenarios]; mean(n), Σ or loadings,
/// then per scenario [horizon, shocked, (index, log shock) per shocked symbol].
pub const CONDITIONAL_HEADER_LEN: usize = 6;
/// Conditional result, status word included: [0, scenarios, own]; per scenario means, deviations.
pub const CONDITIONAL_RESULT_HEADER_LEN: usize = 3;
/// Worst-window input: [budget ms, rows, assets, horizons]; horizons, exposures, prices.
pub const WORST_WINDOW_HEADER_LEN: usize = 4;
/// Worst-window result, status word included: [0, horizons]; each horizon's start row.
pub const WORST_WINDOW_RESULT_HEADER_LEN: usize = 2;
/// The start row of a horizon longer than the rows span.
pub const WORST_WINDOW_NONE: f64 = -1.0;
/// GARCH fit input: [budget ms, observations, assets]; returns [observation][asset].
pub const GARCH_FIT_HEADER_LEN: usize = 3;
/// GARCH fit result, status word included: [0, assets]; per asset GARCH_FIT_WORDS words.
pub const GARCH_FIT_RESULT_HEADER_LEN: usize = 2;
/// Per asset: ω, α, β, log-likelihood, usable (1) or not (0: fall back to EWMA; the four numbers
/// are then placeholders, finite).
pub const GARCH_FIT_WORDS: usize = 5;
/// Bootstrap input: [budget ms, observations, assets, horizon, paths, seed, first path, end path];
/// σ_{m+1}, ω, α, β per asset and z [observation][asset] follow.
pub const BOOTSTRAP_HEADER_LEN: usize = 8;
/// Bootstrap result, status word included: [0, paths, assets]; [path][asset] T-day log returns.
pub const BOOTSTRAP_RESULT_HEADER_LEN: usize = 3;

/// Variance filter input after its lead [length, returns [observation][asset]]: [observations,
/// assets, standardised 1 or 0]; ω, α, β per asset follow.
pub const FILTER_HEADER_LEN: usize = 3;
/// Variance filter result, status word included: [0, observations, assets, standardised 1 or 0];
/// σ_{m+1}, the long-run volatility, r̃ and (if asked) z follow.
pub const FILTER_RESULT_HEADER_LEN: usize = 4;

// The crate version, from the build (never read from Cargo.toml at run time).
pub const VERSION_MAJOR: u32 = parse_version_part(env!("CARGO_PKG_VERSION_MAJOR"));
pub const VERSION_MINOR: u32 = parse_version_part(env!("CARGO_PKG_VERSION_MINOR"));
pub const VERSION_PATCH: u32 = parse_version_part(env!("CARGO_PKG_VERSION_PATCH"));

/// Decimal digits to a number, at compile time (a non-digit fails the build).
const fn parse_version_part(digits: &str) -> u32 {
    let bytes = digits.as_bytes();
    assert!(!bytes.is_empty(), "empty version part");
    let mut value = 0u32;
    let mut i = 0;
    while i < bytes.len() {
        assert!(bytes[i].is_ascii_digit(), "version parts are decimal");
        value = value * 10 + (bytes[i] - b'0') as u32;
        i += 1;
    }
    value
}

/// (name, value) of each listed constant, the name spelled by the compiler, never by hand.
macro_rules! table {
    ($($name:ident),* $(,)?) => {
        &[$((stringify!($name), $name as f64)),*]
    };
}

/// Every constant above, in the fixed order `OP_ABI` reports them.
#[allow(clippy::unnecessary_cast)] // the list mixes u32, u64, usize and f64 constants
pub const TABLE: &[(&str, f64)] = table![
    OP_ESTIMATE,
    OP_SIMULATE,
    OP_FINALIZE,
    OP_PARAMETRIC,
    OP_RUN,
    OP_NORMALS,
    OP_BENCH_PEAK,
    OP_BENCH_COVARIANCE,
    OP_BENCH_CORRELATE,
    OP_ABI,
    OP_COVARIANCE_PART,
    OP_CONDITIONAL,
    OP_WORST_WINDOW,
    OP_UNITS,
    OP_SIMULATE_KEPT,
    OP_GARCH_FIT,
    OP_BOOTSTRAP_PATHS,
    OP_OPTION_UNITS,
    OP_OPTION_GREEKS,
    OP_FILTER,
    OP_FINALIZE_PART,
    OP_FINALIZE_SPLIT,
    OP_SIMULATE_OPTIONS,
    OP_SIMULATE_OWN_TAILS,
    BLOCK,
    PNL_GROUP,
    GROUP_SUMS_HEADER,
    ROW_CACHE_PER_BLOCK,
    FACTOR_TRIANGULAR,
    METHOD_MONTE_CARLO_NORMAL,
    METHOD_MONTE_CARLO_STUDENT_T,
    METHOD_HISTORICAL,
    MODE_BUY_AND_HOLD,
    MODE_REBALANCED,
    ESTIMATION_HEADER_LEN,
    COVARIANCE_PART_HEADER_LEN,
    COVARIANCE_PART_RESULT_HEADER_LEN,
    SPEC_HEADER_LEN,
    PARTIAL_HEADER_LEN,
    ESTIMATION_RESULT_HEADER_LEN,
    RESULTS_HEADER_LEN,
    COMPARISON_FIGURES,
    COMPARISON_NONE,
    COMPARISON_WHAT_IF,
    VARIANCE_REDUCTION_NONE,
    VARIANCE_REDUCTION_IMPORTANCE_SAMPLING,
    METRICS_SCALARS,
    PERCENTILES,
    PARAMETRIC_HEADER_LEN,
    COVARIANCE_DENSE,
    CONDITIONAL_HEADER_LEN,
    CONDITIONAL_RESULT_HEADER_LEN,
    WORST_WINDOW_HEADER_LEN,
    WORST_WINDOW_RESULT_HEADER_LEN,
    WORST_WINDOW_NONE,
    GARCH_FIT_HEADER_LEN,
    GARCH_FIT_RESULT_HEADER_LEN,
    GARCH_FIT_WORDS,
    BOOTSTRAP_HEADER_LEN,
    BOOTSTRAP_RESULT_HEADER_LEN,
    FILTER_HEADER_LEN,
    FILTER_RESULT_HEADER_LEN,
    FILTER_SEED_RETURNS,
    ERR_INVALID_INPUT,
    ERR_INSUFFICIENT_DATA,
    ERR_LIMIT_EXCEEDED,
    ERR_DEADLINE_EXCEEDED,
    ERR_OVERFLOW,
    ERR_TAILS_SHORT,
    MAX_BOOKS,
    MAX_PRICED_SCENARIOS,
    MAX_COUNT,
    MAX_EXACT_INT,
    MIN_IMPORTANCE_DEGREES_OF_FREEDOM,
    MAX_BOOTSTRAP_STEPS,
    OPTION_HEADER_LEN,
    OPTION_FIELDS,
    OPTION_NO_FX,
    OPTION_CALL,
    OPTION_PUT,
    MODEL_BLACK_SCHOLES,
    MODEL_BLACK76,
    VALUATION_FULL,
    VALUATION_DELTA_GAMMA,
    VALUATION_DELTA,
    VALUATION_GIVEN,
    MAX_OPTIONS,
    MAX_OPTION_SCENARIOS,
    MIN_VOLATILITY,
    MAX_VOLATILITY,
    VERSION_MAJOR,
    VERSION_MINOR,
    VERSION_PATCH,
];

/// The `OP_ABI` result: [0, count, then per constant: name length, name bytes, value].
pub fn encode_table() -> Vec<f64> {
    let mut out = vec![0.0, TABLE.len() as f64];
    for (name, value) in TABLE {
        out.push(name.len() as f64);
        out.extend(name.bytes().map(f64::from));
        out.push(*value);
    }
    out
}
