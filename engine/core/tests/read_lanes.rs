//! The shared per-asset lanes hold only what some book reads: an asset's smallest values when a
//! book is long in it (or holds +0 of it), its largest when a book is short (or holds −0). A lane
//! no book reads is neither filled by the simulation nor selected by the merge; the figures read
//! from the others are tested against single-book runs and brute force in `books.rs`.
mod common;

use common::*;
use risk_engine_core::abi::codec::decode_partial;
use risk_engine_core::abi::reader::Reader;
use risk_engine_core::deadline::Deadline;
use risk_engine_core::simulate::simulate;
use risk_engine_core::spec::{Method, Mode, BLOCK};

/// Books' weights, then per asset whether its lane of smallest and of largest values is read.
type Case<'a> = (&'a [&'a [f64]], [bool; 3], [bool; 3]);

#[test]
fn a_lane_no_book_reads_holds_nothing() {
    // Asset 0 long in both books, asset 1 short in both, asset 2 long in one and short in the
    // other; a book of −0, +0 and short; a long-only book (no lane of largest values at all).
    let cases: [Case; 3] = [
        (
            &[&[0.5, -0.3, 0.8], &[0.4, -0.1, -0.5]],
            [true, false, true],
            [false, true, true],
        ),
        (
            &[&[-0.0, 0.0, -1.0]],
            [false, true, false],
            [true, false, true],
        ),
        (
            &[&[0.2, 0.3, 0.5]],
            [true, true, true],
            [false, false, false],
        ),
    ];
    for (weights, smallest, largest) in cases {
        let mut f = spec(Method::MonteCarloNormal, Mode::BuyAndHold, 4 * BLOCK);
        f.books = weights.iter().map(|w| book(1e6, w)).collect();
        let s = build(&f);
        let p = simulate(&s, s.all_blocks(), &Deadline::none()).expect("valid spec");
        let k = s.tail_count();
        let want = |read: [bool; 3]| read.map(|r| if r { k } else { 0 }).to_vec();
        let held = |lane: &[Vec<u64>]| lane.iter().map(Vec::len).collect::<Vec<usize>>();
        assert_eq!(held(&p.units.smallest), want(smallest), "{weights:?}");
        if largest.contains(&true) {
            assert_eq!(held(&p.units.largest), want(largest), "{weights:?}");
        } else {
            assert!(p.units.largest.is_empty(), "{weights:?}: no short, no lane");
        }
        // Encoded, every lane takes k words (an unread one zeros), and decodes to the same keys
        // where it was read.
        let encoded = encode_partial_of(&f, s.all_blocks());
        let (_, back) = decode_partial(&mut Reader::new(&encoded)).expect("a partial");
        for (lanes, decoded) in [
            (&p.units.smallest, &back.units.smallest),
            (&p.units.largest, &back.units.largest),
        ] {
            for (tail, again) in lanes.iter().zip(decoded) {
                assert_eq!(again.len(), k);
                if !tail.is_empty() {
                    assert_eq!(tail, again);
                }
            }
        }
    }
}
