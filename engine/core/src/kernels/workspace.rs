//! A task's scratch space for the kernels, allocated once: the draws, the running sums, each
//! rebalanced book's path state and the outputs a block hands on.

use crate::spec::BLOCK;

/// Memory one group of rebalanced books may hold in path state; more books take more groups, each
/// of which draws the block again (the same draws: results never depend on the grouping).
const GROUP_BYTES: usize = 32 << 20;

/// Books per rebalanced group for `n` assets.
pub fn group_size(n: usize) -> usize {
    (GROUP_BYTES / ((n + 4) * BLOCK * 8)).max(1)
}

/// A rebalanced book's running state over the days of one block.
pub struct BookPaths {
    /// Output: per asset, its gains on the running value [asset][simulation] (money).
    pub asset_pnl: Vec<f64>,
    pub(super) gross: Vec<f64>,
    pub(super) growth: Vec<f64>,
    pub(super) scaled_gross: Vec<f64>,
    /// Output: C·(gross − 1).
    pub pnl: Vec<f64>,
}

impl BookPaths {
    pub(super) fn new(n: usize) -> Self {
        BookPaths {
            asset_pnl: vec![0.0; n * BLOCK],
            gross: vec![0.0; BLOCK],
            growth: vec![0.0; BLOCK],
            scaled_gross: vec![0.0; BLOCK],
            pnl: vec![0.0; BLOCK],
        }
    }
}

/// Scratch space of one task, allocated once.
pub struct Workspace {
    pub(super) n: usize,
    pub(super) group: usize,
    pub(super) z: Vec<f64>,
    pub(super) gain: Vec<f64>,
    pub(super) t_factor: Vec<f64>,
    pub(super) cumulative: Vec<f64>,
    pub(super) log_weight: Vec<f64>,
    /// Importance sampling output: each simulation's likelihood ratio (else untouched).
    pub weight: Vec<f64>,
    /// Buy-and-hold output: e^{R_i} − 1 per asset [asset][simulation], shared by every book.
    pub unit: Vec<f64>,
    /// Rebalanced: the path state of each book of the current group.
    pub paths: Vec<BookPaths>,
    /// Buy-and-hold output for one book: portfolio P&L.
    pub pnl: Vec<f64>,
}

impl Workspace {
    /// For `n` assets and rebalanced groups of at most `group` books (see `group_size`).
    pub fn new(n: usize, group: usize) -> Self {
        Workspace {
            n,
            group: group.max(1),
            z: vec![0.0; n * BLOCK],
            gain: vec![0.0; BLOCK.max(n)],
            t_factor: vec![0.0; BLOCK],
            cumulative: vec![0.0; n * BLOCK],
            log_weight: vec![0.0; BLOCK],
            weight: vec![1.0; BLOCK],
            unit: vec![0.0; n * BLOCK],
            paths: Vec::new(),
            pnl: vec![0.0; BLOCK],
        }
    }

    /// Books per rebalanced group.
    pub fn group(&self) -> usize {
        self.group
    }
}
