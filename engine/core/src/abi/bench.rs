//! Benchmark-only operations (cargo feature `bench-ops`): outside the product ABI.

use super::reader::Reader;
use crate::error::Result;
use crate::limits::check_normals;
use crate::rng::Xoshiro256pp;
use crate::spec::BLOCK;
use crate::ziggurat::fill_standard_normals;

/// `OP_NORMALS` input: [seed, count]. Draws through the same block streams and routine the kernels
/// use and returns [0, their sum].
pub fn normals_encoded(input: &[f64]) -> Result<Vec<f64>> {
    let mut r = Reader::new(input);
    let seed = r.integer()?;
    let count = r.count()?;
    r.end()?;
    check_normals(count)?;
    let mut sum = 0.0;
    let mut z = [0.0; BLOCK];
    let blocks = (count + BLOCK - 1) / BLOCK;
    for block in 0..blocks {
        let mut rng = Xoshiro256pp::for_block(seed, block as u64);
        let n = BLOCK.min(count - block * BLOCK);
        fill_standard_normals(&mut rng, &mut z[..n]);
        for x in &z[..n] {
            sum += x;
        }
    }
    Ok(vec![0.0, sum])
}
