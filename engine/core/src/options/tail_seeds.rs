//! Bounds that seed the tails of option columns (`ValueTail::seed`) before a range is priced. A
//! full revaluation moves one way with its underlying, so the column's k smallest values are its
//! values at the underlying's k most extreme units, all at or below its value at the k-th of them,
//! which the kept tails hold. Seeded, a tail passes over almost every run of values at a glance
//! rather than staging each one. Where a bound misjudges (a price not monotone to its last bit
//! beyond the margin), the tail comes up short and the range is priced again unseeded: a seed
//! changes the time a range takes, never its partial.

use super::option_blocks::OptionBlocks;
use crate::select::from_order_key;
use crate::unit_tails::UnitTails;

/// Relative room a bound is given over the column's value at the k-th unit, for rounding.
const MARGIN: f64 = 1e-9;

/// Per option, the bounds of its column's lanes of smallest values and of largest (as the
/// smallest of the negated values); NaN where none is known. Empty when the columns are priced
/// unseeded, when seeding would not pay (k above an eighth of the range's `count` scenarios,
/// where a run rarely has nothing to enter), and for ranked tails (one value of the whole
/// calculation, not the range's k-th; `check_kept` refuses them beside options).
pub(crate) fn tail_seeds(
    blocks: &OptionBlocks,
    tails: &UnitTails,
    k: usize,
    count: usize,
) -> Vec<[f64; 2]> {
    if !blocks.seeding || k == 0 || k > count / 8 || tails.ranked != 0 {
        return Vec::new();
    }
    // The k-th smallest value of a lane holding exactly the range's k smallest.
    let kth = |lane: &Vec<Vec<u64>>, unit: usize| -> Option<f64> {
        let keys = lane.get(unit).filter(|keys| keys.len() == k)?;
        keys.iter().max().map(|&key| from_order_key(key))
    };
    let seed = |j: usize| -> Option<[f64; 2]> {
        let unit = blocks.monotone_underlying(j)?;
        // The largest lane holds −u: its k-th smallest is minus the k-th largest unit.
        let [a, b] = blocks.values_at(
            j,
            [kth(&tails.smallest, unit)?, -kth(&tails.largest, unit)?],
        );
        let room = MARGIN * (a.abs() + b.abs()) + f64::MIN_POSITIVE;
        Some([a.min(b) + room, -a.max(b) + room])
    };
    (0..blocks.options())
        .map(|j| seed(j).unwrap_or([f64::NAN; 2]))
        .collect()
}
