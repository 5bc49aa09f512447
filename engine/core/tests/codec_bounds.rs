//! Every integer that crosses the ABI, at the edges of its domain and drawn from all of it: decoded
//! exactly or refused with the same error on every target. This file also runs compiled for
//! wasm32 under Node (scripts/test-engine-wasm32.sh), where `usize` is 32 bits: a value truncated or
//! saturated there fails the same assertions that pass natively.
mod common;

use common::*;
use risk_engine_core::abi::call;
use risk_engine_core::abi::codec::{decode_estimation_input, decode_partial, decode_spec};
use risk_engine_core::abi::constants::{MAX_COUNT, MAX_EXACT_INT, OP_RUN};
use risk_engine_core::abi::reader::Reader;
use risk_engine_core::deadline::Deadline;
use risk_engine_core::limits::{
    MAX_ASSETS, MAX_BOOKS, MAX_HISTOGRAM_BINS, MAX_HORIZON, MAX_SCENARIOS,
};
use risk_engine_core::simulate::simulate;
use risk_engine_core::spec::{BlockRange, Method, Mode};

const TWO_31: f64 = 2_147_483_648.0;
const TWO_32: f64 = 4_294_967_296.0;

/// The values every integer field is tried at, whatever its own domain.
const EDGES: [f64; 12] = [
    0.0,
    1.0,
    TWO_31 - 1.0,
    TWO_31,
    TWO_31 + 1.0,
    TWO_32 - 1.0,
    TWO_32,
    TWO_32 + 1.0,
    1_099_511_627_783.0, // 2^40 + 7
    MAX_EXACT_INT - 1.0,
    MAX_EXACT_INT,
    MAX_EXACT_INT + 1.0,
];

/// Field values drawn from the shared stream.
impl Draw {
    /// An integer-valued f64 over the whole f64-exact range, edges included half the time.
    fn integer(&mut self) -> f64 {
        if self.next() % 2 == 0 {
            EDGES[(self.next() % EDGES.len() as u64) as usize]
        } else {
            // Log-uniform magnitude so that small, 32-bit and 53-bit values all occur.
            let bits = self.next() % 54;
            (self.next() >> (64 - bits.max(1))) as f64 * if bits == 0 { 0.0 } else { 1.0 }
        }
    }
}

#[test]
fn reader_takes_integers_up_to_2_pow_53_and_counts_up_to_2_pow_32() {
    for x in EDGES {
        let integer = Reader::new(&[x]).integer();
        assert_eq!(integer.is_ok(), x <= MAX_EXACT_INT, "integer {x}");
        if let Ok(v) = integer {
            assert_eq!(v as f64, x, "integer {x} read exactly");
        }
        let count = Reader::new(&[x]).count();
        assert_eq!(count.is_ok(), x <= MAX_COUNT as f64, "count {x}");
        if let Ok(v) = count {
            assert_eq!(v as f64, x, "count {x} read exactly");
        }
    }
    for bad in [-1.0, 0.5, f64::NAN, f64::INFINITY, -0.0 - 1e-300] {
        assert!(Reader::new(&[bad]).integer().is_err(), "{bad}");
    }
}

#[test]
fn every_seed_crosses_the_abi_exactly_and_draws_its_own_scenarios() {
    let base = spec(Method::MonteCarloNormal, Mode::BuyAndHold, 512);
    let mut seen: Vec<(f64, Vec<u64>)> = Vec::new();
    for seed in EDGES.iter().copied().filter(|&s| s <= MAX_EXACT_INT) {
        let mut s = base.clone();
        s.seed = seed as u64;
        let encoded = encode_spec(&s, 0, blocks(&s));
        let (decoded, _, _) = decode_spec(&encoded).expect("valid");
        assert_eq!(decoded.seed() as f64, seed, "seed {seed} decoded exactly");
        let out: Vec<u64> = call(OP_RUN, &encoded).iter().map(|x| x.to_bits()).collect();
        assert_eq!(out[0], 0, "seed {seed} runs");
        for (other, previous) in &seen {
            assert_ne!(
                previous, &out,
                "seeds {other} and {seed} drew the same scenarios"
            );
        }
        seen.push((seed, out));
    }
    let mut s = base;
    s.seed = 0;
    let mut encoded = encode_spec(&s, 0, blocks(&s));
    encoded[6] = MAX_EXACT_INT + 1.0;
    assert!(decode_spec(&encoded).is_err(), "seed 2^53 is refused");
}

/// Fixed figures for seeds at the 32-bit and 53-bit edges: the same on every target.
#[test]
fn seeds_at_the_edges_give_fixed_figures() {
    let seeds = [TWO_32 - 1.0, TWO_32, TWO_32 + 1.0, MAX_EXACT_INT];
    let mut got = Vec::new();
    for seed in seeds {
        let mut s = spec(Method::MonteCarloStudentT, Mode::BuyAndHold, 1_000);
        s.seed = seed as u64;
        let m = run(&s);
        got.push([m.value_at_risk, m.expected_shortfall]);
    }
    if std::env::var("PRINT_STABILITY").is_ok() {
        println!("{got:?}");
    }
    assert_eq!(got, EXPECTED_EDGE_FIGURES.to_vec());
}

const EXPECTED_EDGE_FIGURES: [[f64; 2]; 4] = [
    [71679.39152302568, 84435.86635209227],
    [71873.4858684616, 97832.04788636192],
    [84095.46904358323, 100893.38830444621],
    [78584.77475591919, 88808.96709546572],
];

