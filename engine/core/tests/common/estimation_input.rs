//! Estimation inputs of the integration tests: prices from a SplitMix stream and their encoding.

/// Prices [date][asset] from a SplitMix stream, with a few missing (NaN) when asked.
pub fn prices(n: usize, dates: usize, missing: bool) -> Vec<f64> {
    let mut state = (n * 7919 + dates) as u64;
    let mut p = vec![100.0; n];
    let mut out = Vec::with_capacity(n * dates);
    for d in 0..dates {
        out.extend_from_slice(&p);
        if missing && d % 17 == 3 {
            out[d * n + d % n] = f64::NAN;
        }
        for x in p.iter_mut() {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let z = (state ^ (state >> 31)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            *x *= 1.0 + 0.04 * ((z >> 11) as f64 / (1u64 << 53) as f64 - 0.5);
        }
    }
    out
}

/// [dates, assets, lookback, zero drift, ewma, λ, covariance given, prices…].
pub fn input(n: usize, dates: usize, lookback: usize, ewma: bool, p: &[f64]) -> Vec<f64> {
    let mut v = vec![
        dates as f64,
        n as f64,
        lookback as f64,
        0.0,
        f64::from(u8::from(ewma)),
        0.94,
        0.0,
    ];
    v.extend_from_slice(p);
    v
}
