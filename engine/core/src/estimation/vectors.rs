//! An estimation's vectors in one buffer, after room left at its front for its encoding's header:
//! the encoded answer is then that buffer itself rather than a copy of it. A wide book's is tens of
//! MB (1,200 assets × 1,500 dates: 37 MB), and the copy with its fresh pages measured a fifth of
//! the estimation's time.

use std::ops::Range;

/// What the estimation found, its vectors read through the accessors.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimation {
    pub observations: usize,
    /// Index (into the input dates) of the first and last price the returns span.
    pub first_date: usize,
    pub last_date: usize,
    /// Columns of the factor (`SpecFields::factor`): the window's returns for loadings, else
    /// FACTOR_TRIANGULAR.
    pub factor_columns: usize,
    pub jitter: f64,
    lengths: Lengths,
    front: usize,
    buffer: Vec<f64>,
}

/// The vectors' lengths, in the buffer's order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lengths {
    pub mean: usize,
    pub sample_mean: usize,
    pub covariance: usize,
    pub factor: usize,
    pub volatility: usize,
    pub returns: usize,
}

impl Lengths {
    /// The lengths in the buffer's order (the accessors' `part` indices).
    fn in_order(&self) -> [usize; 6] {
        [
            self.mean,
            self.sample_mean,
            self.covariance,
            self.factor,
            self.volatility,
            self.returns,
        ]
    }

    fn ranges(&self, front: usize) -> [Range<usize>; 6] {
        let mut at = front;
        self.in_order().map(|len| {
            at += len;
            at - len..at
        })
    }
}

/// The vectors being filled, each its own part of the buffer.
pub struct Slots<'a> {
    pub mean: &'a mut [f64],
    pub sample_mean: &'a mut [f64],
    pub covariance: &'a mut [f64],
    pub factor: &'a mut [f64],
    pub volatility: &'a mut [f64],
    pub returns: &'a mut [f64],
}

/// A zeroed buffer of `front` free words and then vectors of `lengths`.
pub struct Buffer {
    lengths: Lengths,
    front: usize,
    words: Vec<f64>,
}

impl Buffer {
    pub fn new(front: usize, lengths: Lengths) -> Buffer {
        Buffer {
            lengths,
            front,
            words: vec![0.0; front + lengths.in_order().iter().sum::<usize>()],
        }
    }

    pub fn slots(&mut self) -> Slots<'_> {
        let mut rest = &mut self.words[self.front..];
        let [mean, sample_mean, covariance, factor, volatility, returns] =
            self.lengths.in_order().map(|len| {
                let (part, after) = std::mem::take(&mut rest).split_at_mut(len);
                rest = after;
                part
            });
        Slots {
            mean,
            sample_mean,
            covariance,
            factor,
            volatility,
            returns,
        }
    }

    pub fn finish(
        self,
        observations: usize,
        (first_date, last_date): (usize, usize),
        factor_columns: usize,
        jitter: f64,
    ) -> Estimation {
        Estimation {
            observations,
            first_date,
            last_date,
            factor_columns,
            jitter,
            lengths: self.lengths,
            front: self.front,
            buffer: self.words,
        }
    }
}

impl Estimation {
    fn part(&self, k: usize) -> &[f64] {
        &self.buffer[self.lengths.ranges(self.front)[k].clone()]
    }

    /// Daily drift used by the models: the sample mean, or zeros.
    pub fn mean(&self) -> &[f64] {
        self.part(0)
    }

    /// The sample mean, whatever the drift option (historical simulation centres on it).
    pub fn sample_mean(&self) -> &[f64] {
        self.part(1)
    }

    /// Σ, n×n; empty when the model samples through loadings (Σ = F·Fᵀ: n²·m work saved).
    pub fn covariance(&self) -> &[f64] {
        self.part(2)
    }

    /// The factor F the Monte Carlo models sample through, Σ = F·Fᵀ (see `SpecFields::factor`):
    /// with no more returns than assets (m ≤ n) the n×m loadings √w_t·(r_t − r̄) of the window,
    /// exact at n·m work per draw; else the Cholesky factor of Σ (jittered if singular).
    pub fn factor(&self) -> &[f64] {
        self.part(3)
    }

    pub fn volatility(&self) -> &[f64] {
        self.part(4)
    }

    /// Returns, row-major [observation][asset], oldest first.
    pub fn returns(&self) -> &[f64] {
        self.part(5)
    }

    /// The whole buffer and the words free at its front; the vectors follow in the order of the
    /// accessors above.
    pub fn into_buffer(self) -> (Vec<f64>, usize) {
        (self.buffer, self.front)
    }
}
