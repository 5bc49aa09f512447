//! Shared fixtures of the engine's integration tests. Fixtures are `SpecFields`, which a test may
//! alter freely (also into an invalid spec); `build` turns them into a `Spec` where one is needed.
#![allow(dead_code)]

pub mod estimation_input;
pub mod option_book;
pub mod pooled_tails;
pub mod task_split;

use risk_engine_core::abi::call;
use risk_engine_core::abi::codec::{decode_spec, encode_partial};
use risk_engine_core::abi::constants::{
    COMPARISON_NONE, COMPARISON_WHAT_IF, METHOD_HISTORICAL, METHOD_MONTE_CARLO_NORMAL,
    METHOD_MONTE_CARLO_STUDENT_T, MODE_BUY_AND_HOLD, MODE_REBALANCED, OP_FINALIZE, OP_RUN,
    OP_SIMULATE, PARTIAL_HEADER_LEN, SPEC_HEADER_LEN, VARIANCE_REDUCTION_IMPORTANCE_SAMPLING,
    VARIANCE_REDUCTION_NONE,
};
use risk_engine_core::deadline::Deadline;
use risk_engine_core::merge::finalize::{finalize, FinalizeParams};
use risk_engine_core::metrics::{Metrics, Results};
use risk_engine_core::simulate::simulate;
use risk_engine_core::spec::{
    BlockRange, Book, Comparison, Method, Mode, Spec, SpecFields, FACTOR_TRIANGULAR,
};

/// A book of capital C and weights a (exposures C·a).
pub fn book(capital: f64, weights: &[f64]) -> Book {
    Book {
        capital,
        weights: weights.to_vec(),
    }
}

/// Three assets with realistic daily moments and correlation.
pub fn three_assets() -> (Vec<f64>, Vec<f64>) {
    let vol = [0.012, 0.018, 0.009];
    let corr = [[1.0, 0.6, 0.3], [0.6, 1.0, 0.2], [0.3, 0.2, 1.0]];
    let mut cov = vec![0.0; 9];
    for i in 0..3 {
        for j in 0..3 {
            cov[i * 3 + j] = corr[i][j] * vol[i] * vol[j];
        }
    }
    (vec![0.0004, 0.0002, 0.0001], cov)
}

pub fn cholesky(cov: &[f64], n: usize) -> Vec<f64> {
    risk_engine_core::estimation::linalg::cholesky(cov, n).expect("positive definite")
}

pub fn spec(method: Method, mode: Mode, scenarios: usize) -> SpecFields {
    let (mean, cov) = three_assets();
    SpecFields {
        method,
        mode,
        books: vec![book(1_000_000.0, &[0.5, 0.3, 0.2])],
        comparison: Comparison::None,
        horizon: 10,
        degrees_of_freedom: 5.0,
        seed: 123_456_789,
        antithetic: false,
        importance_sampling: false,
        scenarios,
        confidence: 0.99,
        histogram_bins: 50,
        mean,
        factor: cholesky(&cov, 3),
        factor_columns: FACTOR_TRIANGULAR,
        returns: Vec::new(),
    }
}

/// Historical simulation over `obs` synthetic daily returns of the three assets.
pub fn historical_spec(mode: Mode, obs: usize) -> SpecFields {
    let mut s = spec(Method::Historical, mode, 0);
    s.factor = Vec::new();
    s.returns = synthetic_returns(obs, 3);
    s.scenarios = obs - s.horizon + 1;
    s
}

/// Deterministic pseudo-returns for historical tests.
pub fn synthetic_returns(obs: usize, n: usize) -> Vec<f64> {
    (0..obs * n)
        .map(|i| {
            let x = ((i as u64).wrapping_mul(2_654_435_761) % 10_007) as f64 / 10_007.0;
            (x - 0.5) * 0.04
        })
        .collect()
}

/// The spec of fixture fields that must be valid.
pub fn build(f: &SpecFields) -> Spec {
    Spec::new(f.clone()).expect("valid spec")
}

pub fn blocks(f: &SpecFields) -> usize {
    build(f).blocks()
}

/// Every book's figures (and the comparison) of one task that runs every block.
pub fn run_all(f: &SpecFields) -> Results {
    let spec = build(f);
    let partial = simulate(&spec, spec.all_blocks(), &Deadline::none()).expect("valid spec");
    finalize(&FinalizeParams::of(&spec), &mut [partial]).expect("finalize")
}

/// The first book's figures.
pub fn run(f: &SpecFields) -> Metrics {
    run_all(f).books.remove(0)
}