/// Spec fields at random points of their whole range: decoded exactly when inside the declared
/// domain, refused otherwise, identically on every target.
#[test]
fn spec_fields_decode_exactly_or_are_refused_over_their_whole_range() {
    let mut draw = Draw(0x5EED);
    let base = spec(Method::MonteCarloNormal, Mode::BuyAndHold, 300);
    // (index in the layout, field's domain)
    let fields: [(usize, &str, f64, f64); 8] = [
        (1, "mode", 0.0, MAX_COUNT as f64),
        (4, "horizon", 1.0, MAX_HORIZON as f64),
        (6, "seed", 0.0, MAX_EXACT_INT),
        (7, "antithetic", 0.0, MAX_COUNT as f64),
        (8, "scenarios", 1.0, MAX_SCENARIOS as f64),
        (10, "bins", 1.0, MAX_HISTOGRAM_BINS as f64),
        (11, "first block", 0.0, 1.0),
        (12, "end block", 1.0, 2.0),
    ];
    for case in 0..4_000 {
        let (at, name, lo, hi) = fields[case % fields.len()];
        let value = draw.integer();
        let mut encoded = encode_spec(&base, 0, blocks(&base));
        encoded[at] = value;
        // The block range must stay within the scenarios for a scenarios change alone to be valid.
        let valid = (lo..=hi).contains(&value) && (at != 8 || value >= 257.0);
        match decode_spec(&encoded) {
            Ok((s, range, _)) => {
                assert!(valid, "{name} = {value} accepted");
                let back = [
                    (s.mode() == Mode::Rebalanced) as u8 as f64,
                    s.horizon() as f64,
                    s.seed() as f64,
                    s.antithetic() as u8 as f64,
                    s.scenarios() as f64,
                    s.histogram_bins() as f64,
                    range.first as f64,
                    range.end as f64,
                ];
                let want = if at == 1 || at == 7 {
                    (value != 0.0) as u8 as f64
                } else {
                    value
                };
                let i = fields.iter().position(|f| f.0 == at).unwrap();
                assert_eq!(back[i], want, "{name} = {value} decoded");
            }
            Err(e) => assert!(!valid, "{name} = {value} refused: {e}"),
        }
    }
}

#[test]
fn asset_counts_at_the_edges_are_refused_without_overflow() {
    for n in EDGES
        .iter()
        .copied()
        .chain([MAX_ASSETS as f64, MAX_ASSETS as f64 + 1.0])
    {
        let mut encoded = encode_spec(&spec(Method::MonteCarloNormal, Mode::BuyAndHold, 300), 0, 2);
        encoded[2] = n;
        // Three assets' worth of data follow: any other count is refused, never read past the end.
        assert_eq!(decode_spec(&encoded).is_ok(), n == 3.0, "assets = {n}");
        // Two prices follow two dates: only one asset fits them.
        let estimation = [2.0, n, 0.0, 0.0, 0.0, 0.0, 0.0, 100.0, 101.0];
        assert_eq!(
            decode_estimation_input(&estimation).is_ok(),
            n == 1.0,
            "estimation assets = {n}"
        );
        // With a given covariance, one value more: n(n + 1)/2 is 1 for one asset only.
        let given = [2.0, n, 0.0, 0.0, 0.0, 0.0, 1.0, 100.0, 101.0, 1e-4];
        assert_eq!(
            decode_estimation_input(&given).is_ok(),
            n == 1.0,
            "estimation assets = {n} with a covariance"
        );
    }
}

#[test]
fn book_counts_at_the_edges_are_refused_without_overflow() {
    for books in EDGES
        .iter()
        .copied()
        .chain([MAX_BOOKS as f64, MAX_BOOKS as f64 + 1.0])
    {
        let mut encoded = encode_spec(&spec(Method::MonteCarloNormal, Mode::BuyAndHold, 300), 0, 2);
        encoded[3] = books;
        // One book's worth of data follows: any other count is refused, never read past the end.
        assert_eq!(
            decode_spec(&encoded).is_ok(),
            books == 1.0,
            "books = {books}"
        );
    }
}

#[test]
fn partials_round_trip_and_reject_indices_beyond_32_bits() {
    let s = spec(Method::MonteCarloNormal, Mode::BuyAndHold, 2_000);
    let range = BlockRange { first: 2, end: 6 };
    let partial = simulate(&build(&s), range, &Deadline::none()).unwrap();
    let encoded = encode_partial_of(&s, range);
    let (_, decoded) = decode_partial(&mut Reader::new(&encoded)).expect("round trip");
    assert_eq!(decoded.first, partial.first);
    let (got, want) = (&decoded.books[0], &partial.books[0]);
    assert_eq!(got.pnl, want.pnl);
    assert_eq!(got.worst.indices, want.worst.indices);
    assert_eq!(got.worst.keys, want.worst.keys);
    assert_eq!(got.worst.asset_pnl, want.worst.asset_pnl);
    assert_eq!(got.asset_tails, want.asset_tails);
    assert_eq!(decoded.units, partial.units);
    // The first tail index moved by 2^32: it wraps to itself in 32 bits, and must still be refused.
    let k = want.worst.indices.len();
    assert!(k > 0);
    let index_at = pnl_offset(&encoded) + want.pnl.len();
    for shift in [TWO_32, MAX_EXACT_INT - encoded[index_at]] {
        let mut bad = encoded.clone();
        bad[index_at] += shift;
        assert!(
            decode_partial(&mut Reader::new(&bad)).is_err(),
            "index + {shift}"
        );
    }
    // An asset P&L of a tail scenario that is not finite (after its indices and its P&L).
    for x in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let mut bad = encoded.clone();
        bad[index_at + 2 * k] = x;
        assert!(decode_partial(&mut Reader::new(&bad)).is_err(), "{x}");
    }
    // A first scenario near 2^32 whose end would overflow 32 bits.
    let mut bad = encoded;
    bad[8] = TWO_32 - 1.0;
    assert!(decode_partial(&mut Reader::new(&bad)).is_err());
}
