//! Any bytes, read as an operation code, an entry point and f64 values, into the engine's entry
//! points: none may panic, a successful result must hold only finite numbers, and every entry
//! point must answer what `call` answers on the same words (an error included, bit for bit):
//! `call_led` as `call` on [lead length, lead, rest], `call_parts` as `call` on the parts joined,
//! and a prepared led call's `write` as `call_led` (declining only where `call_led` refuses), an
//! answer that ran out of its wall-clock budget excepted.
#![no_main]

use libfuzzer_sys::fuzz_target;
use risk_engine_core::abi::constants::OP_OPTION_UNITS;
use risk_engine_core::abi::{call, call_led, call_parts, prepare_led};
use risk_engine_core::error::ERR_DEADLINE_EXCEEDED;

/// One past the highest operation code (the benchmark kernels' 32–34; without the `bench-ops`
/// feature those answer an unknown operation, as 35 does).
const OP_CODES: u8 = 36;

/// Bytes before the f64 words: the operation, the entry point and where the words are cut.
const PREFIX: usize = 4;

/// The same answer, bit for bit; or either ran out of its time budget (the input's budget word
/// is wall-clock time, the one thing two calls on the same words may meet differently).
fn same_bits(a: &[f64], b: &[f64]) -> bool {
    let late = |x: &[f64]| x.first() == Some(&f64::from(ERR_DEADLINE_EXCEEDED));
    late(a)
        || late(b)
        || (a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits()))
}

fn checked(out: Vec<f64>) -> Vec<f64> {
    assert!(!out.is_empty(), "every call answers");
    if out[0] == 0.0 {
        assert!(
            out.iter().all(|x| x.is_finite()),
            "a success holds only finite numbers"
        );
    }
    out
}

fuzz_target!(|data: &[u8]| {
    if data.len() < PREFIX {
        return;
    }
    let op = u32::from(data[0] % OP_CODES);
    let mut input: Vec<f64> = data[PREFIX..]
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
        .collect();
    // Small integers in the header make it past the decoder more often than raw doubles would.
    for x in input.iter_mut().take(16) {
        if x.is_finite() && x.abs() > 1e6 {
            *x = (x.abs() % 64.0).floor();
        }
    }
    let cut = |byte: u8| usize::from(byte) % (input.len() + 1);
    match data[1] % 3 {
        0 => {
            checked(call(op, &input));
        }
        1 => {
            // A lead of the first words, the rest after it.
            let (lead, rest) = input.split_at(cut(data[2]));
            let led = checked(call_led(op, lead, rest));
            let mut joined = vec![lead.len() as f64];
            joined.extend_from_slice(&input);
            assert!(
                same_bits(&led, &call(op, &joined)),
                "call_led answers as call on the joined input"
            );
            match prepare_led(op, lead, rest) {
                Some(prepared) => {
                    // NaN first: a word the write skipped would show.
                    let mut out = vec![f64::NAN; prepared.length()];
                    if prepared.write(&mut out) {
                        assert!(
                            same_bits(&out, &led),
                            "a prepared call writes call_led's answer"
                        );
                    } else {
                        assert!(led[0] != 0.0, "a declined write is call_led's error");
                    }
                }
                None if op == OP_OPTION_UNITS => {
                    assert!(led[0] != 0.0, "an unprepared call is refused");
                }
                None => {}
            }
        }
        _ => {
            // Two cuts make up to three parts (an empty one included), in order.
            let (a, b) = (cut(data[2]), cut(data[3]));
            let (low, high) = (a.min(b), a.max(b));
            let parts = [&input[..low], &input[low..high], &input[high..]];
            let answer = checked(call_parts(op, &parts));
            assert!(
                same_bits(&answer, &call(op, &input)),
                "call_parts answers as call on the parts joined"
            );
        }
    }
});
