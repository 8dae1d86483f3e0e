//! The data-aware process network computes exactly what the program computes: every kernel
//! of the test set, in float and double, at two tile shapes (one with parallel sub-bands, in
//! float interleaved wherever they can be), validated, executed under two random
//! interleavings at its computed channel sizes, is bit-identical to the reference interpreter
//! and never deadlocks.

use dpnc_dpn::ir::Dpn;
use dpnc_dpn::shape::Layout;
use dpnc_dpn::trace::Traces;
use dpnc_dpn::{exec, metrics, validate, Config, Construction};
use dpnc_frontend::{dataflow, interp, Options, Program, SourceMap, Store};
use std::path::{Path, PathBuf};

fn load(f: &Path, defines: &[(&str, &str)]) -> Program {
    let mut sm = SourceMap::new();
    let opts = Options { defines: defines.iter().map(|(n, v)| (n.to_string(), Some(v.to_string()))).collect(), ..Options::default() };
    dpnc_frontend::load(&mut sm, f, &opts).unwrap_or_else(|d| panic!("{}", d.render(&sm)))
}

fn cfg(tile: &[i64], par: &[i64], chunk: usize) -> Config {
    Config {
        tile: tile.to_vec(),
        par: par.to_vec(),
        subbands: Layout::Auto,
        hyperplanes: None,
        max_instances: 0,
        progress: false,
        on_step: None,
        keep_traces: true,
        codegen: false,
        every_band: false,
        chunk,
        max_band: 0,
    }
}

