/**
 * The engine ABI's constants, each under the name it has in Rust (engine/core/src/abi/constants.rs).
 * The engine reports its own values through OP_ABI; `readAbi` (abi-check.ts) compares them with
 * these when an engine is loaded, so a build whose layout drifted from this binding is refused at once.
 */
export const ABI = {
  OP_ESTIMATE: 1,
  OP_SIMULATE: 2,
  OP_FINALIZE: 3,
  OP_PARAMETRIC: 4,
  OP_RUN: 5,
  /** Benchmark builds only (cargo feature bench-ops). */
  OP_NORMALS: 6,
  /** Benchmark builds only: the no-FMA multiply-add peak and the dense kernels (bench/lib/kernel-bench.ts). */
  OP_BENCH_PEAK: 32,
  OP_BENCH_COVARIANCE: 33,
  OP_BENCH_CORRELATE: 34,
  OP_ABI: 7,
  /** Some rows of Σ, for an estimation split over workers. */
  OP_COVARIANCE_PART: 8,
  /** Conditional stress scenarios: each book symbol's conditional mean and deviation. */
  OP_CONDITIONAL: 9,
  /** The worst historical window of a book for each of some horizons. */
  OP_WORST_WINDOW: 10,
  /** A buy-and-hold spec's units e^{R_i} − 1 over its range, kept by a live book. */
  OP_UNITS: 11,
  /** OP_SIMULATE on kept units: input [count, units, spec]. */
  OP_SIMULATE_KEPT: 12,
  /** GARCH(1,1) fits of some assets' returns (filtered historical simulation). */
  OP_GARCH_FIT: 13,
  /** Filtered history's T-day bootstrap paths (engine/core/src/filter/bootstrap.rs). */
  OP_BOOTSTRAP_PATHS: 16,
  /** Filtered history's variance filter at T = 1 (engine/core/src/filter/variance.rs). */
  OP_FILTER: 18,
  /** Kept units with one column per option: its P&L per unit on each scenario (or a Taylor step). */
  OP_OPTION_UNITS: 14,
  /** Options' price and Greeks per unit at their spot, now. */
  OP_OPTION_GREEKS: 15,
  /** A finalize split over workers: OP_FINALIZE's input for some partials, answered with their exactly mergeable summary. */
  OP_FINALIZE_PART: 19,
  /** OP_FINALIZE given its parts: [parts, OP_FINALIZE_PART results…, then OP_FINALIZE's input]. */
  OP_FINALIZE_SPLIT: 20,
  /** OP_SIMULATE_KEPT with options priced block by block where they are used: lead the kept units, input [OP_OPTION_UNITS' header and fields, spec]. */
  OP_SIMULATE_OPTIONS: 21,
  /** OP_SIMULATE keeping each tail to the task's own share and a margin: the same merged figures, or ERR_TAILS_SHORT from OP_FINALIZE (then simulate again with OP_SIMULATE). */
  OP_SIMULATE_OWN_TAILS: 22,
  BLOCK: 256,
  /** Assets a buy-and-hold book's P&L adds up on their own before adding the groups' sums (a live book keeps them between ticks). */
  PNL_GROUP: 16,
  /** Words of kept group sums before the exposures they were summed for: [state, books, assets, first block, end block]. */
  GROUP_SUMS_HEADER: 5,
  /** Worst scenarios' unit rows a live book's group sums memory keeps per book and block, after the sums: [rows held, their indices, the rows]. */
  ROW_CACHE_PER_BLOCK: 16,
  /** `factor columns` of an n×n lower-triangular (Cholesky) covariance factor; else m loadings. */
  FACTOR_TRIANGULAR: 0,
  METHOD_MONTE_CARLO_NORMAL: 0,
  METHOD_MONTE_CARLO_STUDENT_T: 1,
  METHOD_HISTORICAL: 2,
  MODE_BUY_AND_HOLD: 0,
  MODE_REBALANCED: 1,
  ESTIMATION_HEADER_LEN: 7,
  COVARIANCE_PART_HEADER_LEN: 2,
  COVARIANCE_PART_RESULT_HEADER_LEN: 4,
  ESTIMATION_RESULT_HEADER_LEN: 6,
  SPEC_HEADER_LEN: 16,
  PARTIAL_HEADER_LEN: 14,
  PARAMETRIC_HEADER_LEN: 5,
  /** The parametric input's `columns` word before a dense Σ (else the loadings' m). */
  COVARIANCE_DENSE: 0,
  CONDITIONAL_HEADER_LEN: 6,
  CONDITIONAL_RESULT_HEADER_LEN: 3,
  WORST_WINDOW_HEADER_LEN: 4,
  WORST_WINDOW_RESULT_HEADER_LEN: 2,
  /** A worst-window result's start row when the price rows span fewer days than the horizon. */
  WORST_WINDOW_NONE: -1,
  GARCH_FIT_HEADER_LEN: 3,
  GARCH_FIT_RESULT_HEADER_LEN: 2,
  /** Per asset: ω, α, β, log-likelihood, usable (1) or not (0: fall back to EWMA; the four numbers are then placeholders, finite). */
  GARCH_FIT_WORDS: 5,
  /** [budget ms, observations, assets, horizon, paths, seed, first path, end path]; σ_{m+1}, ω, α, β, z follow. */
  BOOTSTRAP_HEADER_LEN: 8,
  /** [0, paths, assets]; the paths' T-day log returns follow. */
  BOOTSTRAP_RESULT_HEADER_LEN: 3,
  /** [observations, assets, standardised 1 or 0]; ω, α, β per asset and the returns follow. */
  FILTER_HEADER_LEN: 3,
  /** [0, observations, assets, standardised 1 or 0]; σ_{m+1}, long-run volatility, r̃ and z follow. */
  FILTER_RESULT_HEADER_LEN: 4,
  /** Returns over which the filter's first variance σ²_1 is the mean of r² (api.md §16). */
  FILTER_SEED_RETURNS: 30,
  RESULTS_HEADER_LEN: 3,
  COMPARISON_FIGURES: 4,
  COMPARISON_NONE: 0,
  COMPARISON_WHAT_IF: 1,
  VARIANCE_REDUCTION_NONE: 0,
  VARIANCE_REDUCTION_IMPORTANCE_SAMPLING: 1,
  METRICS_SCALARS: 10,
  PERCENTILES: 9,
  ERR_INVALID_INPUT: 1,
  ERR_INSUFFICIENT_DATA: 2,
  ERR_LIMIT_EXCEEDED: 3,
  ERR_DEADLINE_EXCEEDED: 4,
  ERR_OVERFLOW: 5,
  /** OP_FINALIZE over OP_SIMULATE_OWN_TAILS partials could not prove a kept tail long enough (never over OP_SIMULATE's). */
  ERR_TAILS_SHORT: 6,
  MAX_BOOKS: 1000,
  /** Books × scenarios of one calculation (the P&L values it keeps). */
  MAX_PRICED_SCENARIOS: 100_000_000,
  MAX_COUNT: 4_294_967_295,
  MAX_EXACT_INT: Number.MAX_SAFE_INTEGER,
  /** Fewest Student-t degrees of freedom importance sampling accepts. */
  MIN_IMPORTANCE_DEGREES_OF_FREEDOM: 5,
  /** Simulations × time_horizon × assets of filtered history's bootstrap. */
  MAX_BOOTSTRAP_STEPS: 20_000_000,
  /** OP_OPTION_UNITS header after the units: [assets, horizon, options]. */
  OPTION_HEADER_LEN: 3,
  /** Per option: [underlying, valuation, type, model, spot, strike, σ, r, q, τ, fx unit]; fx unit the column of e^{F} − 1 (or OPTION_NO_FX). */
  OPTION_FIELDS: 11,
  /** An option priced in the reporting currency: no FX unit column. */
  OPTION_NO_FX: 4_294_967_295,
  OPTION_CALL: 0,
  OPTION_PUT: 1,
  MODEL_BLACK_SCHOLES: 0,
  MODEL_BLACK76: 1,
  VALUATION_FULL: 0,
  VALUATION_DELTA_GAMMA: 1,
  VALUATION_DELTA: 2,
  /** A sensitivity given by the caller: [underlying, VALUATION_GIVEN, 0, 0, δ, γ, 0, 0, 0, 0, OPTION_NO_FX]. */
  VALUATION_GIVEN: 3,
  /** Option positions per calculation. */
  MAX_OPTIONS: 1000,
  /** Options × scenarios one calculation revalues. */
  MAX_OPTION_SCENARIOS: 100_000_000,
  /** An option's volatility per year, MIN_VOLATILITY to MAX_VOLATILITY (the contract's OPTION_BOUNDS). */
  MIN_VOLATILITY: 1e-6,
  MAX_VOLATILITY: 5,
} as const;
