//! A live book's kept scenarios: `OP_UNITS`'s result after its status word, and the lead of
//! `OP_SIMULATE_KEPT` — [count, units(count), n, k, smallest(n·k), largest(n·k)], each tail the
//! asset's k extreme values of e^{R_i} − 1 (largest as −(e^{R_i} − 1)), in no particular order
//! (k = 0 for every asset where another range's lead holds the pooled tails, and k = 1 where a
//! lead holds each asset's k-th of every range alone: `simulate_kept`).

use crate::abi::reader::{product, Reader};
use crate::error::Result;
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

/// The words `encode_tails` appends: [n, k, smallest(n·k), largest(n·k)].
pub fn tails_length(tails: &UnitTails) -> usize {
    let n = tails.smallest.len();
    let k = tails.smallest.first().map_or(0, Vec::len);
    2 + 2 * n * k
}

/// The kept layout's end, after [count, units(count)]: for a caller that wrote the units in place.
pub fn encode_tails(out: &mut Vec<f64>, tails: &UnitTails) {
    let n = tails.smallest.len();
    let k = tails.smallest.first().map_or(0, Vec::len);
    out.push(n as f64);
    out.push(k as f64);
    for tail in tails.smallest.iter().chain(&tails.largest) {
        out.extend(tail.iter().map(|&key| from_order_key(key)));
    }
}

/// The units and both lanes of tails; `simulate_kept` checks them against its spec and range.
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
    // Bounded by the input's length before anything is allocated.
    r.take(product(product(n, k)?, 2)?)?;
    let mut tails = Reader::new(&input[3 + count..]);
    let mut lane = || -> Result<Vec<Vec<u64>>> {
        (0..n)
            .map(|_| Ok(tails.take(k)?.iter().map(|&x| order_key(x)).collect()))
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
            ranked: false,
        },
    ))
}
