//! The variance filter of filtered historical simulation at T = 1 (api.md §16), per asset and zero
//! mean: σ²_1 = the mean of r² over the first min(FILTER_SEED_RETURNS, m) returns, then
//! σ²_{t+1} = ω + α r²_t + β σ²_t (EWMA: ω = 0, α = 1 − λ, β = λ); each return is rescaled to the
//! next day's volatility, r̃_t = σ_{m+1} · r_t / σ_t, whole rows at a time so the cross-section is
//! kept. Every operation is a correctly rounded +, ×, ÷ or √ in a fixed order, so the loops may be
//! vectorised across assets and every build still agrees to the bit.

use crate::error::{EngineError, Result};
use crate::finite::all_finite;

/// Returns over which the first variance σ²_1 is the mean of r².
pub const FILTER_SEED_RETURNS: usize = 30;

/// Each asset's recursion σ²_{t+1} = ω + α r²_t + β σ²_t, checked by the decoder (finite, ≥ 0).
pub struct Recursions {
    pub omega: Vec<f64>,
    pub alpha: Vec<f64>,
    pub beta: Vec<f64>,
}

/// Where the filter writes: every slice sized by the caller ([observation][asset] or per asset).
pub struct FilteredInto<'a> {
    /// r̃_t,i; 0 where σ_t,i = 0 (every return before it was 0 too).
    pub returns: &'a mut [f64],
    /// σ_{m+1} per asset: the volatility the filter forecasts for the next day.
    pub current: &'a mut [f64],
    /// √(mean r²) per asset over the window.
    pub long_run: &'a mut [f64],
    /// z_t,i = r_t,i / σ_t,i (0 where σ_t,i = 0), when asked for: what bootstrap paths draw.
    pub standardised: Option<&'a mut [f64]>,
}

/// σ²_1 per asset: the mean of r² over the first min(FILTER_SEED_RETURNS, m) rows.
fn seed_variance(returns: &[f64], assets: usize, m: usize) -> Vec<f64> {
    let mut variance = vec![0.0; assets];
    let seed = m.min(FILTER_SEED_RETURNS);
    for row in returns.chunks_exact(assets).take(seed) {
        for (v, r) in variance.iter_mut().zip(row) {
            *v += r * r;
        }
    }
    if seed > 0 {
        for v in variance.iter_mut() {
            *v /= seed as f64;
        }
    }
    variance
}

