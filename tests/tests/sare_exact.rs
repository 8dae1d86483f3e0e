//! The dataflow is exact: on every kernel of the project's test set, in float and in double,
//! on several random inputs, the SARE evaluator (which follows only the dataflow) gives the
//! same bits as the reference interpreter (which follows only the program).

use dpnc_frontend::{dataflow, interp, sare_eval, Options, SourceMap, Store};
use std::path::PathBuf;

#[test]
fn sare_evaluator_is_bit_exact_with_the_interpreter() {
    let files = dpnc_tests::kernels();
    assert!(files.len() >= 20, "the test set has only {} kernels", files.len());
    let mut failures = Vec::new();
    let mut checked = 0;
    for f in &files {
        for ty in ["double", "float"] {
            let opts = Options { defines: vec![("DATA_TYPE".into(), Some(ty.into()))], ..Options::default() };
            let mut sm = SourceMap::new();
            let p = match dpnc_frontend::load(&mut sm, f, &opts) {
                Ok(p) => p,
                Err(d) => {
                    failures.push(format!("{} ({ty}): {}", f.display(), d.render(&sm)));
                    continue;
                }
            };
            let sare = dataflow::compute(&p).expect("dataflow");
            let params = p.param_values().expect("parameters have values");
            for seed in [1u64, 2, 3] {
                let inputs = Store::random(&p, seed);
                let mut mem = inputs.clone();
                interp::run(&p, &params, &mut mem).expect("interpreter");
                let got = sare_eval::evaluate(&p, &sare, &params, &inputs).expect("SARE evaluator");
                if let Some(m) = Store::compare(&p, &mem, &got) {
                    failures.push(format!("{} ({ty}, seed {seed}): {m}", f.display()));
                }
                // The kernel must have done something observable.
                assert!(Store::compare(&p, &mem, &inputs).is_some(), "{}: the kernel changed nothing", f.display());
                checked += 1;
            }
        }
    }
    assert!(failures.is_empty(), "{} of {checked} runs differ:\n{}", failures.len(), failures.join("\n"));
}

/// A deliberately wrong dataflow is caught: swapping two sources of a read changes results.
#[test]
fn a_wrong_source_is_detected() {
    let f = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("kernels/jacobi_1d.c");
    let mut sm = SourceMap::new();
    let p = dpnc_frontend::load(&mut sm, &f, &Options::default()).expect("loads");
    let mut sare = dataflow::compute(&p).expect("dataflow");
    // Drop the first statement-produced source piece of the first read that has one: those
    // instances then find no source at all, or the evaluator must notice.
    let (s, r) = (0..p.stmts.len())
        .flat_map(|s| (0..p.stmts[s].reads.len()).map(move |r| (s, r)))
        .find(|&(s, r)| sare.reads[s][r].sources.iter().any(|x| x.stmt.is_some()))
        .expect("jacobi reads values it computed");
    let k = sare.reads[s][r].sources.iter().position(|x| x.stmt.is_some()).expect("found above");
    sare.reads[s][r].sources.remove(k);
    let params = p.param_values().expect("values");
    let inputs = Store::random(&p, 7);
    let mut mem = inputs.clone();
    interp::run(&p, &params, &mut mem).expect("interpreter");
    match sare_eval::evaluate(&p, &sare, &params, &inputs) {
        Err(_) => {}
        Ok(got) => assert!(Store::compare(&p, &mem, &got).is_some(), "a missing source went unnoticed"),
    }
}
