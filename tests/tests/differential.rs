//! Differential testing on every run: random kernels from `dpnc_tests::gen` (a fixed range of
//! seeds), each through the reference interpreter, the SARE evaluator and the DPN executor at
//! three random tile/`--par` shapes with two executor seeds, compared bit for bit
//! (`dpnc_tests::diff`). A failing kernel is minimised and its reproducer printed, ready to
//! become a file in `tests/regress/`.
//!
//! Longer runs: `cargo run --release -p dpnc-tests --bin diff -- --seeds 1000 [--start S]`.
//!
//! `tests/regress/*.c` are reproducers of bugs the driver found, checked here with the
//! configuration in their header (`Config: tile=… par=… seed=… input=…`). A file whose
//! header has a `Status: open` line documents a bug not fixed yet: it is checked only by the
//! ignored `open_regressions` test, and its seed is skipped by the random runs.

use dpnc_tests::diff::{self, DpnCfg, Failure};
use dpnc_tests::gen::{Kernel, Node};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The CI seed range, split over two tests so that both cores work: about 390 s of CPU in
/// the `test` profile, 3–4 minutes on two cores.
const SEEDS: std::ops::Range<u64> = 0..SEEDS_END;
const SEEDS_END: u64 = 1400;

fn regress_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("regress")
}

/// `(path, text, open)` for every reproducer in `tests/regress`.
fn regressions() -> Vec<(PathBuf, String, bool)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(regress_dir())
        .map(|rd| rd.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|e| e == "c")).collect())
        .unwrap_or_default();
    files.sort();
    files
        .into_iter()
        .map(|f| {
            let text = std::fs::read_to_string(&f).expect("read a reproducer");
            let open = text.lines().take_while(|l| !l.starts_with("#")).any(|l| l.contains("Status: open"));
            (f, text, open)
        })
        .collect()
}

/// Seeds whose kernels hit an open bug (from the `seed N` in the reproducers' headers).
fn open_seeds() -> Vec<u64> {
    regressions()
        .iter()
        .filter(|r| r.2)
        .filter_map(|(_, text, _)| {
            let l = text.lines().next()?;
            let s = l.split("seed ").nth(1)?;
            s.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()
        })
        .collect()
}

fn run(seeds: impl Iterator<Item = u64>) {
    let t0 = Instant::now();
    let open = open_seeds();
    let (skip, seeds): (Vec<u64>, Vec<u64>) = seeds.partition(|s| open.contains(s));
    let out = std::env::temp_dir().join(format!("dpnc-diff-{}", std::process::id()));
    let t = diff::run_seeds(seeds.iter().copied(), Some(&out), Duration::from_secs(30), true);
    println!(
        "{} random kernels ({} statements), {} engine runs (SARE + DPN configurations x executor seeds) bit-exact with the interpreter, {} skipped as open bugs, {:.1} s",
        t.kernels,
        t.statements,
        t.runs,
        skip.len(),
        t0.elapsed().as_secs_f64()
    );
    assert_eq!(t.kernels, seeds.len());
    // Every kernel reaches the comparison with 7 engines unless it failed.
    assert!(t.runs >= 7 * (t.kernels - t.failures.len()), "only {} engine runs for {} kernels", t.runs, t.kernels);
    let shown: Vec<String> = t
        .failures
        .iter()
        .map(|(s, f)| {
            let file = out.join(format!("seed-{s}.c"));
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            format!("seed {s}: {f}\n--- minimised reproducer ({}):\n{text}", file.display())
        })
        .collect();
    assert!(t.failures.is_empty(), "{} of {} random kernels failed:\n{}", t.failures.len(), t.kernels, shown.join("\n"));
}

#[test]
fn random_kernels_first_half() {
    run(SEEDS.start..SEEDS_END / 2);
}

#[test]
fn random_kernels_second_half() {
    run(SEEDS_END / 2..SEEDS.end);
}

/// Checks one reproducer: the SARE evaluator and the DPN at the header's configuration (both
/// executor seeds), plus a default shape.
fn check_regression(path: &Path, text: &str) -> Vec<Failure> {
    let (cfg, input) = diff::parse_config(text).unwrap_or((DpnCfg { tile: vec![2], par: vec![1], seed: 1 }, 1));
    let mut engines = vec![diff::sare_engine()];
    for seed in [cfg.seed, cfg.seed + 1] {
        engines.push(diff::dpn_engine(DpnCfg { seed, ..cfg.clone() }));
    }
    engines.push(diff::dpn_engine(DpnCfg { tile: vec![3], par: vec![2], seed: 1 }));
    let rep = diff::check(text, input, &engines);
    assert!(rep.ran > 0 || !rep.failures.is_empty(), "{}: nothing ran", path.display());
    rep.failures
}

