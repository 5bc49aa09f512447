//! The estimation's input and the returns it yields: daily log returns between consecutive dates on
//! which every asset has a price, the most recent `lookback` of them, their sample mean and the
//! estimator's weights (sample or EWMA).

use crate::error::{ensure, EngineError, Result};
use crate::limits::MIN_OBSERVATIONS;
use crate::math::ln;

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
pub(crate) fn returns_of(
    input: &EstimationInput,
    w: &Window,
) -> Result<(Vec<f64>, Vec<f64>, Vec<f64>)> {
    let mut returns = vec![0.0; w.observations * input.n_assets];
    let mut sample_mean = vec![0.0; input.n_assets];
    let weights = returns_into(input, w, &mut returns, &mut sample_mean)?;
    Ok((returns, sample_mean, weights))
}

/// `returns_of` written into `returns` (observations × assets) and `sample_mean` (assets, zeros);
/// returns the weights. Every price is finite and positive, but the ratio of two (1e300 after
/// 1e-10) may not be: such a return is refused as an overflow, not passed on as an infinite one.
pub(crate) fn returns_into(
    input: &EstimationInput,
    w: &Window,
    returns: &mut [f64],
    sample_mean: &mut [f64],
) -> Result<Vec<f64>> {
    let n = input.n_assets;
    let obs = w.observations;
    let dates = w.complete[w.first..=w.first + obs].windows(2);
    for (row, pair) in returns.chunks_exact_mut(n).zip(dates) {
        let prev = &input.prices[pair[0] * n..][..n];
        let cur = &input.prices[pair[1] * n..][..n];
        // A whole row first, then its check: with no exit inside it the loop vectorises (`ln` is
        // branch-free), and each value is the same.
        for ((r, c), p) in row.iter_mut().zip(cur).zip(prev) {
            *r = ln(c / p);
        }
        if let Some(i) = row.iter().position(|r| !r.is_finite()) {
            return Err(EngineError::Overflow(format!(
                "a price moves by a ratio beyond double precision between two dates (from {:e} to {:e})",
                prev[i], cur[i]
            )));
        }
    }
    for row in returns.chunks_exact(n) {
        for (m, r) in sample_mean.iter_mut().zip(row) {
            *m += r;
        }
    }
    sample_mean.iter_mut().for_each(|m| *m /= obs as f64);
    Ok(match input.covariance {
        Covariance::Sample => vec![1.0 / (obs as f64 - 1.0); obs],
        Covariance::Ewma(lambda) => ewma_weights(obs, lambda),
    })
}

pub(super) fn ewma_weights(obs: usize, lambda: f64) -> Vec<f64> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ewma_weights_sum_to_one_and_favour_recent_returns() {
        let w = ewma_weights(100, 0.94);
        assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-15);
        assert!((w[99] / w[98] - 1.0 / 0.94).abs() < 1e-12);
    }
}
