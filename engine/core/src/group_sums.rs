//! A live book's group sums, kept between pricings of the same kept scenarios (OP_SIMULATE_KEPT
//! given memory the host keeps for it). A buy-and-hold book's P&L is the sum of its groups' sums
//! (`PNL_GROUP` assets each, `kernels::price_buy_and_hold`), and a group whose exposures have not
//! moved since the last pricing has the same sums, bit for bit: a tick that moves one exposure
//! reads one group's units and the group sums instead of every asset's units. The memory says what
//! it was summed for (books, assets, block range, every exposure); anything else, or a pricing
//! that did not finish, makes every group stale, so it can be slower but never other.
//!
//! After the sums, per book, the unit rows (every asset's e^{R} − 1 in one scenario) of the book's
//! worst scenarios at the last pricing: the worst set barely moves between ticks, and a row read
//! from here is n contiguous values where the kept units hold it n cache lines apart. A row is
//! copied, never computed, so where it comes from changes no bit.

use crate::spec::{BlockRange, Book, Spec, BLOCK};

/// Assets whose P&L is added up on its own before joining the book's: the book's P&L is the sum
/// in group order of each group's sum in asset order. A live subscription keeps each group's sums
/// between ticks and redoes only the groups whose exposures a tick moved. A book of at most this
/// many assets is one group, its sum the plain sum in asset order.
pub const PNL_GROUP: usize = 16;

/// Words before the exposures: [state, books, assets, first block, end block].
pub const GROUP_SUMS_HEADER: usize = 5;
const HEADER: usize = GROUP_SUMS_HEADER;
/// `state` once every block of the range has been summed for the exposures that follow.
const CLEAN: f64 = 1.0;

/// Unit rows kept per book and per block of the range (a sixteenth of the range's scenarios). A
/// range must return the whole calculation's worst set (k + ⌊√k⌋ rows): at 100,000 scenarios that
/// fits down to 94 % confidence in one range, 97 % in each of two, and not at 99 % in eight. A book
/// whose worst set is larger reads its rows from the units, as without the memory.
pub const ROW_CACHE_PER_BLOCK: usize = 16;

/// Words of one book's kept rows over `blocks` blocks: [rows held], then their scenario indices
/// (ascending), then the rows (`assets` values each).
fn row_cache_length(assets: usize, blocks: usize) -> usize {
    1 + blocks * ROW_CACHE_PER_BLOCK * (1 + assets)
}

/// Groups of a book of `assets` assets.
pub fn group_count(assets: usize) -> usize {
    (assets + PNL_GROUP - 1) / PNL_GROUP
}

/// Words the group sums of `books` books of `assets` assets over `blocks` blocks take, with each
/// book's kept rows.
pub fn group_sums_length(books: usize, assets: usize, blocks: usize) -> usize {
    HEADER
        + books * assets
        + blocks * books * group_count(assets) * BLOCK
        + books * row_cache_length(assets, blocks)
}

/// The memory open for one pricing of a spec over a range.
pub struct GroupSums<'a> {
    memory: &'a mut [f64],
    /// Per book and group, whether its sums must be summed again.
    stale: Vec<bool>,
    books: usize,
    groups: usize,
    first_block: usize,
    assets: usize,
    blocks: usize,
    /// The range's scenarios [start, end).
    scenarios: (usize, usize),
    /// Whether the kept rows are the units' of this range (the memory was clean and of this shape).
    rows_kept: bool,
}

impl<'a> GroupSums<'a> {
    /// Opens `memory` for pricing `spec`'s buy-and-hold books over `range`; None when it is not of
    /// the length they take (the pricing then sums every group, as without it).
    pub fn open(memory: &'a mut [f64], spec: &Spec, range: BlockRange) -> Option<Self> {
        let (books, n) = (spec.books().len(), spec.n_assets());
        if memory.len() != group_sums_length(books, n, range.end - range.first) {
            return None;
        }
        let same = memory[0] == CLEAN
            && memory[1] == books as f64
            && memory[2] == n as f64
            && memory[3] == range.first as f64
            && memory[4] == range.end as f64;
        let groups = group_count(n);
        let mut stale = Vec::with_capacity(books * groups);
        for (b, book) in spec.books().iter().enumerate() {
            let kept = &memory[HEADER + b * n..HEADER + (b + 1) * n];
            for g in 0..groups {
                let assets = g * PNL_GROUP..((g + 1) * PNL_GROUP).min(n);
                stale.push(
                    !same
                        || assets
                            .into_iter()
                            .any(|i| kept[i].to_bits() != book.exposure(i).to_bits()),
                );
            }
        }
        // Not clean until every block is summed: a pricing cut short leaves every group stale.
        memory[0] = 0.0;
        Some(GroupSums {
            memory,
            stale,
            books,
            groups,
            first_block: range.first,
            assets: n,
            blocks: range.end - range.first,
            scenarios: range.scenarios(spec),
            rows_kept: same,
        })
    }

