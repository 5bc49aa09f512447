//! The pricer's erfc (and so Φ) against independent values: erfc(x) computed with mpmath at 40
//! digits, each written as the double nearest to it (`tools/erfc_oracle.py` prints the table).
//! Over 200,000 drawn arguments in (−6, XBIG) and down to 2⁻³⁸ in size, the largest error measured
//! against mpmath was 5.2 units in the last place (6.0 before Φ's polynomials were summed in
//! Estrin's order); the nearest double adds at most half a unit, so 6 ulps is the bound.
use risk_engine_core::options::phi::{cdf, erfc};

const HIGH_PRECISION: [(f64, f64); 25] = [
    (-3.0, 1.9999779095030015),
    (-1.5, 1.9661051464753108),
    (-0.4, 1.4283923550466684),
    (-0.001, 1.0011283787909693),
    (1e-10, 0.999999999887162),
    (0.1, 0.887537083981715),
    (0.3, 0.6713732405408726),
    (0.46875, 0.507386526782062),
    (0.5, 0.4795001221869535),
    (0.75, 0.28884436634648486),
    (1.0, 0.15729920705028513),
    (1.5, 0.033894853524689274),
    (2.0, 0.004677734981047266),
    (2.5, 0.0004069520174449589),
    (3.0, 2.209049699858544e-05),
    (3.5, 7.430983723414128e-07),
    (4.0, 1.541725790028002e-08),
    (4.5, 1.9661604415428876e-10),
    (5.0, 1.537459794428035e-12),
    (6.0, 2.1519736712498913e-17),
    (8.0, 1.1224297172982926e-29),
    (10.0, 2.088487583762545e-45),
    (15.0, 7.212994172451207e-100),
    (20.0, 5.395865611607901e-176),
    (26.0, 5.663192408856143e-296),
];

/// The spacing of doubles at |x| (x normal).
fn ulp(x: f64) -> f64 {
    let x = x.abs();
    f64::from_bits(x.to_bits() + 1) - x
}

#[test]
fn erfc_is_within_six_ulps_of_high_precision_values() {
    for (x, want) in HIGH_PRECISION {
        let got = erfc(x);
        let error = (got - want).abs() / ulp(want);
        assert!(
            error <= 6.0,
            "erfc({x}) = {got:e}, want {want:e}: {error:.1} ulps"
        );
    }
}

#[test]
fn phi_is_half_erfc_at_minus_x_over_root_two() {
    // Φ(x) = erfc(−x/√2)/2, exact at 0 and at the tails' limits.
    assert_eq!(cdf(0.0), 0.5);
    assert_eq!(cdf(f64::NEG_INFINITY), 0.0);
    assert_eq!(cdf(f64::INFINITY), 1.0);
    // Φ(−2·√2) = erfc(2)/2, but for the rounding of −x/√2: an ulp of 2 (4.4e-16) moves erfc by
    // 2e-15 of itself (its log-derivative at 2 is −4.4).
    let x = -2.0 * std::f64::consts::SQRT_2;
    let want = HIGH_PRECISION[12].1 / 2.0;
    assert!(
        (cdf(x) - want).abs() <= 5e-15 * want,
        "Φ({x}) = {:e}",
        cdf(x)
    );
}
