//! The merge: task partials into each book's figures. `finalize` (the exact merge), `weighted`
//! (importance-sampled scenarios), `merged_tail` (the worst scenarios over every task),
//! `figures` (the estimators both merges share: VaR/ES, standard errors, histogram, the one
//! `Metrics` constructor), `finalize_params` (what the merge needs of a calculation), and the
//! order statistics of the single merge (`rank_select`) and of a split one (`bucket_select`).

pub mod bucket_select;
pub mod figures;
pub mod finalize;
pub mod finalize_params;
pub mod merged_tail;
pub mod part_summary;
pub(crate) mod rank_select;
pub mod weighted;
