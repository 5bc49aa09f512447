//! The spec of a simulation (`OP_SIMULATE`, `OP_RUN`, `OP_UNITS`): the model, the books, the task's blocks
//! and its time budget.

use super::fields::{comparison, read_books, read_budget};
use crate::abi::constants::{
    METHOD_HISTORICAL, METHOD_MONTE_CARLO_NORMAL, METHOD_MONTE_CARLO_STUDENT_T, MODE_BUY_AND_HOLD,
    SPEC_HEADER_LEN, VARIANCE_REDUCTION_IMPORTANCE_SAMPLING, VARIANCE_REDUCTION_NONE,
};
use crate::abi::reader::{product, Reader};
use crate::deadline::Deadline;
use crate::error::{EngineError, Result};
use crate::limits::check_assets;
use crate::spec::{BlockRange, Method, Mode, Spec, SpecFields, FACTOR_TRIANGULAR};

/// Spec layout: [method, mode, n, books, T, ν, seed, antithetic, N, c, bins, first block, end
/// block, time budget ms (0 = none), comparison, variance reduction, per book (capital, weights(n)), mean(n), then
/// (factor columns, factor: L(n²) when FACTOR_TRIANGULAR, else loadings(n·m)) or (observations,
/// returns)].
pub fn decode_spec(data: &[f64]) -> Result<(Spec, BlockRange, Deadline)> {
    decode_spec_from(data, None)
}

/// A spec given as input parts [the spec up to its last count (factor columns or observations),
/// the factor or the returns]: a host shares the model between a calculation's tasks instead of
/// copying it into each task's input. None for any other split and for parts that do not decode
/// as that (the joined input is then decoded, so every answer, an error included, is the joined
/// one's).
pub fn decode_spec_parts(parts: &[&[f64]]) -> Option<(Spec, BlockRange, Deadline)> {
    match parts {
        [head, model] => decode_spec_from(head, Some(model)).ok(),
        _ => None,
    }
}

/// The spec in `data`, its factor or returns read from `model` when given, else from `data` after
/// their count.
fn decode_spec_from<'a>(
    data: &'a [f64],
    model: Option<&'a [f64]>,
) -> Result<(Spec, BlockRange, Deadline)> {
    let mut r = Reader::new(data);
    let method = match r.count()? {
        METHOD_MONTE_CARLO_NORMAL => Method::MonteCarloNormal,
        METHOD_MONTE_CARLO_STUDENT_T => Method::MonteCarloStudentT,
        METHOD_HISTORICAL => Method::Historical,
        _ => return Err(EngineError::invalid("unknown method code")),
    };
    // The mode has always been read as a flag: any code but buy-and-hold means rebalanced.
    let mode = match r.count()? {
        MODE_BUY_AND_HOLD => Mode::BuyAndHold,
        _ => Mode::Rebalanced,
    };
    let n = r.count()?;
    // The upper bound before any array is read, as `n` sizes them; n = 0 is refused later, among
    // the other fields, by `Spec::new` (the order errors have always been reported in).
    if n != 0 {
        check_assets(n)?;
    }
    let book_count = r.count()?;
    let horizon = r.count()?;
    let degrees_of_freedom = r.scalar()?;
    let seed = r.integer()?;
    let antithetic = r.flag()?;
    let scenarios = r.count()?;
    let confidence = r.scalar()?;
    let histogram_bins = r.count()?;
    let range = BlockRange {
        first: r.count()?,
        end: r.count()?,
    };
    let budget_ms = read_budget(&mut r)?;
    let comparison = comparison(r.count()?)?;
    let importance_sampling = match r.count()? {
        VARIANCE_REDUCTION_NONE => false,
        VARIANCE_REDUCTION_IMPORTANCE_SAMPLING => true,
        _ => return Err(EngineError::invalid("unknown variance reduction code")),
    };
    debug_assert_eq!(r.position(), SPEC_HEADER_LEN);
    let books = read_books(&mut r, book_count, n)?;
    let mean = r.take(n)?.to_vec();
    let mut model = model.map(Reader::new);
    let (factor_columns, factor, returns) = if method == Method::Historical {
        let obs = r.count()?;
        let returns = model.as_mut().unwrap_or(&mut r).take(product(obs, n)?)?;
        (FACTOR_TRIANGULAR, Vec::new(), returns.to_vec())
    } else {
        let columns = r.count()?;
        let width = if columns == FACTOR_TRIANGULAR {
            n
        } else {
            columns
        };
        let factor = model.as_mut().unwrap_or(&mut r).take(product(n, width)?)?;
        (columns, factor.to_vec(), Vec::new())
    };
    r.end()?;
    if let Some(model) = &model {
        model.end()?;
    }
    let spec = Spec::new(SpecFields {
        method,
        mode,
        books,
        comparison,
        horizon,
        degrees_of_freedom,
        seed,
        antithetic,
        importance_sampling,
        scenarios,
        confidence,
        histogram_bins,
        mean,
        factor,
        factor_columns,
        returns,
    })?;
    range.validate(&spec)?;
    Ok((spec, range, Deadline::after_ms(budget_ms)))
}
