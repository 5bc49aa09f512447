//! A calculation's blocks cut into tasks, and the merge's inputs over their partials.

use super::{blocks, pooled_tails::bounds, Draw};
use risk_engine_core::abi::call;
use risk_engine_core::abi::constants::{OP_FINALIZE_PART, OP_FINALIZE_SPLIT};
use risk_engine_core::spec::SpecFields;

/// 0, `tasks − 1` distinct drawn cuts (fewer when there are fewer blocks), then every block.
pub fn drawn_bounds(f: &SpecFields, tasks: usize, d: &mut Draw) -> Vec<usize> {
    let blocks = blocks(f);
    let mut cuts: Vec<usize> = Vec::new();
    while cuts.len() + 1 < tasks.min(blocks) {
        let c = 1 + d.below(blocks - 1);
        if !cuts.contains(&c) {
            cuts.push(c);
        }
    }
    cuts.sort_unstable();
    bounds(f, &cuts)
}

/// OP_FINALIZE's input: [count, partials…].
pub fn finalize_input(partials: &[Vec<f64>]) -> Vec<f64> {
    let mut input = vec![partials.len() as f64];
    append_partials(&mut input, partials.iter());
    input
}

/// Each partial's words after `input`, in the order given. No partial is copied but into `input`:
/// with a reversed clone of them as well, the own_tails binary crashed Node 20.20.2's WASI at its
/// end (wasm32, exit 139, all tests passed; cause not found), so keep this copy-free.
fn append_partials<'a>(input: &mut Vec<f64>, partials: impl Iterator<Item = &'a Vec<f64>>) {
    for p in partials {
        input.extend_from_slice(p);
    }
}

/// The partials grouped into `parts` runs, each summarized by OP_FINALIZE_PART, then merged
/// (parts and partials handed over in reverse order: the merge must not depend on it).
pub fn split_finalize(partials: &[Vec<f64>], parts: usize) -> Vec<f64> {
    let n = partials.len();
    let mut input = vec![parts as f64];
    for j in (0..parts).rev() {
        let run = &partials[j * n / parts..(j + 1) * n / parts];
        let summary = call(OP_FINALIZE_PART, &finalize_input(run));
        assert_eq!(summary[0], 0.0, "finalize part failed");
        input.extend(summary);
    }
    input.push(n as f64);
    append_partials(&mut input, partials.iter().rev());
    call(OP_FINALIZE_SPLIT, &input)
}
