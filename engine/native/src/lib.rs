//! Native Node addon: the same flat-buffer entry points as the WASM build, over the same core.

use napi::bindgen_prelude::Float64Array;
use napi::{Env, JsTypedArray, TypedArrayType};
use napi_derive::napi;
use risk_engine_core::abi::OptionUnitsCall;

/// Runs engine operation `op` (see `risk_engine_core::abi::constants`) on `input`.
///
/// The result is copied into a buffer the JS heap owns. Handing the Vec over as an external
/// buffer would avoid the copy, but external memory is invisible to a worker's garbage collector,
/// which then lets thousands of results pile up (measured: RSS +1 MiB/s under load).
#[napi]
pub fn engine_call(env: Env, op: u32, input: Float64Array) -> napi::Result<JsTypedArray> {
    to_js(env, risk_engine_core::abi::call(op, &input))
}

/// `engine_call(op, parts joined)`: the partials of OP_FINALIZE, OP_FINALIZE_PART and
/// OP_FINALIZE_SPLIT as the tasks answered them (and the latter's part summaries), an
/// estimation's prices and a spec's model read where they lie instead of joined into one input
/// first (see `risk_engine_core::abi::call_parts`).
#[napi]
pub fn engine_call_parts(
    env: Env,
    op: u32,
    parts: Vec<Float64Array>,
) -> napi::Result<JsTypedArray> {
    let slices: Vec<&[f64]> = parts.iter().map(|p| &p[..]).collect();
    to_js(env, risk_engine_core::abi::call_parts(op, &slices))
}

/// `engine_call(op, [lead.length, …lead, …input])`, the lead read in place: a live book's kept
/// scenarios, shared between tasks (a SharedArrayBuffer) rather than copied into each.
#[napi]
pub fn engine_call_led(
    env: Env,
    op: u32,
    lead: Float64Array,
    input: Float64Array,
) -> napi::Result<JsTypedArray> {
    if let Some(call) = risk_engine_core::abi::prepare_led(op, &lead, &input) {
        return written_in_place(env, &call);
    }
    to_js(env, risk_engine_core::abi::call_led(op, &lead, &input))
}

/// `engine_call_led(op, lead, input)`, OP_SIMULATE_KEPT keeping its books' group sums in `sums`
/// (memory shared between threads that the host keeps for one batch of one live book's kept
/// scenarios, priced one call at a time): the same answer whatever `sums` holds.
#[napi]
pub fn engine_call_led_summed(
    env: Env,
    op: u32,
    lead: Float64Array,
    input: Float64Array,
    mut sums: Float64Array,
) -> napi::Result<JsTypedArray> {
    to_js(
        env,
        risk_engine_core::abi::call_led_summed(op, &lead, &input, &mut sums),
    )
}

/// The words of `engine_call_led(op, lead, input)`'s answer when they are known before it runs
/// (OP_OPTION_UNITS on valid input), else −1: a host then allocates the answer where it is to live,
/// memory shared between threads, and has `engine_call_led_into` write it there.
#[napi]
pub fn engine_answer_length(op: u32, lead: Float64Array, input: Float64Array) -> f64 {
    risk_engine_core::abi::prepare_led(op, &lead, &input).map_or(-1.0, |call| call.length() as f64)
}

/// `engine_call_led(op, lead, input)` written into `out`, of `engine_answer_length` words; false
/// when that length is not known before the call or `out` is not of it (`out` untouched), or a
/// value is past double precision (the host then asks `engine_call_led` for the error).
#[napi]
pub fn engine_call_led_into(
    op: u32,
    lead: Float64Array,
    input: Float64Array,
    mut out: Float64Array,
) -> bool {
    match risk_engine_core::abi::prepare_led(op, &lead, &input) {
        Some(call) => call.write(&mut out),
        None => false,
    }
}

/// An answer whose length is known before the operation runs (OP_OPTION_UNITS: up to 10⁸ words)
/// written straight into the buffer the JS heap owns: no second allocation, no copy (which took as
/// long as pricing it).
/// A value past double precision (the buffer is the call's own length, so the only reason the write
/// declines) answers `call_led`'s error, without pricing the call again.
fn written_in_place(env: Env, call: &OptionUnitsCall) -> napi::Result<JsTypedArray> {
    let length = call.length();
    let buffer = env.create_arraybuffer(length * 8)?.into_raw();
    let mut view = buffer
        .into_typedarray(TypedArrayType::Float64, length, 0)?
        .into_value()?;
    if !call.write(view.as_mut()) {
        return to_js(env, risk_engine_core::abi::codec::option_overflow_answer());
    }
    view.arraybuffer
        .into_typedarray(TypedArrayType::Float64, length, 0)
}

/// The answer copied into a buffer the JS heap owns; the engine's vector is given back to the
/// thread for its next answer.
fn to_js(env: Env, out: Vec<f64>) -> napi::Result<JsTypedArray> {
    let mut buffer = env.create_arraybuffer(out.len() * 8)?;
    for (bytes, x) in buffer.chunks_exact_mut(8).zip(&out) {
        bytes.copy_from_slice(&x.to_le_bytes());
    }
    let length = out.len();
    risk_engine_core::abi::recycle_answer(out);
    buffer
        .into_raw()
        .into_typedarray(TypedArrayType::Float64, length, 0)
}

/// The core crate's version.
#[napi]
pub fn engine_version() -> String {
    risk_engine_core::VERSION.to_string()
}

/// The instruction set the addon was compiled for.
#[napi]
pub fn engine_build() -> String {
    if cfg!(target_feature = "avx512f") {
        "native-avx512".into()
    } else if cfg!(target_feature = "avx2") {
        "native-avx2".into()
    } else {
        "native-x86-64".into()
    }
}
