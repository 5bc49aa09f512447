//! Any bytes, read as an operation code and f64 values, into the engine's one entry point: it must
//! never panic, and a successful result must hold only finite numbers.
#![no_main]

use libfuzzer_sys::fuzz_target;
use risk_engine_core::abi::call;

fuzz_target!(|data: &[u8]| {
    if data.is_empty() {
        return;
    }
    // Every operation code (OP_WORST_WINDOW is the highest) and one past them.
    let op = u32::from(data[0] % 12);
    let mut input: Vec<f64> = data[1..]
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
        .collect();
    // Small integers in the header make it past the decoder more often than raw doubles would.
    for x in input.iter_mut().take(16) {
        if x.is_finite() && x.abs() > 1e6 {
            *x = (x.abs() % 64.0).floor();
        }
    }
    let out = call(op, &input);
    assert!(!out.is_empty(), "every call answers");
    if out[0] == 0.0 {
        assert!(
            out.iter().all(|x| x.is_finite()),
            "a success holds only finite numbers"
        );
    }
});
