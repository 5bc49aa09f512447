//! Random numbers that depend only on (seed, block index): Philox4x32-10, a counter-based generator,
//! seeds one xoshiro256++ stream per block of simulations. Any split of the blocks over workers
//! therefore draws the same numbers.

const PHILOX_M0: u32 = 0xD251_1F53;
const PHILOX_M1: u32 = 0xCD9E_8D57;
const PHILOX_W0: u32 = 0x9E37_79B9;
const PHILOX_W1: u32 = 0xBB67_AE85;

/// Philox4x32 with 10 rounds (Salmon et al., 2011).
pub fn philox4x32_10(counter: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let mut c = counter;
    let mut k = key;
    for round in 0..10 {
        if round > 0 {
            k[0] = k[0].wrapping_add(PHILOX_W0);
            k[1] = k[1].wrapping_add(PHILOX_W1);
        }
        let p0 = u64::from(PHILOX_M0) * u64::from(c[0]);
        let p1 = u64::from(PHILOX_M1) * u64::from(c[2]);
        let (hi0, lo0) = ((p0 >> 32) as u32, p0 as u32);
        let (hi1, lo1) = ((p1 >> 32) as u32, p1 as u32);
        c = [hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0];
    }
    c
}

/// xoshiro256++ (Blackman & Vigna): fast, 256-bit state, passes BigCrush.
#[derive(Clone, Debug)]
pub struct Xoshiro256pp {
    s: [u64; 4],
}

impl Xoshiro256pp {
    /// The stream of simulation block `block` under `seed`.
    pub fn for_block(seed: u64, block: u64) -> Self {
        let key = [seed as u32, (seed >> 32) as u32];
        let (lo, hi) = (block as u32, (block >> 32) as u32);
        let a = philox4x32_10([lo, hi, 0, 0], key);
        let b = philox4x32_10([lo, hi, 1, 0], key);
        let join = |x: u32, y: u32| u64::from(x) | (u64::from(y) << 32);
        let mut s = [
            join(a[0], a[1]),
            join(a[2], a[3]),
            join(b[0], b[1]),
            join(b[2], b[3]),
        ];
        if s == [0; 4] {
            s[0] = 1; // the all-zero state is the generator's only fixed point
        }
        Xoshiro256pp { s }
    }

    #[inline(always)]
    pub fn next_u64(&mut self) -> u64 {
        step(&mut self.s)
    }

    /// Runs `draw` on the generator's state copied into a local, stepped by `step`, and keeps
    /// where it left it. A local stays in registers; a state behind a reference whose address a
    /// call takes is stored and loaded again on every step.
    #[inline(always)]
    pub(crate) fn with_state<T>(&mut self, draw: impl FnOnce(&mut [u64; 4]) -> T) -> T {
        let mut s = self.s;
        let out = draw(&mut s);
        self.s = s;
        out
    }

    /// Runs `draw` with a generator on the local state `s` (for calls that take a generator) and
    /// leaves `s` where that generator ended.
    #[inline(always)]
    pub(crate) fn lent<T>(s: &mut [u64; 4], draw: impl FnOnce(&mut Xoshiro256pp) -> T) -> T {
        let mut rng = Xoshiro256pp { s: *s };
        let out = draw(&mut rng);
        *s = rng.s;
        out
    }

    /// Uniform on (0, 1]: never 0, so its logarithm is finite.
    #[inline(always)]
    pub fn uniform_open0(&mut self) -> f64 {
        uniform_open0_of(self.next_u64())
    }
}

/// The uniform on (0, 1] that 64 random bits give: never 0, so its logarithm is finite.
#[inline(always)]
pub(crate) fn uniform_open0_of(bits: u64) -> f64 {
    ((bits >> 11) + 1) as f64 * (1.0 / 9_007_199_254_740_992.0)
}

/// One step of xoshiro256++ on the state `s`: its output.
#[inline(always)]
pub(crate) fn step(s: &mut [u64; 4]) -> u64 {
    let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
    let t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = s[3].rotate_left(45);
    result
}

/// Marsaglia's xorshift64 from `state`: the unit tests' cheap stream of drawn cases (never the
/// engine's scenarios).
#[cfg(test)]
pub struct XorShift(pub u64);

#[cfg(test)]
impl XorShift {
    pub fn next_bits(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Uniform on [0, 1), 53 bits.
    pub fn uniform(&mut self) -> f64 {
        (self.next_bits() >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn philox_known_answers() {
        // Known-answer vectors of the Random123 distribution (kat_vectors, philox4x32 10 rounds).
        assert_eq!(
            philox4x32_10([0, 0, 0, 0], [0, 0]),
            [0x6627_e8d5, 0xe169_c58d, 0xbc57_ac4c, 0x9b00_dbd8]
        );
        assert_eq!(
            philox4x32_10([u32::MAX; 4], [u32::MAX; 2]),
            [0x408f_276d, 0x41c8_3b0e, 0xa20b_c7c6, 0x6d54_51fd]
        );
        assert_eq!(
            philox4x32_10(
                [0x243f_6a88, 0x85a3_08d3, 0x1319_8a2e, 0x0370_7344],
                [0xa409_3822, 0x299f_31d0]
            ),
            [0xd16c_fe09, 0x94fd_cceb, 0x5001_e420, 0x2412_6ea1]
        );
    }

    #[test]
    fn xoshiro_reference_sequence() {
        // Reference output of the authors' C code from state {1, 2, 3, 4}.
        let mut g = Xoshiro256pp { s: [1, 2, 3, 4] };
        let want = [
            41_943_041u64,
            58_720_359,
            3_588_806_011_781_223,
            3_591_011_842_654_386,
        ];
        for w in want {
            assert_eq!(g.next_u64(), w);
        }
    }

    #[test]
    fn blocks_and_seeds_give_distinct_streams() {
        let a = Xoshiro256pp::for_block(7, 0).next_u64();
        let b = Xoshiro256pp::for_block(7, 1).next_u64();
        let c = Xoshiro256pp::for_block(8, 0).next_u64();
        assert!(a != b && a != c && b != c);
        assert_eq!(Xoshiro256pp::for_block(7, 1).next_u64(), b);
    }

    #[test]
    fn uniform_is_in_open_unit_interval() {
        let mut g = Xoshiro256pp::for_block(1, 2);
        for _ in 0..10_000 {
            let u = g.uniform_open0();
            assert!(u > 0.0 && u <= 1.0);
        }
    }
}
