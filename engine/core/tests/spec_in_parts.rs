//! A spec given in parts (`call_parts`) as [the spec up to its last count, the factor or the
//! returns] is read where the parts lie (a host shares the model between a calculation's tasks);
//! whatever the split, and whether the spec is good or refused, the answer of OP_SIMULATE,
//! OP_SIMULATE_OWN_TAILS, OP_RUN and OP_UNITS is `call`'s on the joined input, bit for bit.
mod common;

use common::{blocks, book, encode_fields, historical_spec, spec, Draw};
use risk_engine_core::abi::codec::{decode_spec, decode_spec_parts};
use risk_engine_core::abi::constants::{
    OP_RUN, OP_SIMULATE, OP_SIMULATE_OWN_TAILS, OP_UNITS, SPEC_HEADER_LEN,
};
use risk_engine_core::abi::{call, call_parts};
use risk_engine_core::spec::{Comparison, Method, Mode, SpecFields};

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// `input` cut at `cuts` (positions in order, within the input).
fn cut<'a>(input: &'a [f64], cuts: &[usize]) -> Vec<&'a [f64]> {
    let mut at = vec![0];
    at.extend(cuts.iter().copied().filter(|&c| c <= input.len()));
    at.push(input.len());
    at.windows(2).map(|w| &input[w[0]..w[1]]).collect()
}

/// Where the factor or the returns start in an encoding of `f`.
fn model_at(f: &SpecFields, encoded: &[f64]) -> usize {
    let model = if f.method == Method::Historical {
        f.returns.len()
    } else {
        f.factor.len()
    };
    encoded.len() - model
}

/// Every operation on a spec answers in parts cut at `cuts` as on the joined input.
fn same_in_parts(input: &[f64], cuts: &[usize], what: &str) {
    let parts = cut(input, cuts);
    for op in [OP_SIMULATE, OP_SIMULATE_OWN_TAILS, OP_RUN, OP_UNITS] {
        assert_eq!(
            bits(&call_parts(op, &parts)),
            bits(&call(op, input)),
            "{what}: op {op}, cut at {cuts:?}"
        );
    }
}

/// Good specs of every kind of model: triangular, loadings, Student-t, historical, what-if with
/// importance sampling, buy-and-hold.
fn models() -> Vec<(&'static str, SpecFields)> {
    let normal = spec(Method::MonteCarloNormal, Mode::Rebalanced, 3_000);
    let mut loadings = normal.clone();
    loadings.factor = vec![0.010, 0.002, 0.011, -0.004, 0.003, 0.008];
    loadings.factor_columns = 2;
    let mut student = spec(Method::MonteCarloStudentT, Mode::BuyAndHold, 1_000);
    student.antithetic = true;
    let mut what_if = spec(Method::MonteCarloNormal, Mode::BuyAndHold, 2_000);
    what_if.books.push(book(900_000.0, &[0.4, 0.4, 0.2]));
    what_if.comparison = Comparison::WhatIf;
    what_if.importance_sampling = true;
    vec![
        ("normal", normal),
        ("loadings", loadings),
        ("Student-t", student),
        ("what-if", what_if),
        ("historical", historical_spec(Mode::BuyAndHold, 600)),
        (
            "historical rebalanced",
            historical_spec(Mode::Rebalanced, 300),
        ),
    ]
}

#[test]
fn a_spec_in_parts_is_read_where_they_lie_and_answers_as_joined() {
    for (what, f) in models() {
        let all = blocks(&f);
        for (first, end) in [(0, all), (0, 1), (all - 1, all)] {
            let input = encode_fields(&f, first, end);
            let at = model_at(&f, &input);
            let parts = cut(&input, &[at]);
            let (joined, range, _) = decode_spec(&input).expect("a good spec");
            let (in_place, in_place_range, _) = decode_spec_parts(&parts).expect("read in place");
            assert!(in_place == joined && in_place_range == range, "{what}");
            let len = input.len();
            for cuts in [
                &[at][..],
                &[at - 1],
                &[at + 1],
                &[SPEC_HEADER_LEN, at],
                &[at, len],
                &[0, at],
                &[],
            ] {
                same_in_parts(&input, cuts, what);
            }
        }
    }
}

#[test]
fn a_refused_spec_in_parts_is_refused_as_joined() {
    let mut draw = Draw(0x5eed_5bec);
    for (what, f) in models() {
        let input = encode_fields(&f, 0, blocks(&f));
        let at = model_at(&f, &input);
        let mut nan_model = input.clone();
        nan_model[at + draw.below(input.len() - at)] = f64::NAN;
        let mut model_count = input.clone();
        model_count[at - 1] += 1.0;
        let mut beyond = input.clone();
        beyond[SPEC_HEADER_LEN - 4] = (blocks(&f) + 1) as f64;
        let mut method = input.clone();
        method[0] = 9.0;
        let mut one_long = input.clone();
        one_long.push(0.001);
        let one_short = &input[..input.len() - 1];
        for (bad, kind) in [
            (&nan_model[..], "a NaN in the model"),
            (&model_count, "the model's count one more"),
            (&beyond, "blocks beyond the scenarios"),
            (&method, "an unknown method"),
            (&one_long, "one word too many"),
            (one_short, "one word short"),
        ] {
            assert_ne!(call(OP_SIMULATE, bad)[0], 0.0, "{what}: {kind} accepted");
            for cuts in [&[at][..], &[at - 1], &[SPEC_HEADER_LEN]] {
                same_in_parts(bad, cuts, &format!("{what}: {kind}"));
            }
        }
        // A good head whose model part is a word short or long is refused as joined too.
        let mut longer = input.clone();
        longer.insert(at, 0.002);
        same_in_parts(&longer, &[at], &format!("{what}: the model a word long"));
    }
}
