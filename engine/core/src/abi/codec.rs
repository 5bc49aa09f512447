//! Flat f64 encodings of the engine's requests and results: the one format both ABIs (WASM linear
//! memory and the napi Float64Array) carry, so that both builds run the very same decoding.
//! Layouts are documented in README.md ("Engine ABI"); every result starts with a status word
//! (0 = success, else the `EngineError` code, then detail, message length and message bytes).

use super::constants::{
    COMPARISON_NONE, COMPARISON_WHAT_IF, COVARIANCE_PART_HEADER_LEN,
    COVARIANCE_PART_RESULT_HEADER_LEN, ESTIMATION_HEADER_LEN, ESTIMATION_RESULT_HEADER_LEN,
    METHOD_HISTORICAL, METHOD_MONTE_CARLO_NORMAL, METHOD_MONTE_CARLO_STUDENT_T, METRICS_SCALARS,
    MODE_BUY_AND_HOLD, PARAMETRIC_HEADER_LEN, PARTIAL_HEADER_LEN, SPEC_HEADER_LEN,
    VARIANCE_REDUCTION_IMPORTANCE_SAMPLING, VARIANCE_REDUCTION_NONE,
};
use super::reader::{product, Reader};
use crate::deadline::Deadline;
use crate::error::{ensure, EngineError, Result};
use crate::estimation::covariance_part::CovariancePart;
use crate::estimation::estimate::Estimation;
use crate::estimation::returns::{Covariance, EstimationInput};
use crate::limits::{check_assets, check_books};
use crate::merge::finalize::FinalizeParams;
use crate::metrics::{Metrics, Results};
use crate::parametric::{CovarianceForm, ParametricInput, COVARIANCE_DENSE};
use crate::select::{from_order_key, order_key};
use crate::simulate::{BookPartial, Partial, UnitTails};
use crate::spec::{
    BlockRange, Book, Comparison, Method, Mode, Spec, SpecFields, FACTOR_TRIANGULAR,
};
use crate::tail::ScenarioTail;

pub fn encode_error(e: &EngineError) -> Vec<f64> {
    let detail = match e {
        EngineError::InsufficientData { observations, .. } => *observations as f64,
        EngineError::InvalidInput(_)
        | EngineError::LimitExceeded(_)
        | EngineError::Overflow(_)
        | EngineError::DeadlineExceeded => 0.0,
    };
    let msg = e.to_string();
    let mut out = vec![e.code(), detail, msg.len() as f64];
    out.extend(msg.bytes().map(f64::from));
    out
}

/// Estimation input layout: [dates, assets, lookback, zero drift, ewma, λ, covariance given,
/// prices(dates·assets)], then when given Σ's lower triangle row by row (assets·(assets + 1)/2).
pub fn decode_estimation_input(data: &[f64]) -> Result<EstimationInput<'_>> {
    let mut r = Reader::new(data);
    let input = read_estimation_input(&mut r)?;
    r.end()?;
    Ok(input)
}

fn read_estimation_input<'a>(r: &mut Reader<'a>) -> Result<EstimationInput<'a>> {
    let n_dates = r.count()?;
    let n_assets = r.count()?;
    let lookback = r.count()?;
    let zero_drift = r.flag()?;
    let ewma = r.flag()?;
    let lambda = r.scalar()?;
    let covariance_given = r.flag()?;
    debug_assert_eq!(r.position(), ESTIMATION_HEADER_LEN);
    let prices = r.take(product(n_dates, n_assets)?)?;
    let covariance_lower = if covariance_given {
        let entries = product(n_assets, n_assets.saturating_add(1))? / 2;
        Some(r.take(entries)?)
    } else {
        None
    };
    Ok(EstimationInput {
        prices,
        n_dates,
        n_assets,
        lookback,
        zero_drift,
        covariance: if ewma {
            Covariance::Ewma(lambda)
        } else {
            Covariance::Sample
        },
        covariance_lower,
    })
}

/// Covariance part input: [part, parts, estimation input without a covariance].
pub fn decode_covariance_part_input(data: &[f64]) -> Result<(EstimationInput<'_>, usize, usize)> {
    let mut r = Reader::new(data);
    let part = r.count()?;
    let parts = r.count()?;
    debug_assert_eq!(r.position(), COVARIANCE_PART_HEADER_LEN);
    let input = read_estimation_input(&mut r)?;
    r.end()?;
    Ok((input, part, parts))
}

