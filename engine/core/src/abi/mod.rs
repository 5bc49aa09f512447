//! The flat f64 ABI: operation codes and layouts (`constants`), the one entry point (`dispatch`),
//! the encodings (`codec`, `reader`) and the raw wasm32 exports (`wasm`, the engine's only
//! `unsafe`). Both builds, WASM and the napi addon, go through `call`.

#[cfg(feature = "bench-ops")]
mod bench;
#[cfg(feature = "bench-ops")]
mod bench_kernels;
pub mod codec;
pub mod constants;
pub mod dispatch;
mod finalize_input;
pub mod reader;
#[cfg(target_arch = "wasm32")]
pub mod wasm;

pub use codec::OptionUnitsCall;
pub use dispatch::{
    call, call_led, call_led_summed, call_parts, group_sums_words, prepare_led, recycle_answer,
};
