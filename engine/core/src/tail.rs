//! Bounded trackers of the k smallest values seen so far. Memory stays O(k) whatever the number of
//! scenarios: once the buffer fills, it is cut back to its k smallest and a threshold rejects
//! anything that can no longer enter.

use crate::select::order_key;

fn capacity(k: usize) -> usize {
    k + (k / 2).max(512)
}

/// The k smallest values of one stream (order keys only).
#[derive(Clone, Debug)]
pub struct ValueTail {
    k: usize,
    threshold: u64,
    pub keys: Vec<u64>,
}

impl ValueTail {
    pub fn new(k: usize) -> Self {
        ValueTail {
            k,
            // k = 0 keeps nothing: every key is refused.
            threshold: if k == 0 { 0 } else { u64::MAX },
            keys: Vec::with_capacity(capacity(k).min(1 << 16)),
        }
    }

    #[inline(always)]
    pub fn push(&mut self, x: f64) {
        let key = order_key(x);
        if key < self.threshold {
            self.keys.push(key);
            if self.keys.len() >= capacity(self.k) {
                self.compact();
            }
        }
    }

    fn compact(&mut self) {
        if self.keys.len() > self.k {
            self.keys.select_nth_unstable(self.k - 1);
            self.keys.truncate(self.k);
            self.threshold = *self.keys.iter().max().unwrap_or(&u64::MAX);
        }
    }

    /// The k smallest keys, ascending.
    pub fn finish(mut self) -> Vec<u64> {
        self.compact();
        self.keys.sort_unstable();
        self.keys
    }
}

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
            self.compact();
        }
    }

    fn compact(&mut self) {
        if self.keys.len() <= self.k {
            return;
        }
        let mut order: Vec<usize> = (0..self.keys.len()).collect();
        let by_rank = |&a: &usize, &b: &usize| {
            (self.keys[a], self.indices[a]).cmp(&(self.keys[b], self.indices[b]))
        };
        order.select_nth_unstable_by(self.k - 1, by_rank);
        order.truncate(self.k);
        order.sort_unstable_by_key(|&p| self.indices[p]);
        let n = self.n_assets;
        let keys = order.iter().map(|&p| self.keys[p]).collect::<Vec<_>>();
        let indices = order.iter().map(|&p| self.indices[p]).collect();
        let mut asset_pnl = Vec::with_capacity(self.k * n);
        for &p in &order {
            asset_pnl.extend_from_slice(&self.asset_pnl[p * n..(p + 1) * n]);
        }
        self.threshold = *keys.iter().max().unwrap_or(&u64::MAX);
        self.keys = keys;
        self.indices = indices;
        self.asset_pnl = asset_pnl;
    }

    /// The k worst, ordered by scenario index.
    pub fn finish(mut self) -> Self {
        self.compact();
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::select::from_order_key;

    #[test]
    fn value_tail_keeps_the_k_smallest() {
        let mut t = ValueTail::new(3);
        let xs: Vec<f64> = (0..5000)
            .map(|i| ((i * 7919) % 5003) as f64 - 2500.0)
            .collect();
        xs.iter().for_each(|&x| t.push(x));
        let got: Vec<f64> = t.finish().into_iter().map(from_order_key).collect();
        let mut sorted = xs.clone();
        sorted.sort_by(f64::total_cmp);
        assert_eq!(got, sorted[..3].to_vec());
    }

    #[test]
    fn scenario_tail_breaks_ties_by_index() {
        let mut t = ScenarioTail::new(2, 1);
        for i in 0..2000u64 {
            let pnl = if i % 500 == 7 { -5.0 } else { i as f64 };
            if t.admits(pnl) {
                t.push(pnl, i, std::iter::once(pnl * 2.0));
            }
        }
        let t = t.finish();
        assert_eq!(t.indices, vec![7, 507]);
        assert_eq!(t.asset_pnl, vec![-10.0, -10.0]);
    }
}
