//! Where a W2-shaped finalize's time goes (20 assets × 1M simulations × 10 days, two partials):
//! the single OP_FINALIZE against OP_FINALIZE_PART per partial and OP_FINALIZE_SPLIT. A
//! measurement, not a check: run by hand with
//! `cargo test --release --test finalize_timing -- --ignored --nocapture`.
mod common;
use common::*;
use risk_engine_core::abi::call;
use risk_engine_core::abi::constants::{
    OP_FINALIZE, OP_FINALIZE_PART, OP_FINALIZE_SPLIT, OP_SIMULATE,
};
use risk_engine_core::spec::{Method, Mode};
use std::time::Instant;

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

#[test]
#[ignore]
fn w2_finalize_timing() {
    let n = 20;
    let mut s = spec(Method::MonteCarloNormal, Mode::BuyAndHold, 1_000_000);
    s.mean = vec![0.0003; n];
    let cov: Vec<f64> = (0..n * n)
        .map(|i| if i / n == i % n { 0.0002 } else { 0.00005 })
        .collect();
    s.factor = cholesky(&cov, n);
    s.books = vec![book(1_000_000.0, &vec![1.0 / n as f64; n])];
    let b = blocks(&s);
    let partials: Vec<Vec<f64>> = [(0, b / 2), (b / 2, b)]
        .iter()
        .map(|&(f, e)| call(OP_SIMULATE, &encode_spec(&s, f, e)))
        .collect();
    let mut all = vec![2.0];
    partials.iter().for_each(|p| all.extend_from_slice(p));
    for _ in 0..5 {
        let t = Instant::now();
        let single = call(OP_FINALIZE, &all);
        let single_ms = ms(t);
        let mut parts_ms = Vec::new();
        let mut input = vec![2.0];
        for p in &partials {
            let mut one = vec![1.0];
            one.extend_from_slice(p);
            let t = Instant::now();
            input.extend(call(OP_FINALIZE_PART, &one));
            parts_ms.push(ms(t));
        }
        input.extend_from_slice(&all);
        let t = Instant::now();
        let split = call(OP_FINALIZE_SPLIT, &input);
        let merge_ms = ms(t);
        assert!(single
            .iter()
            .zip(&split)
            .all(|(a, b)| a.to_bits() == b.to_bits()));
        eprintln!(
            "single finalize {single_ms:.1} ms; parts {parts_ms:.1?} ms (in parallel); merge {merge_ms:.1} ms"
        );
    }
}
