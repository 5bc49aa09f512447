//! An estimation split over workers: `OP_COVARIANCE_PART` computes rows of Σ, and `OP_ESTIMATE`
//! given their concatenation answers with the very bits it computes alone, for any number of parts.
mod common;

use common::estimation_input::{input, prices};
use risk_engine_core::abi::call;
use risk_engine_core::abi::constants::{
    COVARIANCE_PART_RESULT_HEADER_LEN, ERR_INSUFFICIENT_DATA, ERR_INVALID_INPUT,
    ESTIMATION_HEADER_LEN, OP_COVARIANCE_PART, OP_ESTIMATE,
};
use risk_engine_core::estimation::covariance_part::part_rows;

fn part(k: usize, parts: usize, estimation: &[f64]) -> Vec<f64> {
    let mut v = vec![k as f64, parts as f64];
    v.extend_from_slice(estimation);
    call(OP_COVARIANCE_PART, &v)
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn parts_rebuild_the_estimation_bit_for_bit() {
    // (assets, dates, lookback, ewma, missing prices): tiles, blocks, lookback and EWMA.
    let cases = [
        (1, 40, 0, false, false),
        (3, 45, 0, true, true),
        (40, 120, 0, false, true),
        (61, 200, 90, true, false),
        (300, 700, 0, false, false),
    ];
    for (n, dates, lookback, ewma, missing) in cases {
        let p = prices(n, dates, missing);
        let estimation = input(n, dates, lookback, ewma, &p);
        let alone = call(OP_ESTIMATE, &estimation);
        assert_eq!(alone[0], 0.0, "{n} assets estimate");
        for parts in [1, 2, 3, 7, n + 3] {
            let mut lower = Vec::new();
            let mut next_row = 0;
            for k in 0..parts {
                let out = part(k, parts, &estimation);
                assert_eq!(out[..2], [0.0, 0.0], "{n} assets, part {k} of {parts}");
                let (first, end) = (out[2] as usize, out[3] as usize);
                assert_eq!(first..end, part_rows(n, k, parts));
                assert_eq!(first, next_row, "parts follow each other");
                next_row = end;
                let rows = &out[COVARIANCE_PART_RESULT_HEADER_LEN..];
                assert_eq!(rows.len(), (end * (end + 1) - first * (first + 1)) / 2);
                lower.extend_from_slice(rows);
            }
            assert_eq!(next_row, n, "the parts cover every row");
            let mut given = estimation.clone();
            given[ESTIMATION_HEADER_LEN - 1] = 1.0;
            given.extend(&lower);
            assert_eq!(
                bits(&call(OP_ESTIMATE, &given)),
                bits(&alone),
                "{n} assets in {parts} parts"
            );
        }
    }
}

#[test]
fn a_window_of_loadings_needs_no_rows() {
    // 61 assets, 30 returns: the window samples through loadings (30 ≤ 61).
    let p = prices(61, 31, false);
    let estimation = input(61, 31, 0, false, &p);
    assert_eq!(part(0, 2, &estimation), vec![0.0, 1.0, 0.0, 0.0]);
    let mut given = estimation;
    given[ESTIMATION_HEADER_LEN - 1] = 1.0;
    given.extend(vec![1e-4; 61 * 62 / 2]);
    assert_eq!(
        call(OP_ESTIMATE, &given)[0],
        f64::from(ERR_INVALID_INPUT),
        "no covariance for loadings"
    );
}

#[test]
fn bad_parts_and_covariances_are_refused() {
    let p = prices(4, 40, false);
    let estimation = input(4, 40, 0, false, &p);
    let invalid = f64::from(ERR_INVALID_INPUT);
    assert_eq!(part(2, 2, &estimation)[0], invalid, "part ≥ parts");
    assert_eq!(part(0, 0, &estimation)[0], invalid, "no parts");
    let mut given = estimation.clone();
    given[ESTIMATION_HEADER_LEN - 1] = 1.0;
    given.extend(vec![1e-4; 10]);
    let mut v = vec![0.0, 1.0];
    v.extend(&given);
    assert_eq!(call(OP_COVARIANCE_PART, &v)[0], invalid, "a part given Σ");
    let mut infinite = given.clone();
    *infinite.last_mut().unwrap() = f64::INFINITY;
    assert_eq!(call(OP_ESTIMATE, &infinite)[0], invalid, "Σ not finite");
    given.pop();
    assert_eq!(call(OP_ESTIMATE, &given)[0], invalid, "Σ one value short");
    // Too few returns: the part fails as the estimation would.
    let short = input(4, 20, 0, false, &prices(4, 20, false));
    let out = part(0, 2, &short);
    assert_eq!((out[0], out[1]), (f64::from(ERR_INSUFFICIENT_DATA), 19.0));
}

#[test]
fn part_rows_split_the_triangle_evenly() {
    for n in [0, 1, 2, 5, 100, 5000, 100_000] {
        for parts in [1, 2, 3, 8, 64] {
            let rows: Vec<_> = (0..parts).map(|k| part_rows(n, k, parts)).collect();
            assert_eq!((rows[0].start, rows[parts - 1].end), (0, n));
            for w in rows.windows(2) {
                assert_eq!(w[0].end, w[1].start);
            }
            // Entries per part within one row's worth of the even share (in u64: 100,000 rows
            // hold more entries than a 32-bit usize counts).
            let entries = |r: &std::ops::Range<usize>| {
                let (a, b) = (r.start as u64, r.end as u64);
                (b * (b + 1) - a * (a + 1)) / 2
            };
            let share = n as u64 * (n as u64 + 1) / 2 / parts as u64;
            for r in &rows {
                assert!(
                    entries(r).abs_diff(share) <= 2 * n as u64 + 2,
                    "{n}, {parts}: {r:?}"
                );
            }
        }
    }
}
