//! Specs drawn for the kernels' reference test: every method × mode × antithetic combination,
//! the rest (shapes, factors, seeds at the 32- and 53-bit edges, books, confidence) drawn.

use crate::spec::{Book, Comparison, Method, Mode, Spec, SpecFields, BLOCK, FACTOR_TRIANGULAR};

/// SplitMix64: a dependency-free stream for drawing specs.
pub(super) struct Draw(pub(super) u64);

impl Draw {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform on 1..=n.
    fn up_to(&mut self, n: usize) -> usize {
        1 + (self.next() % n as u64) as usize
    }

    /// Uniform on [lo, hi).
    fn between(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * ((self.next() >> 11) as f64 / (1u64 << 53) as f64)
    }
}

/// Case `case` walks every method × mode × antithetic combination; the rest is drawn.
pub(super) fn draw_spec(d: &mut Draw, case: usize) -> Spec {
    let method = [
        Method::MonteCarloNormal,
        Method::MonteCarloStudentT,
        Method::Historical,
    ][case % 3];
    let mode = [Mode::BuyAndHold, Mode::Rebalanced][case / 3 % 2];
    let (n, horizon) = (d.up_to(8), d.up_to(20));
    // Every other Monte Carlo spec samples through n×m loadings (m up to n + 3: instruments
    // that are sums of factors, such as a foreign stock and its FX rate, are fewer than the
    // factors), the rest through a triangular factor.
    let factor_columns = if d.next() % 2 == 0 {
        d.up_to(n + 3)
    } else {
        FACTOR_TRIANGULAR
    };
    let factor = if factor_columns == FACTOR_TRIANGULAR {
        let mut l = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..i {
                l[i * n + j] = d.between(-0.02, 0.02);
            }
            l[i * n + i] = d.between(0.002, 0.04);
        }
        l
    } else {
        (0..n * factor_columns)
            .map(|_| d.between(-0.02, 0.02))
            .collect()
    };
    let historical = method == Method::Historical;
    let windows = d.up_to(3 * BLOCK);
    let returns = if historical {
        let obs = windows + horizon - 1;
        (0..obs * n).map(|_| d.between(-0.06, 0.06)).collect()
    } else {
        Vec::new()
    };
    // Drawn, not from `case`: every combination meets small, 32-bit-edge and 53-bit seeds.
    let seed = match d.next() % 4 {
        0 => d.next() % 1000,
        1 => (1 << 32) - 1 + d.next() % 3,
        _ => d.next() >> 11, // up to 2^53 − 1
    };
    // Long, short and mixed books, one to three of them, compared as a what-if when two.
    let books: Vec<Book> = (0..d.up_to(3))
        .map(|_| Book {
            capital: 10f64.powf(d.between(3.0, 8.0)),
            weights: (0..n).map(|_| d.between(-1.5, 1.5)).collect(),
        })
        .collect();
    let comparison = if books.len() == 2 && d.next() % 2 == 0 {
        Comparison::WhatIf
    } else {
        Comparison::None
    };
    Spec::new(SpecFields {
        method,
        mode,
        books,
        comparison,
        horizon,
        degrees_of_freedom: [3.0, 4.0, 5.0, 7.0, 30.0, 1000.0][d.up_to(6) - 1],
        seed,
        antithetic: case / 6 % 2 == 1,
        importance_sampling: false,
        scenarios: if historical {
            windows
        } else {
            d.up_to(3 * BLOCK)
        },
        confidence: d.between(0.5, 0.999),
        histogram_bins: d.up_to(1000),
        mean: (0..n).map(|_| d.between(-0.002, 0.002)).collect(),
        factor: if historical { Vec::new() } else { factor },
        factor_columns,
        returns,
    })
    .expect("drawn specs are valid")
}
