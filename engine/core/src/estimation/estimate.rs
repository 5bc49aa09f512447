//! Estimation: daily log returns on common dates, mean, covariance (sample or EWMA), Cholesky.

use super::covariance::{covariance, symmetric_from_lower};
use super::linalg::cholesky_with_jitter;
use crate::error::{ensure, EngineError, Result};
use crate::limits::MIN_OBSERVATIONS;
use crate::math::ln;
use crate::spec::FACTOR_TRIANGULAR;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Covariance {
    Sample,
    /// Exponentially weighted with decay λ, centred on the sample mean.
    Ewma(f64),
}

#[derive(Clone, Debug)]
pub struct EstimationInput<'a> {
    /// Prices, row-major [date][asset], dates ascending; NaN marks a missing price.
    pub prices: &'a [f64],
    pub n_dates: usize,
    pub n_assets: usize,
    /// Use only the most recent `lookback` returns (0: all).
    pub lookback: usize,
    pub zero_drift: bool,
    pub covariance: Covariance,
    /// Σ's lower triangle row by row (n(n+1)/2 values), as the parts of `covariance_part` give it
    /// for this very input: the estimation then factors it instead of computing it.
    pub covariance_lower: Option<&'a [f64]>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Estimation {
    pub observations: usize,
    /// Index (into the input dates) of the first and last price the returns span.
    pub first_date: usize,
    pub last_date: usize,
    /// Daily drift used by the models: the sample mean, or zeros.
    pub mean: Vec<f64>,
    /// The sample mean, whatever the drift option (historical simulation centres on it).
    pub sample_mean: Vec<f64>,
    /// Σ, n×n; empty when the model samples through loadings (Σ = F·Fᵀ: n²·m work saved).
    pub covariance: Vec<f64>,
    /// The factor F the Monte Carlo models sample through, Σ = F·Fᵀ (see `SpecFields::factor`):
    /// with no more returns than assets (m ≤ n) the n×m loadings √w_t·(r_t − r̄) of the
    /// window, exact at n·m work per draw; else the Cholesky factor of Σ (jittered if singular).
    pub factor: Vec<f64>,
    pub factor_columns: usize,
    pub jitter: f64,
    pub volatility: Vec<f64>,
    /// Returns, row-major [observation][asset], oldest first.
    pub returns: Vec<f64>,
}

fn validate(input: &EstimationInput) -> Result<()> {
    ensure(input.n_assets >= 1, "at least one asset")?;
    ensure(
        input.prices.len() == input.n_dates * input.n_assets,
        "prices length must be dates × assets",
    )?;
    ensure(
        input
            .prices
            .iter()
            .all(|p| p.is_nan() || (p.is_finite() && *p > 0.0)),
        "prices must be finite and positive, or NaN for missing",
    )?;
    if let Covariance::Ewma(lambda) = input.covariance {
        ensure(
            lambda > 0.0 && lambda < 1.0,
            "ewma lambda must lie in (0, 1)",
        )?;
    }
    Ok(())
}

/// The returns an estimation uses: between consecutive dates on which every asset has a price,
/// the most recent `lookback` of them.
pub(crate) struct Window {
    pub(crate) complete: Vec<usize>,
    /// Index into `complete` of the window's first price.
    pub(crate) first: usize,
    pub(crate) observations: usize,
}

pub(crate) fn window(input: &EstimationInput) -> Result<Window> {
    validate(input)?;
    let n = input.n_assets;
    let complete: Vec<usize> = (0..input.n_dates)
        .filter(|&d| input.prices[d * n..(d + 1) * n].iter().all(|p| !p.is_nan()))
        .collect();
    let all = complete.len().saturating_sub(1);
    let first = if input.lookback > 0 && all > input.lookback {
        all - input.lookback
    } else {
        0
    };
    let observations = all - first;
    if observations < MIN_OBSERVATIONS {
        return Err(EngineError::InsufficientData {
            observations,
            required: MIN_OBSERVATIONS,
        });
    }
    Ok(Window {
        complete,
        first,
        observations,
    })
}

