//! Every tile shape and pass of `correlate_tiles` against the plain row kernel, bit for bit, on
//! drawn shapes: 1 asset, odd counts, counts no tile divides, triangles across pass edges, loadings.

use super::*;

/// The tiled kernel with tile A×S against `correlate`, row by row.
fn check<const A: usize, const S: usize>(n: usize, columns: usize, factor: &[f64], z: &[f64]) {
    let base = |i: usize| 0.125 * i as f64 - 0.5;
    let mut tiled = vec![f64::NAN; n * BLOCK];
    correlate_tiles::<A, S>(n, columns, factor, base, z, &mut tiled);
    for i in 0..n {
        let mut plain = vec![0.0; BLOCK];
        correlate(&mut plain, base(i), factor_row(factor, n, columns, i), z);
        let row = &tiled[i * BLOCK..(i + 1) * BLOCK];
        let same = plain
            .iter()
            .zip(row)
            .all(|(a, b)| a.to_bits() == b.to_bits());
        assert!(same, "tile {A}x{S}, n {n}, columns {columns}, asset {i}");
    }
}

#[test]
fn every_tile_shape_gives_the_row_kernels_bits_on_drawn_shapes() {
    let mut state = 5u64;
    let mut next = || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        state >> 11
    };
    for case in 0..24u64 {
        let n = match case {
            0..=2 => 1 + case as usize,
            3 => ROWS_PER_PASS + 1,
            _ => 1 + (next() % 300) as usize,
        };
        let columns = match case % 3 {
            0 => FACTOR_TRIANGULAR,
            1 => 1 + (next() % n as u64) as usize,
            _ => 1 + (next() % 260) as usize, // loadings wider than a pass, some wider than n
        };
        let width = if columns == FACTOR_TRIANGULAR {
            n
        } else {
            columns
        };
        let mut value = || (next() as f64 / (1u64 << 53) as f64 - 0.5) * 0.1;
        let mut factor: Vec<f64> = (0..n * width).map(|_| value()).collect();
        let mut z: Vec<f64> = (0..width * BLOCK).map(|_| value() * 40.0).collect();
        factor[0] = -0.0;
        let last = z.len() - 1;
        z[last] = 1e200;
        z[0] = -0.0;
        check::<1, 8>(n, columns, &factor, &z);
        check::<4, 8>(n, columns, &factor, &z);
        check::<8, 8>(n, columns, &factor, &z);
        check::<4, 16>(n, columns, &factor, &z);
        check::<3, 2>(n, columns, &factor, &z);
    }
}
