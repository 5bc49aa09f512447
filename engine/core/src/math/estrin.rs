//! Polynomials summed in Estrin's order: pairs (c_j + c_{j+1}·t), pairs of them in t², those in t⁴,
//! then t⁸. A tree four multiply-adds deep where Horner's order is a chain as long as the degree:
//! Φ's pricing loop waits on such chains more than on their arithmetic. Only +, −, × in a fixed
//! order, so every build gives the same bits.

/// Σ c_j t^j, j < 8, given t² and t⁴: the lower tree `estrin9` and `estrin13` share.
#[inline(always)]
fn first_eight(c: &[f64], t: f64, t2: f64, t4: f64) -> f64 {
    let low = (c[0] + c[1] * t) + (c[2] + c[3] * t) * t2;
    let high = (c[4] + c[5] * t) + (c[6] + c[7] * t) * t2;
    low + high * t4
}

/// Σ c_j t^j, j ≤ 8. `estrin5` and `estrin6` are this tree with the top coefficients zero, whose
/// terms then add exact zeros (0·t = 0 for a finite t ≥ 0), so each gives this function's bits
/// with those zeros.
#[inline(always)]
pub fn estrin9(c: [f64; 9], t: f64) -> f64 {
    let t2 = t * t;
    let t4 = t2 * t2;
    first_eight(&c, t, t2, t4) + c[8] * (t4 * t4)
}

/// `estrin9` of c₀…c₅ (c₆, c₇, c₈ zero).
#[inline(always)]
pub fn estrin6(c: [f64; 6], t: f64) -> f64 {
    let t2 = t * t;
    ((c[0] + c[1] * t) + (c[2] + c[3] * t) * t2) + (c[4] + c[5] * t) * (t2 * t2)
}

/// `estrin9` of c₀…c₄ (c₅… zero).
#[inline(always)]
pub fn estrin5(c: [f64; 5], t: f64) -> f64 {
    let t2 = t * t;
    ((c[0] + c[1] * t) + (c[2] + c[3] * t) * t2) + c[4] * (t2 * t2)
}

/// Σ c_j t^j, j ≤ 12: the first eight terms as in `estrin9`, the other five (`estrin5`) in t⁸.
#[inline(always)]
pub fn estrin13(c: [f64; 13], t: f64) -> f64 {
    let t2 = t * t;
    let t4 = t2 * t2;
    let top = [c[8], c[9], c[10], c[11], c[12]];
    first_eight(&c, t, t2, t4) + estrin5(top, t) * (t4 * t4)
}
