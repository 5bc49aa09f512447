//! Filtered historical simulation over T > 1 days (api.md §16): bootstrap paths of T standardised
//! rows drawn with replacement, each asset's variance carried along the path by its own recursion
//! σ²_{k+1} = ω + α r̃²_k + β σ²_k (EWMA: ω = 0, α = 1 − λ, β = λ), from σ_{m+1}. A path's result
//! is each asset's T-day log return Σ_k r̃_k, r̃_k = σ_k · z_{t_k}: whole rows are drawn, so every
//! asset reads the same date at a step and the cross-section is kept.

use crate::deadline::Deadline;
use crate::error::{EngineError, Result};
use crate::rng::Xoshiro256pp;

/// Paths between two looks at the clock.
const PATHS_PER_CHECK: usize = 64;

/// What the paths are drawn from, checked by the decoder: z is `observations` rows of `assets`.
pub struct PathModel {
    pub observations: usize,
    pub assets: usize,
    pub horizon: usize,
    pub seed: u64,
    /// σ_{m+1} per asset: where every path starts.
    pub current: Vec<f64>,
    pub omega: Vec<f64>,
    pub alpha: Vec<f64>,
    pub beta: Vec<f64>,
    /// z_t,i = r_t,i / σ_t,i, [observation][asset].
    pub z: Vec<f64>,
}

/// The generator of path `path`: one stream per path, so any split of the paths draws the same rows.
fn path_stream(seed: u64, path: usize) -> Xoshiro256pp {
    Xoshiro256pp::for_block(seed, path as u64)
}

/// A row index uniform on 0..m (m ≥ 1) by the high word of a 64 × 64-bit product: no division,
/// the same on every target, and a bias of at most m / 2^64.
#[inline(always)]
fn draw_row(g: &mut Xoshiro256pp, m: usize) -> usize {
    ((u128::from(g.next_u64()) * m as u128) >> 64) as usize
}

