//! Bounded trackers of the k smallest values seen so far (`ValueTail`; the worst scenarios with
//! their rows: `scenario_tail`). Memory stays O(k) whatever the number of scenarios: once the
//! buffer fills, it is cut back (at a sampled key that keeps at least k, or to exactly the k
//! smallest) and a threshold rejects anything that can no longer enter; the final cut keeps
//! exactly k.

use crate::select::{from_order_key, order_key};

pub(crate) fn capacity(k: usize) -> usize {
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

/// Writes the key of every value of `xs` to `stage` from `staged` on, advancing past those under
/// `threshold` only; the new count of staged keys.
#[inline(always)]
fn stage_under(
    threshold: u64,
    xs: &[f64],
    map: &impl Fn(f64) -> f64,
    stage: &mut [u64; STAGE],
    mut staged: usize,
) -> usize {
    for &x in xs {
        let key = order_key(map(x));
        stage[staged] = key;
        staged += usize::from(key < threshold);
    }
    staged
}

/// The k smallest values of one stream (order keys only).
#[derive(Clone, Debug)]
pub struct ValueTail {
    k: usize,
    threshold: u64,
    keys: Vec<u64>,
    /// Told a bound at least k of its values will not exceed (`seed`): few values enter, and a
    /// run of them is passed over at once when none can.
    seeded: bool,
}

/// Values a push stages before the keys under the threshold join the tail.
const STAGE: usize = 256;

/// Values a seeded push passes over at once when none of them can enter.
const RUN: usize = 16;

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
            seeded: false,
        }
    }

    /// Refuses every value above `bound` from now on, given that at least k of the values to be
    /// pushed are at or below it (where they are not, `short` says so and the tail is not the k
    /// smallest). A NaN bound, or a tail keeping nothing, is left as it is.
    pub fn seed(&mut self, bound: f64) {
        if self.k == 0 || bound.is_nan() {
            return;
        }
        // A key equal to the bound's may be among the k smallest: it enters.
        self.threshold = self.threshold.min(order_key(bound).saturating_add(1));
        self.seeded = true;
    }

    /// A seeded tail given fewer than k values at or below its bound: its keys are not the k
    /// smallest of what it was given (an unseeded tail given the same values would be).
    pub fn short(&self) -> bool {
        self.seeded && self.keys.len() < self.k
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
            if self.seeded {
                // Few values enter (about k of the stream): a run with none at or below the
                // threshold's value (compared as floats, which vectorises; a NaN threshold lets
                // every run through) is passed over.
                let at_most = from_order_key(self.threshold);
                for run in chunk.chunks(RUN) {
                    // Not above rather than at most: a NaN passes.
                    #[allow(clippy::neg_cmp_op_on_partial_ord)]
                    let open = run.iter().fold(false, |any, &x| any | !(map(x) > at_most));
                    if open {
                        staged = stage_under(self.threshold, run, &map, &mut stage, staged);
                    }
                }
            } else {
                staged = stage_under(self.threshold, chunk, &map, &mut stage, 0);
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
