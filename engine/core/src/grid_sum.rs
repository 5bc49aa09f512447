//! Column sums that do not depend on the order of their terms: every term is truncated, on its own,
//! to a fixed-point grid whose unit is 2^(⌊log₂ m⌋ − 89) for m the column's largest magnitude (at
//! most 2⁻⁸⁹·m) and the integers are added exactly; the total is rounded to a double once. A tail's component sums then need neither the
//! tail's order nor its rows gathered in that order, and no split of the scenarios moves a bit.

/// Terms lie below 2^GRID_BITS grid units, so that 2³² of them stay within an i128.
const GRID_BITS: i32 = 90;
/// Where a term is split into two integer halves, each below 2^45.
const HALF_BITS: i32 = 45;
/// Rows added in doubles between moves into the i128 totals: 2^8 integers below 2^45 stay below 2^53.
const FLUSH: usize = 256;

/// The sum of each of `n` columns over `rows` (each row holds n values); NaN for a column that
/// holds a value that is not finite (the grid has no place for it, and NaN is refused later).
pub fn column_sums(rows: &[&[f64]], n: usize) -> Vec<f64> {
    let mut largest = vec![0.0f64; n];
    let mut finite = vec![true; n];
    for row in rows {
        for ((m, ok), x) in largest.iter_mut().zip(finite.iter_mut()).zip(row.iter()) {
            let a = x.abs();
            *m = if a > *m { a } else { *m };
            *ok &= x.is_finite();
        }
    }
    let shifts: Vec<i32> = largest.iter().map(|&m| grid_shift(m)).collect();
    let halves: Vec<(f64, f64)> = shifts.iter().map(|&s| factors(s)).collect();
    // Grid integers are below 2^(GRID_BITS − HALF_BITS) and 2^HALF_BITS: a double adds FLUSH of
    // them exactly (below 2^53) before they move to the i128 totals.
    let mut totals = vec![0i128; n];
    let mut high = vec![0.0f64; n];
    let mut low = vec![0.0f64; n];
    for chunk in rows.chunks(FLUSH) {
        for row in chunk {
            for (((h, l), &x), &(a, b)) in high
                .iter_mut()
                .zip(low.iter_mut())
                .zip(row.iter())
                .zip(&halves)
            {
                let (hi, lo) = on_grid(x * a * b);
                *h += hi;
                *l += lo;
            }
        }
        for ((t, h), l) in totals.iter_mut().zip(high.iter_mut()).zip(low.iter_mut()) {
            *t += ((*h as i64 as i128) << HALF_BITS) + *l as i64 as i128;
            *h = 0.0;
            *l = 0.0;
        }
    }
    totals
        .iter()
        .zip(&shifts)
        .zip(&finite)
        .map(|((&t, &s), &ok)| if ok { scaled(t as f64, -s) } else { f64::NAN })
        .collect()
}

/// The power of two that puts a column's largest magnitude just under 2^GRID_BITS.
fn grid_shift(largest: f64) -> i32 {
    if largest == 0.0 || !largest.is_finite() {
        return 0;
    }
    GRID_BITS - 1 - binary_exponent(largest)
}

/// ⌊log₂ x⌋ of a positive finite x, subnormals included.
fn binary_exponent(x: f64) -> i32 {
    let biased = ((x.to_bits() >> 52) & 0x7ff) as i32;
    if biased == 0 {
        // Subnormal: 2^-1074 times its 52-bit mantissa.
        let mantissa = x.to_bits() & ((1 << 52) - 1);
        return 63 - mantissa.leading_zeros() as i32 - 1074;
    }
    biased - 1023
}

/// x·2^s, through `factors`.
fn scaled(x: f64, s: i32) -> f64 {
    let (a, b) = factors(s);
    x * a * b
}

/// 2^s as two factors, each exact (2^s alone can leave double range).
fn factors(s: i32) -> (f64, f64) {
    (power_of_two(s / 2), power_of_two(s - s / 2))
}

/// 2^e for −1022 ≤ e ≤ 1023 (`factors` asks for |e| ≤ 582).
fn power_of_two(e: i32) -> f64 {
    f64::from_bits(((1023 + e) as u64) << 52)
}

