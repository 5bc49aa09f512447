//! Bounded trackers of the k smallest values seen so far. Memory stays O(k) whatever the number of
//! scenarios: once the buffer fills, it is cut back (at a sampled key that keeps at least k, or to
//! exactly the k smallest) and a threshold rejects anything that can no longer enter; the final cut
//! keeps exactly k.

use crate::select::order_key;

fn capacity(k: usize) -> usize {
    k + (k / 2).max(512)
}

/// Keys in the sample a mid-stream cut is chosen from.
const SAMPLE: usize = 1024;

/// A cut for a full buffer that costs two passes instead of a selection: a key with at least k of
/// `keys` at or below it (so everything above it can be dropped) but not many more, read from an
/// evenly spaced sample three standard deviations beyond the k-th's estimated place. None when the
/// buffer is small, when the sample misjudges, or when the cut would free too little room; the
/// caller then selects exactly. Only a final cut must keep exactly k.
pub(crate) fn sampled_cut(keys: &[u64], k: usize) -> Option<u64> {
    let len = keys.len();
    if k == 0 || len < 4 * SAMPLE {
        return None;
    }
    let stride = len / SAMPLE;
    let mut sample: Vec<u64> = (0..SAMPLE).map(|i| keys[i * stride]).collect();
    sample.sort_unstable();
    let q = k as f64 / len as f64;
    let margin = 3.0 * (SAMPLE as f64 * q * (1.0 - q)).sqrt() + 1.0;
    let rank = (q * SAMPLE as f64 + margin).ceil() as usize;
    let cut = *sample.get(rank)?;
    let at_or_below = keys.iter().filter(|&&x| x <= cut).count();
    (at_or_below >= k && at_or_below - k <= (len - k) / 2).then_some(cut)
}

/// The k smallest values of one stream (order keys only).
#[derive(Clone, Debug)]
pub struct ValueTail {
    k: usize,
    threshold: u64,
    keys: Vec<u64>,
}

/// Values a push stages before the keys under the threshold join the tail.
const STAGE: usize = 256;

impl ValueTail {
    /// The k smallest of a stream of `count` values, their room taken at once (the buffer fills
    /// to it before every cut), so that it never grows by copying.
    pub fn new(k: usize, count: usize) -> Self {
        ValueTail {
            k,
            // k = 0 keeps nothing: every key is refused.
            threshold: if k == 0 { 0 } else { u64::MAX },
            keys: Vec::with_capacity(if k == 0 {
                0
            } else {
                capacity(k).min(count) + STAGE
            }),
        }
    }

    /// Adds the values of `xs`. Every key is written to a stage and only those under the
    /// threshold are counted: at a low confidence level half the keys enter, and a branch on each
    /// would be mispredicted half the time.
    pub fn push_all(&mut self, xs: &[f64]) {
        self.push_mapped(xs, |x| x);
    }

    /// Adds −x for every x of `xs` (the largest values, as the smallest of their negatives).
    pub fn push_all_negated(&mut self, xs: &[f64]) {
        self.push_mapped(xs, |x| -x);
    }

    #[inline(always)]
    fn push_mapped(&mut self, xs: &[f64], map: impl Fn(f64) -> f64) {
        if self.k == 0 {
            return;
        }
        for chunk in xs.chunks(STAGE) {
            let mut stage = [0u64; STAGE];
            let mut staged = 0;
            for &x in chunk {
                let key = order_key(map(x));
                stage[staged] = key;
                staged += usize::from(key < self.threshold);
            }
            self.keys.extend_from_slice(&stage[..staged]);
            if self.keys.len() >= capacity(self.k) {
                self.cut();
            }
        }
    }

    /// Drops keys that can no longer be among the k smallest: every key above a sampled cut, or
    /// (when no cut is found) all but the k smallest.
    fn cut(&mut self) {
        match sampled_cut(&self.keys, self.k) {
            Some(cut) => {
                // Branch-free: about half the keys stay.
                let mut kept = 0;
                for read in 0..self.keys.len() {
                    let key = self.keys[read];
                    self.keys[kept] = key;
                    kept += usize::from(key <= cut);
                }
                self.keys.truncate(kept);
                // At least k keys lie at or below the cut: a key equal to it adds nothing.
                self.threshold = cut;
            }
            None => self.compact(),
        }
    }

    /// Keeps exactly the k smallest.
    fn compact(&mut self) {
        if self.keys.len() > self.k {
            // Every key before the k-th is no larger: the k-th is the largest kept.
            self.threshold = *self.keys.select_nth_unstable(self.k - 1).1;
            self.keys.truncate(self.k);
        }
    }

    /// The k smallest keys, in no particular order: the merge only selects among them, and
    /// sorting k keys per asset cost more than the simulation when k is large.
    pub fn finish(mut self) -> Vec<u64> {
        self.compact();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sampled_cut_keeps_at_least_k_and_frees_room_or_declines() {
        let keys: Vec<u64> = (0..10_000u64).map(|i| (i * 7919) % 10_007).collect();
        for k in [1, 100, 4_000, 9_000] {
            let cut = sampled_cut(&keys, k).expect("a spread sample finds a cut");
            let kept = keys.iter().filter(|&&x| x <= cut).count();
            assert!(
                kept >= k && kept - k <= (keys.len() - k) / 2,
                "k {k}: {kept}"
            );
        }
        // All equal: no cut frees room; too few keys or k = 0: no sample is taken.
        assert_eq!(sampled_cut(&[5; 10_000], 100), None);
        assert_eq!(sampled_cut(&keys[..4_000], 100), None);
        assert_eq!(sampled_cut(&keys, 0), None);
    }
}
