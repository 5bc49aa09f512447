//! The merge: task partials into each book's figures. `finalize` (the exact merge), `weighted`
//! (importance-sampled scenarios), `merged_tail` (the worst scenarios over every task),
//! `figures` (the estimators both merges share: VaR/ES, standard errors, histogram bins, the one
//! `Metrics` constructor), `finalize_params` (what the merge needs of a calculation),
//! `bucket_select` (order statistics from keys counted per bucket), `partial_vectors` (a book's P&L
//! and the partials' rows in the thread's kept vectors), `pnl_passes` (the merge's two passes
//! over a book's P&L) and `tail_lists` (the tasks' kept tails: their k-th, and whether lists a
//! task kept to its own share hold the calculation's tail).

pub mod bucket_select;
pub mod figures;
pub mod finalize;
pub mod finalize_params;
pub mod merged_tail;
pub mod part_summary;
mod partial_vectors;
mod pnl_passes;
pub mod tail_lists;
pub mod weighted;
