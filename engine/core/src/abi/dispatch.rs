//! The engine's one entry point over flat f64 buffers, shared by the WASM ABI and the napi binding.

use super::codec::{
    covariance_part_encoded, decode_bootstrap, decode_conditional, decode_covariance_part_input,
    decode_estimation_input, decode_garch_fit, decode_kept, decode_option_header,
    decode_parametric, decode_spec, decode_spec_parts, decode_worst_window, encode_bootstrap,
    encode_conditional, encode_error, encode_garch_fit, encode_kept, encode_part_summary,
    encode_partial, encode_results, encode_worst_window, estimate_encoded, estimation_in_parts,
    filter_parts, option_greeks_encoded, option_units_parts, OptionUnitsCall,
};
use super::constants::{
    encode_table, OP_ABI, OP_BOOTSTRAP_PATHS, OP_CONDITIONAL, OP_COVARIANCE_PART, OP_ESTIMATE,
    OP_FILTER, OP_FINALIZE, OP_FINALIZE_PART, OP_FINALIZE_SPLIT, OP_GARCH_FIT, OP_OPTION_GREEKS,
    OP_OPTION_UNITS, OP_PARAMETRIC, OP_RUN, OP_SIMULATE, OP_SIMULATE_KEPT, OP_SIMULATE_OPTIONS,
    OP_SIMULATE_OWN_TAILS, OP_UNITS, OP_WORST_WINDOW,
};
use super::finalize_input::{
    decode_finalize, finalize_in_place, finalize_part_in_place, finalize_split_encoded,
    finalize_split_in_place,
};
use super::reader::Reader;
use crate::deadline::Deadline;
use crate::error::{ensure, EngineError, Result};
use crate::filter::bootstrap::bootstrap_paths;
use crate::filter::garch::fit_columns;
use crate::group_sums::group_sums_length;
use crate::kept::{kept_units, simulate_kept, simulate_options};
use crate::kept_vectors;
use crate::merge::finalize::{finalize, FinalizeParams};
use crate::merge::part_summary::summarize_part;
use crate::parametric::parametric;
use crate::simulate::Partial;
use crate::simulate::{simulate, simulate_own_tails};
use crate::spec::{BlockRange, Spec};
use crate::stress::conditional::conditional;
use crate::stress::worst_window::worst_windows;

fn or_error(result: Result<Vec<f64>>) -> Vec<f64> {
    result.unwrap_or_else(|e| encode_error(&e))
}

/// An operation on its lead and the rest of its input.
type LedOperation = fn(&[f64], &[f64]) -> Result<Vec<f64>>;

/// The operations whose input starts with a lead, [length, lead(length)], which they read in place:
/// OP_SIMULATE_KEPT, OP_SIMULATE_OPTIONS and OP_OPTION_UNITS the kept scenarios (a host shares them between tasks rather
/// than copy them into every task's input), OP_FILTER the returns. Each takes (lead, the rest).
fn led_operation(op: u32) -> Option<LedOperation> {
    match op {
        OP_SIMULATE_KEPT => Some(simulate_kept_parts),
        OP_OPTION_UNITS => Some(option_units_parts),
        OP_SIMULATE_OPTIONS => Some(simulate_options_parts),
        OP_FILTER => Some(filter_parts),
        _ => None,
    }
}

/// An input's lead and the rest after it.
fn split_lead(input: &[f64]) -> Result<(&[f64], &[f64])> {
    let mut r = Reader::new(input);
    let length = r.count()?;
    let lead = r.take(length)?;
    Ok((lead, &input[1 + length..]))
}