/// Encodes spec fields in the flat ABI layout (what the TypeScript side sends), unchecked.
pub fn encode_fields(f: &SpecFields, first: usize, end: usize) -> Vec<f64> {
    let n = f.books.first().map_or(0, |b| b.weights.len());
    let method = match f.method {
        Method::MonteCarloNormal => METHOD_MONTE_CARLO_NORMAL,
        Method::MonteCarloStudentT => METHOD_MONTE_CARLO_STUDENT_T,
        Method::Historical => METHOD_HISTORICAL,
    };
    let mode = match f.mode {
        Mode::BuyAndHold => MODE_BUY_AND_HOLD,
        Mode::Rebalanced => MODE_REBALANCED,
    };
    let header: [f64; SPEC_HEADER_LEN] = [
        method as f64,
        mode as f64,
        n as f64,
        f.books.len() as f64,
        f.horizon as f64,
        f.degrees_of_freedom,
        f.seed as f64,
        if f.antithetic { 1.0 } else { 0.0 },
        f.scenarios as f64,
        f.confidence,
        f.histogram_bins as f64,
        first as f64,
        end as f64,
        0.0, // no time budget
        match f.comparison {
            Comparison::None => COMPARISON_NONE,
            Comparison::WhatIf => COMPARISON_WHAT_IF,
        } as f64,
        if f.importance_sampling {
            VARIANCE_REDUCTION_IMPORTANCE_SAMPLING
        } else {
            VARIANCE_REDUCTION_NONE
        } as f64,
    ];
    let mut out = header.to_vec();
    for b in &f.books {
        out.push(b.capital);
        out.extend_from_slice(&b.weights);
    }
    out.extend_from_slice(&f.mean);
    if f.method == Method::Historical {
        out.push((f.returns.len() / n) as f64);
        out.extend_from_slice(&f.returns);
    } else {
        out.push(f.factor_columns as f64);
        out.extend_from_slice(&f.factor);
    }
    out
}

/// Encodes a valid spec, and checks that it decodes to the very same spec.
pub fn encode_spec(f: &SpecFields, first: usize, end: usize) -> Vec<f64> {
    let out = encode_fields(f, first, end);
    let (decoded, _, _) = decode_spec(&out).expect("round trip");
    assert!(decoded == build(f), "spec does not survive encoding");
    out
}

/// Runs through the flat ABI, split at the given block boundaries.
pub fn run_split(f: &SpecFields, cuts: &[usize]) -> Vec<f64> {
    let mut bounds = vec![0];
    bounds.extend_from_slice(cuts);
    bounds.push(blocks(f));
    if bounds.len() == 2 {
        return call(OP_RUN, &encode_spec(f, 0, blocks(f)));
    }
    let mut input = vec![(bounds.len() - 1) as f64];
    // Partials in reverse order: finalize must not depend on their order.
    for w in bounds.windows(2).rev() {
        let partial = call(OP_SIMULATE, &encode_spec(f, w[0], w[1]));
        assert_eq!(partial[0], 0.0, "simulate failed");
        input.extend(partial);
    }
    call(OP_FINALIZE, &input)
}

pub fn encode_partial_of(f: &SpecFields, range: BlockRange) -> Vec<f64> {
    let spec = build(f);
    encode_partial(&spec, &simulate(&spec, range, &Deadline::none()).unwrap())
}

/// Where the first book's P&L starts in an encoded partial: after the header, the books and the
/// shared per-asset tails.
pub fn pnl_offset(partial: &[f64]) -> usize {
    let (n, books, lanes, k) = (
        partial[2] as usize,
        partial[4] as usize,
        partial[7] as usize,
        partial[11] as usize,
    );
    // Weighted partials carry each scenario's likelihood ratio before the tails.
    let weights = if partial[12] == 1.0 {
        partial[9] as usize
    } else {
        0
    };
    PARTIAL_HEADER_LEN + books * (1 + n) + weights + lanes * n * k
}

/// A refused call's message: [code, detail, length, bytes…].
pub fn message(out: &[f64]) -> String {
    let len = out[2] as usize;
    out[3..3 + len].iter().map(|&b| b as u8 as char).collect()
}

/// SplitMix64: a dependency-free, reproducible stream for drawing test shapes and values.
pub struct Draw(pub u64);

impl Draw {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform on 0..n.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// Uniform on [0, 1), 53 bits.
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Equal lengths and every word's bits equal.
pub fn same_bits(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

/// A partial with each k-value tail in ascending order: a tail is a set (the merge reads it as one)
/// whose order comes from `select_nth_unstable`, which differs between std versions (1.63 for the
/// WASM build, stable natively) while every figure stays the same.
pub fn canonical_partial(p: &[f64]) -> Vec<f64> {
    let field = |i: usize| p[i] as usize;
    let (n, books, lanes, count, worst, k) =
        (field(2), field(4), field(7), field(9), field(10), field(11));
    let weights = if p[12] == 1.0 { count } else { 0 };
    let mut out = p.to_vec();
    let sort = |out: &mut Vec<f64>, at: usize, lists: usize| {
        for list in out[at..at + lists * k].chunks_mut(k.max(1)) {
            list.sort_by(f64::total_cmp);
        }
    };
    let mut at = PARTIAL_HEADER_LEN + books * (1 + n) + weights;
    sort(&mut out, at, lanes * n);
    at += lanes * n * k;
    for _ in 0..books {
        at += count + worst * (2 + n);
        if lanes == 0 {
            sort(&mut out, at, n);
            at += n * k;
        }
    }
    assert_eq!(at, p.len(), "partial layout");
    out
}
