//! An estimation's input given in parts (`call_parts`) is answered where the parts lie when they
//! are [header, prices] or [header, prices, Σ's lower triangle], and a covariance part's when they
//! are [its header, an estimation input]: whatever the split, and whether the input is good or
//! refused, the answer is `call`'s on the joined input, bit for bit.
mod common;

use common::estimation_input::{input, prices};
use risk_engine_core::abi::constants::{ESTIMATION_HEADER_LEN, OP_COVARIANCE_PART, OP_ESTIMATE};
use risk_engine_core::abi::{call, call_parts};

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// `input` cut at `cuts` (positions, any order; out of range ones dropped).
fn cut<'a>(input: &'a [f64], cuts: &[usize]) -> Vec<&'a [f64]> {
    let mut at: Vec<usize> = cuts.iter().copied().filter(|&c| c <= input.len()).collect();
    at.push(0);
    at.push(input.len());
    at.sort_unstable();
    at.windows(2).map(|w| &input[w[0]..w[1]]).collect()
}

/// The answer to `input` in parts cut at `cuts` is the joined input's, bit for bit.
fn same_in_parts(op: u32, input: &[f64], cuts: &[usize], what: &str) {
    let joined = call(op, input);
    let parts = cut(input, cuts);
    assert_eq!(
        bits(&call_parts(op, &parts)),
        bits(&joined),
        "{what}: cut at {cuts:?}"
    );
}

#[test]
fn any_split_of_an_estimation_answers_as_the_joined_input() {
    let h = ESTIMATION_HEADER_LEN;
    for (n, dates, ewma) in [
        (1, 40, false),
        (5, 60, true),
        (37, 120, false),
        (70, 60, false),
    ] {
        let p = prices(n, dates, false);
        let prices_end = h + n * dates;
        let plain = input(n, dates, 0, ewma, &p);
        let alone = call(OP_ESTIMATE, &plain);
        // The window's own Σ given back as its lower triangle (when Σ is formed at all).
        let mut given = plain.clone();
        given[h - 1] = 1.0;
        let covariance_at = 6 + 2 * n;
        let loadings = dates - 1 <= n;
        if !loadings {
            for i in 0..n {
                given.extend_from_slice(&alone[covariance_at + i * n..][..=i]);
            }
        }
        let splits: [&[usize]; 6] = [
            &[h],
            &[h, prices_end],
            &[h - 1, prices_end],
            &[h, prices_end - 1],
            &[2, h, h + n, prices_end],
            &[h + 1],
        ];
        for cuts in splits {
            same_in_parts(OP_ESTIMATE, &plain, cuts, "estimation");
            same_in_parts(OP_ESTIMATE, &given, cuts, "Σ given");
            let mut part = vec![0.0, 2.0];
            part.extend(&plain);
            let shifted: Vec<usize> = cuts.iter().map(|c| c + 2).collect();
            same_in_parts(OP_COVARIANCE_PART, &part, &[2], "covariance part");
            same_in_parts(
                OP_COVARIANCE_PART,
                &part,
                &shifted,
                "covariance part, split",
            );
        }
        // In place, Σ given answers the bits of the estimation alone.
        if !loadings {
            let parts = cut(&given, &[h, prices_end]);
            assert_eq!(bits(&call_parts(OP_ESTIMATE, &parts)), bits(&alone));
        }
    }
}

#[test]
fn refused_input_in_parts_is_refused_as_joined() {
    let h = ESTIMATION_HEADER_LEN;
    let (n, dates) = (4, 40);
    let p = prices(n, dates, false);
    let prices_end = h + n * dates;
    let plain = input(n, dates, 0, false, &p);
    let mut negative = plain.clone();
    negative[h + 5] = -1.0;
    let short = input(n, 20, 0, false, &p[..n * 20]);
    let mut given = plain.clone();
    given[h - 1] = 1.0;
    given.extend(vec![1e-4; n * (n + 1) / 2]);
    let mut infinite = given.clone();
    *infinite.last_mut().unwrap() = f64::INFINITY;
    let mut one_short = given.clone();
    one_short.pop();
    let mut bad_lambda = input(n, dates, 0, true, &p);
    bad_lambda[5] = 1.0;
    for (input, what) in [
        (&negative, "a negative price"),
        (&short, "too few returns"),
        (&infinite, "Σ not finite"),
        (&one_short, "Σ one value short"),
        (&bad_lambda, "λ of 1"),
    ] {
        for cuts in [&[h][..], &[h, prices_end], &[3]] {
            same_in_parts(OP_ESTIMATE, input, cuts, what);
        }
    }
    for (part, parts) in [(2.0, 2.0), (0.0, 0.0), (0.5, 2.0), (-1.0, 2.0)] {
        let mut input = vec![part, parts];
        input.extend(&plain);
        same_in_parts(OP_COVARIANCE_PART, &input, &[2], "a bad part");
    }
    let mut with_sigma = vec![0.0, 2.0];
    with_sigma.extend(&given);
    same_in_parts(OP_COVARIANCE_PART, &with_sigma, &[2], "a part given Σ");
}
