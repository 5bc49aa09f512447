//! The merge's input: the tasks' partials decoded as one calculation, from one buffer
//! (OP_FINALIZE, OP_FINALIZE_PART, OP_FINALIZE_SPLIT) or from parts where they lie.

use super::codec::{decode_part_summary, decode_partial, encode_part_summary, encode_results};
use super::reader::Reader;
use crate::error::{ensure, EngineError, Result};
use crate::merge::finalize::{finalize, finalize_split, FinalizeParams};
use crate::merge::part_summary::summarize_part;
use crate::simulate::Partial;

/// Input: [number of partials, partial…] as `OP_SIMULATE` returned them, in any order.
/// OP_FINALIZE's input to its end: [count, partials…] of one calculation.
pub fn decode_finalize<'a>(r: &mut Reader<'a>) -> Result<(FinalizeParams, Vec<Partial<'a>>)> {
    let count = r.count()?;
    ensure(count >= 1, "at least one partial")?;
    let decoded = one_calculation((0..count).map(|_| decode_partial(r)), count)?;
    r.end()?;
    Ok(decoded)
}

/// Decoded partials with the parameters they share: refused unless every one has the same.
fn one_calculation<'a>(
    decoded: impl Iterator<Item = Result<(FinalizeParams, Partial<'a>)>>,
    count: usize,
) -> Result<(FinalizeParams, Vec<Partial<'a>>)> {
    // Room for this many partials up front; a count beyond it grows the vector as partials decode.
    const PREALLOCATED_PARTIALS: usize = 1024;
    let mut params: Option<FinalizeParams> = None;
    let mut partials = Vec::with_capacity(count.min(PREALLOCATED_PARTIALS));
    for d in decoded {
        let (h, p) = d?;
        ensure(
            params
                .as_ref()
                .map_or(true, |first| first.same_calculation(&h)),
            "partials of one calculation",
        )?;
        params = Some(h);
        partials.push(p);
    }
    let params = params.ok_or_else(|| EngineError::invalid("at least one partial"))?;
    Ok((params, partials))
}

/// OP_FINALIZE over [count] and then `count` parts of one partial each, read where they lie; None
/// when they are not that (the joined input is then decoded, so every answer is the joined one's).
pub fn finalize_in_place(parts: &[&[f64]]) -> Option<Result<Vec<f64>>> {
    let (params, mut partials) = partials_in_place(parts)?;
    Some(finalize(&params, &mut partials).map(|m| encode_results(&m)))
}

/// OP_FINALIZE_PART over parts laid out as `finalize_in_place` reads them.
pub fn finalize_part_in_place(parts: &[&[f64]]) -> Option<Result<Vec<f64>>> {
    let (params, mut partials) = partials_in_place(parts)?;
    Some(summarize_part(&params, &mut partials).map(|s| encode_part_summary(&s)))
}

/// OP_FINALIZE_SPLIT over [parts], then that many parts of one OP_FINALIZE_PART answer each, then
/// OP_FINALIZE's input as `finalize_in_place` reads it, every part read where it lies; None when
/// they are not that (the joined input is then decoded).
pub fn finalize_split_in_place(parts: &[&[f64]]) -> Option<Result<Vec<f64>>> {
    let summaries = summaries_of_split(parts)?;
    let (given, partials) = parts[1..].split_at(summaries);
    let mut given = given
        .iter()
        .map(|part| whole(part, decode_part_summary))
        .collect::<Result<Vec<_>>>()
        .ok()?;
    let (params, mut partials) = partials_in_place(partials)?;
    Some(finalize_split(&params, &mut partials, &mut given).map(|m| encode_results(&m)))
}

/// How many parts after OP_FINALIZE_SPLIT's head hold a part summary: the head's one word, a whole
/// number n ≥ 1 of the parts after it; None otherwise.
fn summaries_of_split(parts: &[&[f64]]) -> Option<usize> {
    let (head, rest) = parts.split_first()?;
    let count = if head.len() == 1 {
        head[0]
    } else {
        return None;
    };
    let whole = count >= 1.0 && count <= rest.len() as f64 && count.fract() == 0.0;
    whole.then_some(count as usize)
}

/// [count] and then `count` parts of one partial each, decoded where they lie; None when they are
/// not that.
fn partials_in_place<'a>(parts: &[&'a [f64]]) -> Option<(FinalizeParams, Vec<Partial<'a>>)> {
    let (head, rest) = parts.split_first()?;
    if head.len() != 1 || head[0] != rest.len() as f64 || rest.is_empty() {
        return None;
    }
    let decoded = rest.iter().map(|part| whole(part, decode_partial));
    one_calculation(decoded, rest.len()).ok()
}

/// `decode` over one part that it must read to its end.
fn whole<'a, T>(part: &'a [f64], decode: impl Fn(&mut Reader<'a>) -> Result<T>) -> Result<T> {
    let mut r = Reader::new(part);
    let decoded = decode(&mut r)?;
    r.end()?;
    Ok(decoded)
}

/// OP_FINALIZE_SPLIT: the parts' summaries, then the partials as OP_FINALIZE takes them.
pub fn finalize_split_encoded(input: &[f64]) -> Result<Vec<f64>> {
    let mut r = Reader::new(input);
    let parts = r.count()?;
    ensure(parts >= 1, "at least one finalize part")?;
    let mut summaries = Vec::with_capacity(parts.min(1024));
    for _ in 0..parts {
        summaries.push(decode_part_summary(&mut r)?);
    }
    let (params, mut partials) = decode_finalize(&mut r)?;
    finalize_split(&params, &mut partials, &mut summaries).map(|m| encode_results(&m))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The split merge is read in place when its head counts whole summaries among the parts that
    /// follow it, and never otherwise (the joined input then answers): a head of the wrong length,
    /// a count of zero, negative, fractional, not finite or beyond the parts.
    #[test]
    fn a_split_merge_is_read_in_place_only_in_its_own_layout() {
        let (summary, partial) = ([0.0, 1.0, 2.0], [3.0; 5]);
        let parts = |head: &[f64]| -> Vec<Vec<f64>> {
            vec![
                head.to_vec(),
                summary.to_vec(),
                summary.to_vec(),
                vec![1.0],
                partial.to_vec(),
            ]
        };
        let layout = |parts: &[Vec<f64>]| {
            let slices: Vec<&[f64]> = parts.iter().map(|p| &p[..]).collect();
            summaries_of_split(&slices)
        };
        assert_eq!(layout(&parts(&[2.0])), Some(2));
        assert_eq!(
            layout(&parts(&[4.0])),
            Some(4),
            "then refused: no partials' count after them"
        );
        for head in [
            &[][..],
            &[2.0, 0.0],
            &[0.0],
            &[-0.0],
            &[-1.0],
            &[1.5],
            &[5.0],
            &[f64::NAN],
            &[f64::INFINITY],
            &[1e300],
        ] {
            assert_eq!(layout(&parts(head)), None, "head {head:?}");
        }
        assert!(finalize_split_in_place(&[]).is_none());
    }
}