    /// Book `b`'s unit rows in the scenarios `indices` (ascending, global, inside the range), `n`
    /// values each, in their order into `out`: those kept at the last pricing copied from the
    /// memory, the others by `gather`; the memory then keeps these. When they are more than the
    /// memory holds, every row is gathered and the memory keeps what it had for this range, or
    /// nothing where it held another's.
    pub fn unit_rows(
        &mut self,
        b: usize,
        indices: &[u64],
        gather: impl Fn(usize, &mut Vec<f64>),
        out: &mut Vec<f64>,
    ) {
        let (n, capacity) = (self.assets, self.blocks * ROW_CACHE_PER_BLOCK);
        let length = row_cache_length(n, self.blocks);
        let at = self.memory.len() - (self.books - b) * length;
        let cache = &mut self.memory[at..at + length];
        if indices.len() > capacity || indices.windows(2).any(|w| w[0] >= w[1]) {
            indices.iter().for_each(|&i| gather(i as usize, out));
            if !self.rows_kept {
                // Another range's or a spoiled memory's rows: forgotten, as its sums are.
                cache[0] = 0.0;
            }
            return;
        }
        let held = if self.rows_kept {
            held_rows(cache, capacity, self.scenarios)
        } else {
            0
        };
        let (kept_indices, kept_rows) = cache[1..].split_at(capacity);
        let mut j = 0;
        for &index in indices {
            while j < held && kept_indices[j] < index as f64 {
                j += 1;
            }
            if j < held && kept_indices[j] == index as f64 {
                out.extend_from_slice(&kept_rows[j * n..(j + 1) * n]);
            } else {
                gather(index as usize, out);
            }
        }
        cache[0] = indices.len() as f64;
        for (slot, &index) in cache[1..=indices.len()].iter_mut().zip(indices) {
            *slot = index as f64;
        }
        let rows = &out[out.len() - indices.len() * n..];
        cache[1 + capacity..1 + capacity + rows.len()].copy_from_slice(rows);
    }

    /// Book `b`'s P&L on `block` from the block's `units` (n × BLOCK): its stale groups summed
    /// again into the memory, then every group's sums added in group order, as
    /// `price_buy_and_hold` adds them.
    pub fn price(&mut self, b: usize, book: &Book, block: usize, units: &[f64], pnl: &mut [f64]) {
        pnl.iter_mut().for_each(|x| *x = 0.0);
        let n = units.len() / BLOCK;
        let data = HEADER + self.books * n;
        let at = data + ((block - self.first_block) * self.books + b) * self.groups * BLOCK;
        let sums = &mut self.memory[at..at + self.groups * BLOCK];
        for (g, (slot, columns)) in sums
            .chunks_exact_mut(BLOCK)
            .zip(units.chunks(PNL_GROUP * BLOCK))
            .enumerate()
        {
            if self.stale[b * self.groups + g] {
                group_pnl(book, g, columns, slot);
            }
            add_group(pnl, slot);
        }
    }

    /// Every block of the range priced: the memory holds these books' sums from now on.
    pub fn close(self, spec: &Spec, range: BlockRange) {
        let n = spec.n_assets();
        for (b, book) in spec.books().iter().enumerate() {
            for i in 0..n {
                self.memory[HEADER + b * n + i] = book.exposure(i);
            }
        }
        self.memory[1] = self.books as f64;
        self.memory[2] = n as f64;
        self.memory[3] = range.first as f64;
        self.memory[4] = range.end as f64;
        self.memory[0] = CLEAN;
    }
}

/// Rows a book's kept rows hold: their count when it is a whole number within `capacity` and their
/// indices rise strictly inside `scenarios`, else none (memory the engine did not leave so).
fn held_rows(cache: &[f64], capacity: usize, scenarios: (usize, usize)) -> usize {
    let count = cache[0];
    if !(count >= 0.0 && count <= capacity as f64 && count.fract() == 0.0) {
        return 0;
    }
    let indices = &cache[1..1 + count as usize];
    let inside = |x: f64| x >= scenarios.0 as f64 && x < scenarios.1 as f64 && x.fract() == 0.0;
    let rising = indices.windows(2).all(|w| w[0] < w[1]);
    if rising && indices.iter().all(|&x| inside(x)) {
        count as usize
    } else {
        0
    }
}

/// Group `g`'s P&L on a block: the sum in asset order of e_i·u_i over its assets' `columns`.
pub fn group_pnl(book: &Book, g: usize, columns: &[f64], out: &mut [f64]) {
    out.iter_mut().for_each(|x| *x = 0.0);
    for (j, column) in columns.chunks_exact(BLOCK).enumerate() {
        let position = book.exposure(g * PNL_GROUP + j);
        for (o, u) in out.iter_mut().zip(column) {
            *o += position * u;
        }
    }
}

/// A group's sums joined to the book's P&L. The first group's sum is never −0 (a sum from +0 is
/// +0 or not zero), so adding it to +0 keeps it: a book of one group prices as before groups.
pub fn add_group(pnl: &mut [f64], group: &[f64]) {
    for (p, s) in pnl.iter_mut().zip(group) {
        *p += s;
    }
}
