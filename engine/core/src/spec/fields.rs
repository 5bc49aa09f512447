//! The fields of a spec and the types they are made of: method, mode, books, comparison, and the
//! block and factor-layout constants every stage shares.

/// Simulations per block: the unit of seeding (see `rng`) and of work splitting.
pub const BLOCK: usize = 256;

/// `factor_columns` of an n×n lower-triangular (Cholesky) factor.
pub const FACTOR_TRIANGULAR: usize = 0;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    MonteCarloNormal,
    MonteCarloStudentT,
    Historical,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    BuyAndHold,
    Rebalanced,
}

/// One book priced on the shared scenarios: capital C and weights a_i, exposure e_i = C·a_i (any
/// sign). A long-only Part 1 portfolio is C = V, a = w.
#[derive(Clone, Debug, PartialEq)]
pub struct Book {
    pub capital: f64,
    pub weights: Vec<f64>,
}

impl Book {
    /// Money exposure of asset i, computed the one way every kernel and the merge compute it.
    #[inline(always)]
    pub fn exposure(&self, i: usize) -> f64 {
        self.capital * self.weights[i]
    }

    /// Whether the capital is one a calculation can have: finite and > 0 (a capital ≤ 0 would turn
    /// every exposure's sign, and with it the lane each standalone VaR reads).
    pub fn capital_in_range(&self) -> bool {
        self.capital.is_finite() && self.capital > 0.0
    }

    /// Whether some exposure is not zero (either sign): a book without one (its weights 0, or so
    /// small that capital × weight underflows) has P&L 0 in every scenario.
    pub fn has_exposure(&self) -> bool {
        (0..self.weights.len()).any(|i| self.exposure(i) != 0.0)
    }

    /// Whether asset i's standalone VaR reads its largest values (an exposure ≤ −0, whose loss
    /// comes from rises) rather than its smallest (≥ +0).
    #[inline(always)]
    pub fn reads_largest(&self, i: usize) -> bool {
        self.exposure(i).is_sign_negative()
    }

    /// Whether some exposure is negative (or −0): then an asset's loss comes from its rises.
    pub fn has_short(&self) -> bool {
        self.weights.iter().any(|w| w.is_sign_negative())
    }
}

/// Whether some book reads asset i's shared lane of smallest values (an exposure ≥ +0) or, with
/// `largest`, of largest values (an exposure ≤ −0): a standalone VaR reads that lane and no other,
/// so a lane no book reads is neither filled by the simulation nor selected by the merge.
pub fn reads_lane(books: &[Book], i: usize, largest: bool) -> bool {
    books.iter().any(|b| b.reads_largest(i) == largest)
}

/// What the merge reports beyond each book's figures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comparison {
    None,
    /// Two books, before (0) and after (1) a trade: the differences and their standard errors.
    WhatIf,
}

/// The fields of a spec before validation: what a decoder or a test assembles.
#[derive(Clone, Debug, PartialEq)]
pub struct SpecFields {
    pub method: Method,
    pub mode: Mode,
    /// 1..=MAX_BOOKS books over the same n assets.
    pub books: Vec<Book>,
    pub comparison: Comparison,
    pub horizon: usize,
    pub degrees_of_freedom: f64,
    pub seed: u64,
    pub antithetic: bool,
    /// Monte Carlo only: draw the normals shifted along the first book's loss direction and weight
    /// each scenario by its likelihood ratio (see `importance::shift`).
    pub importance_sampling: bool,
    /// Total scenarios N over all tasks (historical: the number of T-day windows).
    pub scenarios: usize,
    pub confidence: f64,
    pub histogram_bins: usize,
    /// Daily drift per asset (historical: the amount subtracted from each return).
    pub mean: Vec<f64>,
    /// A factor F of the daily covariance, Σ = F·Fᵀ, row-major (Monte Carlo only): the n×n
    /// lower-triangular Cholesky factor when `factor_columns` is `FACTOR_TRIANGULAR`, else n×m
    /// loadings (the scaled centred returns of the estimation window, m ≤ n; or, when the assets
    /// are instruments summing several risk factors, those factors' rows added up, m any size).
    pub factor: Vec<f64>,
    pub factor_columns: usize,
    /// Daily returns [observation][asset] (historical only).
    pub returns: Vec<f64>,
}
