//! The tiled covariance against the plain loop, bit for bit.

use super::*;
use std::ops::Range;

/// The plain loop: one rank-one update per return, over t in order.
fn covariance_reference(returns: &[f64], sample_mean: &[f64], weights: &[f64]) -> Vec<f64> {
    let n = sample_mean.len();
    let mut covariance = vec![0.0; n * n];
    let mut centred = vec![0.0; n];
    for (row, w) in returns.chunks_exact(n).zip(weights) {
        for i in 0..n {
            centred[i] = row[i] - sample_mean[i];
        }
        for i in 0..n {
            let wi = w * centred[i];
            let out = &mut covariance[i * n..i * n + i + 1];
            for (c, x) in out.iter_mut().zip(&centred[..=i]) {
                *c += wi * x;
            }
        }
    }
    for i in 0..n {
        for j in 0..i {
            covariance[j * n + i] = covariance[i * n + j];
        }
    }
    covariance
}

fn stream(seed: u64, len: usize) -> Vec<f64> {
    let mut state = seed;
    (0..len)
        .map(|_| {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let z = (state ^ (state >> 31)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            ((z >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 0.05
        })
        .collect()
}

#[test]
fn tiles_give_the_plain_loops_bits() {
    // Sizes across every tile, pass and block edge; sample and decaying weights; a return of
    // exactly the mean (zero centred), signed zeros and extreme magnitudes.
    for (n, m) in [
        (1, 30),
        (2, 31),
        (3, 127),
        (4, 128),
        (5, 129),
        (7, 257),
        (33, 40),
        (255, 60),
        (256, 130),
        (257, 131),
        (300, 300),
        (3, 511),
        (9, 513),
        (17, 1030),
    ] {
        let mut returns = stream((n * 1000 + m) as u64, n * m);
        returns[0] = -0.0;
        returns[n * m - 1] = 1e150;
        if n > 2 {
            returns[n + 1] = 1e-300;
        }
        let mut mean = vec![0.0; n];
        for row in returns.chunks_exact(n) {
            mean.iter_mut().zip(row).for_each(|(s, r)| *s += r);
        }
        mean.iter_mut().for_each(|s| *s /= m as f64);
        returns[2 * n % (n * m)] = mean[(2 * n % (n * m)) % n];
        let sample = vec![1.0 / (m as f64 - 1.0); m];
        let decaying: Vec<f64> = (0..m).map(|t| 0.94f64.powi((m - 1 - t) as i32)).collect();
        for w in [sample, decaying] {
            let fast = covariance(&returns, &mean, &w);
            let plain = covariance_reference(&returns, &mean, &w);
            assert_eq!(fast.len(), plain.len());
            for (k, (f, p)) in fast.iter().zip(&plain).enumerate() {
                assert_eq!(
                    f.to_bits(),
                    p.to_bits(),
                    "n {n}, m {m}, entry {k}: {f} vs {p}"
                );
            }
        }
    }
}

/// Rows `rows` of the reference's lower triangle, row after row.
fn reference_rows(sigma: &[f64], n: usize, rows: Range<usize>) -> Vec<f64> {
    rows.flat_map(|i| sigma[i * n..=i * n + i].to_vec())
        .collect()
}

/// `lower_rows_in_tiles` with tile R×C against the plain loop, bit for bit.
fn check_tile<const R: usize, const C: usize>(
    returns: &[f64],
    mean: &[f64],
    w: &[f64],
    rows: Range<usize>,
    plain: &[f64],
) {
    let n = mean.len();
    let fast = lower_rows_in_tiles::<R, C>(returns, mean, w, rows.clone());
    let want = reference_rows(plain, n, rows.clone());
    assert_eq!(fast.len(), want.len());
    for (k, (f, p)) in fast.iter().zip(&want).enumerate() {
        let m = w.len();
        assert_eq!(
            f.to_bits(),
            p.to_bits(),
            "tile {R}x{C}, n {n}, m {m}, rows {rows:?}, entry {k}: {f} vs {p}"
        );
    }
}

#[test]
fn every_tile_shape_gives_the_plain_loops_bits_on_drawn_shapes() {
    // Drawn sizes (1, odd, not multiples of any tile, across pass and block edges) and drawn row
    // ranges, on every tile shape some build uses (and 1×1, the plain loop itself).
    let mut state = 11u64;
    let mut draw = |below: usize| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) as usize % below
    };
    for case in 0..40 {
        let n = if case < 4 { 1 + case } else { 1 + draw(300) };
        // Some histories longer than a pass of RETURNS_PER_PASS (512), with drawn row ranges too.
        let m = match case % 5 {
            0 => 1 + draw(3),
            1 => 500 + draw(600),
            _ => 1 + draw(300),
        };
        let mut returns = stream(case as u64, n * m);
        returns[draw(n * m)] = -0.0;
        returns[draw(n * m)] = 1e120;
        let mean: Vec<f64> = stream(case as u64 + 99, n)
            .iter()
            .map(|x| x * 0.1)
            .collect();
        let w: Vec<f64> = (0..m).map(|t| 0.97f64.powi((m - 1 - t) as i32)).collect();
        let plain = covariance_reference(&returns, &mean, &w);
        let start = draw(n);
        let rows = start..start + 1 + draw(n - start);
        for rows in [0..n, rows] {
            check_tile::<1, 1>(&returns, &mean, &w, rows.clone(), &plain);
            check_tile::<4, 4>(&returns, &mean, &w, rows.clone(), &plain);
            check_tile::<8, 4>(&returns, &mean, &w, rows.clone(), &plain);
            check_tile::<4, 8>(&returns, &mean, &w, rows.clone(), &plain);
            check_tile::<8, 8>(&returns, &mean, &w, rows.clone(), &plain);
            check_tile::<2, 8>(&returns, &mean, &w, rows.clone(), &plain);
        }
    }
}
