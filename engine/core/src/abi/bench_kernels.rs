//! Benchmark-only dense kernels (cargo feature `bench-ops`): the machine's multiply-add peak
//! without FMA, and the engine's two dense kernels on synthetic inputs, for multiply-adds per
//! second and their ratio to the peak. The caller times each call; the answers are checksums.

use super::reader::Reader;
use crate::error::{ensure, EngineError, Result};
use crate::estimation::covariance::covariance_rows;
use crate::kernels::correlate_factor;
use crate::spec::{BLOCK, FACTOR_TRIANGULAR};

/// Largest sizes a benchmark call accepts: enough for any machine, small enough never to exhaust
/// a WASM memory.
const MAX_STEPS: usize = 1 << 30;
const MAX_ASSETS: usize = 4096;
const MAX_RETURNS: usize = 8192;
const MAX_REPEATS: usize = 1 << 20;

/// `OP_BENCH_PEAK` input: [lanes (8, 16, 24, 32, 48 or 64), steps, scale]: the kernels' loop
/// shape with nothing but registers and L1 behind it. lanes = A rows × 8 sums, each step
/// s_av += f_a · x_tv (one multiply, one add, never fused): x_t, 8 values read from a 16 KiB
/// table as the correlation reads z, f_a held in registers as its factor entries. Both scaled by
/// the caller's `scale` (1): known at compile time, they would let LLVM fold them. Returns [0, Σ s];
/// lanes × steps multiply-adds, and the best lane count is the build's peak.
pub fn peak_encoded(input: &[f64]) -> Result<Vec<f64>> {
    let mut r = Reader::new(input);
    let lanes = r.count()?;
    let steps = r.count()?;
    let scale = r.scalar()?;
    r.end()?;
    ensure(steps <= MAX_STEPS, "too many steps")?;
    ensure(scale.abs() <= 1.0, "scale must lie in [-1, 1]")?;
    let sum = match lanes {
        8 => chains::<1>(steps, scale),
        16 => chains::<2>(steps, scale),
        24 => chains::<3>(steps, scale),
        32 => chains::<4>(steps, scale),
        48 => chains::<6>(steps, scale),
        64 => chains::<8>(steps, scale),
        _ => {
            return Err(EngineError::invalid(
                "lanes must be 8, 16, 24, 32, 48 or 64",
            ))
        }
    };
    Ok(vec![0.0, sum])
}

/// Rows of 8 values the table x_t cycles through: 16 KiB, always in L1.
const TABLE: usize = 256;
const WIDE: usize = 8;

/// A × WIDE independent multiply-add chains; not inlined, so the loop is compiled on its own as
/// the kernels are.
#[inline(never)]
fn chains<const A: usize>(steps: usize, scale: f64) -> f64 {
    let x: Vec<f64> = (0..TABLE * WIDE)
        .map(|t| scale + t as f64 / 65536.0)
        .collect();
    let f: [f64; A] = std::array::from_fn(|k| scale * (0.5 + k as f64 / 256.0));
    let mut acc = [[0.0; WIDE]; A];
    for round in 0..(steps + TABLE - 1) / TABLE {
        let take = TABLE.min(steps - round * TABLE);
        for xt in x[..take * WIDE].chunks_exact(WIDE) {
            let xt: &[f64; WIDE] = xt.try_into().expect("a whole row");
            for (a, fa) in acc.iter_mut().zip(&f) {
                for (s, xv) in a.iter_mut().zip(xt) {
                    *s += fa * xv;
                }
            }
        }
    }
    acc.iter().flatten().sum()
}

/// A deterministic stream in [−0.025, 0.025): returns and factor entries.
fn stream(seed: u64, len: usize) -> Vec<f64> {
    let mut state = seed;
    (0..len)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((state >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 0.05
        })
        .collect()
}

/// `OP_BENCH_COVARIANCE` input: [assets n, returns m, repeats]: Σ's lower triangle of synthetic
/// returns, `repeats` times (n(n+1)/2 · m multiply-adds each). Returns [0, Σ of the entries].
pub fn covariance_encoded(input: &[f64]) -> Result<Vec<f64>> {
    let mut r = Reader::new(input);
    let (n, m, repeats) = (r.count()?, r.count()?, r.count()?);
    r.end()?;
    ensure((1..=MAX_ASSETS).contains(&n), "assets must be 1 to 4096")?;
    ensure((1..=MAX_RETURNS).contains(&m), "returns must be 1 to 8192")?;
    ensure(repeats <= MAX_REPEATS, "too many repeats")?;
    let returns = stream(1, n * m);
    let mean = vec![0.0; n];
    let weights = vec![1.0 / m as f64; m];
    let mut sum = 0.0;
    for _ in 0..repeats {
        sum += covariance_rows(&returns, &mean, &weights, 0..n)
            .iter()
            .sum::<f64>();
    }
    Ok(vec![0.0, sum])
}

/// `OP_BENCH_CORRELATE` input: [assets n, repeats]: r = base + z·Lᵀ over one block of BLOCK
/// simulations with an n×n triangular factor, `repeats` times (n(n+1)/2 · BLOCK multiply-adds
/// each). Returns [0, Σ of the outputs].
pub fn correlate_encoded(input: &[f64]) -> Result<Vec<f64>> {
    let mut r = Reader::new(input);
    let (n, repeats) = (r.count()?, r.count()?);
    r.end()?;
    ensure((1..=MAX_ASSETS).contains(&n), "assets must be 1 to 4096")?;
    ensure(repeats <= MAX_REPEATS, "too many repeats")?;
    let factor = stream(2, n * n);
    let z = stream(3, n * BLOCK);
    let mut out = vec![0.0; n * BLOCK];
    let mut sum = 0.0;
    for _ in 0..repeats {
        correlate_factor(n, FACTOR_TRIANGULAR, &factor, |_| 0.0, &z, &mut out);
        sum += out.iter().sum::<f64>();
    }
    Ok(vec![0.0, sum])
}