/// The window's log returns [t][asset] oldest first, their sample mean and the estimator's weights.
pub(crate) fn returns_of(input: &EstimationInput, w: &Window) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let n = input.n_assets;
    let obs = w.observations;
    let mut returns = Vec::with_capacity(obs * n);
    for pair in w.complete[w.first..=w.first + obs].windows(2) {
        let (prev, cur) = (pair[0] * n, pair[1] * n);
        for i in 0..n {
            returns.push(ln(input.prices[cur + i] / input.prices[prev + i]));
        }
    }
    let mut sample_mean = vec![0.0; n];
    for row in returns.chunks_exact(n) {
        for (m, r) in sample_mean.iter_mut().zip(row) {
            *m += r;
        }
    }
    sample_mean.iter_mut().for_each(|m| *m /= obs as f64);
    let weights = match input.covariance {
        Covariance::Sample => vec![1.0 / (obs as f64 - 1.0); obs],
        Covariance::Ewma(lambda) => ewma_weights(obs, lambda),
    };
    (returns, sample_mean, weights)
}

fn ewma_weights(obs: usize, lambda: f64) -> Vec<f64> {
    // Weight of observation t (oldest first) ∝ λ^(obs−1−t), normalised to sum to one.
    let mut w = vec![0.0; obs];
    let mut v = 1.0;
    for t in (0..obs).rev() {
        w[t] = v;
        v *= lambda;
    }
    let total: f64 = w.iter().sum();
    w.iter_mut().for_each(|x| *x /= total);
    w
}

/// The rule choosing the sampling path, a function of the shape alone (so every build and request
/// agree): loadings when the window has no more returns than assets. Σ then has rank ≤ m − 1 < n:
/// its Cholesky factor would need jitter (a changed model), n²·m/2 work to form Σ and n³/6 per
/// factoring attempt, while the loadings are exact and cost nothing to form; their n·m work per
/// draw is at most twice the triangular factor's n²/2 (at m = n).
pub fn uses_loadings(observations: usize, assets: usize) -> bool {
    observations <= assets
}

/// F[i][t] = √w_t·(r_ti − r̄_i), row-major n×m: Σ_t w_t (r_t − r̄)(r_t − r̄)ᵀ = F·Fᵀ exactly.
fn loadings(returns: &[f64], sample_mean: &[f64], weights: &[f64]) -> Vec<f64> {
    let (n, m) = (sample_mean.len(), weights.len());
    let mut f = vec![0.0; n * m];
    for (t, (row, w)) in returns.chunks_exact(n).zip(weights).enumerate() {
        let scale = w.sqrt();
        for (i, (r, mean)) in row.iter().zip(sample_mean).enumerate() {
            f[i * m + t] = scale * (r - mean);
        }
    }
    f
}

pub fn estimate(input: &EstimationInput) -> Result<Estimation> {
    let w = window(input)?;
    let (n, obs) = (input.n_assets, w.observations);
    let (returns, sample_mean, weights) = returns_of(input, &w);
    if let Some(lower) = input.covariance_lower {
        ensure(
            !uses_loadings(obs, n),
            "a covariance was given for a window that samples through loadings",
        )?;
        ensure(
            n.checked_mul(n + 1).map(|x| x / 2) == Some(lower.len()),
            "a given covariance holds n(n + 1)/2 values",
        )?;
        ensure(
            lower.iter().all(|x| x.is_finite()),
            "a given covariance must be finite",
        )?;
    }
    let (covariance, factor, factor_columns, jitter, volatility) = if uses_loadings(obs, n) {
        let f = loadings(&returns, &sample_mean, &weights);
        let volatility = f
            .chunks_exact(obs)
            .map(|row| row.iter().map(|x| x * x).sum::<f64>().sqrt())
            .collect();
        (Vec::new(), f, obs, 0.0, volatility)
    } else {
        let covariance = match input.covariance_lower {
            Some(lower) => symmetric_from_lower(lower, n),
            None => covariance(&returns, &sample_mean, &weights),
        };
        let (l, jitter) = cholesky_with_jitter(&covariance, n)?;
        let volatility = (0..n).map(|i| covariance[i * n + i].sqrt()).collect();
        (covariance, l, FACTOR_TRIANGULAR, jitter, volatility)
    };
    let mean = if input.zero_drift {
        vec![0.0; n]
    } else {
        sample_mean.clone()
    };
    Ok(Estimation {
        observations: obs,
        first_date: w.complete[w.first],
        last_date: w.complete[w.first + obs],
        mean,
        sample_mean,
        covariance,
        factor,
        factor_columns,
        jitter,
        volatility,
        returns,
    })
}

#[cfg(test)]
#[path = "estimate_tests.rs"]
mod tests;
