//! A finalize part's summary: `OP_FINALIZE_PART`'s result and, several of them, part of
//! `OP_FINALIZE_SPLIT`'s input. Layout: [0, first, end, books], per book: m, m × (bucket, keys),
//! then q, q × (batch, VaR, ES). Only the non-empty buckets are written.

use crate::abi::reader::Reader;
use crate::error::{ensure, Result};
use crate::merge::figures::SE_BATCHES;
use crate::merge::part_summary::{BookSummary, PartSummary, BUCKETS};

pub fn encode_part_summary(s: &PartSummary) -> Vec<f64> {
    let mut out = vec![0.0, s.first as f64, s.end as f64, s.books.len() as f64];
    for b in &s.books {
        let held: Vec<(usize, u64)> = b
            .buckets
            .iter()
            .enumerate()
            .filter(|(_, &c)| c > 0)
            .map(|(i, &c)| (i, c))
            .collect();
        out.push(held.len() as f64);
        for (i, c) in held {
            out.extend([i as f64, c as f64]);
        }
        out.push(b.batches.len() as f64);
        for &(i, var, es) in &b.batches {
            out.extend([i as f64, var, es]);
        }
    }
    out
}

/// One summary, checked for its shape (the merge checks it against the partials).
pub fn decode_part_summary(r: &mut Reader) -> Result<PartSummary> {
    ensure(r.scalar()? == 0.0, "finalize part must be a success result")?;
    let first = r.count()?;
    let end = r.count()?;
    ensure(first < end, "finalize part scenarios must not be empty")?;
    let books = r.count()?;
    ensure(
        books <= crate::limits::MAX_BOOKS,
        "finalize part books out of range",
    )?;
    let mut out = Vec::with_capacity(books);
    for _ in 0..books {
        let held = r.count()?;
        ensure(held <= BUCKETS, "finalize part buckets out of range")?;
        let mut buckets = vec![0u64; BUCKETS];
        let mut previous = None;
        for _ in 0..held {
            let i = r.count()?;
            let c = r.integer()?;
            ensure(
                i < BUCKETS && previous.map_or(true, |p| p < i) && c > 0,
                "finalize part buckets must ascend, each non-empty",
            )?;
            buckets[i] = c;
            previous = Some(i);
        }
        let q = r.count()?;
        ensure(q <= SE_BATCHES, "finalize part batches out of range")?;
        let mut batches = Vec::with_capacity(q);
        for _ in 0..q {
            let i = r.count()?;
            let (var, es) = (r.scalar()?, r.scalar()?);
            ensure(
                var.is_finite() && es.is_finite(),
                "finalize part batch figures must be finite",
            )?;
            batches.push((i, var, es));
        }
        out.push(BookSummary { buckets, batches });
    }
    Ok(PartSummary {
        first,
        end,
        books: out,
    })
}