/// The filter of `returns` [observation][asset] (assets ≥ 1) into `out`. Two passes over the
/// returns, the recursion run in each (the same operations, so the same σ_t): the first finds
/// σ_{m+1}, the second rescales. Cheaper than keeping every σ_t in memory between them. Fails with
/// `Overflow` where a value leaves double precision.
pub fn filter_returns(
    returns: &[f64],
    assets: usize,
    recursions: &Recursions,
    out: FilteredInto,
) -> Result<()> {
    let m = returns.len() / assets;
    // Slices of exactly `assets` values, so the loops below index without bounds checks.
    let (omega, alpha, beta) = (
        &recursions.omega[..assets],
        &recursions.alpha[..assets],
        &recursions.beta[..assets],
    );
    let seed = seed_variance(returns, assets, m);
    let mut variance = seed.clone();
    let long_run = &mut out.long_run[..assets];
    for row in returns.chunks_exact(assets) {
        let (row, variance) = (&row[..assets], &mut variance[..assets]);
        for i in 0..assets {
            let r = row[i];
            variance[i] = omega[i] + alpha[i] * r * r + beta[i] * variance[i];
            long_run[i] += r * r;
        }
    }
    let current = &mut out.current[..assets];
    for (c, v) in current.iter_mut().zip(&variance) {
        *c = v.sqrt();
    }
    for x in long_run.iter_mut() {
        *x = if m > 0 { (*x / m as f64).sqrt() } else { 0.0 };
    }
    variance.copy_from_slice(&seed);
    let mut standardised = out.standardised;
    for (t, (row, filtered)) in returns
        .chunks_exact(assets)
        .zip(out.returns.chunks_exact_mut(assets))
        .enumerate()
    {
        let (row, filtered, variance) = (
            &row[..assets],
            &mut filtered[..assets],
            &mut variance[..assets],
        );
        if let Some(z) = standardised.as_deref_mut() {
            let z = &mut z[t * assets..(t + 1) * assets];
            for i in 0..assets {
                let sd = variance[i].sqrt();
                // Computed before the choice, so the loop is a select the compiler vectorises.
                let ratio = row[i] / sd;
                z[i] = if sd > 0.0 { ratio } else { 0.0 };
            }
        }
        for i in 0..assets {
            let (r, v) = (row[i], variance[i]);
            let sd = v.sqrt();
            let rescaled = (current[i] * r) / sd;
            filtered[i] = if sd > 0.0 { rescaled } else { 0.0 };
            variance[i] = omega[i] + alpha[i] * r * r + beta[i] * v;
        }
    }
    if !(all_finite(out.returns)
        && all_finite(current)
        && standardised.map_or(true, |z| all_finite(z)))
    {
        return Err(EngineError::Overflow(
            "a filtered return leaves double precision".to_string(),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ewma(n: usize, lambda: f64) -> Recursions {
        Recursions {
            omega: vec![0.0; n],
            alpha: vec![1.0 - lambda; n],
            beta: vec![lambda; n],
        }
    }

    /// (r̃, σ_{m+1}, long run, z).
    type Parts = (Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>);

    fn filtered(r: &[f64], n: usize, rec: &Recursions) -> Result<Parts> {
        let (mut out, mut current, mut long_run, mut z) = (
            vec![0.0; r.len()],
            vec![0.0; n],
            vec![0.0; n],
            vec![0.0; r.len()],
        );
        filter_returns(
            r,
            n,
            rec,
            FilteredInto {
                returns: &mut out,
                current: &mut current,
                long_run: &mut long_run,
                standardised: Some(&mut z),
            },
        )?;
        Ok((out, current, long_run, z))
    }

    #[test]
    fn one_asset_by_hand() {
        // σ²_1 = mean(0.01², 0.02², 0.03²); σ²_2 = 0.06 · 0.01² + 0.94 σ²_1; …
        let r = [0.01, -0.02, 0.03];
        let (out, current, _, z) = filtered(&r, 1, &ewma(1, 0.94)).unwrap();
        let mut v = (0.01 * 0.01 + 0.02 * 0.02 + 0.03 * 0.03) / 3.0;
        let mut sd = Vec::new();
        for x in r {
            sd.push(f64::sqrt(v));
            v = 0.0 + 0.06 * x * x + 0.94 * v;
        }
        assert_eq!(current, vec![v.sqrt()]);
        for t in 0..3 {
            assert_eq!(out[t], (v.sqrt() * r[t]) / sd[t]);
            assert_eq!(z[t], r[t] / sd[t]);
        }
    }

    #[test]
    fn zero_returns_stay_zero_and_no_returns_give_zero_volatility() {
        let (out, _, _, z) = filtered(&[0.0; 6], 2, &ewma(2, 0.9)).unwrap();
        assert_eq!((out, z), (vec![0.0; 6], vec![0.0; 6]));
        let (_, current, long_run, _) = filtered(&[], 2, &ewma(2, 0.9)).unwrap();
        assert_eq!((current, long_run), (vec![0.0; 2], vec![0.0; 2]));
    }

    #[test]
    fn a_variance_past_double_precision_overflows() {
        let r = vec![0.01; 40];
        let rec = Recursions {
            omega: vec![0.0],
            alpha: vec![0.0],
            beta: vec![1e300],
        };
        assert!(matches!(
            filtered(&r, 1, &rec),
            Err(EngineError::Overflow(_))
        ));
    }
}
