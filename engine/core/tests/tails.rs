//! The bounded tail trackers against brute force, over streams that stress them: long runs of
//! ties, both zeros, subnormals and extremes, k from 0 (nothing kept) and 1 to the whole stream,
//! pushes of every length, and more values than a tracker was told to expect.

use risk_engine_core::scenario_tail::ScenarioTail;
use risk_engine_core::select::{from_order_key, order_key};
use risk_engine_core::tail::ValueTail;

/// A deterministic stream of `count` values of one of several shapes.
fn stream(shape: u64, count: usize, seed: u64) -> Vec<f64> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let specials = [0.0, -0.0, 5e-324, -5e-324, 1e300, -1e300, 1.0, -1.0];
    (0..count)
        .map(|i| {
            let r = next();
            match shape {
                // Few distinct values: ties everywhere, also at the cut.
                0 => (r % 5) as f64 - 2.0,
                1 => specials[(r % specials.len() as u64) as usize],
                2 => i as f64,
                3 => -(i as f64),
                _ => ((r >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 0.04,
            }
        })
        .collect()
}

fn ks(count: usize) -> Vec<usize> {
    let mut ks = vec![
        1,
        2,
        17,
        count / 2,
        count * 2 / 5,
        count.saturating_sub(1),
        count,
    ];
    ks.retain(|&k| k >= 1 && k <= count);
    ks.dedup();
    ks
}

const COUNTS: [usize; 6] = [1, 5, 600, 4_096, 9_000, 40_000];

#[test]
fn value_tail_keeps_the_k_smallest_of_any_stream() {
    for shape in 0..5 {
        for (c, &count) in COUNTS.iter().enumerate() {
            let xs = stream(shape, count, c as u64 + 1);
            let mut sorted: Vec<u64> = xs.iter().map(|&x| order_key(x)).collect();
            sorted.sort_unstable();
            let mut negated: Vec<u64> = xs.iter().map(|&x| order_key(-x)).collect();
            negated.sort_unstable();
            for k in ks(count) {
                // Announced counts below the real one must only cost room, never a value.
                for announced in [count, count / 3] {
                    let mut t = ValueTail::new(k, announced);
                    let mut u = ValueTail::new(k, announced);
                    push_pieces(&mut t, &mut u, &xs, &[1, 255, 256, 257, 300, 7]);
                    let mut got = t.finish();
                    got.sort_unstable();
                    assert_eq!(got, sorted[..k], "shape {shape}, count {count}, k {k}");
                    let mut got = u.finish();
                    got.sort_unstable();
                    assert_eq!(got, negated[..k], "negated: shape {shape}, k {k}");
                }
            }
        }
    }
}

/// Pushes `xs` in pieces of `lengths` in turn (each 0–2 longer), into `t` as they are and into
/// `u` negated.
fn push_pieces(t: &mut ValueTail, u: &mut ValueTail, xs: &[f64], lengths: &[usize]) {
    let mut at = 0;
    for (j, len) in lengths.iter().cycle().enumerate() {
        if at == xs.len() {
            break;
        }
        let end = (at + len + j % 3).min(xs.len());
        t.push_all(&xs[at..end]);
        u.push_all_negated(&xs[at..end]);
        at = end;
    }
}

#[test]
fn a_seeded_value_tail_keeps_the_k_smallest_or_says_it_is_short() {
    for shape in 0..5 {
        for (c, &count) in COUNTS.iter().enumerate() {
            let xs = stream(shape, count, c as u64 + 21);
            let mut sorted: Vec<u64> = xs.iter().map(|&x| order_key(x)).collect();
            sorted.sort_unstable();
            let mut negated: Vec<u64> = xs.iter().map(|&x| order_key(-x)).collect();
            negated.sort_unstable();
            for k in ks(count) {
                // Bounds at the k-th value, a step either side of it, at the ends of the stream
                // and of the doubles, at both zeros and NaN (no seed).
                let around = |keys: &[u64]| -> Vec<f64> {
                    let kth = keys[k - 1];
                    let mut bounds: Vec<f64> = [kth, kth - 1, kth + 1, keys[0], keys[count - 1]]
                        .iter()
                        .map(|&key| from_order_key(key))
                        .collect();
                    bounds.extend([0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN]);
                    bounds
                };
                for (bound, negated_bound) in around(&sorted).into_iter().zip(around(&negated)) {
                    let mut t = ValueTail::new(k, count);
                    let mut u = ValueTail::new(k, count);
                    t.seed(bound);
                    u.seed(negated_bound);
                    // Around the stage's length and the seeded run's.
                    push_pieces(&mut t, &mut u, &xs, &[1, 15, 16, 17, 255, 256, 257, 300, 7]);
                    for (tail, keys, b) in [(t, &sorted, bound), (u, &negated, negated_bound)] {
                        // At least k values at or below the bound: the k smallest; else short.
                        let enough =
                            b.is_nan() || keys.iter().filter(|&&x| x <= order_key(b)).count() >= k;
                        assert_eq!(
                            tail.short(),
                            !enough,
                            "shape {shape}, count {count}, k {k}, bound {b}"
                        );
                        if enough {
                            let mut got = tail.finish();
                            got.sort_unstable();
                            assert_eq!(
                                got,
                                keys[..k],
                                "shape {shape}, count {count}, k {k}, bound {b}"
                            );
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn scenario_tail_keeps_the_k_worst_by_value_then_index() {
    for shape in 0..5 {
        for (c, &count) in COUNTS.iter().enumerate() {
            let xs = stream(shape, count, c as u64 + 11);
            let mut ranked: Vec<(u64, u64)> = xs
                .iter()
                .enumerate()
                .map(|(i, &x)| (order_key(x), i as u64))
                .collect();
            ranked.sort_unstable();
            for k in ks(count) {
                let mut t = ScenarioTail::new(k, 2);
                t.reserve_for(count);
                for (i, &x) in xs.iter().enumerate() {
                    if t.admits(x) {
                        t.push(x, i as u64, [x, i as f64].into_iter());
                    }
                }
                let t = t.finish();
                let mut want: Vec<u64> = ranked[..k].iter().map(|&(_, i)| i).collect();
                want.sort_unstable();
                assert_eq!(t.indices, want, "shape {shape}, count {count}, k {k}");
                for (p, &i) in t.indices.iter().enumerate() {
                    let x = xs[i as usize];
                    assert_eq!(t.keys[p], order_key(x));
                    assert_eq!(from_order_key(t.keys[p]).to_bits(), x.to_bits());
                    assert_eq!(t.asset_pnl[2 * p..2 * p + 2], [x, i as f64]);
                }
            }
        }
    }
}

#[test]
fn scenario_tail_breaks_ties_by_index() {
    let mut t = ScenarioTail::new(2, 1);
    for i in 0..2000u64 {
        let pnl = if i % 500 == 7 { -5.0 } else { i as f64 };
        if t.admits(pnl) {
            t.push(pnl, i, std::iter::once(pnl * 2.0));
        }
    }
    let t = t.finish();
    assert_eq!(t.indices, vec![7, 507]);
    assert_eq!(t.asset_pnl, vec![-10.0, -10.0]);
}

#[test]
fn a_tail_of_no_values_keeps_none() {
    let xs = stream(4, 9_000, 3);
    let mut values = ValueTail::new(0, xs.len());
    values.push_all(&xs);
    values.push_all_negated(&xs);
    assert!(values.finish().is_empty());
    let mut scenarios = ScenarioTail::new(0, 1);
    for (i, &x) in xs.iter().enumerate() {
        if scenarios.admits(x) {
            scenarios.push(x, i as u64, std::iter::once(x));
        }
    }
    let scenarios = scenarios.finish();
    assert!(scenarios.indices.is_empty() && scenarios.keys.is_empty());
    assert!(scenarios.asset_pnl.is_empty());
}
