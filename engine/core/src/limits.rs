//! Every bound the engine enforces, declared once. Decoders and constructors check against these
//! names, and the error messages are built from them, so a bound and its message cannot drift apart.

use crate::error::{EngineError, Result};

/// Assets per calculation: 1..=MAX_ASSETS.
pub const MAX_ASSETS: usize = 100_000;
/// Books priced on one scenario set: 1..=MAX_BOOKS.
pub const MAX_BOOKS: usize = 1000;
/// Books × scenarios: the portfolio P&L values one calculation keeps.
pub const MAX_PRICED_SCENARIOS: usize = 100_000_000;
/// Option positions per calculation: 0..=MAX_OPTIONS.
pub const MAX_OPTIONS: usize = 1000;
/// Options × scenarios one calculation revalues: its pricing time (about 1 s per 10⁸ on one core),
/// and the words OP_OPTION_UNITS writes out.
pub const MAX_OPTION_SCENARIOS: usize = 100_000_000;
/// An option's volatility σ per year: MIN_VOLATILITY..=MAX_VOLATILITY. Below the least, σ√τ of a
/// one-day option leaves the normal doubles (5e-324 over a day is 0, and d₁ = ln(S/K)/0).
pub const MIN_VOLATILITY: f64 = 1e-6;
pub const MAX_VOLATILITY: f64 = 5.0;
/// Horizon in days: MIN_HORIZON..=MAX_HORIZON.
pub const MIN_HORIZON: usize = 1;
pub const MAX_HORIZON: usize = 1000;
/// Scenarios N over all tasks: MIN_SCENARIOS..=MAX_SCENARIOS.
pub const MIN_SCENARIOS: usize = 1;
pub const MAX_SCENARIOS: usize = 100_000_000;
/// Confidence level c: MIN_CONFIDENCE ≤ c < CONFIDENCE_END (half-open: c = 1 has an empty tail).
pub const MIN_CONFIDENCE: f64 = 0.5;
pub const CONFIDENCE_END: f64 = 1.0;
/// Histogram bins: MIN_HISTOGRAM_BINS..=MAX_HISTOGRAM_BINS.
pub const MIN_HISTOGRAM_BINS: usize = 1;
pub const MAX_HISTOGRAM_BINS: usize = 1000;
/// Student-t degrees of freedom ν, a whole number: ν ≥ 3 keeps the variance finite.
pub const MIN_DEGREES_OF_FREEDOM: f64 = 3.0;
pub const MAX_DEGREES_OF_FREEDOM: f64 = 1000.0;
/// Student-t ν importance sampling needs: below it the tail comes from the variance mixing, which
/// a shift of the normals does not reach (measured: at ν = 3 the shift raises the ES variance).
pub const MIN_IMPORTANCE_DEGREES_OF_FREEDOM: f64 = 5.0;
/// Bound on per-task tail memory (k · (2n + 2) values kept with 50 % slack).
pub const MAX_TAIL_BYTES: f64 = 1024.0 * 1024.0 * 1024.0;
/// Fewest returns a model is estimated from.
pub const MIN_OBSERVATIONS: usize = 30;
/// Most normals one benchmark call draws.
pub const MAX_NORMALS: usize = 1_000_000_000;
/// Paths × horizon × assets of filtered history's bootstrap (filter::bootstrap): the steps one
/// calculation draws, and a bound on its T-day returns (paths × assets values, T ≥ 2) in memory.
pub const MAX_BOOTSTRAP_STEPS: usize = 20_000_000;
/// Largest count (a length, index or bound) the ABI carries. Fixed at u32::MAX on every target so
/// that a count is read the same way where `usize` is 32 bits (wasm32) as where it is 64.
pub const MAX_COUNT: u64 = u32::MAX as u64;
/// Largest integer an f64 carries exactly (2^53 − 1): the top of the seed range.
pub const MAX_EXACT_INT: f64 = 9_007_199_254_740_991.0;

/// Fails with `InvalidInput(what())` unless `ok`; the message is only built on failure.
fn check(ok: bool, what: impl FnOnce() -> String) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(EngineError::InvalidInput(what()))
    }
}

pub fn check_assets(n: usize) -> Result<()> {
    check((1..=MAX_ASSETS).contains(&n), || {
        format!("assets must number 1..={MAX_ASSETS}")
    })
}

pub fn check_books(books: usize) -> Result<()> {
    check((1..=MAX_BOOKS).contains(&books), || {
        format!("books must number 1..={MAX_BOOKS}")
    })
}

/// Books × scenarios within MAX_PRICED_SCENARIOS (for one book, the scenario bound itself).
pub fn check_priced_scenarios(books: usize, scenarios: usize) -> Result<()> {
    if books.saturating_mul(scenarios) <= MAX_PRICED_SCENARIOS {
        return Ok(());
    }
    Err(EngineError::LimitExceeded(format!(
        "books × simulations must be at most {MAX_PRICED_SCENARIOS:e}: {books} × {scenarios}"
    )))
}

pub fn check_options(options: usize) -> Result<()> {
    check(options <= MAX_OPTIONS, || {
        format!("options must number at most {MAX_OPTIONS}")
    })
}

