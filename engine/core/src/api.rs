//! The engine's entry points over flat f64 buffers, shared by the WASM ABI and the napi binding.

use crate::codec::{
    decode_estimation_input, decode_parametric, decode_partial, decode_spec, encode_error,
    encode_estimation, encode_metrics, encode_partial, PartialHeader, Reader,
};
use crate::error::{ensure, Result};
use crate::estimate::estimate;
use crate::finalize::{finalize, FinalizeParams};
use crate::parametric::parametric;
use crate::simulate::simulate;

/// Operation codes of `call`.
pub const OP_ESTIMATE: u32 = 1;
pub const OP_SIMULATE: u32 = 2;
pub const OP_FINALIZE: u32 = 3;
pub const OP_PARAMETRIC: u32 = 4;
/// Simulate and finalize in one step (one task holds every block).
pub const OP_RUN: u32 = 5;
/// Benchmark: draw `count` normals of `seed`'s block streams; returns [0, their sum].
pub const OP_NORMALS: u32 = 6;

fn or_error(result: Result<Vec<f64>>) -> Vec<f64> {
    result.unwrap_or_else(|e| encode_error(&e))
}

pub fn call(op: u32, input: &[f64]) -> Vec<f64> {
    or_error(match op {
        OP_ESTIMATE => decode_estimation_input(input)
            .and_then(|i| estimate(&i))
            .map(|e| encode_estimation(&e)),
        OP_SIMULATE => decode_spec(input).and_then(|(spec, range, deadline)| {
            simulate(&spec, range, &deadline).map(|p| encode_partial(&spec, &p))
        }),
        OP_FINALIZE => finalize_encoded(input),
        OP_PARAMETRIC => decode_parametric(input)
            .and_then(|i| parametric(&i))
            .map(|m| encode_metrics(&m)),
        OP_RUN => run_encoded(input),
        OP_NORMALS => normals_encoded(input),
        _ => Err(crate::error::EngineError::invalid("unknown operation")),
    })
}

/// Input: [number of partials, partial…] as `OP_SIMULATE` returned them, in any order.
fn finalize_encoded(input: &[f64]) -> Result<Vec<f64>> {
    let mut r = Reader::new(input);
    let count = r.count()?;
    ensure(count >= 1, "at least one partial")?;
    let mut header: Option<PartialHeader> = None;
    let mut partials = Vec::with_capacity(count.min(1024));
    for _ in 0..count {
        let (h, p) = decode_partial(&mut r)?;
        ensure(
            header.map_or(true, |first| first == h),
            "partials of one calculation",
        )?;
        header = Some(h);
        partials.push(p);
    }
    r.end()?;
    let h = header.expect("count ≥ 1");
    ensure(
        h.confidence >= 0.5 && h.confidence < 1.0 && (1..=1000).contains(&h.histogram_bins),
        "finalize parameters out of range",
    )?;
    let params = FinalizeParams {
        scenarios: h.scenarios,
        n_assets: h.n_assets,
        confidence: h.confidence,
        portfolio_value: h.portfolio_value,
        histogram_bins: h.histogram_bins,
    };
    finalize(&params, &mut partials).map(|m| encode_metrics(&m))
}

/// The same as OP_SIMULATE followed by OP_FINALIZE on its one partial.
fn run_encoded(input: &[f64]) -> Result<Vec<f64>> {
    let (spec, range, deadline) = decode_spec(input)?;
    ensure(
        range.first == 0 && range.end == spec.blocks(),
        "run covers every block",
    )?;
    let partial = simulate(&spec, range, &deadline)?;
    let params = FinalizeParams {
        scenarios: spec.scenarios,
        n_assets: spec.n_assets(),
        confidence: spec.confidence,
        portfolio_value: spec.portfolio_value,
        histogram_bins: spec.histogram_bins,
    };
    finalize(&params, &mut [partial]).map(|m| encode_metrics(&m))
}

/// Input: [seed, count]. Draws through the same block streams the kernels use.
fn normals_encoded(input: &[f64]) -> Result<Vec<f64>> {
    let mut r = Reader::new(input);
    let seed = r.integer()?;
    let count = r.count()?;
    r.end()?;
    ensure(count <= 1_000_000_000, "at most 1e9 normals")?;
    let mut sum = 0.0;
    let blocks = (count + crate::spec::BLOCK - 1) / crate::spec::BLOCK;
    for block in 0..blocks {
        let mut rng = crate::rng::Xoshiro256pp::for_block(seed, block as u64);
        let n = crate::spec::BLOCK.min(count - block * crate::spec::BLOCK);
        for _ in 0..n {
            sum += crate::ziggurat::standard_normal(&mut rng);
        }
    }
    Ok(vec![0.0, sum])
}
