//! Conditional stress scenarios: given some symbols' T-day log returns x_s, the others' are normal
//! with mean Tμ_o + Σ_os Σ_ss⁻¹ (x_s − Tμ_s) and covariance T(Σ_oo − Σ_os Σ_ss⁻¹ Σ_so), Σ the
//! model's covariance. Each book symbol's conditional mean and standard deviation are reported.

use crate::deadline::Deadline;
use crate::error::{ensure, EngineError, Result};
use crate::estimation::linalg::cholesky_with_jitter;
use crate::limits::{check_assets, check_horizon};
use crate::parametric::CovarianceForm;

/// Book symbols solved between two looks at the deadline.
const SYMBOLS_PER_DEADLINE_CHECK: usize = 64;

/// One scenario: the model indices it shocks (increasing) and their T-day log returns ln(1 + s).
#[derive(Clone, Debug, PartialEq)]
pub struct ConditionalScenario {
    pub horizon: usize,
    pub shocked: Vec<usize>,
    pub log_shocks: Vec<f64>,
}

/// The model and the scenarios, checked once here so that solving cannot fail on its inputs.
#[derive(Clone, Debug, PartialEq)]
pub struct ConditionalInput {
    /// The book's symbols are the model's first `own`.
    own: usize,
    mean: Vec<f64>,
    covariance: CovarianceForm,
    /// Added to a dense Σ's diagonal: the repair its estimate needed.
    jitter: f64,
    scenarios: Vec<ConditionalScenario>,
}

/// A scenario's answer per book symbol: the conditional mean of its T-day log return (a shocked
/// symbol's own log shock) and the conditional standard deviation (0 for a shocked one).
#[derive(Clone, Debug, PartialEq)]
pub struct ConditionalOutcome {
    pub log_means: Vec<f64>,
    pub sds: Vec<f64>,
}

impl ConditionalInput {
    pub fn new(
        own: usize,
        mean: Vec<f64>,
        covariance: CovarianceForm,
        jitter: f64,
        scenarios: Vec<ConditionalScenario>,
    ) -> Result<Self> {
        let n = mean.len();
        check_assets(n)?;
        ensure(own <= n, "the book's symbols are among the model's")?;
        ensure(
            covariance.well_formed(n),
            "covariance shape matches the assets",
        )?;
        ensure(
            mean.iter()
                .chain(covariance.values())
                .all(|x| x.is_finite()),
            "model values must be finite",
        )?;
        ensure(
            jitter.is_finite() && jitter >= 0.0,
            "jitter must be finite and ≥ 0",
        )?;
        for s in &scenarios {
            check_horizon(s.horizon)?;
            ensure(!s.shocked.is_empty(), "a scenario shocks a symbol")?;
            ensure(
                s.shocked.len() == s.log_shocks.len(),
                "one log shock per shocked symbol",
            )?;
            ensure(
                s.shocked.windows(2).all(|w| w[0] < w[1]) && s.shocked.iter().all(|&i| i < n),
                "shocked indices increase within the model",
            )?;
            ensure(
                s.log_shocks.iter().all(|x| x.is_finite()),
                "log shocks must be finite",
            )?;
        }
        Ok(ConditionalInput {
            own,
            mean,
            covariance,
            jitter,
            scenarios,
        })
    }

    pub fn own(&self) -> usize {
        self.own
    }

    pub fn scenarios(&self) -> usize {
        self.scenarios.len()
    }

    /// Σ_ij: a dense entry (with the jitter on the diagonal), or F_i·F_j summed in column order.
    fn entry(&self, i: usize, j: usize) -> f64 {
        let n = self.mean.len();
        match &self.covariance {
            CovarianceForm::Dense(c) => c[i * n + j] + if i == j { self.jitter } else { 0.0 },
            CovarianceForm::Loadings { columns, values } => {
                let m = *columns;
                let (a, b) = (&values[i * m..(i + 1) * m], &values[j * m..(j + 1) * m]);
                let mut s = 0.0;
                for (x, y) in a.iter().zip(b) {
                    s += x * y;
                }
                s
            }
        }
    }
}