/// A term already scaled below 2^GRID_BITS, truncated to an integer and split into its high
/// half (in units of 2^HALF_BITS) and the rest; the subtraction is exact, and both halves stay
/// doubles (a float-to-integer conversion per term is slow on wasm32).
fn on_grid(y: f64) -> (f64, f64) {
    let high = (y * power_of_two(-HALF_BITS)).trunc();
    let low = (y - high * power_of_two(HALF_BITS)).trunc();
    (high, low)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sums(values: &[f64]) -> f64 {
        let rows: Vec<&[f64]> = values.chunks(1).collect();
        column_sums(&rows, 1)[0]
    }

    #[test]
    fn exact_on_values_the_grid_holds() {
        assert_eq!(sums(&[1.0, 2.0, 3.5, -0.25]), 6.25);
        assert_eq!(sums(&[0.1; 10]), 1.0);
        assert_eq!(sums(&[1e16, 1.0, -1e16]), 1.0);
        assert_eq!(sums(&[]), 0.0);
        assert_eq!(sums(&[0.0, -0.0]), 0.0);
        assert_eq!(sums(&[5e-324, 5e-324]), 1e-323);
        assert_eq!(
            sums(&[-(2f64.powi(1000)), -(2f64.powi(998))]),
            -1.25 * 2f64.powi(1000)
        );
        assert_eq!(sums(&[f64::MAX, f64::MAX]), f64::INFINITY);
    }

    #[test]
    fn order_does_not_move_a_bit() {
        let mut values: Vec<f64> = (0..20_000u64)
            .map(|i| {
                let x = (i.wrapping_mul(2_654_435_761) % 100_003) as f64 / 7.0 - 7_000.0;
                x * 10f64.powi((i % 13) as i32 - 6)
            })
            .collect();
        let forward = sums(&values);
        values.reverse();
        assert_eq!(sums(&values).to_bits(), forward.to_bits());
        values.sort_by(f64::total_cmp);
        assert_eq!(sums(&values).to_bits(), forward.to_bits());
        // Within a few units of the largest term's 2^-89 of the compensated sum.
        let reference = crate::metrics::compensated_sum(values.iter().copied());
        assert!((forward - reference).abs() <= 1e-9 * reference.abs().max(1.0));
    }

    /// The correctly rounded sum of multiples of 2^-52 below 4 (integers m·2^-52, m < 2^54).
    fn exact(values: &[f64]) -> f64 {
        let units: i128 = values.iter().map(|x| (x * 2f64.powi(52)) as i128).sum();
        units as f64 * 2f64.powi(-52)
    }

    #[test]
    fn bit_exact_across_the_flush_boundary() {
        // Mantissas all ones: every chunk's double sums sit just under 2^53.
        let x = f64::from_bits(0x3FFF_FFFF_FFFF_FFFF);
        for count in [255, 256, 257, 511, 512, 513, 1_000] {
            let mut values = vec![x; count];
            assert_eq!(sums(&values).to_bits(), exact(&values).to_bits(), "{count}");
            values.extend(vec![-x; count - 1]);
            assert_eq!(sums(&values), x, "{count} and {} negated", count - 1);
            let mixed: Vec<f64> = (0..count)
                .map(|i| {
                    f64::from_bits(
                        0x3FF0_0000_0000_0000 | (i as u64 * 0x9E37_79B9) & ((1 << 52) - 1),
                    )
                })
                .map(|v| if count % 3 == 0 { -v } else { v })
                .collect();
            assert_eq!(
                sums(&mixed).to_bits(),
                exact(&mixed).to_bits(),
                "mixed {count}"
            );
        }
    }

    #[test]
    fn a_value_that_is_not_finite_poisons_its_column_only() {
        let rows_data = [[1.0, f64::NAN], [2.0, 3.0], [4.0, f64::INFINITY]];
        let rows: Vec<&[f64]> = rows_data.iter().map(|r| &r[..]).collect();
        let got = column_sums(&rows, 2);
        assert_eq!(got[0], 7.0);
        assert!(got[1].is_nan());
    }

    #[test]
    fn columns_are_independent() {
        let tiny = 2f64.powi(-1000);
        let rows_data = [[1.0, tiny, -3.0], [2.0, 2.0 * tiny, 1e300]];
        let rows: Vec<&[f64]> = rows_data.iter().map(|r| &r[..]).collect();
        assert_eq!(column_sums(&rows, 3), vec![3.0, 3.0 * tiny, 1e300]);
    }
}
