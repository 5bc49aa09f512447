//! Portfolio market-risk engine: estimation from price histories, Monte Carlo (normal and
//! Student-t), historical simulation and the closed form, with exact VaR/ES, Euler component ES and
//! standard errors. `std` only; builds with Rust 1.63 for wasm32 and with current stable natively.
//! Seeded results are bit-identical across builds and across any split of the work.
#![deny(unsafe_code)] // except in `abi::wasm`, the raw exports

pub mod abi;
mod block_tails;
pub mod deadline;
pub mod error;
pub mod estimation;
pub mod filter;
pub mod finite;
pub mod grid_sum;
pub mod group_sums;
pub mod importance;
pub mod kept;
mod kept_rows;
pub(crate) mod kept_vectors;
pub mod kernels;
pub mod limits;
pub mod math;
pub mod merge;
pub mod metrics;
pub mod options;
pub mod parametric;
mod partial;
pub mod quantiles;
pub mod rng;
pub mod scenario_tail;
pub mod select;
pub mod simulate;
pub mod spec;
pub mod stress;
pub mod tail;
mod unit_tails;
mod widened_block;
pub mod ziggurat;
mod ziggurat_tables;

pub const VERSION: &str = env!("CARGO_PKG_VERSION");
