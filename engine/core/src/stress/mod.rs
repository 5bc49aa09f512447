//! Stress operations over the estimated model and the price history: `conditional` (each symbol's
//! distribution given some symbols' shocks) and `worst_window` (a book's worst historical span).

pub mod conditional;
pub mod worst_window;
