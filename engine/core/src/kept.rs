//! A live book's kept scenarios: a range's units drawn once with their per-asset tails
//! (`kept_units`, OP_UNITS), and any book priced on them later (`simulate_kept`, OP_SIMULATE_KEPT)
//! with the partial that drawing them again would give, bit for bit.

use crate::block_tails::push_unit_tails;
use crate::deadline::Deadline;
use crate::error::{ensure, EngineError, Result};
use crate::finite::all_finite;
use crate::kernels::{fill_units, group_size, scaled_factor, Workspace};
use crate::options::option_blocks::OptionBlocks;
use crate::options::revalue::{check_option_units, OptionColumn};
use crate::simulate::{block_units, in_block, simulate_from, Partial, UnitTails};
use crate::spec::{BlockRange, Spec, TaskTails, BLOCK};
use crate::tail::ValueTail;

/// The units (e^{R_i} − 1, asset-major per block, BLOCK per asset) of the blocks of `range`, and
/// both lanes of their tails, for `simulate_kept`: a spec whose books share them (buy-and-hold
/// without importance sampling). The tails depend on the units alone, so a live book's every
/// tick would recompute the same ones (half of its cost, measured); they are kept with the units.
pub fn kept_units(
    spec: &Spec,
    range: BlockRange,
    deadline: &Deadline,
) -> Result<(Vec<f64>, UnitTails)> {
    let k = keepable(spec, range)?;
    let (start, end) = range.scenarios(spec);
    let lane = || -> Vec<ValueTail> {
        (0..spec.n_assets())
            .map(|_| ValueTail::new(k, end - start))
            .collect()
    };
    let (mut smallest, mut largest) = (lane(), lane());
    let mut ws = Workspace::new(spec.n_assets(), group_size(spec.n_assets()));
    let factor_t = scaled_factor(spec);
    let mut out = Vec::with_capacity((range.end - range.first) * block_units(spec));
    for block in range.first..range.end {
        if deadline.passed() {
            return Err(EngineError::DeadlineExceeded);
        }
        fill_units(spec, &factor_t, &mut ws, block);
        // The pushes simulate_from makes, in its order: the same tails, bit for bit.
        push_unit_tails(
            &mut smallest,
            &mut largest,
            &ws.unit,
            in_block(spec, block),
            0,
        );
        out.extend_from_slice(&ws.unit);
    }
    let finish = |lane: Vec<ValueTail>| lane.into_iter().map(ValueTail::finish).collect();
    Ok((
        out,
        UnitTails {
            smallest: finish(smallest),
            largest: finish(largest),
            ranked: 0,
        },
    ))
}

/// The range's tail size k, for a spec whose books share their units (buy-and-hold without
/// importance sampling) and a range inside it; else the error.
fn keepable(spec: &Spec, range: BlockRange) -> Result<usize> {
    range.validate(spec)?;
    ensure(
        spec.shares_asset_tails(),
        "kept units need a buy-and-hold spec without importance sampling",
    )?;
    let (start, end) = range.scenarios(spec);
    Ok(spec.tail_count().min(end - start))
}

/// `simulate` on the units and tails `kept_units` gave for the same range and scenarios (its
/// books may differ): the same partial, bit for bit, without drawing them again. The tails may
/// cover the first assets only (columns appended to the units since, such as options', have
/// theirs computed here), or be pooled: every asset covered, and either no values (another range
/// holds them), the k smallest of all ranges, or one value of rank k, the asset's k-th smallest
/// of all ranges (ranked: finalize takes each asset's k-th smallest over every partial's tails,
/// and this is it). Pooled, the partials differ from drawing's in their tails only, and the
/// figures after finalize not at all; pooled once for every pricing, each tick's partials carry
/// one value per asset and lane rather than k.
pub fn simulate_kept(
    spec: &Spec,
    range: BlockRange,
    deadline: &Deadline,
    units: &[f64],
    tails: UnitTails,
    sums: Option<&mut [f64]>,
) -> Result<Partial<'static>> {
    check_kept(spec, range, units, &tails, spec.n_assets())?;
    simulate_from(
        spec,
        range,
        deadline,
        Some((units, tails)),
        None,
        sums,
        TaskTails::Full,
    )
}

/// `simulate_kept` on `option_units`' answer for these units (the range's units of the spec's
/// first `assets` assets, with their tails) and options (the spec's other assets), bit for bit,
/// each block's option columns priced where the block is: no answer of up to 10⁸ words written and
/// read back (which took as long as pricing it).
#[allow(clippy::too_many_arguments)] // simulate_kept's inputs and the options'
pub fn simulate_options(
    spec: &Spec,
    range: BlockRange,
    deadline: &Deadline,
    units: &[f64],
    tails: UnitTails,
    assets: usize,
    horizon_days: usize,
    options: &[OptionColumn],
) -> Result<Partial<'static>> {
    ensure(
        assets.checked_add(options.len()) == Some(spec.n_assets()),
        "the spec's assets must be the units' assets and then one per option",
    )?;
    // As OP_OPTION_UNITS refuses them: a NaN unit would price as a NaN option value.
    ensure(all_finite(units), "kept scenarios must be finite")?;
    check_option_units(units, assets, options)?;
    check_kept(spec, range, units, &tails, assets)?;
    let widen = OptionBlocks::new(assets, horizon_days, options);
    simulate_from(
        spec,
        range,
        deadline,
        Some((units, tails)),
        Some(widen),
        None,
        TaskTails::Full,
    )
}

/// What `simulate_from` needs of kept units of `assets` columns per block and their tails.
fn check_kept(
    spec: &Spec,
    range: BlockRange,
    units: &[f64],
    tails: &UnitTails,
    assets: usize,
) -> Result<()> {
    let k = keepable(spec, range)?;
    ensure(
        units.len() == (range.end - range.first) * assets * BLOCK,
        "kept units must cover the range's blocks",
    )?;
    let covered = tails.smallest.len();
    let every_asset = covered == spec.n_assets();
    ensure(
        tails.ranked == 0 || (every_asset && tails.ranked == k),
        "ranked kept tails must cover every asset and be of the range's rank k",
    )?;
    let pooled = every_asset && tails.smallest.first().map_or(false, Vec::is_empty);
    let held = match (tails.ranked, pooled) {
        (0, true) => 0,
        (0, false) => k,
        _ => 1,
    };
    let fits = |lane: &Vec<Vec<u64>>| lane.len() == covered && lane.iter().all(|t| t.len() == held);
    ensure(
        covered <= assets && fits(&tails.smallest) && fits(&tails.largest),
        "kept tails must hold k values (or, pooled over every asset, none) per asset of their first ones, in both lanes",
    )
}
