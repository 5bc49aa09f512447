//! One block of kept units widened by option columns (OP_SIMULATE_OPTIONS), priced a group of
//! PNL_GROUP columns at a time: each group's option columns are written, then at once summed into
//! every book's P&L and pushed into their tails while the group is in the first-level cache. The
//! P&L is `price_buy_and_hold`'s, summed in its order; each column's tail sees its values in order.

use crate::group_sums::{add_group, group_pnl, PNL_GROUP};
use crate::options::option_blocks::OptionBlocks;
use crate::options::tail_seeds::tail_seeds;
use crate::spec::{Book, BLOCK};
use crate::tail::ValueTail;
use crate::unit_tails::UnitTails;

pub(crate) struct WidenedBlock<'a> {
    widen: OptionBlocks<'a>,
    /// The block's units and option columns, as OP_OPTION_UNITS writes them: the worst scenarios'
    /// rows are read from here as they are admitted.
    pub units: Vec<f64>,
    pnl: Vec<Vec<f64>>,
    group: Vec<f64>,
}

impl<'a> WidenedBlock<'a> {
    pub fn new(widen: OptionBlocks<'a>, books: usize) -> WidenedBlock<'a> {
        let units = vec![0.0; widen.width()];
        WidenedBlock {
            widen,
            units,
            pnl: (0..books).map(|_| vec![0.0; BLOCK]).collect(),
            group: vec![0.0; BLOCK],
        }
    }

    /// Words of one block of the units it widens.
    pub fn kept_width(&self) -> usize {
        self.widen.kept_width()
    }

    /// Book `b`'s P&L of the block last priced.
    pub fn pnl(&self, b: usize) -> &[f64] {
        &self.pnl[b]
    }

    /// Widens and prices `plain` (one block of the kept units) for `books`, pushing the first
    /// `in_block` values of every column from `covered` on into `smallest` and `largest` (column
    /// covered + j into lane j, as `push_unit_tails`); false when an option's value is not finite.
    pub fn price(
        &mut self,
        books: &[Book],
        plain: &[f64],
        in_block: usize,
        covered: usize,
        smallest: &mut [ValueTail],
        largest: &mut [ValueTail],
    ) -> bool {
        let assets = self.kept_width() / BLOCK;
        let columns = assets + self.widen.options();
        self.widen.prepare(plain, &mut self.units);
        self.pnl
            .iter_mut()
            .for_each(|p| p.iter_mut().for_each(|x| *x = 0.0));
        let mut finite = true;
        for first in (0..columns).step_by(PNL_GROUP) {
            let end = (first + PNL_GROUP).min(columns);
            for c in first.max(assets)..end {
                let cell = &mut self.units[c * BLOCK..][..BLOCK];
                finite &= self.widen.write_column(c - assets, plain, cell);
            }
            let group = &self.units[first * BLOCK..end * BLOCK];
            for (book, pnl) in books.iter().zip(&mut self.pnl) {
                group_pnl(book, first / PNL_GROUP, group, &mut self.group);
                add_group(pnl, &self.group);
            }
            for c in first.max(covered)..end {
                let values = &self.units[c * BLOCK..][..in_block];
                if let Some(tail) = smallest.get_mut(c - covered) {
                    tail.push_all(values);
                }
                if let Some(tail) = largest.get_mut(c - covered) {
                    tail.push_all_negated(values);
                }
            }
        }
        finite
    }

    /// Seeds the lanes of option columns (column covered + j in lane j, as `price` pushes them)
    /// from their underlyings' kept `tails` (`tail_seeds`), for a range of `count` scenarios whose
    /// tails keep k (a lane given a NaN bound stays unseeded).
    pub fn seed_lanes(
        &self,
        tails: &UnitTails,
        (k, count): (usize, usize),
        covered: usize,
        smallest: &mut [ValueTail],
        largest: &mut [ValueTail],
    ) {
        let assets = self.kept_width() / BLOCK;
        for (j, [low, high]) in tail_seeds(&self.widen, tails, k, count)
            .into_iter()
            .enumerate()
        {
            let lane = (assets + j).checked_sub(covered);
            if let Some(tail) = lane.and_then(|c| smallest.get_mut(c)) {
                tail.seed(low);
            }
            if let Some(tail) = lane.and_then(|c| largest.get_mut(c)) {
                tail.seed(high);
            }
        }
    }

    /// The option columns it prices, for a range priced again.
    pub fn into_blocks(self) -> OptionBlocks<'a> {
        self.widen
    }

    /// (column, unit) for every column that copies a unit value for value.
    pub fn copies(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        let assets = self.kept_width() / BLOCK;
        (0..self.widen.options())
            .filter_map(move |j| self.widen.copied_unit(j).map(|unit| (assets + j, unit)))
    }

    /// Every column that copies a unit (`OptionBlocks::copied_unit`) given that unit's lanes: the
    /// tails its pushes would have made, bit for bit, since a unit's lane (kept with the units for
    /// the same range, or computed here) was made by the same values pushed in the same order.
    pub fn copy_unit_lanes(&self, tails: &mut UnitTails) {
        for (column, unit) in self.copies() {
            for lane in [&mut tails.smallest, &mut tails.largest] {
                if let Some(copy) = lane.get(unit).cloned() {
                    lane[column] = copy;
                }
            }
        }
    }
}
