//! Closed-form (variance–covariance) VaR and ES of the linear P&L.

use crate::error::{ensure, EngineError, Result};
use crate::limits::{check_horizon, confidence_in_range, confidence_range};
use crate::math::{normal_cdf, normal_pdf, normal_quantile};
use crate::metrics::{Metrics, PERCENTILES, PERCENTILE_LEVELS};

/// Level of `worst_loss` and `best_gain` for the closed form, which has no sample extremes.
pub const EXTREME_LEVEL: f64 = 1e-4;

#[derive(Clone, Debug, PartialEq)]
pub struct ParametricInput {
    pub portfolio_value: f64,
    pub horizon: usize,
    pub confidence: f64,
    pub weights: Vec<f64>,
    pub mean: Vec<f64>,
    pub covariance: Vec<f64>,
}

pub fn parametric(input: &ParametricInput) -> Result<Metrics> {
    let n = input.weights.len();
    ensure(
        n >= 1 && input.mean.len() == n,
        "one weight and mean per asset",
    )?;
    ensure(
        n.checked_mul(n) == Some(input.covariance.len()),
        "covariance must be n×n",
    )?;
    ensure(
        input.portfolio_value.is_finite() && input.portfolio_value > 0.0,
        "portfolio value must be finite and positive",
    )?;
    if !confidence_in_range(input.confidence) {
        return Err(EngineError::InvalidInput(format!(
            "confidence in {}",
            confidence_range()
        )));
    }
    check_horizon(input.horizon)?;
    let finite = |xs: &[f64]| xs.iter().all(|x| x.is_finite());
    ensure(
        finite(&input.weights) && finite(&input.mean) && finite(&input.covariance),
        "inputs must be finite",
    )?;

    let v = input.portfolio_value;
    let t = input.horizon as f64;
    let w = &input.weights;
    let sigma_w: Vec<f64> = (0..n)
        .map(|i| (0..n).map(|j| input.covariance[i * n + j] * w[j]).sum())
        .collect();
    let variance: f64 = w
        .iter()
        .zip(&sigma_w)
        .map(|(a, b)| a * b)
        .sum::<f64>()
        .max(0.0);
    let mu_p = v * t * w.iter().zip(&input.mean).map(|(a, b)| a * b).sum::<f64>();
    let sigma_p = v * (t * variance).sqrt();
    let z = normal_quantile(input.confidence);
    let tail_density = normal_pdf(z) / (1.0 - input.confidence);
    let quantile = |level: f64| mu_p + sigma_p * normal_quantile(level);

    let component_es = (0..n)
        .map(|i| {
            let marginal = if variance > 0.0 {
                v * t.sqrt() * w[i] * sigma_w[i] / variance.sqrt() * tail_density
            } else {
                0.0
            };
            marginal - v * t * w[i] * input.mean[i]
        })
        .collect();
    let standalone_var = (0..n)
        .map(|i| {
            let sd = (t * input.covariance[i * n + i].max(0.0)).sqrt();
            v * w[i] * (z * sd - t * input.mean[i])
        })
        .collect();
    let probability_of_loss = if sigma_p > 0.0 {
        normal_cdf(-mu_p / sigma_p)
    } else if mu_p < 0.0 {
        1.0
    } else {
        0.0
    };
    let mut percentiles = [0.0; PERCENTILES];
    for (p, level) in percentiles.iter_mut().zip(PERCENTILE_LEVELS) {
        *p = quantile(level);
    }
    Ok(Metrics {
        scenarios: 0,
        value_at_risk: z * sigma_p - mu_p,
        expected_shortfall: sigma_p * tail_density - mu_p,
        expected_pnl: mu_p,
        volatility: sigma_p,
        probability_of_loss,
        worst_loss: quantile(EXTREME_LEVEL),
        best_gain: quantile(1.0 - EXTREME_LEVEL),
        value_at_risk_standard_error: 0.0,
        expected_shortfall_standard_error: 0.0,
        percentiles,
        component_es,
        standalone_var,
        bin_edges: Vec::new(),
        counts: Vec::new(),
    })
}
