//! Bit for bit: every operation of `abi::call` over a broad corpus (`abi_corpus`) answers with the
//! very bits recorded in `bit_for_bit.expected` (an FNV-1a hash of each output's f64 bits; a
//! partial's tails in ascending order, as their order is no part of the answer). A refactoring
//! that is meant to change no figure keeps this green; a change that moves a figure shows here
//! before anywhere else. The file is compiled in, so the wasm32 run (no file system) checks it too.
//! Regenerate natively with `WRITE_BIT_FOR_BIT=1 cargo test --release --test bit_for_bit` only
//! when figures are meant to change.
mod common;

mod abi_corpus;

use abi_corpus::corpus;

const EXPECTED: &str = include_str!("bit_for_bit.expected");

/// FNV-1a over the length and every value's bits: order, sign of zero and NaN payloads count.
fn fnv(values: &[f64]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let len = values.len() as u64;
    for byte in len
        .to_le_bytes()
        .into_iter()
        .chain(values.iter().flat_map(|x| x.to_bits().to_le_bytes()))
    {
        h ^= u64::from(byte);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

#[test]
fn every_operation_answers_with_the_recorded_bits() {
    let lines: Vec<String> = corpus()
        .iter()
        .map(|(name, out)| {
            let status = out.first().copied().unwrap_or(f64::NAN);
            format!("{:016x} {:>7} {status} {name}", fnv(out), out.len())
        })
        .collect();
    if std::env::var("WRITE_BIT_FOR_BIT").is_ok() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/bit_for_bit.expected");
        std::fs::write(path, lines.join("\n") + "\n").expect("write the expected hashes");
        return;
    }
    let expected: Vec<&str> = EXPECTED.lines().collect();
    let differ: Vec<String> = lines
        .iter()
        .zip(&expected)
        .filter(|(got, want)| got != want)
        .map(|(got, want)| format!("got  {got}\nwant {want}"))
        .collect();
    assert!(
        differ.is_empty(),
        "{} cases differ:\n{}",
        differ.len(),
        differ.join("\n")
    );
    assert_eq!(lines.len(), expected.len(), "number of cases");
}
