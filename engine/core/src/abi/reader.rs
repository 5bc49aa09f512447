//! Sequential reading of a flat f64 input. Every field is checked as it is read, so the first
//! problem of a malformed input is the one reported.

use crate::error::{ensure, EngineError, Result};
use crate::limits::{MAX_COUNT, MAX_EXACT_INT};

pub struct Reader<'a> {
    data: &'a [f64],
    at: usize,
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [f64]) -> Self {
        Reader { data, at: 0 }
    }

    /// Values read so far (where a header ends, for the layout tests).
    pub fn position(&self) -> usize {
        self.at
    }

    pub fn take(&mut self, len: usize) -> Result<&'a [f64]> {
        ensure(
            len <= self.data.len() - self.at,
            "input shorter than its header says",
        )?;
        let out = &self.data[self.at..self.at + len];
        self.at += len;
        Ok(out)
    }

    pub fn scalar(&mut self) -> Result<f64> {
        Ok(self.take(1)?[0])
    }

    /// A whole number in 0..=2^53 − 1, as u64: never through `usize`, which would saturate at
    /// 2^32 − 1 on wasm32.
    pub fn integer(&mut self) -> Result<u64> {
        let x = self.scalar()?;
        ensure(
            (0.0..=MAX_EXACT_INT).contains(&x) && x.fract() == 0.0,
            "integers must be whole numbers in 0..=2^53 - 1",
        )?;
        Ok(x as u64)
    }

    /// A whole number in 0..=`MAX_COUNT`, the same range on every target.
    pub fn count(&mut self) -> Result<usize> {
        let x = self.integer()?;
        ensure(
            x <= MAX_COUNT,
            "counts must be whole numbers in 0..=2^32 - 1",
        )?;
        Ok(x as usize)
    }

    pub fn flag(&mut self) -> Result<bool> {
        Ok(self.count()? != 0)
    }

    pub fn end(&self) -> Result<()> {
        ensure(
            self.at == self.data.len(),
            "input longer than its header says",
        )
    }
}

/// `a · b` as a length, or an error where it would overflow (sooner on wasm32 than natively; the
/// input cannot hold that many values on either).
pub fn product(a: usize, b: usize) -> Result<usize> {
    a.checked_mul(b)
        .ok_or_else(|| EngineError::invalid("input shorter than its header says"))
}