/// y with L·y = b (L lower triangular, s×s row-major), written into `y` (its old contents dropped,
/// its allocation kept: the per-symbol loop reuses one).
fn forward_into(l: &[f64], b: &[f64], y: &mut Vec<f64>) {
    let s = b.len();
    y.clear();
    for i in 0..s {
        let mut acc = b[i];
        for (k, yk) in y.iter().enumerate() {
            acc -= l[i * s + k] * yk;
        }
        y.push(acc / l[i * s + i]);
    }
}

/// z with L·Lᵀ·z = b.
fn solve(l: &[f64], b: &[f64]) -> Vec<f64> {
    let mut y = Vec::with_capacity(b.len());
    forward_into(l, b, &mut y);
    let s = y.len();
    let mut z = vec![0.0; s];
    for i in (0..s).rev() {
        let mut acc = y[i];
        for k in i + 1..s {
            acc -= l[k * s + i] * z[k];
        }
        z[i] = acc / l[i * s + i];
    }
    z
}

fn scenario_outcome(
    input: &ConditionalInput,
    scenario: &ConditionalScenario,
    deadline: &Deadline,
) -> Result<ConditionalOutcome> {
    let shocked = &scenario.shocked;
    let s = shocked.len();
    let horizon = scenario.horizon as f64;
    let sigma_ss: Vec<f64> = shocked
        .iter()
        .flat_map(|&a| shocked.iter().map(move |&c| (a, c)))
        .map(|(a, c)| input.entry(a, c))
        .collect();
    // Σ_ss is singular when a loadings model has fewer returns than shocked symbols: the smallest
    // repair that factors it stands in.
    let (l, _) = cholesky_with_jitter(&sigma_ss, s)?;
    let x: Vec<f64> = shocked
        .iter()
        .zip(&scenario.log_shocks)
        .map(|(&i, &log_shock)| log_shock - horizon * input.mean[i])
        .collect();
    let alpha = solve(&l, &x);
    let mut log_means = vec![0.0; input.own];
    let mut sds = vec![0.0; input.own];
    for (k, &i) in shocked.iter().enumerate() {
        if i < input.own {
            log_means[i] = scenario.log_shocks[k];
        }
    }
    // One pair of buffers for every symbol: the cross entries Σ_is and L⁻¹ of them.
    let mut cross = Vec::with_capacity(s);
    let mut projected = Vec::with_capacity(s);
    let mut next = 0;
    for i in 0..input.own {
        if i % SYMBOLS_PER_DEADLINE_CHECK == 0 && deadline.passed() {
            return Err(EngineError::DeadlineExceeded);
        }
        if next < s && shocked[next] == i {
            next += 1;
            continue;
        }
        cross.clear();
        cross.extend(shocked.iter().map(|&j| input.entry(i, j)));
        let mut shift = 0.0;
        for (c, a) in cross.iter().zip(&alpha) {
            shift += c * a;
        }
        log_means[i] = horizon * input.mean[i] + shift;
        let mut explained = 0.0;
        forward_into(&l, &cross, &mut projected);
        for v in &projected {
            explained += v * v;
        }
        let variance = horizon * (input.entry(i, i) - explained);
        sds[i] = if variance > 0.0 { variance.sqrt() } else { 0.0 };
    }
    ensure_finite(&log_means, &sds)?;
    Ok(ConditionalOutcome { log_means, sds })
}

fn ensure_finite(log_means: &[f64], sds: &[f64]) -> Result<()> {
    if log_means.iter().chain(sds).all(|x| x.is_finite()) {
        Ok(())
    } else {
        Err(EngineError::Overflow(
            "a conditional mean or deviation is not finite".into(),
        ))
    }
}

/// Every scenario's outcome, in order.
pub fn conditional(
    input: &ConditionalInput,
    deadline: &Deadline,
) -> Result<Vec<ConditionalOutcome>> {
    input
        .scenarios
        .iter()
        .map(|s| scenario_outcome(input, s, deadline))
        .collect()
}
