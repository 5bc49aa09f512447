//! Native Node addon: the same flat-buffer entry points as the WASM build, over the same core.

use napi::bindgen_prelude::Float64Array;
use napi_derive::napi;

/// Runs engine operation `op` (see `risk_engine_core::api`) on `input`.
#[napi]
pub fn engine_call(op: u32, input: Float64Array) -> Float64Array {
    Float64Array::new(risk_engine_core::api::call(op, &input))
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
