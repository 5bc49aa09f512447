//! European options priced on every scenario: the pricer (`pricer`) and option columns of kept
//! units (`revalue`), written a block at a time (`option_blocks`), their tails seeded from their
//! underlyings' (`tail_seeds`).

pub mod option_blocks;
pub mod phi;
pub mod phi_lanes;
pub mod pricer;
pub mod revalue;
pub(crate) mod tail_seeds;

#[cfg(test)]
mod reference;