/// Covariance part result: [0, loadings, first row, end row, lower-triangle rows…]; loadings 1
/// (and no rows) when the window samples through loadings, so Σ is not needed.
pub fn encode_covariance_part(part: &Option<CovariancePart>) -> Vec<f64> {
    match part {
        None => vec![0.0, 1.0, 0.0, 0.0],
        Some(p) => {
            let header: [f64; COVARIANCE_PART_RESULT_HEADER_LEN] =
                [0.0, 0.0, p.rows.start as f64, p.rows.end as f64];
            let mut out = header.to_vec();
            out.extend_from_slice(&p.lower);
            out
        }
    }
}

/// Estimation result layout: [0, observations, first date, last date, jitter, factor columns,
/// mean(n), sample mean(n), covariance(n²), factor(n² or n·m), volatility(n),
/// returns(observations·n)].
pub fn encode_estimation(e: &Estimation) -> Vec<f64> {
    let header: [f64; ESTIMATION_RESULT_HEADER_LEN] = [
        0.0,
        e.observations as f64,
        e.first_date as f64,
        e.last_date as f64,
        e.jitter,
        e.factor_columns as f64,
    ];
    let mut out = header.to_vec();
    for part in [
        &e.mean,
        &e.sample_mean,
        &e.covariance,
        &e.factor,
        &e.volatility,
        &e.returns,
    ] {
        out.extend_from_slice(part);
    }
    out
}

fn comparison(code: usize) -> Result<Comparison> {
    match code {
        COMPARISON_NONE => Ok(Comparison::None),
        COMPARISON_WHAT_IF => Ok(Comparison::WhatIf),
        _ => Err(EngineError::invalid("unknown comparison code")),
    }
}

fn comparison_code(c: Comparison) -> usize {
    match c {
        Comparison::None => COMPARISON_NONE,
        Comparison::WhatIf => COMPARISON_WHAT_IF,
    }
}

/// `count` books of `n` weights each: [capital, weights(n)] per book.
fn read_books(r: &mut Reader, count: usize, n: usize) -> Result<Vec<Book>> {
    check_books(count)?;
    (0..count)
        .map(|_| {
            Ok(Book {
                capital: r.scalar()?,
                weights: r.take(n)?.to_vec(),
            })
        })
        .collect()
}

fn write_books(out: &mut Vec<f64>, books: &[Book]) {
    for b in books {
        out.push(b.capital);
        out.extend_from_slice(&b.weights);
    }
}

