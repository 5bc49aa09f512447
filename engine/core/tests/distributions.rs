//! The samplers against their distributions: Kolmogorov–Smirnov at fixed seeds.
use risk_engine_core::math::normal_cdf;
use risk_engine_core::rng::Xoshiro256pp;
use risk_engine_core::ziggurat::{standard_normal, ChiSquare};

/// KS statistic of a sample against a continuous CDF.
fn ks_statistic(mut xs: Vec<f64>, cdf: impl Fn(f64) -> f64) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len() as f64;
    xs.iter()
        .enumerate()
        .map(|(i, &x)| {
            let f = cdf(x);
            (f - i as f64 / n).abs().max(((i + 1) as f64 / n - f).abs())
        })
        .fold(0.0, f64::max)
}

/// Critical value of the KS test at the 0.1 % level.
fn ks_critical(n: usize) -> f64 {
    1.95 / (n as f64).sqrt()
}

fn ln_gamma(x: f64) -> f64 {
    // Lanczos, g = 7.
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    let x = x - 1.0;
    let mut a = C[0];
    let t = x + 7.5;
    for (i, c) in C[1..].iter().enumerate() {
        a += c / (x + (i + 1) as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// Regularised lower incomplete gamma P(a, x).
fn gamma_p(a: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    let front = (a * x.ln() - x - ln_gamma(a)).exp();
    if x < a + 1.0 {
        let (mut term, mut sum, mut ap) = (1.0 / a, 1.0 / a, a);
        while term > sum * 1e-16 {
            ap += 1.0;
            term *= x / ap;
            sum += term;
        }
        sum * front
    } else {
        // Continued fraction for Q(a, x), modified Lentz.
        let tiny = 1e-300;
        let mut b = x + 1.0 - a;
        let mut c = 1.0 / tiny;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..1000 {
            let an = -(i as f64) * (i as f64 - a);
            b += 2.0;
            d = an * d + b;
            d = if d.abs() < tiny { tiny } else { d };
            c = b + an / c;
            c = if c.abs() < tiny { tiny } else { c };
            d = 1.0 / d;
            let delta = d * c;
            h *= delta;
            if (delta - 1.0).abs() < 1e-16 {
                break;
            }
        }
        1.0 - front * h
    }
}

#[test]
fn ziggurat_normals_pass_kolmogorov_smirnov() {
    let n = 1_000_000;
    let mut rng = Xoshiro256pp::for_block(42, 0);
    let xs: Vec<f64> = (0..n).map(|_| standard_normal(&mut rng)).collect();
    let d = ks_statistic(xs.clone(), normal_cdf);
    assert!(d < ks_critical(n), "KS D = {d}");
    let mean = xs.iter().sum::<f64>() / n as f64;
    let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n as f64 - 1.0);
    assert!(mean.abs() < 4.0 / (n as f64).sqrt(), "mean {mean}");
    assert!(
        (var - 1.0).abs() < 4.0 * (2.0 / n as f64).sqrt(),
        "variance {var}"
    );
}

#[test]
fn ziggurat_tail_beyond_r_has_the_normal_mass() {
    // The base layer's tail sampler: P(|Z| > 3.6541528853610088) = 2.58e-4.
    let n = 4_000_000;
    let mut rng = Xoshiro256pp::for_block(7, 3);
    let r = 3.654_152_885_361_009;
    let hits = (0..n)
        .filter(|_| standard_normal(&mut rng).abs() > r)
        .count() as f64;
    let p = 2.0 * (1.0 - normal_cdf(r));
    let se = (p * (1.0 - p) / n as f64).sqrt();
    assert!(
        (hits / n as f64 - p).abs() < 4.0 * se,
        "tail frequency {}",
        hits / n as f64
    );
}

#[test]
fn chi_square_passes_kolmogorov_smirnov() {
    for dof in [3.0, 5.0, 30.0, 1000.0] {
        let n = 200_000;
        let chi = ChiSquare::new(dof);
        let mut rng = Xoshiro256pp::for_block(dof as u64, 1);
        let xs: Vec<f64> = (0..n).map(|_| chi.sample(&mut rng)).collect();
        let d = ks_statistic(xs, |x| gamma_p(dof / 2.0, x / 2.0));
        assert!(d < ks_critical(n), "dof {dof}: KS D = {d}");
    }
}

#[test]
fn incomplete_gamma_reference_values() {
    // χ²_5 CDF at 11.0705 is 0.95; χ²_3 at 0.3518 is 0.05.
    assert!((gamma_p(2.5, 11.070_497_693_516_35 / 2.0) - 0.95).abs() < 1e-12);
    assert!((gamma_p(1.5, 0.351_846_317_749_272_3 / 2.0) - 0.05).abs() < 1e-12);
}
