//! Standard normal and chi-square variates. The normal is Doornik's ZIGNOR ziggurat with 256 layers
//! (tables in `ziggurat_tables.rs`); chi-square is 2 · Gamma(ν/2) by Marsaglia–Tsang. Both use the
//! engine's own `exp`/`ln`, so every build draws the same bits.

use crate::math::{exp, ln};
use crate::rng::{step, uniform_open0_of, Xoshiro256pp};
use crate::ziggurat_tables::{ZIG_R, ZIG_RATIO, ZIG_X};

const TWO_POW_M52: f64 = 1.0 / 4_503_599_627_370_496.0;

/// One standard normal variate.
#[inline(always)]
pub fn standard_normal(rng: &mut Xoshiro256pp) -> f64 {
    rng.with_state(normal_of)
}

/// Fills `z` with standard normals: `standard_normal` drawn `z.len()` times, bit for bit, with
/// the generator's state a local of the loop.
pub fn fill_standard_normals(rng: &mut Xoshiro256pp, z: &mut [f64]) {
    rng.with_state(|s| {
        let mut i = 0;
        while i < z.len() {
            // The fast run holds no call: V8 keeps in stack slots whatever a loop holds across
            // one, which put the state in memory when the slow path's call sat in the loop (ns
            // per normal +30 % on WASM). A missed draw is resolved after its run.
            let mut missed = None;
            while i < z.len() {
                match fast_path(step(s)) {
                    Ok(x) => {
                        z[i] = x;
                        i += 1;
                    }
                    Err(miss) => {
                        missed = Some(miss);
                        break;
                    }
                }
            }
            if let Some((u, layer)) = missed {
                z[i] = match resolve_miss(s, u, layer) {
                    Some(x) => x,
                    None => normal_of(s),
                };
                i += 1;
            }
        }
    })
}

/// The ziggurat, stepping a generator's state held as a local array (`Xoshiro256pp::with_state`),
/// which the callers' loops keep in registers. Stepped through a generator's reference, whose
/// address the slow path's call takes, the state was stored and loaded again on every draw: a
/// round trip through memory on the chain of the generator's dependent steps.
#[inline(always)]
fn normal_of(s: &mut [u64; 4]) -> f64 {
    loop {
        match fast_path(step(s)) {
            Ok(x) => return x,
            Err((u, layer)) => {
                if let Some(x) = resolve_miss(s, u, layer) {
                    return x;
                }
            }
        }
    }
}

/// The ziggurat's rectangle test on 64 random bits: the variate, or the `(u, layer)` a miss
/// (about one draw in 80) hands to `resolve_miss`.
#[inline(always)]
fn fast_path(bits: u64) -> Result<f64, (f64, usize)> {
    // The top 53 bits give u in [−1, 1); the low 8 bits pick the layer independently. Below
    // 2^53 the signed conversion is exact and one instruction, where the unsigned one branches.
    let u = ((bits >> 11) as i64) as f64 * TWO_POW_M52 - 1.0;
    let layer = (bits & 0xff) as usize;
    if u.abs() < ZIG_RATIO[layer] {
        Ok(u * ZIG_X[layer])
    } else {
        Err((u, layer))
    }
}

/// A missed draw through the slow path, on a generator of its own (the only place the state
/// is put where an address can be taken): the variate, or `None` to draw again.
#[inline(always)]
fn resolve_miss(s: &mut [u64; 4], u: f64, layer: usize) -> Option<f64> {
    Xoshiro256pp::lent(s, |slow| slow_path(slow, u, layer))
}

#[cold]
#[inline(never)]
fn slow_path(rng: &mut Xoshiro256pp, u: f64, layer: usize) -> Option<f64> {
    if layer == 0 {
        return Some(normal_tail(rng, u < 0.0));
    }
    let x = u * ZIG_X[layer];
    let x2 = x * x;
    let f0 = exp(-0.5 * (ZIG_X[layer] * ZIG_X[layer] - x2));
    let f1 = exp(-0.5 * (ZIG_X[layer + 1] * ZIG_X[layer + 1] - x2));
    if f1 + rng.uniform_open0() * (f0 - f1) < 1.0 {
        Some(x)
    } else {
        None
    }
}

/// Marsaglia's exact sampler for the tail beyond R.
fn normal_tail(rng: &mut Xoshiro256pp, negative: bool) -> f64 {
    loop {
        let x = ln(rng.uniform_open0()) / ZIG_R;
        let y = ln(rng.uniform_open0());
        if -2.0 * y >= x * x {
            return if negative { x - ZIG_R } else { ZIG_R - x };
        }
    }
}