#[test]
fn every_kernel_runs_bit_exact_through_the_network() {
    let files = dpnc_tests::kernels();
    assert!(files.len() >= 20);
    let mut failures = Vec::new();
    let mut runs = 0;
    for f in &files {
        for ty in ["double", "float"] {
            let p = load(f, &[("DATA_TYPE", ty)]);
            let sare = dataflow::compute(&p).expect("dataflow");
            let params = p.param_values().expect("values");
            let inputs = Store::random(&p, 5);
            let mut want = inputs.clone();
            interp::run(&p, &params, &mut want).expect("interpreter");
            // The second shape with its bands streamed in chunks of 5 instances (`Config::chunk`),
            // in float with its sub-bands interleaved also where they pass values on (a ring).
            for (tile, par, chunk) in [(vec![4], vec![1], 0), (vec![4, 6], vec![2, 3], 5)] {
                let subbands = if chunk > 0 && ty == "float" { Layout::Interleaved } else { Layout::Auto };
                let Construction { dpn, traces, .. } = match dpnc_dpn::construct(&p, &sare, &Config { subbands, ..cfg(&tile, &par, chunk) })
                {
                    Ok(d) => d,
                    Err(e) => {
                        failures.push(format!("{} {ty} {tile:?}/{par:?}: build: {e}", f.display()));
                        continue;
                    }
                };
                let errs = validate::validate(&p, &dpn, &traces);
                if !errs.is_empty() {
                    failures.push(format!("{} {ty} {tile:?}/{par:?}: invalid: {}", f.display(), errs.join("; ")));
                }
                for seed in [1, 2] {
                    runs += 1;
                    match exec::run(&p, &dpn, &traces, &inputs, &exec::Options { seed, shrink: None }) {
                        Ok(out) => {
                            if let Some(m) = Store::compare(&p, &want, &out.store) {
                                failures.push(format!("{} {ty} {tile:?}/{par:?} seed {seed}: {m}", f.display()));
                            }
                            // The computed sizes are what the run needed, never less.
                            for (c, ch) in dpn.channels.iter().enumerate() {
                                assert!(out.peak[c] <= ch.size.max(1), "{}: {} peaked above its size", f.display(), ch.name);
                            }
                        }
                        Err(e) => failures.push(format!("{} {ty} {tile:?}/{par:?} seed {seed}: {e}", f.display())),
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} of {runs} runs failed:\n{}", failures.len(), failures.join("\n"));
}

/// A channel shrunk below its computed size deadlocks, and the report names it.
#[test]
fn a_too_small_channel_is_reported_as_a_deadlock() {
    let p = load(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("kernels/gemm.c"), &[]);
    let sare = dataflow::compute(&p).expect("dataflow");
    let Construction { dpn, traces, .. } = dpnc_dpn::construct(&p, &sare, &cfg(&[4], &[1], 0)).expect("builds");
    let victim = dpn.channels.iter().find(|c| c.size >= 4).expect("gemm has a channel holding a tile row");
    let inputs = Store::random(&p, 1);
    let err = exec::run(&p, &dpn, &traces, &inputs, &exec::Options { seed: 1, shrink: Some((victim.name.clone(), 1)) })
        .err()
        .expect("must deadlock");
    let text = err.to_string();
    assert!(text.contains("deadlock") && text.contains(&victim.name), "{text}");
    // The processes waiting on one another: a cycle of process names, through the channel
    // that is too small (its producer waits for room, so for its consumer).
    let cycle = text.lines().find_map(|l| l.trim().strip_prefix("waiting in a cycle: ")).expect("a cycle is named");
    let names: Vec<&str> = cycle.split(" → ").collect();
    assert!(names.len() >= 2 && names.first() == names.last(), "{cycle}");
    assert!(names.iter().all(|n| dpn.processes.iter().any(|pr| pr.name == *n)), "{cycle}");
    let (producer, consumer) = (&dpn.processes[victim.producer].name, &dpn.processes[victim.consumer].name);
    assert!(names.windows(2).any(|w| w[0] == producer && w[1] == consumer), "{cycle} does not pass {producer} → {consumer}\n{text}");
}

/// The validator is not vacuous: a network with a dropped demux entry is rejected.
#[test]
fn the_validator_catches_a_missing_write() {
    let p = load(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("kernels/jacobi_1d.c"), &[]);
    let sare = dataflow::compute(&p).expect("dataflow");
    let Construction { dpn, mut traces, .. } = dpnc_dpn::construct(&p, &sare, &cfg(&[4], &[1], 0)).expect("builds");
    assert!(validate::validate(&p, &dpn, &traces).is_empty());
    let dropped = traces.per_process.iter_mut().find_map(|t| match t {
        dpnc_dpn::trace::Trace::Compute { ops, .. } => ops.iter_mut().find(|o| !o.writes.is_empty()).map(|o| o.writes.pop()),
        _ => None,
    });
    assert!(dropped.is_some());
    assert!(!validate::validate(&p, &dpn, &traces).is_empty());
}

/// DESIGN.md §4's worked example, for our own GEMM kernel at the same sizes: tiles 32³,
/// order (i, j, k): A 14,400 + B 11,200 + C 4,200 loaded and C 4,200 stored, in words.
#[test]
fn gemm_traffic_matches_the_model() {
    let f = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("kernels/gemm.c");
    let p = load(&f, &[("NI", "60"), ("NJ", "70"), ("NK", "80"), ("DATA_TYPE", "float")]);
    let sare = dataflow::compute(&p).expect("dataflow");
    let dpn = dpnc_dpn::build(&p, &sare, &cfg(&[32], &[1], 0)).expect("builds");
    let r = metrics::report(&p, &dpn);
    assert_eq!(r.bands, 6);
    let var = |n: &str| p.var(n).expect("declared");
    assert_eq!(dpn.ddr_reads[var("A")], 14_400);
    assert_eq!(dpn.ddr_reads[var("B")], 11_200);
    assert_eq!(dpn.ddr_reads[var("C")], 4_200);
    assert_eq!(dpn.ddr_writes[var("C")], 4_200);
    assert_eq!(r.ddr_bytes(), 136_000);
    assert_eq!(r.compulsory_bytes, 4 * (60 * 80 + 80 * 70 + 2 * 60 * 70));
}

/// With every dimension tiled, channel sizes depend on the tiles, not on the problem size.
#[test]
fn on_chip_memory_does_not_grow_with_the_problem() {
    let f = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("kernels/gemm.c");
    let words: Vec<u64> = [("8", "8", "8"), ("16", "24", "32"), ("40", "48", "56")]
        .iter()
        .map(|(i, j, k)| {
            let p = load(&f, &[("NI", i), ("NJ", j), ("NK", k)]);
            let sare = dataflow::compute(&p).expect("dataflow");
            metrics::report(&p, &dpnc_dpn::build(&p, &sare, &cfg(&[4], &[1], 0)).expect("builds")).onchip_words
        })
        .collect();
    assert!(words.windows(2).all(|w| w[0] == w[1]), "{words:?}");
}

/// The IR round-trips through JSON (`--emit dpn-json`).
#[test]
fn the_network_round_trips_through_json() {
    let p = load(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("kernels/jacobi_2d.c"), &[]);
    let sare = dataflow::compute(&p).expect("dataflow");
    let dpn = dpnc_dpn::build(&p, &sare, &cfg(&[4], &[2], 0)).expect("builds");
    let text = serde_json::to_string(&dpn).expect("serialises");
    let back: dpnc_dpn::Dpn = serde_json::from_str(&text).expect("parses");
    assert_eq!(serde_json::to_string(&back).expect("serialises"), text);
    assert_eq!(back.channels.len(), dpn.channels.len());
    assert!(back.processes.iter().any(|p| p.domain.contains("floor")), "compute domains carry their sub-band condition");
}

/// The executor's run of `dpn` on random inputs gives the interpreter's outputs (a failure
/// says `what` first).
fn runs_as_the_interpreter(p: &Program, dpn: &Dpn, traces: &Traces, what: &str) {
    let inputs = Store::random(p, 3);
    let mut want = inputs.clone();
    interp::run(p, &p.param_values().expect("values"), &mut want).expect("interpreter");
    let out = exec::run(p, dpn, traces, &inputs, &exec::Options { seed: 1, shrink: None }).expect("runs");
    if let Some(m) = Store::compare(p, &want, &out.store) {
        panic!("{what}{m}");
    }
}

/// BiCG's two reductions want opposite point orders (s[j] sums over i, q[i] over j): each
/// statement keeps its own, so neither accumulates along its innermost point loop, and the
/// tile runs them one group after the other. Each sum then goes round through a FIFO of a
/// tile's row of partial sums instead of one value waiting on the adder; the outputs stay
/// those of the interpreter.
#[test]
fn independent_reductions_keep_their_own_point_orders() {
    let p = load(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("kernels/bicg.c"), &[("N", "12"), ("M", "10")]);
    let sare = dataflow::compute(&p).expect("dataflow");
    let Construction { dpn, traces, .. } = dpnc_dpn::construct(&p, &sare, &cfg(&[4], &[1], 0)).expect("builds");
    let stmt = |name: &str| p.stmts.iter().position(|s| s.name == name).expect("statement");
    let (s2, s3) = (stmt("S2"), stmt("S3"));
    let nest = dpn.nests.iter().find(|n| n.stmts.contains(&s2)).expect("nest");
    assert!(nest.stmts.contains(&s3));
    assert_ne!(nest.group(s2), nest.group(s3), "two groups");
    assert_ne!(nest.point(s2, 0), nest.point(s3, 0), "opposite orders");
    for s in ["S2", "S3"] {
        let own = format!("{s}_0_to_{s}_0_r0");
        let ch = dpn.channels.iter().find(|c| c.name == own).unwrap_or_else(|| panic!("no channel {own}"));
        assert_eq!(ch.size, 4, "{own}: one partial sum per point of a tile row");
    }
    runs_as_the_interpreter(&p, &dpn, &traces, "");
}

/// Where sub-bands along j would each read less than a DDR line of every row of A (two
/// doubles of a 4-wide tile at `--par 2`), BiCG's nest is banded along i instead, its last
/// hyperplane along A's rows, so that each sub-band reads whole rows of its own; sequentially
/// it keeps (j, i), s[j]'s reduction along the last hyperplane. Both run as the interpreter
/// does.
#[test]
fn parallel_bands_split_the_rows_of_a_read_only_matrix() {
    let p = load(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("kernels/bicg.c"), &[("N", "12"), ("M", "10")]);
    let sare = dataflow::compute(&p).expect("dataflow");
    let s3 = p.stmts.iter().position(|s| s.name == "S3").expect("S3");
    let (i, j) = (0, 1);
    for (par, band) in [(1, j), (2, i)] {
        let Construction { dpn, traces, .. } = dpnc_dpn::construct(&p, &sare, &cfg(&[4], &[par], 0)).expect("builds");
        let nest = dpn.nests.iter().find(|n| n.stmts.contains(&s3)).expect("nest");
        let first = &nest.phi_of(s3)[0];
        assert!(first.coef[band] != 0 && first.coef.iter().filter(|&&c| c != 0).count() == 1, "par {par}: band hyperplane {first:?}");
        runs_as_the_interpreter(&p, &dpn, &traces, &format!("par {par}: "));
    }
}

/// Sub-bands: GEMM's i and j carry no dependence, so by default each of two sub-bands takes
/// every other row (and column) of a tile; Jacobi-1D's time carries one, so its sub-bands are
/// slices unless interleaving is asked for or a band is one tile along its last hyperplane.
/// Each compute process's loop nest visits exactly the points of its part.
#[test]
fn sub_bands_are_interleaved_where_no_dependence_crosses_them() {
    let kernels = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("kernels");
    let parts = |file: &str, tile: &[i64], layout: Layout| {
        let p = load(&kernels.join(file), &[]);
        let sare = dataflow::compute(&p).expect("dataflow");
        let cfg = Config { subbands: layout, keep_traces: false, ..cfg(tile, &[2], 0) };
        let dpn = dpnc_dpn::build(&p, &sare, &cfg).expect("builds");
        // Per compute process, its sub-band and the value of each band hyperplane's first
        // iterator (i for GEMM's, t for Jacobi-1D's) at every point it runs.
        let mut seen = Vec::new();
        for pr in &dpn.processes {
            let dpnc_dpn::ir::ProcessKind::Compute { subband, .. } = &pr.kind else { continue };
            let mut firsts = Vec::new();
            pr.loops.as_ref().expect("a loop nest").for_each(&mut |it| firsts.push(it[0]));
            seen.push((subband.clone(), firsts));
        }
        (dpn.interleaved, seen)
    };
    let (gemm, seen) = parts("gemm.c", &[4], Layout::Auto);
    assert_eq!(gemm, vec![vec![true, true]]);
    for (sub, rows) in &seen {
        assert!(!rows.is_empty() && rows.iter().all(|i| i % 2 == sub[0]), "{sub:?} runs rows {rows:?}");
    }
    // Its skewed hyperplane 2t + i spans 2..=28: one tile of 64.
    for (tile, layout, want) in [(vec![4], Layout::Auto, false), (vec![4], Layout::Interleaved, true), (vec![4, 64], Layout::Auto, true)] {
        let (jacobi, seen) = parts("jacobi_1d.c", &tile, layout);
        assert_eq!(jacobi, vec![vec![want]], "{tile:?} {layout:?}");
        for (sub, steps) in &seen {
            // Tiles of 4 time steps: slices of two, or every other step.
            let part = |t: &i64| if want { t % 2 } else { t % 4 / 2 };
            assert!(!steps.is_empty() && steps.iter().all(|t| part(t) == sub[0]), "{tile:?} {layout:?} {sub:?} runs steps {steps:?}");
        }
    }
}

/// A doitgen-shaped nest: `sum[p]` is reset and refilled for every (r, q), so its reuse of
/// cells across them would forbid tiling r and q; but every read of `sum` takes a value the
/// same (r, q) wrote, so its values never leave their band and the reuse orders nothing:
/// the nest is banded along r and q. `acc[p]`, read before the nest writes it (its values
/// come from DDR), keeps its reuse: that nest stays banded along r alone. Both run as the
/// interpreter does, at one and two sub-bands.
#[test]
fn a_private_array_does_not_order_the_bands() {
    let kernel = |reset: &str| {
        format!(
            "void kernel_k(int nr, int nq, int np, double A[6][5][4], double C[4][4], double sum[4]) {{
#pragma scop
  for (int r = 0; r < nr; r++)
    for (int q = 0; q < nq; q++) {{
      for (int p = 0; p < np; p++) {{
        {reset}
        for (int s = 0; s < np; s++)
          sum[p] += A[r][q][s] * C[s][p];
      }}
      for (int p = 0; p < np; p++)
        A[r][q][p] = sum[p];
    }}
#pragma endscop
}}
int main(void) {{ static double A[6][5][4], C[4][4], sum[4]; kernel_k(6, 5, 4, A, C, sum); return 0; }}
"
        )
    };
    let dir = std::env::temp_dir().join(format!("dpnc-private-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for (reset, banded) in [("sum[p] = 0.0;", 2), ("", 1)] {
        let f = dir.join(format!("k{banded}.c"));
        std::fs::write(&f, kernel(reset)).expect("kernel file");
        let p = load(&f, &[]);
        let sare = dataflow::compute(&p).expect("dataflow");
        for par in [1, 2] {
            let Construction { dpn, traces, .. } = dpnc_dpn::construct(&p, &sare, &cfg(&[2], &[par], 0)).expect("builds");
            let nest = &dpn.nests[0];
            assert_eq!(nest.dims, banded, "reset `{reset}`, par {par}: {}", nest.how);
            assert!(nest.how.contains(if banded == 2 { "hyperplanes (r, q)" } else { "hyperplanes (r)" }), "{}", nest.how);
            runs_as_the_interpreter(&p, &dpn, &traces, &format!("reset `{reset}`, par {par}: "));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A nest with big bands is tiled again with statements shifted past whole loops.
/// Covariance's `cov[i][j] /= …` and `cov[j][i] = …` come after the k loop that sums
/// `cov[i][j]`, which keeps k out of the band: a band is a tile of rows by every column by
/// every k (up to 672 instances here). Where that is over a tenth of the instances a band
/// may hold (limits of 400 and 4,000: too big to build, and big), k is tiled too, both
/// statements at the loop's last k, and the outputs stay the interpreter's; under a tenth
/// (10,000) the nest keeps its two hyperplanes. A nest that this cannot help (GEMM's, tiled
/// along every loop already) is still refused.
#[test]
fn a_nest_with_big_bands_is_tiled_past_whole_loops() {
    let kernel = |name: &str| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("kernels").join(name);
    let limited = |max_band: usize, par: &[i64]| Config { max_band, ..cfg(&[4], par, 0) };
    for ty in ["double", "float"] {
        let p = load(&kernel("covariance.c"), &[("DATA_TYPE", ty)]);
        let sare = dataflow::compute(&p).expect("dataflow");
        let stmt = |name: &str| p.stmts.iter().position(|s| s.name == name).expect("statement");
        let nest_of = |dpn: &Dpn| dpn.nests.iter().find(|n| n.stmts.contains(&stmt("S5"))).cloned().expect("nest");
        for plain in [cfg(&[4], &[1], 0), limited(10_000, &[1])] {
            let plain = dpnc_dpn::construct(&p, &sare, &plain).expect("builds");
            assert_eq!(nest_of(&plain.dpn).dims, 2, "{}", nest_of(&plain.dpn).how);
        }
        for (max_band, par) in [(400, vec![1]), (4_000, vec![1]), (400, vec![2])] {
            let Construction { dpn, traces, .. } = dpnc_dpn::construct(&p, &sare, &limited(max_band, &par)).expect("builds");
            let nest = nest_of(&dpn);
            assert_eq!(nest.dims, 3, "{}", nest.how);
            assert!(nest.how.contains("shifted past"), "{}", nest.how);
            // N = 16 observations: the statements after the k loop sit at its last k.
            for s in ["S6", "S7"] {
                let row = &nest.phi[nest.stmts.iter().position(|&k| k == stmt(s)).expect("in the nest")][2];
                assert!(row.coef.iter().all(|&c| c == 0) && row.cst == 15, "{s}: {row:?}");
            }
            assert!(validate::validate(&p, &dpn, &traces).is_empty());
            runs_as_the_interpreter(&p, &dpn, &traces, &format!("covariance {ty} max_band {max_band} par {par:?}: "));
        }
    }
    let p = load(&kernel("gemm.c"), &[]);
    let sare = dataflow::compute(&p).expect("dataflow");
    let Err(err) = dpnc_dpn::construct(&p, &sare, &Config { max_band: 10, ..cfg(&[4], &[1], 0) }) else {
        panic!("GEMM's bands are refused")
    };
    let err = err.to_string();
    assert!(err.contains("holds more than 10 statement instances (the tiles are too large)"), "{err}");
}