/// The T-day log returns of paths `first..end`, [path][asset]; paths of any range of the same model
/// are the same numbers. Fails with `Overflow` where a sum leaves double precision.
pub fn bootstrap_paths(
    model: &PathModel,
    first: usize,
    end: usize,
    deadline: &Deadline,
) -> Result<Vec<f64>> {
    let n = model.assets;
    let mut out = vec![0.0; (end - first) * n];
    let mut variance = vec![0.0; n];
    let start: Vec<f64> = model.current.iter().map(|s| s * s).collect();
    for (k, sums) in out.chunks_exact_mut(n).enumerate() {
        if k % PATHS_PER_CHECK == 0 && deadline.passed() {
            return Err(EngineError::DeadlineExceeded);
        }
        let mut g = path_stream(model.seed, first + k);
        variance.copy_from_slice(&start);
        for _ in 0..model.horizon {
            let t = draw_row(&mut g, model.observations);
            let row = &model.z[t * n..(t + 1) * n];
            // Asset by asset, each its own chain: the order across assets changes no bits.
            for i in 0..n {
                let r = variance[i].sqrt() * row[i];
                sums[i] += r;
                variance[i] = model.omega[i] + model.alpha[i] * r * r + model.beta[i] * variance[i];
            }
        }
        if !sums.iter().all(|x| x.is_finite()) {
            return Err(EngineError::Overflow(format!(
                "a bootstrap path's {}-day log return is not a finite double",
                model.horizon
            )));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The naive version: every path's rows drawn first, then one asset at a time along them.
    fn reference(model: &PathModel, first: usize, end: usize) -> Vec<f64> {
        let n = model.assets;
        let mut out = Vec::new();
        for p in first..end {
            let mut g = path_stream(model.seed, p);
            let rows: Vec<usize> = (0..model.horizon)
                .map(|_| draw_row(&mut g, model.observations))
                .collect();
            for i in 0..n {
                let mut v = model.current[i] * model.current[i];
                let mut sum = 0.0;
                for &t in &rows {
                    let r = v.sqrt() * model.z[t * n + i];
                    sum += r;
                    v = model.omega[i] + model.alpha[i] * r * r + model.beta[i] * v;
                }
                out.push(sum);
            }
        }
        out
    }

    /// A small model: z from a fixed generator, EWMA on asset 0, GARCH on the others.
    fn model(observations: usize, assets: usize, horizon: usize, seed: u64) -> PathModel {
        let mut g = Xoshiro256pp::for_block(99, 0);
        let z = (0..observations * assets)
            .map(|_| 4.0 * g.uniform_open0() - 2.0)
            .collect();
        let garch = |i: usize| i > 0;
        PathModel {
            observations,
            assets,
            horizon,
            seed,
            current: (0..assets).map(|i| 0.01 + 0.002 * i as f64).collect(),
            omega: (0..assets)
                .map(|i| if garch(i) { 2e-6 } else { 0.0 })
                .collect(),
            alpha: (0..assets)
                .map(|i| if garch(i) { 0.08 } else { 0.06 })
                .collect(),
            beta: (0..assets)
                .map(|i| if garch(i) { 0.9 } else { 0.94 })
                .collect(),
            z,
        }
    }

    #[test]
    fn paths_equal_the_reference_bit_for_bit() {
        for (m, n, t) in [(1, 1, 1), (5, 3, 10), (40, 7, 2), (300, 2, 250)] {
            let md = model(m, n, t, 7);
            let fast = bootstrap_paths(&md, 0, 50, &Deadline::none()).unwrap();
            let slow = reference(&md, 0, 50);
            assert_eq!(fast.len(), slow.len());
            assert!(fast
                .iter()
                .zip(&slow)
                .all(|(a, b)| a.to_bits() == b.to_bits()));
        }
    }

    #[test]
    fn any_split_of_the_paths_gives_the_same_numbers() {
        let md = model(60, 4, 5, 123);
        let whole = bootstrap_paths(&md, 0, 100, &Deadline::none()).unwrap();
        let mut parts = bootstrap_paths(&md, 0, 37, &Deadline::none()).unwrap();
        parts.extend(bootstrap_paths(&md, 37, 100, &Deadline::none()).unwrap());
        assert_eq!(whole, parts);
    }

    #[test]
    fn seeds_differ_and_repeat() {
        let a = bootstrap_paths(&model(60, 3, 5, 1), 0, 20, &Deadline::none()).unwrap();
        let b = bootstrap_paths(&model(60, 3, 5, 2), 0, 20, &Deadline::none()).unwrap();
        let c = bootstrap_paths(&model(60, 3, 5, 1), 0, 20, &Deadline::none()).unwrap();
        assert_ne!(a, b);
        assert_eq!(a, c);
    }

    #[test]
    fn rows_are_drawn_uniformly_and_in_range() {
        let mut g = path_stream(5, 0);
        let mut counts = [0usize; 7];
        for _ in 0..70_000 {
            counts[draw_row(&mut g, 7)] += 1;
        }
        // 10,000 expected each; 5 standard deviations is about 460.
        assert!(counts.iter().all(|&c| (9_500..=10_500).contains(&c)));
        let mut g = path_stream(5, 1);
        assert!((0..1000).all(|_| draw_row(&mut g, 1) == 0));
    }

    #[test]
    fn a_one_day_path_is_the_current_volatility_times_a_drawn_row() {
        let md = model(30, 3, 1, 11);
        let out = bootstrap_paths(&md, 0, 200, &Deadline::none()).unwrap();
        for p in out.chunks_exact(3) {
            let found = (0..30).any(|t| (0..3).all(|i| p[i] == md.current[i] * md.z[t * 3 + i]));
            assert!(found);
        }
    }

    #[test]
    fn overflow_is_reported() {
        let mut md = model(10, 2, 3, 1);
        md.current = vec![1e300, 1e300];
        md.z = vec![1e10; 20];
        let e = bootstrap_paths(&md, 0, 1, &Deadline::none()).unwrap_err();
        assert!(matches!(e, EngineError::Overflow(_)));
    }
}
