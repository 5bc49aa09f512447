//! Volatility filters of filtered historical simulation (api.md §16).

pub mod bootstrap;
pub mod garch;
pub mod nelder_mead;
pub mod variance;