/// Precomputed constants of a chi-square sampler with ν ≥ 2 degrees of freedom.
#[derive(Clone, Copy, Debug)]
pub struct ChiSquare {
    d: f64,
    c: f64,
}

impl ChiSquare {
    /// `dof` ≥ 2, so the gamma shape ν/2 ≥ 1 and Marsaglia–Tsang needs no boosting step.
    pub fn new(dof: f64) -> Self {
        let d = dof / 2.0 - 1.0 / 3.0;
        ChiSquare {
            d,
            c: 1.0 / (9.0 * d).sqrt(),
        }
    }

    /// One variate, the generator's state a local while it is drawn (as `normal_of` wants).
    #[inline]
    pub fn sample(&self, rng: &mut Xoshiro256pp) -> f64 {
        rng.with_state(|s| loop {
            let x = normal_of(s);
            let v = 1.0 + self.c * x;
            if v <= 0.0 {
                continue;
            }
            let v = v * v * v;
            let u = uniform_open0_of(step(s));
            let x2 = x * x;
            if u < 1.0 - 0.0331 * x2 * x2 || ln(u) < 0.5 * x2 + self.d * (1.0 - v + ln(v)) {
                break 2.0 * self.d * v;
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::{MAX_DEGREES_OF_FREEDOM, MIN_DEGREES_OF_FREEDOM};

    /// The filled normals are `standard_normal`'s, draw by draw, and the generator is left where
    /// `standard_normal`'s would be: over lengths at and around nothing, one and a block's draws,
    /// and enough draws that the slow path and the tail beyond R run many times.
    #[test]
    fn filled_normals_are_standard_normals_bit_for_bit() {
        let mut beyond_r = 0;
        for (block, n) in [0usize, 1, 2, 255, 256, 5_120, 1 << 20]
            .into_iter()
            .enumerate()
        {
            let mut plain = Xoshiro256pp::for_block(0x5EED, block as u64);
            let mut filled = plain.clone();
            let mut z = vec![f64::NAN; n];
            fill_standard_normals(&mut filled, &mut z);
            for (i, x) in z.iter().enumerate() {
                let want = standard_normal(&mut plain);
                assert_eq!(x.to_bits(), want.to_bits(), "length {n}, draw {i}");
            }
            assert_eq!(filled.next_u64(), plain.next_u64(), "length {n}");
            beyond_r += z.iter().filter(|x| x.abs() > ZIG_R).count();
        }
        // About 2.6e-4 of draws lie beyond R: the tail's sampler ran.
        assert!(beyond_r > 100, "{beyond_r}");
    }

    /// Marsaglia–Tsang as written against the generator itself: the sampler's reference.
    fn plain_chi_square(chi: &ChiSquare, rng: &mut Xoshiro256pp) -> f64 {
        loop {
            let x = standard_normal(rng);
            let v = 1.0 + chi.c * x;
            if v <= 0.0 {
                continue;
            }
            let v = v * v * v;
            let u = rng.uniform_open0();
            let x2 = x * x;
            if u < 1.0 - 0.0331 * x2 * x2 || ln(u) < 0.5 * x2 + chi.d * (1.0 - v + ln(v)) {
                return 2.0 * chi.d * v;
            }
        }
    }

    /// The chi-square sampler draws the reference's variates, bit for bit, and leaves the
    /// generator where the reference does, at the bounds of ν the specs allow and between.
    #[test]
    fn chi_square_is_the_plain_samplers_bit_for_bit() {
        let dofs = [
            MIN_DEGREES_OF_FREEDOM,
            MIN_DEGREES_OF_FREEDOM + 1.0,
            5.0,
            30.0,
            MAX_DEGREES_OF_FREEDOM,
        ];
        for (block, dof) in dofs.into_iter().enumerate() {
            let chi = ChiSquare::new(dof);
            let mut plain = Xoshiro256pp::for_block(77, block as u64);
            let mut local = plain.clone();
            for draw in 0..20_000 {
                let want = plain_chi_square(&chi, &mut plain);
                assert_eq!(
                    chi.sample(&mut local).to_bits(),
                    want.to_bits(),
                    "ν {dof}, draw {draw}"
                );
            }
            assert_eq!(local.next_u64(), plain.next_u64(), "ν {dof}");
        }
    }
}