#[test]
fn fixed_regressions_stay_fixed() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for (f, text, open) in regressions() {
        if open {
            continue;
        }
        checked += 1;
        for x in check_regression(&f, &text) {
            failures.push(format!("{}: {x}", f.display()));
        }
    }
    println!("{checked} regression reproducer(s) checked");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
#[ignore = "issue: open bugs found by the differential driver, one reproducer each in tests/regress (`Status: open`)"]
fn open_regressions() {
    let mut failures = Vec::new();
    for (f, text, open) in regressions() {
        if open {
            for x in check_regression(&f, &text) {
                failures.push(format!("{}: {x}", f.display()));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The generator's kernels are what it promises: accepted, in bounds, with 1–4 statements,
/// loop depths 1–4, and they vary with the seed.
#[test]
fn generator_covers_its_space() {
    let mut depths = [0usize; 5];
    let mut stmts = [0usize; 5];
    let (mut guards, mut minmax, mut types) = (0, 0, std::collections::BTreeSet::new());
    let (mut divisions, mut remainders, mut negative_remainders) = (0, 0, 0);
    for seed in 1000..1150 {
        let k = Kernel::generate(seed);
        let text = k.render();
        depths[diff::depth(&k)] += 1;
        stmts[k.stmt_count().min(4)] += 1;
        guards += text.contains("if (") as usize;
        minmax += (text.contains("min(") || text.contains("max(")) as usize;
        divisions += text.contains(") / ") as usize;
        negative_remainders += (text.contains("% 2 == -") || text.contains("% 3 == -")) as usize;
        remainders += (text.contains("% 2 == ") || text.contains("% 3 == ")) as usize;
        for t in ["int ", "float ", "double "] {
            if text.contains(&format!("static {t}")) {
                types.insert(t);
            }
        }
        diff::prepare(&text, 1).unwrap_or_else(|f| panic!("seed {seed}: {f}\n{text}"));
    }
    println!(
        "depths {depths:?}, statements {stmts:?}, {guards} with guards, {minmax} with min/max, {divisions} with divided subscripts, {remainders} with remainder guards ({negative_remainders} negative)"
    );
    assert!(depths[1..].iter().all(|&d| d > 5), "loop depths 1-4 all appear: {depths:?}");
    assert!(stmts[1..].iter().all(|&d| d > 5), "1-4 statements all appear: {stmts:?}");
    assert!(guards > 15 && minmax > 15, "guards {guards}, min/max {minmax}");
    assert!(
        divisions > 15 && remainders > 5 && negative_remainders > 0,
        "divided subscripts {divisions}, remainder guards {remainders} ({negative_remainders} negative)"
    );
    assert_eq!(types.len(), 3, "int, float and double arrays all appear");
}

/// Whether some statement reads through a subscript with offset `+ 1` (before the shift
/// that `render` applies to keep subscripts non-negative).
fn reads_at_plus_one(k: &Kernel) -> bool {
    fn go(ns: &[Node]) -> bool {
        ns.iter().any(|n| match n {
            Node::For { body, .. } => go(body),
            Node::If { then, els, .. } => go(then) || go(els),
            Node::Stmt(s) => {
                let mut reads = Vec::new();
                s.rhs.reads(&mut reads);
                reads.iter().any(|a| a.subs.iter().any(|l| l.c == 1 && !l.terms.is_empty()))
            }
        })
    }
    go(&k.body)
}

/// The minimiser keeps a failure and shrinks the kernel: a fake failure, "some statement
/// reads `X[it + 1]`", on a kernel with several statements.
#[test]
fn minimiser_shrinks_and_keeps_the_failure() {
    let seed = (0..500)
        .find(|&s| {
            let k = Kernel::generate(s);
            k.stmt_count() >= 3 && reads_at_plus_one(&k)
        })
        .expect("some kernel has an offset read and 3 statements");
    let k = Kernel::generate(seed);
    let before = k.render();
    let small = diff::minimise_with(&k, Duration::from_secs(60), &reads_at_plus_one);
    let after = small.render();
    assert!(reads_at_plus_one(&small), "the minimised kernel lost the failure:\n{after}");
    assert!(after.len() < before.len(), "not smaller:\n{before}\n---\n{after}");
    assert_eq!(small.stmt_count(), 1, "one statement suffices:\n{after}");
    // The minimised kernel is still a valid kernel.
    diff::prepare(&after, 1).unwrap_or_else(|f| panic!("minimised kernel invalid: {f}\n{after}"));
}