/// Runs operation `op` (see `constants`) on `input`; the result starts with its status word.
pub fn call(op: u32, input: &[f64]) -> Vec<f64> {
    if let Some(run) = led_operation(op) {
        return or_error(split_lead(input).and_then(|(lead, rest)| run(lead, rest)));
    }
    or_error(match op {
        OP_ESTIMATE => decode_estimation_input(input).and_then(|i| estimate_encoded(&i)),
        OP_SIMULATE | OP_SIMULATE_OWN_TAILS | OP_RUN | OP_UNITS => {
            decode_spec(input).and_then(|d| on_spec(op, d))
        }
        OP_FINALIZE => decode_finalize(&mut Reader::new(input))
            .and_then(|(params, mut partials)| finalize(&params, &mut partials))
            .map(|m| encode_results(&m)),
        OP_FINALIZE_PART => decode_finalize(&mut Reader::new(input))
            .and_then(|(params, mut partials)| summarize_part(&params, &mut partials))
            .map(|s| encode_part_summary(&s)),
        OP_FINALIZE_SPLIT => finalize_split_encoded(input),
        OP_PARAMETRIC => decode_parametric(input)
            .and_then(|i| parametric(&i))
            .map(|m| encode_results(&m)),
        #[cfg(feature = "bench-ops")]
        super::constants::OP_NORMALS => super::bench::normals_encoded(input),
        #[cfg(feature = "bench-ops")]
        super::constants::OP_BENCH_PEAK => super::bench_kernels::peak_encoded(input),
        #[cfg(feature = "bench-ops")]
        super::constants::OP_BENCH_COVARIANCE => super::bench_kernels::covariance_encoded(input),
        #[cfg(feature = "bench-ops")]
        super::constants::OP_BENCH_CORRELATE => super::bench_kernels::correlate_encoded(input),
        OP_ABI => Reader::new(input).end().map(|()| encode_table()),
        OP_COVARIANCE_PART => decode_covariance_part_input(input)
            .and_then(|(i, part, parts)| covariance_part_encoded(&i, part, parts)),
        OP_CONDITIONAL => decode_conditional(input).and_then(|(i, deadline)| {
            conditional(&i, &deadline).map(|o| encode_conditional(i.own(), &o))
        }),
        OP_WORST_WINDOW => decode_worst_window(input).and_then(|(i, deadline)| {
            worst_windows(&i, &deadline).map(|s| encode_worst_window(&s))
        }),
        OP_GARCH_FIT => decode_garch_fit(input).and_then(|(i, deadline)| {
            fit_columns(&i.returns, i.observations, i.assets, &deadline)
                .map(|f| encode_garch_fit(&f))
        }),
        OP_BOOTSTRAP_PATHS => decode_bootstrap(input).and_then(|(model, first, end, deadline)| {
            bootstrap_paths(&model, first, end, &deadline)
                .map(|sums| encode_bootstrap(end - first, model.assets, &sums))
        }),
        OP_OPTION_GREEKS => option_greeks_encoded(input),
        _ => Err(EngineError::invalid("unknown operation")),
    })
}

/// `call(op, parts joined)`, reading OP_FINALIZE's partials where they lie when the parts are its
/// count, then one partial each (the tasks' answers as they came back): a host then joins nothing,
/// and megabytes of partials are not copied on the thread that waits for the merge; and so
/// OP_FINALIZE_PART's (laid out as OP_FINALIZE's), OP_FINALIZE_SPLIT's (its count, one part
/// summary each, then OP_FINALIZE's layout: the same partials shared by the parts and the merge), an
/// estimation's prices (`estimation_in_parts`) and a spec's factor or returns
/// (`decode_spec_parts`). Any other layout, or a partial that is not whole in its part, is joined
/// and goes through `call`, so the answer, an error included, is always `call`'s.
pub fn call_parts(op: u32, parts: &[&[f64]]) -> Vec<f64> {
    let in_place = match op {
        OP_FINALIZE => finalize_in_place(parts).map(or_error),
        OP_FINALIZE_PART => finalize_part_in_place(parts).map(or_error),
        OP_FINALIZE_SPLIT => finalize_split_in_place(parts).map(or_error),
        OP_SIMULATE | OP_SIMULATE_OWN_TAILS | OP_RUN | OP_UNITS => {
            decode_spec_parts(parts).map(|d| or_error(on_spec(op, d)))
        }
        _ => estimation_in_parts(op, parts).map(or_error),
    };
    in_place.unwrap_or_else(|| call(op, &parts.concat()))
}

/// OP_SIMULATE_KEPT: its lead the kept scenarios (what OP_UNITS gave for the spec's range, after
/// its status word), then the spec.
fn simulate_kept_parts(kept: &[f64], spec_input: &[f64]) -> Result<Vec<f64>> {
    simulate_kept_summed(kept, spec_input, None)
}

/// OP_SIMULATE_OPTIONS: its lead the kept scenarios, then the options (OP_OPTION_UNITS' words) and
/// the spec.
fn simulate_options_parts(kept: &[f64], input: &[f64]) -> Result<Vec<f64>> {
    let (units, tails) = decode_kept(kept)?;
    let mut r = Reader::new(input);
    let (assets, horizon, options) = decode_option_header(&mut r)?;
    let (spec, range, deadline) = decode_spec(&input[r.position()..])?;
    simulate_options(
        &spec, range, &deadline, units, tails, assets, horizon, &options,
    )
    .map(|p| encoded_partial(&spec, p))
}

