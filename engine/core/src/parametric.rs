//! Closed-form (variance–covariance) VaR and ES of the linear P&L.

use crate::error::{ensure, EngineError, Result};
use crate::finite::all_finite;
use crate::limits::{check_books, check_horizon, confidence_in_range, confidence_range};
use crate::math::{normal_cdf, normal_pdf, normal_quantile};
use crate::metrics::{Metrics, Results, WhatIf, PERCENTILES, PERCENTILE_LEVELS};
use crate::spec::{Book, Comparison};

/// Level of `worst_loss` and `best_gain` for the closed form, which has no sample extremes.
pub const EXTREME_LEVEL: f64 = 1e-4;

#[derive(Clone, Debug, PartialEq)]
pub struct ParametricInput {
    pub horizon: usize,
    pub confidence: f64,
    pub comparison: Comparison,
    pub books: Vec<Book>,
    pub mean: Vec<f64>,
    pub covariance: CovarianceForm,
}

/// `columns` of a dense covariance in the parametric input (else the loadings' m).
pub const COVARIANCE_DENSE: usize = 0;

/// Σ as the closed form reads it: n×n, or the window's n×m loadings F with Σ = F·Fᵀ (the model
/// of a wide book, whose Σ is never formed).
#[derive(Clone, Debug, PartialEq)]
pub enum CovarianceForm {
    Dense(Vec<f64>),
    Loadings { columns: usize, values: Vec<f64> },
}

impl CovarianceForm {
    pub(crate) fn well_formed(&self, n: usize) -> bool {
        let (width, values) = match self {
            CovarianceForm::Dense(c) => (n, c),
            CovarianceForm::Loadings { columns, values } => (*columns, values),
        };
        width >= 1 && n.checked_mul(width) == Some(values.len())
    }

    pub(crate) fn values(&self) -> &[f64] {
        match self {
            CovarianceForm::Dense(c) => c,
            CovarianceForm::Loadings { values, .. } => values,
        }
    }

    /// (Σw, diag Σ): dense rows in order; through loadings u = Fᵀw (assets in order), then F·u.
    fn times_and_diagonal(&self, w: &[f64]) -> (Vec<f64>, Vec<f64>) {
        let n = w.len();
        match self {
            CovarianceForm::Dense(c) => (
                (0..n)
                    .map(|i| (0..n).map(|j| c[i * n + j] * w[j]).sum())
                    .collect(),
                (0..n).map(|i| c[i * n + i]).collect(),
            ),
            CovarianceForm::Loadings { columns, values } => {
                let rows = || values.chunks_exact(*columns);
                let mut u = vec![0.0; *columns];
                for (row, wj) in rows().zip(w) {
                    for (ut, f) in u.iter_mut().zip(row) {
                        *ut += f * wj;
                    }
                }
                (
                    rows()
                        .map(|row| row.iter().zip(&u).map(|(f, x)| f * x).sum())
                        .collect(),
                    rows().map(|row| row.iter().map(|f| f * f).sum()).collect(),
                )
            }
        }
    }
}

pub fn parametric(input: &ParametricInput) -> Result<Results> {
    check_books(input.books.len())?;
    let n = input.mean.len();
    ensure(
        n >= 1 && input.books.iter().all(|b| b.weights.len() == n),
        "one weight and mean per asset",
    )?;
    ensure(
        input.comparison == Comparison::None || input.books.len() == 2,
        "a what-if compares exactly two books",
    )?;
    ensure(
        input.covariance.well_formed(n),
        "covariance must be n×n, or n×m loadings",
    )?;
    ensure(
        input.books.iter().all(Book::capital_in_range),
        "portfolio value must be finite and positive",
    )?;
    if !confidence_in_range(input.confidence) {
        return Err(EngineError::InvalidInput(format!(
            "confidence in {}",
            confidence_range()
        )));
    }
    check_horizon(input.horizon)?;
    let finite = all_finite;
    ensure(
        input.books.iter().all(|b| finite(&b.weights))
            && finite(&input.mean)
            && finite(input.covariance.values()),
        "inputs must be finite",
    )?;
    let books = input
        .books
        .iter()
        .map(|b| {
            let m = closed_form(input, b);
            if m.all_finite() {
                Ok(m)
            } else {
                Err(EngineError::Overflow(
                    "the figures overflow double precision (exposures too large)".into(),
                ))
            }
        })
        .collect::<Result<Vec<Metrics>>>()?;
    let what_if = match input.comparison {
        Comparison::None => None,
        // The closed form has no sampling error, nor has the difference.
        Comparison::WhatIf => Some(WhatIf {
            incremental_var: books[1].value_at_risk - books[0].value_at_risk,
            incremental_es: books[1].expected_shortfall - books[0].expected_shortfall,
            incremental_var_standard_error: 0.0,
            incremental_es_standard_error: 0.0,
        }),
    };
    Ok(Results { books, what_if })
}

/// One book's figures: the inputs are valid.
fn closed_form(input: &ParametricInput, book: &Book) -> Metrics {
    let n = input.mean.len();
    let v = book.capital;
    let t = input.horizon as f64;
    let w = &book.weights;
    let (sigma_w, diagonal) = input.covariance.times_and_diagonal(w);
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

    // Euler: ∂σ_p/∂e_i · e_i = σ-share of asset i; the drift term is linear in e.
    let component = |scale: f64| -> Vec<f64> {
        (0..n)
            .map(|i| {
                let marginal = if variance > 0.0 {
                    v * t.sqrt() * w[i] * sigma_w[i] / variance.sqrt() * scale
                } else {
                    0.0
                };
                marginal - v * t * w[i] * input.mean[i]
            })
            .collect()
    };
    let component_es = component(tail_density);
    let component_var = component(z);
    let standalone_var = (0..n)
        .map(|i| {
            // A short position loses on the upside: VaR = |e|·z·sd − e·T·μ, for either sign.
            let sd = (t * diagonal[i].max(0.0)).sqrt();
            v * w[i].abs() * (z * sd - t * input.mean[i] * w[i].signum())
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
    Metrics {
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
        component_var,
        standalone_var,
        bin_edges: Vec::new(),
        counts: Vec::new(),
    }
}
