//! The engine's own elementary functions. Platform `exp`/`ln` differ by an ulp between the WASM and
//! native builds; these use only +, −, ×, ÷, sqrt and bit operations (never fused multiply-add), so
//! every build returns the same bits.

mod elementary;
mod estrin;
mod expm1_each;
mod normal;

pub use elementary::{exp, exp_sum, expm1, ln};
pub use estrin::{estrin13, estrin5, estrin6, estrin9};
pub use expm1_each::expm1_each;
pub use normal::{normal_cdf, normal_pdf, normal_quantile, normal_sf};
