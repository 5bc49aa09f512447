//! Flat f64 encodings of the engine's requests and results: the one format both ABIs (WASM linear
//! memory and the napi Float64Array) carry, so that both builds run the very same decoding.
//! Layouts are documented in README.md ("Engine ABI"); every result starts with a status word
//! (0 = success, else the `EngineError` code, then detail, message length and message bytes).

use super::constants::{
    ESTIMATION_HEADER_LEN, ESTIMATION_RESULT_HEADER_LEN, METHOD_HISTORICAL,
    METHOD_MONTE_CARLO_NORMAL, METHOD_MONTE_CARLO_STUDENT_T, METRICS_SCALARS, MODE_BUY_AND_HOLD,
    PARAMETRIC_HEADER_LEN, PARTIAL_HEADER_LEN, SPEC_HEADER_LEN,
};
use super::reader::{product, Reader};
use crate::deadline::Deadline;
use crate::error::{ensure, EngineError, Result};
use crate::estimate::{Covariance, Estimation, EstimationInput};
use crate::finalize::FinalizeParams;
use crate::limits::check_assets;
use crate::metrics::Metrics;
use crate::parametric::ParametricInput;
use crate::select::{from_order_key, order_key};
use crate::simulate::Partial;
use crate::spec::{BlockRange, Method, Mode, Spec, SpecFields};
use crate::tail::ScenarioTail;

pub fn encode_error(e: &EngineError) -> Vec<f64> {
    let detail = match e {
        EngineError::InsufficientData { observations, .. } => *observations as f64,
        EngineError::InvalidInput(_)
        | EngineError::LimitExceeded(_)
        | EngineError::DeadlineExceeded => 0.0,
    };
    let msg = e.to_string();
    let mut out = vec![e.code(), detail, msg.len() as f64];
    out.extend(msg.bytes().map(f64::from));
    out
}

/// Estimation input layout: [dates, assets, lookback, zero drift, ewma, λ, prices(dates·assets)].
pub fn decode_estimation_input(data: &[f64]) -> Result<EstimationInput<'_>> {
    let mut r = Reader::new(data);
    let n_dates = r.count()?;
    let n_assets = r.count()?;
    let lookback = r.count()?;
    let zero_drift = r.flag()?;
    let ewma = r.flag()?;
    let lambda = r.scalar()?;
    debug_assert_eq!(r.position(), ESTIMATION_HEADER_LEN);
    let prices = r.take(product(n_dates, n_assets)?)?;
    r.end()?;
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
    })
}

/// Estimation result layout: [0, observations, first date, last date, jitter, mean(n),
/// sample mean(n), covariance(n²), cholesky(n²), volatility(n), returns(observations·n)].
pub fn encode_estimation(e: &Estimation) -> Vec<f64> {
    let header: [f64; ESTIMATION_RESULT_HEADER_LEN] = [
        0.0,
        e.observations as f64,
        e.first_date as f64,
        e.last_date as f64,
        e.jitter,
    ];
    let mut out = header.to_vec();
    for part in [
        &e.mean,
        &e.sample_mean,
        &e.covariance,
        &e.cholesky,
        &e.volatility,
        &e.returns,
    ] {
        out.extend_from_slice(part);
    }
    out
}

/// Spec layout: [method, mode, n, V, T, ν, seed, antithetic, N, c, bins, first block, end block,
/// time budget ms (0 = none), weights(n), mean(n), then L(n²) or (observations, returns)].
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
    let portfolio_value = r.scalar()?;
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
    debug_assert_eq!(r.position(), SPEC_HEADER_LEN);
    let weights = r.take(n)?.to_vec();
    let mean = r.take(n)?.to_vec();
    let (cholesky, returns) = if method == Method::Historical {
        let obs = r.count()?;
        (Vec::new(), r.take(product(obs, n)?)?.to_vec())
    } else {
        (r.take(product(n, n)?)?.to_vec(), Vec::new())
    };
    r.end()?;
    let spec = Spec::new(SpecFields {
        method,
        mode,
        portfolio_value,
        weights,
        horizon,
        degrees_of_freedom,
        seed,
        antithetic,
        scenarios,
        confidence,
        histogram_bins,
        mean,
        cholesky,
        returns,
    })?;
    range.validate(&spec)?;
    Ok((spec, range, Deadline::after_ms(budget_ms)))
}

