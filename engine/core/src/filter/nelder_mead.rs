//! Nelder–Mead minimisation in a few dimensions: no derivatives, fixed operation order (so every
//! build finds the same bits), the standard coefficients (reflect 1, expand 2, contract ½, shrink ½).

/// Where the search stopped.
pub struct Minimum<const N: usize> {
    pub x: [f64; N],
    pub value: f64,
    /// True when the simplex collapsed below the tolerances before `max_evaluations`.
    pub converged: bool,
}

/// Minimises `f` from `start`, each vertex `step` away along one axis. Stops when the values of the
/// simplex agree within `tolerance` (relative to the best, plus the same absolute) and its vertices
/// lie within `tolerance` of the best in every coordinate, or after `max_evaluations`.
pub fn minimise<const N: usize, F: FnMut(&[f64; N]) -> f64>(
    mut f: F,
    start: [f64; N],
    step: f64,
    tolerance: f64,
    max_evaluations: usize,
) -> Minimum<N> {
    let mut points = [start; 4];
    let count = N + 1;
    debug_assert!(count <= points.len());
    let mut values = [0.0; 4];
    // Vertex k + 1 moves coordinate k: the simplex's first vertex is the start itself.
    for (k, p) in points[1..count].iter_mut().enumerate() {
        p[k] += step;
    }
    for k in 0..count {
        values[k] = f(&points[k]);
    }
    let mut evaluations = count;
    let mut converged = false;
    while evaluations < max_evaluations {
        // Order the vertices by value (insertion sort: stable, the same on every build).
        for i in 1..count {
            let mut j = i;
            while j > 0 && values[j] < values[j - 1] {
                values.swap(j, j - 1);
                points.swap(j, j - 1);
                j -= 1;
            }
        }
        let (best, worst) = (values[0], values[count - 1]);
        let spread = points[1..count]
            .iter()
            .flat_map(|p| p.iter().zip(points[0].iter()).map(|(a, b)| (a - b).abs()))
            .fold(0.0, f64::max);
        if (worst - best).abs() <= tolerance * (best.abs() + 1.0) && spread <= tolerance {
            converged = true;
            break;
        }
        let mut centroid = [0.0; N];
        for p in points.iter().take(count - 1) {
            for (c, x) in centroid.iter_mut().zip(p.iter()) {
                *c += x;
            }
        }
        for c in centroid.iter_mut() {
            *c /= N as f64;
        }
        let along = |t: f64, from: &[f64; N]| {
            let mut out = [0.0; N];
            for d in 0..N {
                out[d] = centroid[d] + t * (from[d] - centroid[d]);
            }
            out
        };
        let reflected = along(-1.0, &points[count - 1]);
        let fr = f(&reflected);
        evaluations += 1;
        if fr < values[0] {
            let expanded = along(-2.0, &points[count - 1]);
            let fe = f(&expanded);
            evaluations += 1;
            if fe < fr {
                points[count - 1] = expanded;
                values[count - 1] = fe;
            } else {
                points[count - 1] = reflected;
                values[count - 1] = fr;
            }
        } else if fr < values[count - 2] {
            points[count - 1] = reflected;
            values[count - 1] = fr;
        } else {
            // Contract towards the better of the worst vertex and its reflection.
            let (t, against) = if fr < values[count - 1] {
                (-0.5, fr)
            } else {
                (0.5, values[count - 1])
            };
            let contracted = along(t, &points[count - 1]);
            let fc = f(&contracted);
            evaluations += 1;
            if fc < against {
                points[count - 1] = contracted;
                values[count - 1] = fc;
            } else {
                let best = points[0];
                for k in 1..count {
                    for (x, b) in points[k].iter_mut().zip(best.iter()) {
                        *x = b + 0.5 * (*x - b);
                    }
                    values[k] = f(&points[k]);
                }
                evaluations += N;
            }
        }
    }
    let mut at = 0;
    for k in 1..count {
        if values[k] < values[at] {
            at = k;
        }
    }
    Minimum {
        x: points[at],
        value: values[at],
        converged,
    }
}
