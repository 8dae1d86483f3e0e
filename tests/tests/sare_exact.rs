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

/// `for_each_run` (what counting and construction's survey use) covers exactly the
/// instances `for_each_instance` visits, each statement's in program order: on the test set,
/// the bug reproducers and random kernels (guards, loops running down, empty loops).
#[test]
fn runs_are_the_instances() {
    let mut files = dpnc_tests::kernels();
    files.extend(dpnc_tests::c_files(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("regress")));
    let dir = std::env::temp_dir().join(format!("dpnc-runs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for seed in 0..200u64 {
        let f = dir.join(format!("gen{seed}.c"));
        std::fs::write(&f, dpnc_tests::gen::Kernel::generate(seed).render()).expect("write");
        files.push(f);
    }
    let mut checked = 0;
    for f in &files {
        let mut sm = SourceMap::new();
        let Ok(p) = dpnc_frontend::load(&mut sm, f, &Options::default()) else { continue };
        let params = p.param_values().expect("parameters have values");
        let mut want: Vec<Vec<Vec<i64>>> = vec![Vec::new(); p.stmts.len()];
        interp::for_each_instance(&p, &params, &mut |k, it| {
            want[k].push(it.to_vec());
            Ok(())
        })
        .expect("instances");
        let mut got: Vec<Vec<Vec<i64>>> = vec![Vec::new(); p.stmts.len()];
        interp::for_each_run(&p, &params, &mut |k, it, len, step| {
            let mut x = it.to_vec();
            for _ in 0..len {
                got[k].push(x.clone());
                if let Some(l) = x.last_mut() {
                    *l += step;
                }
            }
            Ok(())
        })
        .expect("runs");
        assert_eq!(got, want, "{}", f.display());
        checked += 1;
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(checked > 200, "only {checked} kernels loaded");
}

/// A statement reads each distinct access once: Floyd-Warshall's statement
/// `D[i][j] = D[i][j] < D[i][k] + D[k][j] ? D[i][j] : D[i][k] + D[k][j]` names three cells
/// twice each, and has three reads (three ports, three channels in hardware); no statement
/// of the test set repeats one.
#[test]
fn each_distinct_access_is_read_once() {
    let mut checked = 0;
    for f in &dpnc_tests::kernels() {
        let mut sm = SourceMap::new();
        let p = dpnc_frontend::load(&mut sm, f, &Options::default()).unwrap_or_else(|d| panic!("{}", d.render(&sm)));
        for s in &p.stmts {
            for (r, a) in s.reads.iter().enumerate() {
                let again = s.reads[..r].iter().any(|q| q.var == a.var && q.index == a.index);
                assert!(!again, "{}: {} reads one access twice", f.display(), s.name);
            }
        }
        if f.file_stem().is_some_and(|n| n == "floyd_warshall") {
            assert_eq!(p.stmts.iter().map(|s| s.reads.len()).collect::<Vec<_>>(), [3]);
            checked += 1;
        }
    }
    assert_eq!(checked, 1, "floyd_warshall.c is in the test set");
}
