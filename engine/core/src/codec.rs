//! Flat f64 encodings of the engine's requests and results: the one format both ABIs (WASM linear
//! memory and the napi Float64Array) carry, so that both builds run the very same decoding.
//! Layouts are documented in README.md ("Engine ABI"); every result starts with a status word
//! (0 = success, else the `EngineError` code, then detail, message length and message bytes).

use crate::deadline::Deadline;
use crate::error::{ensure, EngineError, Result};
use crate::estimate::{Covariance, Estimation, EstimationInput};
use crate::metrics::Metrics;
use crate::parametric::ParametricInput;
use crate::select::{from_order_key, order_key};
use crate::simulate::Partial;
use crate::spec::{BlockRange, Method, Mode, Spec};
use crate::tail::ScenarioTail;

/// Largest integer an f64 carries exactly (2^53 − 1): the top of the seed range.
pub const MAX_EXACT_INT: f64 = 9_007_199_254_740_991.0;
/// Largest count (a length, index or bound) the ABI carries. Fixed at u32::MAX on every target so
/// that a count is read the same way where `usize` is 32 bits (wasm32) as where it is 64.
pub const MAX_COUNT: u64 = u32::MAX as u64;

pub struct Reader<'a> {
    data: &'a [f64],
    at: usize,
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [f64]) -> Self {
        Reader { data, at: 0 }
    }

    pub fn take(&mut self, len: usize) -> Result<&'a [f64]> {
        ensure(
            len <= self.data.len() - self.at,
            "input shorter than its header says",
        )?;
        let out = &self.data[self.at..self.at + len];
        self.at += len;
        Ok(out)
    }

    pub fn scalar(&mut self) -> Result<f64> {
        Ok(self.take(1)?[0])
    }

    /// A whole number in 0..=2^53 − 1, as u64: never through `usize`, which would saturate at
    /// 2^32 − 1 on wasm32.
    pub fn integer(&mut self) -> Result<u64> {
        let x = self.scalar()?;
        ensure(
            (0.0..=MAX_EXACT_INT).contains(&x) && x.fract() == 0.0,
            "integers must be whole numbers in 0..=2^53 - 1",
        )?;
        Ok(x as u64)
    }

    /// A whole number in 0..=`MAX_COUNT`, the same range on every target.
    pub fn count(&mut self) -> Result<usize> {
        let x = self.integer()?;
        ensure(
            x <= MAX_COUNT,
            "counts must be whole numbers in 0..=2^32 - 1",
        )?;
        Ok(x as usize)
    }

    pub fn flag(&mut self) -> Result<bool> {
        Ok(self.count()? != 0)
    }

    pub fn end(&self) -> Result<()> {
        ensure(
            self.at == self.data.len(),
            "input longer than its header says",
        )
    }
}

/// `a · b` as a length, or an error where it would overflow (sooner on wasm32 than natively; the
/// input cannot hold that many values on either).
fn product(a: usize, b: usize) -> Result<usize> {
    a.checked_mul(b)
        .ok_or_else(|| EngineError::invalid("input shorter than its header says"))
}

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

pub fn decode_estimation_input(data: &[f64]) -> Result<EstimationInput<'_>> {
    let mut r = Reader::new(data);
    let n_dates = r.count()?;
    let n_assets = r.count()?;
    let lookback = r.count()?;
    let zero_drift = r.flag()?;
    let ewma = r.flag()?;
    let lambda = r.scalar()?;
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

pub fn encode_estimation(e: &Estimation) -> Vec<f64> {
    let mut out = vec![
        0.0,
        e.observations as f64,
        e.first_date as f64,
        e.last_date as f64,
        e.jitter,
    ];
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
        0 => Method::MonteCarloNormal,
        1 => Method::MonteCarloStudentT,
        2 => Method::Historical,
        _ => return Err(EngineError::invalid("unknown method code")),
    };
    let mode = if r.flag()? {
        Mode::Rebalanced
    } else {
        Mode::BuyAndHold
    };
    let n = r.count()?;
    ensure(n <= 100_000, "assets must number 1..=100000")?;
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
    let weights = r.take(n)?.to_vec();
    let mean = r.take(n)?.to_vec();
    let (cholesky, returns) = if method == Method::Historical {
        let obs = r.count()?;
        (Vec::new(), r.take(product(obs, n)?)?.to_vec())
    } else {
        (r.take(product(n, n)?)?.to_vec(), Vec::new())
    };
    r.end()?;
    let spec = Spec {
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
    };
    spec.validate()?;
    range.validate(&spec)?;
    Ok((spec, range, Deadline::after_ms(budget_ms)))
}

/// Partial layout: [0, scenarios, n, confidence, V, bins, first, count, k, pnl(count),
/// worst index(k), worst P&L(k), worst per-asset P&L(k·n), asset tails(n·k)].
pub fn encode_partial(spec: &Spec, p: &Partial) -> Vec<f64> {
    let n = spec.n_assets();
    let k = p.worst.indices.len();
    let mut out = Vec::with_capacity(9 + p.pnl.len() + k * (2 * n + 2));
    out.extend_from_slice(&[
        0.0,
        spec.scenarios as f64,
        n as f64,
        spec.confidence,
        spec.portfolio_value,
        spec.histogram_bins as f64,
        p.first as f64,
        p.pnl.len() as f64,
        k as f64,
    ]);
    out.extend_from_slice(&p.pnl);
    out.extend(p.worst.indices.iter().map(|&i| i as f64));
    out.extend(p.worst.keys.iter().map(|&key| from_order_key(key)));
    out.extend_from_slice(&p.worst.asset_pnl);
    for tail in &p.asset_tails {
        out.extend(tail.iter().map(|&key| from_order_key(key)));
    }
    out
}

/// Header values every partial of one calculation repeats.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PartialHeader {
    pub scenarios: usize,
    pub n_assets: usize,
    pub confidence: f64,
    pub portfolio_value: f64,
    pub histogram_bins: usize,
}

pub fn decode_partial(r: &mut Reader) -> Result<(PartialHeader, Partial)> {
    ensure(r.scalar()? == 0.0, "partial must be a success result")?;
    let header = PartialHeader {
        scenarios: r.count()?,
        n_assets: r.count()?,
        confidence: r.scalar()?,
        portfolio_value: r.scalar()?,
        histogram_bins: r.count()?,
    };
    let n = header.n_assets;
    // Bounded like every other decoder: with k = 0 nothing below would limit n (found by fuzzing).
    ensure((1..=100_000).contains(&n), "assets must number 1..=100000")?;
    let first = r.count()?;
    let count = r.count()?;
    let k = r.count()?;
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
    let mut out = vec![
        0.0,
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
    out.extend_from_slice(&m.percentiles);
    out.push(m.component_es.len() as f64);
    out.extend_from_slice(&m.component_es);
    out.extend_from_slice(&m.standalone_var);
    out.push(m.counts.len() as f64);
    out.extend_from_slice(&m.bin_edges);
    out.extend_from_slice(&m.counts);
    out
}

pub fn decode_parametric(data: &[f64]) -> Result<ParametricInput> {
    let mut r = Reader::new(data);
    let n = r.count()?;
    ensure((1..=100_000).contains(&n), "assets must number 1..=100000")?;
    let portfolio_value = r.scalar()?;
    let horizon = r.count()?;
    let confidence = r.scalar()?;
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
