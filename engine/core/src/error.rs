//! Errors the engine reports at its boundary. Inputs are validated once, when a request is decoded,
//! so that the sampling loops cannot fail — except by leaving double precision, which no bound on
//! the inputs alone can rule out for every draw (`Overflow`).

use std::fmt;

// Engine error codes, the status word of a failed call (0 is success). Defined here, beside the
// errors they code, and re-exported by `abi::constants`, so that the error floor imports nothing.
pub const ERR_INVALID_INPUT: u32 = 1;
pub const ERR_INSUFFICIENT_DATA: u32 = 2;
pub const ERR_LIMIT_EXCEEDED: u32 = 3;
pub const ERR_DEADLINE_EXCEEDED: u32 = 4;
pub const ERR_OVERFLOW: u32 = 5;
pub const ERR_TAILS_SHORT: u32 = 6;

#[derive(Clone, Debug, PartialEq)]
pub enum EngineError {
    /// A field of the encoded request is out of its domain (a bug in the caller: the service
    /// validates requests before they reach the engine).
    InvalidInput(String),
    /// Fewer usable returns than the model needs.
    InsufficientData {
        observations: usize,
        required: usize,
    },
    /// A valid request beyond what the engine computes exactly within its memory bound.
    LimitExceeded(String),
    /// The task's time budget ran out (native builds; see `deadline`).
    DeadlineExceeded,
    /// A scenario or a figure is not a finite double (extreme exposures, leverage or horizon).
    Overflow(String),
    /// A task that kept only its own share of a tail (`OP_SIMULATE_OWN_TAILS`) may have left out
    /// one of the calculation's tail scenarios: the merge cannot prove its figures exact, and the
    /// host simulates again with full tails (`OP_SIMULATE`), which never answers this.
    TailsShort,
}

impl EngineError {
    pub fn invalid(msg: impl Into<String>) -> Self {
        EngineError::InvalidInput(msg.into())
    }

    /// Numeric code carried over the flat ABI (0 means success).
    pub fn code(&self) -> f64 {
        f64::from(match self {
            EngineError::InvalidInput(_) => ERR_INVALID_INPUT,
            EngineError::InsufficientData { .. } => ERR_INSUFFICIENT_DATA,
            EngineError::LimitExceeded(_) => ERR_LIMIT_EXCEEDED,
            EngineError::DeadlineExceeded => ERR_DEADLINE_EXCEEDED,
            EngineError::Overflow(_) => ERR_OVERFLOW,
            EngineError::TailsShort => ERR_TAILS_SHORT,
        })
    }
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::InvalidInput(m) => write!(f, "invalid engine input: {m}"),
            EngineError::LimitExceeded(m) | EngineError::Overflow(m) => write!(f, "{m}"),
            EngineError::DeadlineExceeded => write!(f, "the task's time budget ran out"),
            EngineError::TailsShort => write!(
                f,
                "a task's own-share tail may leave out a tail scenario: simulate with full tails"
            ),
            EngineError::InsufficientData {
                observations,
                required,
            } => write!(
                f,
                "{observations} usable returns, at least {required} are needed"
            ),
        }
    }
}

pub type Result<T> = std::result::Result<T, EngineError>;

/// Fails with `InvalidInput(what)` unless `ok`.
pub fn ensure(ok: bool, what: &str) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(EngineError::invalid(what))
    }
}
