//! A live book's kept scenarios: `OP_UNITS`'s result after its status word, and the lead of
//! `OP_SIMULATE_KEPT` — [count, units(count), n, k, smallest(n·k), largest(n·k)], each tail the
//! asset's k extreme values of e^{R_i} − 1 (largest as −(e^{R_i} − 1)), in no particular order
//! (k = 0 for every asset where another range's lead holds the pooled tails), or, ranked, with
//! k > 1 and one value per asset and lane, its k-th over every range (`simulate_kept`).

use crate::abi::reader::{product, Reader};
use crate::error::{ensure, Result};
use crate::finite::all_finite;
use crate::limits::check_assets;
use crate::select::{from_order_key, order_key};
use crate::simulate::UnitTails;

pub fn encode_kept(units: &[f64], tails: &UnitTails) -> Vec<f64> {
    let mut out = Vec::with_capacity(1 + units.len() + tails_length(tails));
    out.push(units.len() as f64);
    out.extend_from_slice(units);
    encode_tails(&mut out, tails);
    out
}

/// The words `encode_tails` appends: [n, k, smallest, largest].
pub fn tails_length(tails: &UnitTails) -> usize {
    let n = tails.smallest.len();
    2 + 2 * n * tails.smallest.first().map_or(0, Vec::len)
}

/// The kept layout's end, after [count, units(count)]: for a caller that wrote the units in place.
pub fn encode_tails(out: &mut Vec<f64>, tails: &UnitTails) {
    let n = tails.smallest.len();
    let held = tails.smallest.first().map_or(0, Vec::len);
    out.push(n as f64);
    out.push(tails.count_word(held) as f64);
    for tail in tails.smallest.iter().chain(&tails.largest) {
        out.extend(tail.iter().map(|&key| from_order_key(key)));
    }
}

/// The units and both lanes of tails; `simulate_kept` checks them against its spec and range. A
/// lead with k > 1 holding one value per asset and lane (its length tells) is ranked.
pub fn decode_kept(input: &[f64]) -> Result<(&[f64], UnitTails)> {
    let mut r = Reader::new(input);
    let count = r.count()?;
    let units = r.take(count)?;
    // Tails of none of the assets (all computed at pricing) are allowed.
    let n = r.count()?;
    if n > 0 {
        check_assets(n)?;
    }
    let k = r.count()?;
    let rest = input.len() - r.position();
    let ranked = n > 0 && k > 1 && rest == 2 * n;
    let held = if ranked { 1 } else { k };
    // Bounded by the input's length before anything is allocated.
    let words = r.take(product(product(n, held)?, 2)?)?;
    // Tails are passed on into the partials (a NaN would be ranked there).
    ensure(all_finite(words), "kept tails must be finite")?;
    let mut tails = Reader::new(words);
    let mut lane = || -> Result<Vec<Vec<u64>>> {
        (0..n)
            .map(|_| Ok(tails.take(held)?.iter().map(|&x| order_key(x)).collect()))
            .collect()
    };
    let smallest = lane()?;
    let largest = lane()?;
    r.end()?;
    Ok((
        units,
        UnitTails {
            smallest,
            largest,
            ranked: if ranked { k } else { 0 },
        },
    ))
}
