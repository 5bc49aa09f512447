//! The standard normal distribution: density, tails, distribution function and quantile, from
//! the engine's own e^x, so every build returns the same bits.

#![allow(clippy::excessive_precision)] // published constants are kept verbatim

use super::elementary::{exp, ln};

/// Standard normal density.
pub fn normal_pdf(x: f64) -> f64 {
    const INV_SQRT_2PI: f64 = 0.398_942_280_401_432_7;
    INV_SQRT_2PI * exp(-0.5 * x * x)
}

/// Upper tail Q(x) = 1 − Φ(x), accurate in both tails.
pub fn normal_sf(x: f64) -> f64 {
    if x < 0.0 {
        return 1.0 - normal_sf(-x);
    }
    if x < 3.0 {
        // Φ(x) − 1/2 = φ(x) · Σ x^(2n+1) / (2n+1)!!: every term positive, no cancellation.
        let x2 = x * x;
        let mut term = x;
        let mut sum = x;
        let mut n = 1.0;
        while term > sum * 1e-17 {
            n += 2.0;
            term *= x2 / n;
            sum += term;
        }
        0.5 - normal_pdf(x) * sum
    } else {
        // Continued fraction Q(x) = φ(x) / (x + 1/(x + 2/(x + 3/(x + …)))), modified Lentz.
        let tiny = 1e-300;
        let mut f = x;
        let mut c = x;
        let mut d = 0.0;
        let mut i = 1.0;
        loop {
            d = x + i * d;
            d = if d.abs() < tiny { tiny } else { d };
            c = x + i / c;
            c = if c.abs() < tiny { tiny } else { c };
            d = 1.0 / d;
            let delta = c * d;
            f *= delta;
            if (delta - 1.0).abs() < 1e-16 || i > 500.0 {
                break;
            }
            i += 1.0;
        }
        normal_pdf(x) / f
    }
}

/// Standard normal distribution function Φ(x).
pub fn normal_cdf(x: f64) -> f64 {
    normal_sf(-x)
}

/// Φ⁻¹(p) for 0 < p < 1: Acklam's rational start, then Halley steps on the accurate tail.
pub fn normal_quantile(p: f64) -> f64 {
    if p < 0.5 {
        return -normal_quantile(1.0 - p);
    }
    if p == 0.5 {
        return 0.0;
    }
    let q = 1.0 - p; // upper-tail probability, what the refinement matches
    let mut x = acklam_upper(q);
    for _ in 0..3 {
        let e = normal_sf(x) - q;
        let u = e * 2.506_628_274_631_000_5 * exp(0.5 * x * x);
        x += u / (1.0 + 0.5 * x * u);
    }
    x
}

/// Acklam's approximation of Q⁻¹(q) for 0 < q < 1/2 (relative error ≈ 1.15e-9).
fn acklam_upper(q: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_690e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [
        7.784_695_709_041_462e-3,
        3.224_671_290_700_398e-1,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    if q < 0.02425 {
        let t = (-2.0 * ln(q)).sqrt();
        -(((((C[0] * t + C[1]) * t + C[2]) * t + C[3]) * t + C[4]) * t + C[5])
            / ((((D[0] * t + D[1]) * t + D[2]) * t + D[3]) * t + 1.0)
    } else {
        let p = 1.0 - q;
        let y = p - 0.5;
        let r = y * y;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * y
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel(a: f64, b: f64) -> f64 {
        ((a - b) / b).abs()
    }

    #[test]
    fn normal_quantiles_match_reference_values() {
        // Reference values from 50-digit arithmetic (mpmath).
        let cases = [
            (0.95, 1.644_853_626_951_472_2),
            (0.975, 1.959_963_984_540_054),
            (0.99, 2.326_347_874_040_840_8),
            (0.999, 3.090_232_306_167_813_5),
            (0.999_999, 4.753_424_308_817_088),
            (0.5, 0.0),
            (0.6, 0.253_347_103_135_799_7),
        ];
        for &(p, z) in &cases {
            let got = normal_quantile(p);
            assert!(
                (got - z).abs() <= 4e-15 * z.abs().max(1.0),
                "q({p}) = {got}, want {z}"
            );
        }
        assert!((normal_quantile(0.01) + 2.326_347_874_040_840_8).abs() < 1e-14);
    }

    #[test]
    fn normal_cdf_reference_values() {
        assert!((normal_cdf(1.0) - 0.841_344_746_068_542_9).abs() <= 1.2e-16);
        assert!(rel(normal_sf(5.0), 2.866_515_718_791_939e-7) < 1e-14);
        assert!(rel(normal_sf(10.0), 7.619_853_024_160_527e-24) < 1e-13);
        assert!((normal_cdf(-1.5) - 0.066_807_201_268_858_06).abs() <= 3e-17);
    }
}
