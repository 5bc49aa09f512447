//! Portfolio market-risk engine: estimation from price histories, Monte Carlo (normal and
//! Student-t), historical simulation and the closed form, with exact VaR/ES, Euler component ES and
//! standard errors. `std` only; builds with Rust 1.63 for wasm32 and with current stable natively.
//! Seeded results are bit-identical across builds and across any split of the work.

pub mod api;
pub mod codec;
pub mod deadline;
pub mod error;
pub mod estimate;
pub mod finalize;
pub mod kernels;
pub mod linalg;
pub mod math;
pub mod metrics;
pub mod parametric;
pub mod rng;
pub mod select;
pub mod simulate;
pub mod spec;
pub mod tail;
pub mod ziggurat;
mod ziggurat_tables;

#[cfg(target_arch = "wasm32")]
pub mod wasm_abi;

pub const VERSION: &str = env!("CARGO_PKG_VERSION");