/// Spec layout: [method, mode, n, books, T, ν, seed, antithetic, N, c, bins, first block, end
/// block, time budget ms (0 = none), comparison, variance reduction, per book (capital, weights(n)), mean(n), then
/// (factor columns, factor: L(n²) when FACTOR_TRIANGULAR, else loadings(n·m)) or (observations,
/// returns)].
pub fn decode_spec(data: &[f64]) -> Result<(Spec, BlockRange, Deadline)> {
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
    let budget_ms = r.scalar()?;
    ensure(
        budget_ms.is_finite() && budget_ms >= 0.0,
        "time budget must be finite, ≥ 0",
    )?;
    let comparison = comparison(r.count()?)?;
    let importance_sampling = match r.count()? {
        VARIANCE_REDUCTION_NONE => false,
        VARIANCE_REDUCTION_IMPORTANCE_SAMPLING => true,
        _ => return Err(EngineError::invalid("unknown variance reduction code")),
    };
    debug_assert_eq!(r.position(), SPEC_HEADER_LEN);
    let books = read_books(&mut r, book_count, n)?;
    let mean = r.take(n)?.to_vec();
    let (factor_columns, factor, returns) = if method == Method::Historical {
        let obs = r.count()?;
        (
            FACTOR_TRIANGULAR,
            Vec::new(),
            r.take(product(obs, n)?)?.to_vec(),
        )
    } else {
        let columns = r.count()?;
        let width = if columns == FACTOR_TRIANGULAR {
            n
        } else {
            columns
        };
        let factor = r.take(product(n, width)?)?.to_vec();
        (columns, factor, Vec::new())
    };
    r.end()?;
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

/// Partial layout: [0, N, n, c, books, bins, comparison, lanes, first, count, worst count w, tail
/// count k, weighted], per book (capital, weights(n)), with weights their likelihood ratios(count), per lane and asset its k tail values (lane 2 holds
/// −(e^R − 1)), then per book: pnl(count), worst index(w), worst P&L(w), worst per-asset P&L(w·n),
/// and with no lanes its asset tails(n·k).
pub fn encode_partial(spec: &Spec, p: &Partial) -> Vec<f64> {
    let h = FinalizeParams::of(spec);
    let n = h.n_assets;
    let count = p.count();
    let worst = p.books[0].worst.indices.len();
    let k = match (p.units.smallest.first(), p.books[0].asset_tails.first()) {
        (Some(lane), _) | (None, Some(lane)) => lane.len(),
        (None, None) => 0,
    };
    let header: [f64; PARTIAL_HEADER_LEN] = [
        0.0,
        h.scenarios as f64,
        n as f64,
        h.confidence,
        h.books.len() as f64,
        h.histogram_bins as f64,
        comparison_code(h.comparison) as f64,
        h.lanes as f64,
        p.first as f64,
        count as f64,
        worst as f64,
        k as f64,
        f64::from(u8::from(h.weighted)),
    ];
    let mut out = header.to_vec();
    write_books(&mut out, &h.books);
    out.extend_from_slice(&p.weights);
    for tail in p.units.smallest.iter().chain(&p.units.largest) {
        out.extend(tail.iter().map(|&key| from_order_key(key)));
    }
    for b in &p.books {
        out.extend_from_slice(&b.pnl);
        out.extend(b.worst.indices.iter().map(|&i| i as f64));
        out.extend(b.worst.keys.iter().map(|&key| from_order_key(key)));
        out.extend_from_slice(&b.worst.asset_pnl);
        for tail in &b.asset_tails {
            out.extend(tail.iter().map(|&key| from_order_key(key)));
        }
    }
    out
}

/// `assets` tails of `k` values each, as order keys.
fn read_tails(r: &mut Reader, assets: usize, k: usize) -> Result<Vec<Vec<u64>>> {
    (0..assets)
        .map(|_| Ok(r.take(k)?.iter().map(|&x| order_key(x)).collect()))
        .collect()
}

/// One partial of `OP_FINALIZE`'s input: the calculation's parameters (its header, the same in
/// every partial of one calculation) and the task's results.
pub fn decode_partial(r: &mut Reader) -> Result<(FinalizeParams, Partial)> {
    let start = r.position();
    ensure(r.scalar()? == 0.0, "partial must be a success result")?;
    let scenarios = r.count()?;
    let n = r.count()?;
    // Bounded like every other decoder: with k = 0 nothing below would limit n (found by fuzzing).
    check_assets(n)?;
    let confidence = r.scalar()?;
    let book_count = r.count()?;
    let histogram_bins = r.count()?;
    let comparison = comparison(r.count()?)?;
    let lanes = r.count()?;
    ensure(lanes <= 2, "at most two per-asset tail lanes")?;
    let first = r.count()?;
    let count = r.count()?;
    let worst_count = r.count()?;
    let k = r.count()?;
    let weighted = r.flag()?;
    debug_assert_eq!(r.position() - start, PARTIAL_HEADER_LEN);
    ensure(
        worst_count <= count && k <= count,
        "tail larger than the partial",
    )?;
    let end = first
        .checked_add(count)
        .ok_or_else(|| EngineError::invalid("partial beyond the count range"))?;
    let books = read_books(r, book_count, n)?;
    let weights = r.take(if weighted { count } else { 0 })?.to_vec();
    ensure(
        weights.iter().all(|w| w.is_finite() && *w >= 0.0),
        "likelihood ratios must be finite, ≥ 0",
    )?;
    let units = UnitTails {
        smallest: read_tails(r, if lanes >= 1 { n } else { 0 }, k)?,
        largest: read_tails(r, if lanes == 2 { n } else { 0 }, k)?,
    };
    let mut partials = Vec::with_capacity(book_count);
    for _ in 0..book_count {
        let pnl = r.take(count)?.to_vec();
        ensure(
            pnl.iter().all(|x| x.is_finite()),
            "partial P&L must be finite",
        )?;
        let mut worst = ScenarioTail::new(worst_count, n);
        worst.indices = (0..worst_count)
            .map(|_| r.integer())
            .collect::<Result<Vec<u64>>>()?;
        worst.keys = r.take(worst_count)?.iter().map(|&x| order_key(x)).collect();
        worst.asset_pnl = r.take(product(worst_count, n)?)?.to_vec();
        ensure(
            worst.asset_pnl.iter().all(|x| x.is_finite()),
            "partial asset P&L must be finite",
        )?;
        ensure(
            worst.indices.windows(2).all(|w| w[0] < w[1])
                && worst
                    .indices
                    .iter()
                    .all(|&i| (first as u64..end as u64).contains(&i)),
            "tail indices must be increasing and inside the partial",
        )?;
        let asset_tails = read_tails(r, if lanes == 0 { n } else { 0 }, k)?;
        partials.push(BookPartial {
            pnl,
            worst,
            asset_tails,
        });
    }
    Ok((
        FinalizeParams {
            scenarios,
            n_assets: n,
            confidence,
            histogram_bins,
            comparison,
            lanes,
            books,
            weighted,
        },
        Partial {
            first,
            books: partials,
            units,
            weights,
        },
    ))
}

/// Results layout: [0, books, comparison], per book [N, VaR, ES, mean, volatility, P(loss), worst,
/// best, VaR SE, ES SE, percentiles(9), n, component ES(n), standalone VaR(n), component VaR(n),
/// bins, edges(bins + 1 or 0), counts(bins)], then with a what-if [incremental VaR, incremental
/// ES, their standard errors].
pub fn encode_results(results: &Results) -> Vec<f64> {
    let comparison = if results.what_if.is_some() {
        COMPARISON_WHAT_IF
    } else {
        COMPARISON_NONE
    };
    let mut out = vec![0.0, results.books.len() as f64, comparison as f64];
    for m in &results.books {
        encode_metrics(&mut out, m);
    }
    if let Some(w) = &results.what_if {
        out.extend_from_slice(&[
            w.incremental_var,
            w.incremental_es,
            w.incremental_var_standard_error,
            w.incremental_es_standard_error,
        ]);
    }
    out
}

fn encode_metrics(out: &mut Vec<f64>, m: &Metrics) {
    let scalars: [f64; METRICS_SCALARS] = [
        m.scenarios as f64,
        m.value_at_risk,
        m.expected_shortfall,
        m.expected_pnl,
        m.volatility,
        m.probability_of_loss,
        m.worst_loss,
        m.best_gain,
        m.value_at_risk_standard_error,
        m.expected_shortfall_standard_error,
    ];
    out.extend_from_slice(&scalars);
    out.extend_from_slice(&m.percentiles);
    out.push(m.component_es.len() as f64);
    out.extend_from_slice(&m.component_es);
    out.extend_from_slice(&m.standalone_var);
    out.extend_from_slice(&m.component_var);
    out.push(m.counts.len() as f64);
    out.extend_from_slice(&m.bin_edges);
    out.extend_from_slice(&m.counts);
}

/// Parametric layout: [n, books, T, c, comparison, per book (capital, weights(n)), mean(n),
/// covariance(n²)].
pub fn decode_parametric(data: &[f64]) -> Result<ParametricInput> {
    let mut r = Reader::new(data);
    let n = r.count()?;
    check_assets(n)?;
    let book_count = r.count()?;
    let horizon = r.count()?;
    let confidence = r.scalar()?;
    let comparison = comparison(r.count()?)?;
    debug_assert_eq!(r.position(), PARAMETRIC_HEADER_LEN);
    let books = read_books(&mut r, book_count, n)?;
    let mean = r.take(n)?.to_vec();
    let covariance = match r.count()? {
        COVARIANCE_DENSE => CovarianceForm::Dense(r.take(product(n, n)?)?.to_vec()),
        columns => CovarianceForm::Loadings {
            columns,
            values: r.take(product(n, columns)?)?.to_vec(),
        },
    };
    r.end()?;
    Ok(ParametricInput {
        horizon,
        confidence,
        comparison,
        books,
        mean,
        covariance,
    })
}
