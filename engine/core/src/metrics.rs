//! Risk figures of one calculation, shared by every method.

/// Percentiles per response (a count the flat ABI carries implicitly).
pub const PERCENTILES: usize = 9;
/// Percentile levels of the response, in order p01 … p99.
pub const PERCENTILE_LEVELS: [f64; PERCENTILES] =
    [0.01, 0.05, 0.10, 0.25, 0.50, 0.75, 0.90, 0.95, 0.99];

#[derive(Clone, Debug, PartialEq)]
pub struct Metrics {
    /// Scenarios the figures come from (0 for the closed form).
    pub scenarios: usize,
    pub value_at_risk: f64,
    pub expected_shortfall: f64,
    pub expected_pnl: f64,
    pub volatility: f64,
    pub probability_of_loss: f64,
    pub worst_loss: f64,
    pub best_gain: f64,
    pub value_at_risk_standard_error: f64,
    pub expected_shortfall_standard_error: f64,
    /// P&L at PERCENTILE_LEVELS.
    pub percentiles: [f64; PERCENTILES],
    /// Euler contributions to ES per asset; they sum to `expected_shortfall`.
    pub component_es: Vec<f64>,
    /// Contributions to VaR per asset (the kernel estimator of `finalize`); they sum to VaR.
    pub component_var: Vec<f64>,
    pub standalone_var: Vec<f64>,
    pub bin_edges: Vec<f64>,
    pub counts: Vec<f64>,
}

impl Metrics {
    /// Every number a response carries is finite.
    pub fn all_finite(&self) -> bool {
        let scalars = [
            self.value_at_risk,
            self.expected_shortfall,
            self.expected_pnl,
            self.volatility,
            self.probability_of_loss,
            self.worst_loss,
            self.best_gain,
            self.value_at_risk_standard_error,
            self.expected_shortfall_standard_error,
        ];
        scalars
            .iter()
            .chain(&self.percentiles)
            .chain(&self.component_es)
            .chain(&self.component_var)
            .chain(&self.standalone_var)
            .chain(&self.bin_edges)
            .chain(&self.counts)
            .all(|x| x.is_finite())
    }
}

/// A what-if's figures: after − before, and the standard errors of the differences.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WhatIf {
    pub incremental_var: f64,
    pub incremental_es: f64,
    pub incremental_var_standard_error: f64,
    pub incremental_es_standard_error: f64,
}

/// Every book's figures, in the order of the spec's books, and the comparison asked for.
#[derive(Clone, Debug, PartialEq)]
pub struct Results {
    pub books: Vec<Metrics>,
    pub what_if: Option<WhatIf>,
}

/// Neumaier-compensated running sum: accurate for millions of terms, and deterministic.
#[derive(Clone, Copy, Debug, Default)]
pub struct CompensatedSum {
    sum: f64,
    carry: f64,
}

impl CompensatedSum {
    #[inline(always)]
    pub fn add(&mut self, x: f64) {
        let t = self.sum + x;
        self.carry += if self.sum.abs() >= x.abs() {
            (self.sum - t) + x
        } else {
            (x - t) + self.sum
        };
        self.sum = t;
    }

    pub fn total(&self) -> f64 {
        self.sum + self.carry
    }
}

/// Compensated sum of a sequence.
pub fn compensated_sum(xs: impl Iterator<Item = f64>) -> f64 {
    let mut acc = CompensatedSum::default();
    xs.for_each(|x| acc.add(x));
    acc.total()
}
