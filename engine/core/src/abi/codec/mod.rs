//! Flat f64 encodings of the engine's requests and results: the one format both ABIs (WASM linear
//! memory and the napi Float64Array) carry, so that both builds run the very same decoding.
//! Layouts are documented in docs/engine.md ("Engine ABI"); every result starts with a status word
//! (0 = success, else the `EngineError` code, then detail, message length and message bytes).
//! One file per layout: `estimation` (estimation, covariance parts), `spec`, `partial`,
//! `results`, `parametric`, `stress`, `garch`, `kept`, `bootstrap` and `variance_filter`; `fields` holds what several layouts share.

mod bootstrap;
mod estimation;
mod fields;
mod garch;
mod kept;
mod options;
mod parametric;
mod part_summary;
mod partial;
mod results;
mod spec;
mod stress;
mod variance_filter;

pub use bootstrap::{decode_bootstrap, encode_bootstrap};
pub use estimation::{
    covariance_part_encoded, decode_covariance_part_input, decode_estimation_input,
    estimate_encoded, estimation_in_parts,
};
pub use garch::{decode_garch_fit, encode_garch_fit, GarchFitInput};
pub use kept::{decode_kept, encode_kept};
pub use options::{
    decode_option_header, option_greeks_encoded, option_units_parts, OptionUnitsCall,
};
pub use parametric::decode_parametric;
pub use part_summary::{decode_part_summary, encode_part_summary};
pub use partial::{decode_partial, encode_partial};
pub use results::encode_results;
pub use spec::{decode_spec, decode_spec_parts};
pub use stress::{
    decode_conditional, decode_worst_window, encode_conditional, encode_worst_window,
};
pub use variance_filter::filter_parts;

use crate::error::EngineError;

/// A failed call's result: [code, detail (the usable observations of InsufficientData, else 0),
/// message length, message bytes].
pub fn encode_error(e: &EngineError) -> Vec<f64> {
    let detail = match e {
        EngineError::InsufficientData { observations, .. } => *observations as f64,
        EngineError::InvalidInput(_)
        | EngineError::LimitExceeded(_)
        | EngineError::Overflow(_)
        | EngineError::DeadlineExceeded
        | EngineError::TailsShort => 0.0,
    };
    let msg = e.to_string();
    let mut out = vec![e.code(), detail, msg.len() as f64];
    out.extend(msg.bytes().map(f64::from));
    out
}

/// `call_led`'s answer to OP_OPTION_UNITS when its prepared write declines a buffer of the call's
/// own length (a value past double precision): a host need not price the call again to learn it.
pub fn option_overflow_answer() -> Vec<f64> {
    encode_error(&crate::options::revalue::option_overflow())
}