/// OP_SIMULATE_KEPT with the books' group sums kept in `sums` between calls (`GroupSums`).
fn simulate_kept_summed(
    kept: &[f64],
    spec_input: &[f64],
    sums: Option<&mut [f64]>,
) -> Result<Vec<f64>> {
    let (units, tails) = decode_kept(kept)?;
    let (spec, range, deadline) = decode_spec(spec_input)?;
    simulate_kept(&spec, range, &deadline, units, tails, sums).map(|p| encoded_partial(&spec, p))
}

/// A task's partial encoded, its vectors then kept by the thread for its next task.
fn encoded_partial(spec: &Spec, p: Partial) -> Vec<f64> {
    let out = encode_partial(spec, &p);
    p.give_back();
    out
}

/// An answer the host has copied into its own memory, given back: the thread's next answer of its
/// size is written there rather than into fresh pages (a live tick's 1.2 MB partial faulted in
/// anew every time). Whether a host gives its answers back changes no answer.
pub fn recycle_answer(answer: Vec<f64>) {
    kept_vectors::give_back(answer);
}

/// `call_led(op, lead, input)`, OP_SIMULATE_KEPT keeping its books' group sums in `sums`, memory
/// the host keeps for one range of one set of kept scenarios and gives back on its next pricing
/// (`group_sums_words` long; memory of another length is not used). The same answer, bit for bit,
/// whatever `sums` holds.
pub fn call_led_summed(op: u32, lead: &[f64], input: &[f64], sums: &mut [f64]) -> Vec<f64> {
    if op != OP_SIMULATE_KEPT {
        return call_led(op, lead, input);
    }
    or_error(simulate_kept_summed(lead, input, Some(sums)))
}

/// The words of the group sums `call_led_summed(op, lead, input, …)` keeps: OP_SIMULATE_KEPT on a
/// spec it decodes; None otherwise.
pub fn group_sums_words(op: u32, input: &[f64]) -> Option<usize> {
    if op != OP_SIMULATE_KEPT {
        return None;
    }
    let (spec, range, _) = decode_spec(input).ok()?;
    Some(group_sums_length(
        spec.books().len(),
        spec.n_assets(),
        range.end - range.first,
    ))
}

/// `call(op, [lead.len(), lead…, input…])`, the lead read in place by the operations that take one
/// (`led_operation`).
pub fn call_led(op: u32, lead: &[f64], input: &[f64]) -> Vec<f64> {
    if let Some(run) = led_operation(op) {
        return or_error(run(lead, input));
    }
    let mut joined = Vec::with_capacity(1 + lead.len() + input.len());
    joined.push(lead.len() as f64);
    joined.extend_from_slice(lead);
    joined.extend_from_slice(input);
    call(op, &joined)
}

/// `call_led(op, lead, input)` decoded and checked, where its answer's length is known before it
/// runs (OP_OPTION_UNITS on valid input; None otherwise, and on input it refuses): a host
/// allocates `length()` words where the answer will live and has `write` fill them, once.
pub fn prepare_led<'a>(op: u32, lead: &'a [f64], input: &[f64]) -> Option<OptionUnitsCall<'a>> {
    match op {
        OP_OPTION_UNITS => OptionUnitsCall::decode(lead, input).ok(),
        _ => None,
    }
}

/// The operations on a decoded spec: OP_SIMULATE (the task's partial; OP_SIMULATE_OWN_TAILS its
/// tails kept to its own share), OP_RUN (the same followed by OP_FINALIZE on its one partial) and
/// OP_UNITS (the task's kept scenarios).
fn on_spec(op: u32, (spec, range, deadline): (Spec, BlockRange, Deadline)) -> Result<Vec<f64>> {
    match op {
        OP_SIMULATE => simulate(&spec, range, &deadline).map(|p| encoded_partial(&spec, p)),
        OP_SIMULATE_OWN_TAILS => {
            simulate_own_tails(&spec, range, &deadline).map(|p| encoded_partial(&spec, p))
        }
        OP_RUN => {
            ensure(range == spec.all_blocks(), "run covers every block")?;
            let partial = simulate(&spec, range, &deadline)?;
            finalize(&FinalizeParams::of(&spec), &mut [partial]).map(|m| encode_results(&m))
        }
        OP_UNITS => kept_units(&spec, range, &deadline).map(|(units, tails)| {
            let mut out = vec![0.0];
            out.extend(encode_kept(&units, &tails));
            out
        }),
        _ => Err(EngineError::invalid("unknown operation")),
    }
}
