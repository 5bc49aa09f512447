//! The k worst scenarios of one task with their rows, bounded as a `ValueTail` is: cut back at a
//! sampled key or to exactly k once the buffer fills, a threshold refusing what can no longer enter.

use crate::select::order_key;
use crate::tail::{capacity, sampled_cut};

/// The k worst scenarios of one task by (value, index), with every asset's P&L in them.
#[derive(Clone, Debug)]
pub struct ScenarioTail {
    k: usize,
    n_assets: usize,
    threshold: u64,
    pub keys: Vec<u64>,
    pub indices: Vec<u64>,
    pub asset_pnl: Vec<f64>,
}

impl ScenarioTail {
    pub fn new(k: usize, n_assets: usize) -> Self {
        ScenarioTail {
            k,
            n_assets,
            threshold: u64::MAX,
            keys: Vec::new(),
            indices: Vec::new(),
            asset_pnl: Vec::new(),
        }
    }

    /// A tail that keeps all of a task's `count` scenarios (weighted scenarios: the tail has no
    /// count known in advance), its memory reserved at once.
    pub fn every(count: usize, n_assets: usize) -> Self {
        let mut t = ScenarioTail::new(count, n_assets);
        t.keys.reserve_exact(count);
        t.indices.reserve_exact(count);
        t.asset_pnl.reserve_exact(count * n_assets);
        t
    }

    /// Whether a scenario of this P&L can still enter. Indices arrive in increasing order, so a
    /// tie with the threshold already loses to the entry it ties with.
    #[inline(always)]
    pub fn admits(&self, pnl: f64) -> bool {
        order_key(pnl) < self.threshold
    }

    pub fn push(&mut self, pnl: f64, index: u64, assets: impl Iterator<Item = f64>) {
        self.keys.push(order_key(pnl));
        self.indices.push(index);
        self.asset_pnl.extend(assets);
        if self.keys.len() >= capacity(self.k) {
            self.cut();
        }
    }

    /// Drops entries that can no longer be among the k worst, as `ValueTail::cut` does.
    fn cut(&mut self) {
        match sampled_cut(&self.keys, self.k) {
            // At least k entries lie at or below the cut, all of lower index than any entry
            // still to come: keep them all, and a later entry equal to it ranks after them.
            Some(cut) => self.retain(cut, usize::MAX),
            None => self.compact(),
        }
    }

    /// Room for every entry the tail can hold before it first compacts, `count` (the task's
    /// scenarios) at most: growing by doubling would copy the asset P&L several times over.
    pub fn reserve_for(&mut self, count: usize) {
        let room = capacity(self.k).min(count);
        self.keys.reserve_exact(room);
        self.indices.reserve_exact(room);
        self.asset_pnl
            .reserve_exact(room.saturating_mul(self.n_assets));
    }

    /// Keeps exactly the k smallest by (key, index): below the k-th key all entries stay, and of
    /// those equal to it the earliest.
    fn compact(&mut self) {
        if self.keys.len() <= self.k {
            return;
        }
        if self.k == 0 {
            self.keys.clear();
            self.indices.clear();
            self.asset_pnl.clear();
            self.threshold = 0;
            return;
        }
        let mut scratch = self.keys.clone();
        let kth = *scratch.select_nth_unstable(self.k - 1).1;
        let below = scratch[..self.k - 1].iter().filter(|&&x| x < kth).count();
        self.retain(kth, self.k - below);
    }

    /// Keeps the entries whose key is below `cut` and the first `ties` equal to it, in one pass
    /// without sorting (entries are in index order, so the earliest ties are the ones that rank
    /// first); `cut` becomes the threshold.
    fn retain(&mut self, cut: u64, mut ties: usize) {
        let n = self.n_assets;
        let mut kept = 0;
        for read in 0..self.keys.len() {
            let key = self.keys[read];
            let keep = key < cut || (key == cut && ties > 0);
            if !keep {
                continue;
            }
            if key == cut {
                ties -= 1;
            }
            self.keys[kept] = key;
            self.indices[kept] = self.indices[read];
            if read != kept {
                // Rows are a few values: an element loop beats a memmove call per row.
                for j in 0..n {
                    self.asset_pnl[kept * n + j] = self.asset_pnl[read * n + j];
                }
            }
            kept += 1;
        }
        self.keys.truncate(kept);
        self.indices.truncate(kept);
        self.asset_pnl.truncate(kept * n);
        self.threshold = cut;
    }

    /// The k worst, ordered by scenario index.
    pub fn finish(mut self) -> Self {
        self.compact();
        self
    }
}