/// Partial layout: [0, scenarios, n, confidence, V, bins, first, count, k, pnl(count),
/// worst index(k), worst P&L(k), worst per-asset P&L(k·n), asset tails(n·k)].
pub fn encode_partial(spec: &Spec, p: &Partial) -> Vec<f64> {
    let h = FinalizeParams::of(spec);
    let n = h.n_assets;
    let k = p.worst.indices.len();
    let header: [f64; PARTIAL_HEADER_LEN] = [
        0.0,
        h.scenarios as f64,
        n as f64,
        h.confidence,
        h.portfolio_value,
        h.histogram_bins as f64,
        p.first as f64,
        p.pnl.len() as f64,
        k as f64,
    ];
    let mut out = Vec::with_capacity(PARTIAL_HEADER_LEN + p.pnl.len() + k * (2 * n + 2));
    out.extend_from_slice(&header);
    out.extend_from_slice(&p.pnl);
    out.extend(p.worst.indices.iter().map(|&i| i as f64));
    out.extend(p.worst.keys.iter().map(|&key| from_order_key(key)));
    out.extend_from_slice(&p.worst.asset_pnl);
    for tail in &p.asset_tails {
        out.extend(tail.iter().map(|&key| from_order_key(key)));
    }
    out
}

/// One partial of `OP_FINALIZE`'s input: the calculation's parameters (its header, the same in
/// every partial of one calculation) and the task's results.
pub fn decode_partial(r: &mut Reader) -> Result<(FinalizeParams, Partial)> {
    let start = r.position();
    ensure(r.scalar()? == 0.0, "partial must be a success result")?;
    let header = FinalizeParams {
        scenarios: r.count()?,
        n_assets: r.count()?,
        confidence: r.scalar()?,
        portfolio_value: r.scalar()?,
        histogram_bins: r.count()?,
    };
    let n = header.n_assets;
    // Bounded like every other decoder: with k = 0 nothing below would limit n (found by fuzzing).
    check_assets(n)?;
    let first = r.count()?;
    let count = r.count()?;
    let k = r.count()?;
    debug_assert_eq!(r.position() - start, PARTIAL_HEADER_LEN);
    ensure(k <= count, "tail larger than the partial")?;
    let end = first
        .checked_add(count)
        .ok_or_else(|| EngineError::invalid("partial beyond the count range"))?;
    let pnl = r.take(count)?.to_vec();
    ensure(
        pnl.iter().all(|x| x.is_finite()),
        "partial P&L must be finite",
    )?;
    let mut worst = ScenarioTail::new(k, n);
    worst.indices = (0..k).map(|_| r.integer()).collect::<Result<Vec<u64>>>()?;
    worst.keys = r.take(k)?.iter().map(|&x| order_key(x)).collect();
    worst.asset_pnl = r.take(product(k, n)?)?.to_vec();
    let asset_tails = (0..n)
        .map(|_| Ok(r.take(k)?.iter().map(|&x| order_key(x)).collect()))
        .collect::<Result<Vec<Vec<u64>>>>()?;
    ensure(
        worst.indices.windows(2).all(|w| w[0] < w[1])
            && worst
                .indices
                .iter()
                .all(|&i| (first as u64..end as u64).contains(&i)),
        "tail indices must be increasing and inside the partial",
    )?;
    Ok((
        header,
        Partial {
            first,
            pnl,
            worst,
            asset_tails,
        },
    ))
}

/// Metrics layout: [0, scenarios, VaR, ES, mean, volatility, P(loss), worst, best, VaR SE, ES SE,
/// percentiles(9), n, component ES(n), standalone VaR(n), bins, edges(bins + 1 or 0), counts(bins)].
pub fn encode_metrics(m: &Metrics) -> Vec<f64> {
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
    let mut out = vec![0.0];
    out.extend_from_slice(&scalars);
    out.extend_from_slice(&m.percentiles);
    out.push(m.component_es.len() as f64);
    out.extend_from_slice(&m.component_es);
    out.extend_from_slice(&m.standalone_var);
    out.push(m.counts.len() as f64);
    out.extend_from_slice(&m.bin_edges);
    out.extend_from_slice(&m.counts);
    out
}

/// Parametric layout: [n, V, T, c, weights(n), mean(n), covariance(n²)].
pub fn decode_parametric(data: &[f64]) -> Result<ParametricInput> {
    let mut r = Reader::new(data);
    let n = r.count()?;
    check_assets(n)?;
    let portfolio_value = r.scalar()?;
    let horizon = r.count()?;
    let confidence = r.scalar()?;
    debug_assert_eq!(r.position(), PARAMETRIC_HEADER_LEN);
    let weights = r.take(n)?.to_vec();
    let mean = r.take(n)?.to_vec();
    let covariance = r.take(product(n, n)?)?.to_vec();
    r.end()?;
    Ok(ParametricInput {
        portfolio_value,
        horizon,
        confidence,
        weights,
        mean,
        covariance,
    })
}
