//! One task: simulate a range of blocks and keep what the exact merge needs — every portfolio P&L,
//! the task's k worst scenarios with their per-asset P&L, and each asset's k worst P&L.

use crate::deadline::Deadline;
use crate::error::{EngineError, Result};
use crate::kernels::{daily_paths, historical_windows, normal_buy_and_hold, Workspace};
use crate::rng::Xoshiro256pp;
use crate::spec::{BlockRange, Method, Mode, Spec, BLOCK};
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

/// Simulates the blocks of `range`; stops with DeadlineExceeded once `deadline` has passed.
pub fn simulate(spec: &Spec, range: BlockRange, deadline: &Deadline) -> Result<Partial> {
    spec.validate()?;
    range.validate(spec)?;
    let n = spec.n_assets();
    let (start, end) = range.scenarios(spec);
    let k = spec.tail_count().min(end - start);
    let mut ws = Workspace::new(n);
    let mut pnl = Vec::with_capacity(end - start);
    let mut worst = ScenarioTail::new(k, n);
    let mut asset_tails: Vec<ValueTail> = (0..n).map(|_| ValueTail::new(k)).collect();
    // √T·L, for the one-draw buy-and-hold model.
    let sqrt_t = (spec.horizon as f64).sqrt();
    let chol_t: Vec<f64> = spec.cholesky.iter().map(|l| sqrt_t * l).collect();

    for block in range.first..range.end {
        if deadline.passed() {
            return Err(EngineError::DeadlineExceeded);
        }
        let block_start = block * BLOCK;
        let count = BLOCK.min(spec.scenarios - block_start);
        match (spec.method, spec.mode) {
            (Method::Historical, _) => historical_windows(spec, &mut ws, block_start, count),
            (Method::MonteCarloNormal, Mode::BuyAndHold) => {
                let mut rng = Xoshiro256pp::for_block(spec.seed, block as u64);
                normal_buy_and_hold(spec, &chol_t, &mut ws, &mut rng)
            }
            _ => {
                let mut rng = Xoshiro256pp::for_block(spec.seed, block as u64);
                daily_paths(spec, &mut ws, &mut rng)
            }
        }
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
