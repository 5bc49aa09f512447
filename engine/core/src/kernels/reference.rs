//! A naive model of the kernels: one scenario at a time, plain loops, the formulas and summation
//! orders the kernels document, and a property test that the fast structure-of-arrays kernels give
//! the very same bits. The model shares only the random streams with them: the draw order
//! (asset by asset, simulation by simulation, per block and day) defines the streams, so the model
//! draws a block's variates the same way before it walks each path on its own.
//!
//! Bit equality (not a tolerance) holds because each scenario is its own lane: the kernels only
//! reorder work across scenarios, never the operations within one, and Rust never contracts a
//! multiply and an add into a fused multiply-add.

use super::drawn_specs::{draw_spec, Draw};
use super::{price_block, scaled_factor, Priced, Workspace};
use crate::deadline::Deadline;
use crate::group_sums::PNL_GROUP;
use crate::math::expm1;
use crate::rng::Xoshiro256pp;
use crate::simulate::simulate;
use crate::spec::{Book, Method, Mode, Spec, BLOCK, FACTOR_TRIANGULAR};
use crate::ziggurat::{standard_normal, ChiSquare};

/// Per-asset and portfolio P&L of one scenario.
struct Path {
    assets: Vec<f64>,
    portfolio: f64,
}

/// One day's normals of a block, [asset][simulation]; antithetic pairs are (2m, 2m + 1).
fn draw_normals(rng: &mut Xoshiro256pp, n: usize, antithetic: bool) -> Vec<f64> {
    let mut z: Vec<f64> = Vec::with_capacity(n * BLOCK);
    for k in 0..n * BLOCK {
        let x = if antithetic && k % 2 == 1 {
            -z[k - 1]
        } else {
            standard_normal(rng)
        };
        z.push(x);
    }
    z
}

/// One day's Student-t scale factors √((ν − 2)/ν) / √(W/ν), W ~ χ²_ν; shared within a pair.
fn draw_t_factors(rng: &mut Xoshiro256pp, nu: f64, antithetic: bool) -> Vec<f64> {
    let chi = ChiSquare::new(nu);
    let mut f: Vec<f64> = Vec::with_capacity(BLOCK);
    for s in 0..BLOCK {
        let x = if antithetic && s % 2 == 1 {
            f[s - 1]
        } else {
            ((nu - 2.0) / nu).sqrt() / (chi.sample(rng) / nu).sqrt()
        };
        f.push(x);
    }
    f
}

/// Σ_j f[i][j] · z[j][s] added to `base` in increasing j: over j ≤ i for a triangular factor
/// (its zeros skipped), over the m columns of loadings.
fn correlated(spec: &Spec, f: &[f64], z: &[f64], i: usize, s: usize, base: f64) -> f64 {
    let n = spec.n_assets();
    let mut x = base;
    if spec.factor_columns() == FACTOR_TRIANGULAR {
        for j in 0..=i {
            x += f[i * n + j] * z[j * BLOCK + s];
        }
    } else {
        let m = spec.factor_columns();
        for j in 0..m {
            x += f[i * m + j] * z[j * BLOCK + s];
        }
    }
    x
}

/// Buy-and-hold: C·a_i·(e^{R_i} − 1) per asset, the portfolio their sum in asset order.
/// Rebalanced: the accumulated gains, the portfolio C·(gross − 1).
fn finish(spec: &Spec, book: &Book, cumulative: Vec<f64>, gross: f64) -> Path {
    let v = book.capital;
    if spec.mode() == Mode::Rebalanced {
        // The rounding residual of the summed gains, shared in proportion to |gain|.
        let portfolio = v * (gross - 1.0);
        let (mut sum, mut abs) = (0.0, 0.0);
        for a in &cumulative {
            sum += a;
            abs += a.abs();
        }
        let residual = portfolio - sum;
        let mut assets = cumulative;
        if residual.is_finite() && abs.is_finite() && abs > 0.0 && residual != 0.0 {
            for a in assets.iter_mut() {
                *a += residual * (a.abs() / abs);
            }
        }
        return Path { assets, portfolio };
    }
    let assets: Vec<f64> = book
        .weights
        .iter()
        .zip(&cumulative)
        .map(|(w, r)| (v * w) * expm1(*r))
        .collect();
    // Added up by groups of PNL_GROUP assets, each in asset order, then the groups in order.
    let mut portfolio = 0.0;
    for group in assets.chunks(PNL_GROUP) {
        let mut sum = 0.0;
        for a in group {
            sum += a;
        }
        portfolio += sum;
    }
    Path { assets, portfolio }
}

/// One day of asset returns r_i on the path: buy-and-hold adds them up, rebalanced adds each
/// asset's gain on the running value and moves the gross value.
fn step(spec: &Spec, book: &Book, returns: &[f64], cumulative: &mut [f64], gross: &mut f64) {
    let scaled = book.capital * *gross;
    let mut growth = 0.0;
    for (i, r) in returns.iter().enumerate() {
        if spec.mode() == Mode::Rebalanced {
            let d = book.weights[i] * expm1(*r);
            growth += d;
            cumulative[i] += scaled * d;
        } else {
            cumulative[i] += r;
        }
    }
    *gross *= 1.0 + growth;
}

