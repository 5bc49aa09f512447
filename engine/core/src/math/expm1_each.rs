//! e^x − 1 over a slice (the units of every simulated return), each value the bits of `expm1`.

use super::elementary::expm1;
#[cfg(any(target_arch = "wasm32", test))]
use super::elementary::expm1_lanes;

/// Values taken at once on WASM. A loop of `expm1` vectorises to one f64x2 whose 13-step series is
/// a single dependent chain, and V8 leaves the chains of successive vectors to the processor to
/// overlap; two vectors' chains side by side in the code cut W2's OP_RUN on WASM simd128 by about
/// 6 % (measured, five alternating runs: −3.8 to −9.1 %). Native builds vectorise the plain loop
/// 4 or 8 wide, where taking lanes at once measured slower.
#[cfg(target_arch = "wasm32")]
const LANES: usize = 4;

/// `xs[i] = expm1(xs[i])` for every value, bit for bit.
#[inline(always)]
pub fn expm1_each(xs: &mut [f64]) {
    #[cfg(target_arch = "wasm32")]
    {
        let mut chunks = xs.chunks_exact_mut(LANES);
        for chunk in &mut chunks {
            let mut x = [0.0; LANES];
            x.copy_from_slice(chunk);
            chunk.copy_from_slice(&expm1_lanes(x));
        }
        chunks
            .into_remainder()
            .iter_mut()
            .for_each(|x| *x = expm1(*x));
    }
    #[cfg(not(target_arch = "wasm32"))]
    xs.iter_mut().for_each(|x| *x = expm1(*x));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::XorShift;

    /// Arguments from the edges of `expm1`'s domain and between: zeros, subnormals, values near
    /// the clamps (−708, 709) and beyond, and drawn ones over several scales.
    fn arguments() -> Vec<f64> {
        let mut xs = vec![
            0.0,
            -0.0,
            5e-324,
            -5e-324,
            1e-300,
            -1e-17,
            0.5 * std::f64::consts::LN_2,
            -0.5 * std::f64::consts::LN_2,
            -708.0,
            -708.0000001,
            -745.2,
            709.0,
            709.0000001,
            1e300,
            -1e300,
        ];
        let mut draw = XorShift(0xe7a1_0001);
        for scale in [1e-8, 1e-3, 0.1, 1.0, 30.0, 700.0] {
            xs.extend((0..500).map(|_| (draw.uniform() - 0.5) * 2.0 * scale));
        }
        xs
    }

    #[test]
    fn lanes_give_expm1_bits() {
        let xs = arguments();
        for chunk in xs.chunks_exact(4) {
            let got = expm1_lanes([chunk[0], chunk[1], chunk[2], chunk[3]]);
            for (x, y) in chunk.iter().zip(got) {
                assert_eq!(y.to_bits(), expm1(*x).to_bits(), "x = {x:e}");
            }
        }
        for chunk in xs.chunks_exact(16) {
            let mut x = [0.0; 16];
            x.copy_from_slice(chunk);
            for (x, y) in chunk.iter().zip(expm1_lanes(x)) {
                assert_eq!(y.to_bits(), expm1(*x).to_bits(), "x = {x:e}");
            }
        }
    }

    /// Every length around a whole number of lanes, so the remainder is taken too.
    #[test]
    fn each_gives_expm1_bits_at_every_length() {
        let xs = arguments();
        for len in (0..=9).chain([255, 256, 3_000]) {
            let mut got = xs[..len].to_vec();
            expm1_each(&mut got);
            for (x, y) in xs.iter().zip(&got) {
                assert_eq!(y.to_bits(), expm1(*x).to_bits(), "length {len}, x = {x:e}");
            }
        }
    }
}
