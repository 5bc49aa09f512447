//! One task: simulate a range of blocks and keep what the exact merge needs — every portfolio P&L,
//! the task's k worst scenarios with their per-asset P&L, and each asset's k worst P&L.

use crate::deadline::Deadline;
use crate::error::{EngineError, Result};
use crate::kernels::{fill_block, scaled_cholesky, Workspace};
use crate::spec::{BlockRange, Spec, BLOCK};
use crate::tail::{ScenarioTail, ValueTail};

#[derive(Clone, Debug)]
pub struct Partial {
    /// Global index of the first scenario.
    pub first: usize,
    /// Portfolio P&L of scenarios first, first + 1, ….
    pub pnl: Vec<f64>,
    /// The task's k worst scenarios (k capped at its scenario count), by index.
    pub worst: ScenarioTail,
    /// Per asset, its k smallest P&L order keys, ascending.
    pub asset_tails: Vec<Vec<u64>>,
}

/// Simulates the blocks of `range`; stops with DeadlineExceeded once `deadline` has passed. The
/// spec is valid by construction; only the range, which belongs to no spec, is checked here.
pub fn simulate(spec: &Spec, range: BlockRange, deadline: &Deadline) -> Result<Partial> {
    range.validate(spec)?;
    let n = spec.n_assets();
    let (start, end) = range.scenarios(spec);
    let k = spec.tail_count().min(end - start);
    let mut ws = Workspace::new(n);
    let mut pnl = Vec::with_capacity(end - start);
    let mut worst = ScenarioTail::new(k, n);
    let mut asset_tails: Vec<ValueTail> = (0..n).map(|_| ValueTail::new(k)).collect();
    let chol_t = scaled_cholesky(spec);

    for block in range.first..range.end {
        if deadline.passed() {
            return Err(EngineError::DeadlineExceeded);
        }
        let block_start = block * BLOCK;
        let count = BLOCK.min(spec.scenarios() - block_start);
        fill_block(spec, &chol_t, &mut ws, block);
        for (s, &x) in ws.pnl[..count].iter().enumerate() {
            pnl.push(x);
            if worst.admits(x) {
                let assets = (0..n).map(|i| ws.asset_pnl[i * BLOCK + s]);
                worst.push(x, (block_start + s) as u64, assets);
            }
        }
        for (i, tail) in asset_tails.iter_mut().enumerate() {
            for &x in &ws.asset_pnl[i * BLOCK..i * BLOCK + count] {
                tail.push(x);
            }
        }
    }
    Ok(Partial {
        first: start,
        pnl,
        worst: worst.finish(),
        asset_tails: asset_tails.into_iter().map(ValueTail::finish).collect(),
    })
}