/// The scenarios of block `block` that the spec has for one book, one path at a time.
fn reference_block(spec: &Spec, book: &Book, block: usize) -> Vec<Path> {
    let n = spec.n_assets();
    let start = block * BLOCK;
    let count = BLOCK.min(spec.scenarios() - start);
    let mut rng = Xoshiro256pp::for_block(spec.seed(), block as u64);
    let (t, mean) = (spec.horizon(), spec.mean());
    if spec.method() == Method::Historical {
        let rows = spec.returns();
        return (start..start + count)
            .map(|window| {
                let (mut cumulative, mut gross) = (vec![0.0; n], 1.0);
                for day in window..window + t {
                    let r: Vec<f64> = (0..n).map(|i| rows[day * n + i] - mean[i]).collect();
                    step(spec, book, &r, &mut cumulative, &mut gross);
                }
                finish(spec, book, cumulative, gross)
            })
            .collect();
    }
    if spec.method() == Method::MonteCarloNormal && spec.mode() == Mode::BuyAndHold {
        // One draw per scenario: R ~ N(Tμ, TΣ) through √T·L.
        let z = draw_normals(&mut rng, spec.draws(), spec.antithetic());
        let factor_t = scaled_factor(spec);
        return (0..count)
            .map(|s| {
                let r = (0..n)
                    .map(|i| correlated(spec, &factor_t, &z, i, s, t as f64 * mean[i]))
                    .collect();
                finish(spec, book, r, 1.0)
            })
            .collect();
    }
    let student = spec.method() == Method::MonteCarloStudentT;
    let days: Vec<(Vec<f64>, Vec<f64>)> = (0..t)
        .map(|_| {
            let z = draw_normals(&mut rng, spec.draws(), spec.antithetic());
            let f = if student {
                draw_t_factors(&mut rng, spec.degrees_of_freedom(), spec.antithetic())
            } else {
                Vec::new()
            };
            (z, f)
        })
        .collect();
    (0..count)
        .map(|s| {
            let (mut cumulative, mut gross) = (vec![0.0; n], 1.0);
            for (z, f) in &days {
                let r: Vec<f64> = (0..n)
                    .map(|i| {
                        let x = correlated(spec, spec.factor(), z, i, s, 0.0);
                        if student {
                            mean[i] + f[s] * x
                        } else {
                            x + mean[i]
                        }
                    })
                    .collect();
                step(spec, book, &r, &mut cumulative, &mut gross);
            }
            finish(spec, book, cumulative, gross)
        })
        .collect()
}

#[test]
fn fast_kernels_equal_the_per_path_reference_bit_for_bit() {
    let mut d = Draw(0x0BAD_5EED);
    for case in 0..240 {
        let spec = draw_spec(&mut d, case);
        let n = spec.n_assets();
        let what = format!(
            "case {case}: {:?} {:?} n={n} factor columns={} T={} N={} antithetic={} seed={}",
            spec.method(),
            spec.mode(),
            spec.factor_columns(),
            spec.horizon(),
            spec.scenarios(),
            spec.antithetic(),
            spec.seed()
        );
        let factor_t = scaled_factor(&spec);
        // One workspace for every block, as `simulate` uses it: nothing may leak between blocks.
        // Groups of one to three books: the grouping must not change a bit either.
        let mut ws = Workspace::new(n, 1 + case % 3);
        let mut portfolio: Vec<Vec<f64>> = vec![Vec::new(); spec.books().len()];
        for block in 0..spec.blocks() {
            let count = BLOCK.min(spec.scenarios() - block * BLOCK);
            let mut seen = 0;
            price_block(&spec, &factor_t, &mut ws, block, &mut |priced| {
                let (book, assets, pnl) = match priced {
                    Priced::Book { book, assets, pnl } => (book, assets, pnl),
                    Priced::Units(_) => return,
                };
                assert_eq!(book, seen, "{what}: books in order");
                seen += 1;
                let paths = reference_block(&spec, &spec.books()[book], block);
                assert_eq!(paths.len(), count);
                for (s, path) in paths.iter().enumerate() {
                    for (i, a) in path.assets.iter().enumerate() {
                        let fast = assets.at(i, s);
                        assert_eq!(
                            fast.to_bits(),
                            a.to_bits(),
                            "{what}: book {book} asset {i} of {s}"
                        );
                    }
                    assert_eq!(
                        pnl[s].to_bits(),
                        path.portfolio.to_bits(),
                        "{what}: book {book}, {s}"
                    );
                    portfolio[book].push(path.portfolio);
                }
            });
            assert_eq!(seen, spec.books().len(), "{what}: every book priced");
        }
        let partial = simulate(&spec, spec.all_blocks(), &Deadline::none()).expect("runs");
        for (b, want) in portfolio.iter().enumerate() {
            let got = &partial.books[b].pnl;
            let same = got.len() == want.len()
                && got
                    .iter()
                    .zip(want)
                    .all(|(a, b)| a.to_bits() == b.to_bits());
            assert!(same, "{what}: simulate's P&L of book {b}");
        }
    }
}
