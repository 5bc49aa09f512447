//! Kept units' tails pooled across the ranges of a split, as a live host pools them.

use super::{blocks, encode_spec};
use risk_engine_core::abi::call;
use risk_engine_core::abi::constants::OP_UNITS;
use risk_engine_core::spec::{SpecFields, BLOCK};

/// The block bounds of the ranges `cuts` splits `f` into.
pub fn bounds(f: &SpecFields, cuts: &[usize]) -> Vec<usize> {
    let mut bounds = vec![0];
    bounds.extend_from_slice(cuts);
    bounds.push(blocks(f));
    bounds
}

/// The leads of the ranges `cuts` splits `f` into, OP_UNITS of `units_book`, with their tails
/// pooled as a live host pools them: each asset's k smallest of every range (per lane) held by one
/// range with more scenarios than k, the others holding none; `ranked`, that range holding each
/// asset's k-th smallest alone (k kept, one value per lane).
pub fn pooled_leads(
    f: &SpecFields,
    units_book: &SpecFields,
    cuts: &[usize],
    ranked: bool,
) -> Vec<Vec<f64>> {
    let bounds = bounds(f, cuts);
    let n = f.mean.len();
    let mut leads: Vec<Vec<f64>> = bounds
        .windows(2)
        .map(|w| call(OP_UNITS, &encode_spec(units_book, w[0], w[1]))[1..].to_vec())
        .collect();
    let layout = |u: &Vec<f64>| (u[0] as usize, u[2 + u[0] as usize] as usize);
    let scenarios = |w: &[usize]| (w[1] * BLOCK).min(f.scenarios) - w[0] * BLOCK;
    let owner = bounds
        .windows(2)
        .zip(&leads)
        .position(|(w, u)| layout(u).1 < scenarios(w))
        .expect("a range larger than the tail");
    let (owner_count, k) = layout(&leads[owner]);
    let mut kth = Vec::new();
    for lane in 0..2 {
        for i in 0..n {
            let mut pool: Vec<f64> = leads
                .iter()
                .flat_map(|u| {
                    let (count, kb) = layout(u);
                    let at = 3 + count + (lane * n + i) * kb;
                    u[at..at + kb].to_vec()
                })
                .collect();
            pool.sort_by(f64::total_cmp);
            let at = 3 + owner_count + (lane * n + i) * k;
            leads[owner][at..at + k].copy_from_slice(&pool[..k]);
            kth.push(pool[k - 1]);
        }
    }
    if ranked {
        let lead = &mut leads[owner];
        lead.truncate(3 + owner_count);
        lead.extend(kth);
    }
    for (b, u) in leads.iter_mut().enumerate() {
        if b != owner {
            let count = layout(u).0;
            u.truncate(3 + count);
            u[2 + count] = 0.0;
        }
    }
    leads
}