/// Options × scenarios within MAX_OPTION_SCENARIOS.
pub fn check_option_scenarios(options: usize, scenarios: usize) -> Result<()> {
    if options.saturating_mul(scenarios) <= MAX_OPTION_SCENARIOS {
        return Ok(());
    }
    Err(EngineError::LimitExceeded(format!(
        "options × scenarios must be at most {MAX_OPTION_SCENARIOS:e}: {options} × {scenarios}"
    )))
}

pub fn check_horizon(days: usize) -> Result<()> {
    check((MIN_HORIZON..=MAX_HORIZON).contains(&days), || {
        format!("horizon must be {MIN_HORIZON}..={MAX_HORIZON} days")
    })
}

pub fn check_scenarios(n: usize) -> Result<()> {
    // `{:e}` keeps the message as it has always read: "1..=1e8".
    check((MIN_SCENARIOS..=MAX_SCENARIOS).contains(&n), || {
        format!("scenarios must number {MIN_SCENARIOS}..={MAX_SCENARIOS:e}")
    })
}

/// Paths × horizon × assets within MAX_BOOTSTRAP_STEPS, counted in u64 so wasm32 cannot wrap.
pub fn check_bootstrap_steps(paths: usize, horizon: usize, assets: usize) -> Result<()> {
    let steps = (paths as u64)
        .saturating_mul(horizon as u64)
        .saturating_mul(assets as u64);
    if steps <= MAX_BOOTSTRAP_STEPS as u64 {
        return Ok(());
    }
    Err(EngineError::LimitExceeded(format!(
        "simulations × time_horizon × assets of a filtered bootstrap must be at most \
         {MAX_BOOTSTRAP_STEPS:e}: {paths} × {horizon} × {assets}"
    )))
}

pub fn check_histogram_bins(bins: usize) -> Result<()> {
    check(histogram_bins_in_range(bins), || {
        format!("histogram bins {MIN_HISTOGRAM_BINS}..={MAX_HISTOGRAM_BINS}")
    })
}

pub fn check_degrees_of_freedom(nu: f64) -> Result<()> {
    check(
        (MIN_DEGREES_OF_FREEDOM..=MAX_DEGREES_OF_FREEDOM).contains(&nu) && nu.fract() == 0.0,
        || {
            format!(
                "degrees of freedom must be an integer in \
                 {MIN_DEGREES_OF_FREEDOM}..={MAX_DEGREES_OF_FREEDOM}"
            )
        },
    )
}

pub fn check_normals(count: usize) -> Result<()> {
    check(count <= MAX_NORMALS, || {
        format!("at most {MAX_NORMALS:e} normals")
    })
}

/// Whether c lies in [MIN_CONFIDENCE, CONFIDENCE_END); callers word their own message.
pub fn confidence_in_range(c: f64) -> bool {
    (MIN_CONFIDENCE..CONFIDENCE_END).contains(&c)
}

/// "[0.5, 1)", for messages about the confidence level.
pub fn confidence_range() -> String {
    format!("[{MIN_CONFIDENCE}, {CONFIDENCE_END})")
}

pub fn histogram_bins_in_range(bins: usize) -> bool {
    (MIN_HISTOGRAM_BINS..=MAX_HISTOGRAM_BINS).contains(&bins)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(r: Result<()>) -> String {
        r.unwrap_err().to_string()
    }

    /// The messages clients have seen so far, word for word.
    #[test]
    fn messages_read_as_they_always_have() {
        let cases = [
            (check_assets(0), "assets must number 1..=100000"),
            (check_horizon(1001), "horizon must be 1..=1000 days"),
            (check_scenarios(0), "scenarios must number 1..=1e8"),
            (check_histogram_bins(0), "histogram bins 1..=1000"),
            (
                check_degrees_of_freedom(2.0),
                "degrees of freedom must be an integer in 3..=1000",
            ),
            (check_normals(MAX_NORMALS + 1), "at most 1e9 normals"),
        ];
        for (result, want) in cases {
            assert_eq!(message(result), format!("invalid engine input: {want}"));
        }
        assert_eq!(confidence_range(), "[0.5, 1)");
    }

    #[test]
    fn bounds_are_inclusive_where_declared() {
        assert!(check_assets(MAX_ASSETS).is_ok() && check_assets(MAX_ASSETS + 1).is_err());
        assert!(check_horizon(MAX_HORIZON).is_ok() && check_horizon(0).is_err());
        assert!(check_scenarios(MAX_SCENARIOS).is_ok());
        assert!(check_bootstrap_steps(MAX_BOOTSTRAP_STEPS / 4, 2, 2).is_ok());
        assert!(check_bootstrap_steps(MAX_BOOTSTRAP_STEPS / 4 + 1, 2, 2).is_err());
        assert!(check_bootstrap_steps(usize::MAX, usize::MAX, 2).is_err());
        assert!(check_degrees_of_freedom(3.0).is_ok() && check_degrees_of_freedom(5.5).is_err());
        assert!(confidence_in_range(0.5) && !confidence_in_range(1.0));
        assert_eq!(MAX_EXACT_INT, ((1u64 << 53) - 1) as f64);
    }
}
