//! The command line under attack: malformed and unsupported kernels (`tests/cli_bad/*.c`),
//! absurd tile sizes and parallelism, unknown boards, unwritable or missing paths, malformed
//! `.npy` inputs — each run through the real `dpnc` binary. Every case must exit non-zero
//! with a clear message on stderr (`error` wording, `FILE:LINE:COL` where the input has a
//! position, no panic text, no backtrace) and leave no output directory behind.
//!
//! The binary: `target/<profile>/dpnc` next to this test's own executable, built first with
//! `cargo build -p dpnc` in the same profile (a no-op when it is up to date).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// `target/<profile>/dpnc`, built if needed.
fn dpnc() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        // target/<profile>/deps/cli_errors-HASH → target/<profile>
        let exe = std::env::current_exe().expect("test executable path");
        let profile_dir = exe.parent().and_then(Path::parent).expect("target/<profile>").to_path_buf();
        let target = profile_dir.parent().expect("target dir").to_path_buf();
        let bin = profile_dir.join(format!("dpnc{}", std::env::consts::EXE_SUFFIX));
        let profile = if profile_dir.ends_with("release") { "release" } else { "test" };
        let status = Command::new(env!("CARGO"))
            .args(["build", "--quiet", "--profile", profile, "-p", "dpnc", "--bin", "dpnc"])
            .env("CARGO_TARGET_DIR", &target)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status();
        match status {
            Ok(s) if s.success() => {}
            other => assert!(bin.exists(), "cannot build dpnc ({other:?}) and {} does not exist", bin.display()),
        }
        bin
    })
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn bad(name: &str) -> PathBuf {
    root().join("cli_bad").join(name)
}

fn kernel(name: &str) -> String {
    root().join("kernels").join(name).to_string_lossy().into_owned()
}

/// A fresh directory under the system temp dir, removed on drop.
struct Tmp(PathBuf);

impl Tmp {
    fn new(tag: &str) -> Tmp {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let d = std::env::temp_dir().join(format!("dpnc-cli-errors-{tag}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&d).expect("create temp dir");
        Tmp(d)
    }
    fn path(&self, rel: &str) -> String {
        self.0.join(rel).to_string_lossy().into_owned()
    }
}

impl Drop for Tmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn run(args: &[&str]) -> Output {
    Command::new(dpnc()).args(args).env_remove("RUST_BACKTRACE").env_remove("RUST_LIB_BACKTRACE").output().expect("run dpnc")
}

/// The stderr of a failure, checked for the properties every failure must have; `Err` says
/// what is wrong.
fn failure_text(args: &[&str], out: &Output) -> Result<String, String> {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let mut problems = Vec::new();
    match out.status.code() {
        Some(0) => problems.push("exit status 0".to_string()),
        Some(101) => problems.push("exit status 101 (a Rust panic)".to_string()),
        None => problems.push("killed by a signal".to_string()),
        Some(_) => {}
    }
    for bad in ["panicked", "RUST_BACKTRACE", "stack backtrace", "thread '", "internal error"] {
        if stderr.contains(bad) {
            problems.push(format!("stderr contains `{bad}`"));
        }
    }
    if !stderr.contains("error") {
        problems.push("stderr does not say `error`".into());
    }
    if problems.is_empty() {
        Ok(stderr)
    } else {
        Err(format!("dpnc {}: {}\n--- stderr:\n{stderr}", args.join(" "), problems.join("; ")))
    }
}

/// Runs a case that must fail; `want` substrings must all be in stderr.
fn expect_failure(args: &[&str], want: &[&str]) -> Result<String, String> {
    let out = run(args);
    let stderr = failure_text(args, &out)?;
    for w in want {
        if !stderr.contains(w) {
            return Err(format!("dpnc {}: stderr lacks {w:?}\n--- stderr:\n{stderr}", args.join(" ")));
        }
    }
    Ok(stderr)
}

/// `(file in cli_bad, LINE:COL or "" for no position, message substring)`. The positions were
/// checked by reading each file: they point at the culprit.
const FILE_CASES: &[(&str, &str, &str)] = &[
    ("binary_garbage.c", "1:1", "stray"),
    ("data_dependent_if.c", "7:9", "data-dependent control"),
    ("deep_loops.c", "14:1", "this loop is nested 9 deep; at most 8 nested loops are supported"),
    ("deep_parens.c", "7:1010", "nesting is deeper than 1000 levels"),
    ("empty_file.c", "", "no `#pragma scop` region found"),
    ("empty_scop.c", "4:1", "contains no assignment"),
    ("error_directive.c", "3:1", "#error N is too large"),
    ("float_iterator.c", "6:8", "floating-point type"),
    ("guarded_diagonal_huge.c", "", "more than 200000000 loop iterations under guards or bounds that name their iterators"),
    ("goto_in_scop.c", "8:5", "goto"),
    ("huge_arrays_small_loop.c", "", "the kernel's arrays need 549.8 GB in the interpreter (8589934592 elements, the largest `B`)"),
    ("huge_literal.c", "6:19", "does not fit in 64 bits"),
    ("huge_size.c", "2:32", "too large"),
    ("include_missing.c", "1:1", "cannot find include file"),
    ("include_self.c", "1:1", "nested more than 64 levels"),
    ("int_division_by_zero.c", "7:5", "division by zero"),
    ("macro_bomb.c", "48:12", "more than 1000000 tokens"),
    ("macro_nonsense.c", "8:5", "expected `(` after `for`"),
    ("macro_self_reference.c", "8:12", "`X` is not declared"),
    ("macro_unterminated_call.c", "8:12", "unterminated argument list"),
    ("negative_dimension.c", "2:36", "it must be positive"),
    ("negative_size.c", "2:21", "sizes must be at least 1"),
    ("no_main_no_value.c", "2:24", "has no value"),
    ("non_affine_bound.c", "7:21", "multiplies two non-constant terms"),
    ("non_affine_subscript_product.c", "8:12", "multiplies two non-constant terms"),
    ("out_of_bounds_read.c", "7:12", "the subscript of `B` takes 3..10 here, but `B` is declared `B[8]`"),
    ("param_address_taken.c", "14:14", "size parameter `n` has no certain value: the caller changes its argument here"),
    ("param_changed_after_call_in_loop.c", "16:5", "size parameter `n` has no certain value"),
    ("param_compound_assignment.c", "14:3", "size parameter `n` has no certain value"),
    ("param_incremented.c", "14:3", "size parameter `n` has no certain value"),
    ("param_loop_variable.c", "14:23", "size parameter `n` has no certain value"),
    ("param_predecrement.c", "14:5", "size parameter `n` has no certain value"),
    ("param_reassigned.c", "14:3", "size parameter `n` has no certain value"),
    ("pointer_param.c", "2:32", "is a pointer"),
    ("scop_without_endscop.c", "5:1", "without a matching `#pragma endscop`"),
    ("syntax_missing_semicolon.c", "8:1", "expected `;`"),
    ("syntax_unbalanced_brace.c", "3:1", "never closed"),
    ("two_scops.c", "9:1", "a second `#pragma scop` region"),
    ("unknown_function.c", "7:12", "call to `frobnicate` is not supported"),
    ("unsupported_struct.c", "3:27", "`struct` types are not supported"),
    ("unsupported_unsigned.c", "2:29", "`unsigned` types are not supported"),
    ("while_loop.c", "7:3", "`while` loops are not supported"),
];

/// Legal but extreme kernels that must finish (or be refused) quickly, checked by
/// `extreme_kernels_answer_quickly`: a scalar reduction over the deepest nest accepted (its
/// dataflow pieces once took minutes to simplify).
const EXTREME: &[(&str, &str, &str)] = &[("deep_reduction.c", "", "")];

/// Every file of `tests/cli_bad` through `dpnc run FILE --random 1 --outputs OUT --check`:
/// rejected at the culprit, nothing written.
#[test]
fn bad_kernels_are_rejected_and_write_nothing() {
    let mut files: Vec<String> = std::fs::read_dir(root().join("cli_bad"))
        .expect("tests/cli_bad")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".c"))
        .collect();
    files.sort();
    let listed: Vec<&str> = FILE_CASES.iter().chain(EXTREME).map(|c| c.0).collect();
    for f in &files {
        assert!(listed.contains(&f.as_str()), "tests/cli_bad/{f} has no expectation in FILE_CASES");
    }
    let tmp = Tmp::new("files");
    let mut failures = Vec::new();
    for (name, pos, msg) in FILE_CASES {
        let file = bad(name);
        assert!(file.exists(), "{} is listed but missing", file.display());
        let file = file.to_string_lossy().into_owned();
        let out = tmp.path(&format!("out-{name}"));
        let mut want = vec![msg.to_string()];
        if !pos.is_empty() {
            want.push(format!("{file}:{pos}: error:"));
        }
        let want: Vec<&str> = want.iter().map(String::as_str).collect();
        if let Err(e) = expect_failure(&["run", &file, "--random", "1", "--outputs", &out, "--check"], &want) {
            failures.push(e);
        }
        if Path::new(&out).exists() {
            failures.push(format!("{name}: `dpnc run` left {out} behind"));
        }
    }
    println!("{} bad kernels checked through the dpnc binary", FILE_CASES.len());
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), FILE_CASES.len(), failures.join("\n\n"));
}

/// Command-line cases on good kernels: `(args, expected stderr substrings)`; `{OUT}` is a
/// fresh output path that must not exist afterwards, `{TMP}` the case's temp dir.
fn arg_cases() -> Vec<(Vec<String>, Vec<&'static str>)> {
    let gemm = kernel("gemm.c");
    let jacobi = kernel("jacobi_1d.c");
    let oob = root().join("bad").join("oob_negative_offset.c").to_string_lossy().into_owned();
    let c = |args: &[&str], want: &[&'static str]| {
        (
            args.iter().map(|a| a.replace("{GEMM}", &gemm).replace("{JACOBI}", &jacobi).replace("{OOB}", &oob)).collect::<Vec<_>>(),
            want.to_vec(),
        )
    };
    vec![
        c(&["{GEMM}", "--report", "--tile", "0"], &["tile size 0 is not positive"]),
        c(&["{GEMM}", "--report", "--tile=-4"], &["tile size -4 is not positive"]),
        c(&["{GEMM}", "--report", "--tile", "-4"], &["unexpected argument '-4'"]),
        c(&["{GEMM}", "--report", "--tile", "4,0,4"], &["tile size 0 is not positive"]),
        c(&["{GEMM}", "--report", "--tile", "abc"], &["invalid value 'abc'"]),
        c(&["{GEMM}", "--report", "--tile", "99999999999999999999"], &["invalid value"]),
        c(&["{GEMM}", "--report", "--par", "0"], &["parallelism 0 is not positive"]),
        c(&["{GEMM}", "--report", "--par=-2"], &["parallelism -2 is not positive"]),
        c(&["{GEMM}", "--report", "--tile", "4", "--par", "99"], &["--par 99", "exceeds the tile size 4"]),
        c(&["{JACOBI}", "--report", "--tile", "2", "--par", "3"], &["exceeds the tile size 2"]),
        c(&["{GEMM}", "--report", "--par", "2", "--subbands", "diagonal"], &["invalid value 'diagonal'", "auto, slices, interleaved"]),
        c(&["{GEMM}", "--report", "--hyperplanes", "S0: nonsense"], &["--hyperplanes"]),
        // Vector lanes where they do not apply say why.
        c(
            &["{GEMM}", "--tile", "4", "--simd", "4", "-o", "{OUT}"],
            &["--simd 4", "S0 at i = 1, j = 0", "first cell of `C` is not a multiple of 4"],
        ),
        c(&["{JACOBI}", "--tile", "4", "--simd", "2", "-o", "{OUT}"], &["--simd 2", "at cells that change from one lane to the next"]),
        c(&["{GEMM}", "--tile", "4", "--simd", "3", "-o", "{OUT}"], &["--simd 3", "a power of two"]),
        c(
            &["{GEMM}", "--tile", "4", "--par", "2", "--subbands", "interleaved", "--simd", "2", "-o", "{OUT}"],
            &["--simd 2", "does not step by one", "--subbands slices"],
        ),
        c(&["{GEMM}", "--simd", "32", "-o", "{OUT}"], &["invalid value '32'", "--simd"]),
        c(&["{GEMM}", "--simd", "2", "--target", "cpu", "-o", "{OUT}"], &["--simd 2", "Verilog design only", "--target cpu"]),
        c(&["run", "{GEMM}", "--random", "1", "--outputs", "{OUT}", "--simd", "2"], &["--simd 2", "Verilog design only"]),
        // Every value given is used, or refused (values past the hyperplanes are noted): none is dropped silently.
        c(&["{GEMM}", "--report", "--tile", "4,2", "--par", "3,3"], &["--par 3 on hyperplane 1 exceeds the tile size 2"]),
        c(&["{GEMM}", "--report", "--hyperplanes", ""], &["--hyperplanes: the spec names no statement"]),
        c(&["{GEMM}", "--report", "--hyperplanes", " ; "], &["--hyperplanes: the spec names no statement"]),
        c(&["{GEMM}", "--report", "--hyperplanes", "S1: i, j, k"], &["--hyperplanes gives S1 but not S0, which shares its loop nest"]),
        c(&["{GEMM}", "--report", "--hyperplanes", "S0: i, j; S1: i, j, k; S0: j, i"], &["`S0` is given twice"]),
        c(
            &["{GEMM}", "--report", "--hyperplanes", "S0: i, j, 0; S1: i, k, 2i"],
            &["`S1`: the hyperplanes `i`, `k`, `2i` are linearly dependent"],
        ),
        c(&["{GEMM}", "--report", "--hyperplanes", "S0: i, 2i + 1, 0; S1: i, j, k"], &["`S0`: the hyperplanes"]),
        c(&["{GEMM}", "--report", "--hyperplanes", "S0: i,, j; S1: i, j, k"], &["an empty hyperplane"]),
        c(
            &["{JACOBI}", "--report", "--hyperplanes", "S0: t, 1000000000000t + i; S1: t, 1000000000000t + i + 1"],
            &["has a coefficient beyond 1048576"],
        ),
        c(&["{GEMM}", "--report", "--param", "ni=4", "--param", "ni=6"], &["--param ni is given twice (4 and 6)"]),
        c(&["{GEMM}", "--emit", "nonsense"], &["invalid value 'nonsense'"]),
        c(&["{GEMM}"], &["nothing to do", "-o DIR"]),
        c(&[], &["required arguments were not provided", "<FILE>"]),
        c(&["explore", "{GEMM}", "--board", "nope"], &["unknown board `nope`"]),
        c(&["explore", "{GEMM}", "--board", "{TMP}/no-such-board.toml"], &["cannot read board file"]),
        c(&["explore", "{GEMM}", "--board", "{TMP}/garbage.toml"], &["garbage.toml"]),
        c(&["explore", "{GEMM}", "--tile", "8.."], &["invalid value '8..'"]),
        c(&["explore", "{GEMM}", "--tile", "0..4"], &["tile size 0 is not positive"]),
        c(&["explore", "{GEMM}", "--tile", "4", "-j", "0"], &["--jobs must be at least 1"]),
        c(&["explore", "{GEMM}", "--tile", "4", "--plot", "/proc/no/such/dir/plot.svg"], &["/proc/no/such/dir/plot.svg"]),
        c(&["run", "{GEMM}", "--random", "1", "--outputs", "/proc/dpnc-cannot-write-here"], &["/proc/dpnc-cannot-write-here"]),
        c(&["run", "{GEMM}", "--random", "1", "--outputs", "{TMP}/a-file/out"], &["a-file"]),
        c(&["run", "{TMP}/no-such-kernel.c", "--random", "1", "--outputs", "{OUT}"], &["cannot read", "no-such-kernel.c"]),
        c(&["run", "{TMP}", "--random", "1", "--outputs", "{OUT}"], &["cannot read"]),
        c(&["run", "{GEMM}", "--outputs", "{OUT}"], &["required arguments were not provided", "--inputs"]),
        c(&["run", "{GEMM}", "--inputs", "{TMP}/no-such-dir", "--outputs", "{OUT}"], &["no-such-dir"]),
        c(&["run", "{GEMM}", "--inputs", "{TMP}/shape", "--outputs", "{OUT}"], &["C.npy", "shape"]),
        c(&["run", "{GEMM}", "--inputs", "{TMP}/dtype", "--outputs", "{OUT}"], &["A.npy"]),
        c(&["run", "{GEMM}", "--inputs", "{TMP}/truncated", "--outputs", "{OUT}"], &["B.npy"]),
        c(&["run", "{GEMM}", "--inputs", "{TMP}/header", "--outputs", "{OUT}"], &["alpha.npy"]),
        c(&["run", "{GEMM}", "--inputs", "{TMP}/missing", "--outputs", "{OUT}"], &["beta.npy"]),
        c(&["run", "{GEMM}", "--inputs", "{TMP}/empty", "--outputs", "{OUT}"], &["A.npy"]),
        c(&["run", "{GEMM}", "--random", "1", "--outputs", "{OUT}", "--param", "ni=0"], &["size parameter `ni` is 0"]),
        c(&["run", "{GEMM}", "--random", "1", "--outputs", "{OUT}", "--param", "ni=-5"], &["size parameter `ni` is -5"]),
        c(&["run", "{GEMM}", "--random", "1", "--outputs", "{OUT}", "--param", "zz=3"], &["no size parameter `zz`"]),
        c(&["run", "{GEMM}", "--random", "1", "--outputs", "{OUT}", "--param", "ni=abc"], &["`abc` is not an integer"]),
        c(&["run", "{GEMM}", "--random", "1", "--outputs", "{OUT}", "--param", "ni=100000"], &["out of bounds"]),
        c(
            &["run", "{GEMM}", "--random", "1", "--outputs", "{OUT}", "-DNI=3000", "-DNJ=3000", "-DNK=3000"],
            &["more than 10000000000 statement instances: more than the interpreter runs"],
        ),
        // Outputs never overwrite what dpnc did not write, nor the run's own inputs.
        c(&["run", "{GEMM}", "--random", "1", "--outputs", "{TMP}/users"], &["holds files that dpnc did not write (notes.txt)", "--force"]),
        c(&["{GEMM}", "--tile", "4", "-o", "{TMP}/users"], &["holds files that dpnc did not write (notes.txt)"]),
        c(&["run", "{GEMM}", "--inputs", "{TMP}/good", "--outputs", "{TMP}/good"], &["would replace the inputs it is given"]),
        // Out-of-bounds accesses are refused before any analysis or output, by every command.
        c(&["{OOB}", "--report", "--tile", "4"], &["the subscript of `A` takes -1..6 here"]),
        c(&["{OOB}", "--emit", "sare"], &["the subscript of `A` takes -1..6 here"]),
        c(&["{OOB}", "--emit", "dpn-json"], &["out of bounds"]),
        c(&["explore", "{OOB}", "--tile", "4"], &["out of bounds"]),
        c(&["{OOB}", "--tile", "4", "-o", "{OUT}"], &["out of bounds"]),
        c(&["{GEMM}", "--report", "--param", "ni=13"], &["subscript 1 of `C` takes 0..12 here, but `C` is declared `C[12][14]`"]),
        c(&["{GEMM}", "--target", "cpu", "-o", "{OUT}", "--param", "nk=17"], &["subscript 2 of `A` takes 0..16 here"]),
        c(&["{GEMM}", "--report", "-DNI=100000", "-DNJ=100000", "-DNK=100000"], &["too large"]),
        c(&["{GEMM}", "--report", "-DNI=10000", "-DNJ=10000", "-DNK=10000"], &["more than 100000000000 statement instances: too large"]),
        // A band too big to build is refused from the survey's counts, before it is walked.
        c(
            &["{GEMM}", "--report", "-DNI=400", "-DNJ=400", "-DNK=400", "--tile", "1000"],
            &["a band of nest S0 S1 holds more than 40000000 statement instances (the tiles are too large)"],
        ),
        c(&["run", "{GEMM}", "--random", "1", "--outputs", "{OUT}", "-DNI=0"], &["must be positive"]),
        c(&["run", "{GEMM}", "--random", "1", "--outputs", "{OUT}", "--kernel", "kernel_nope"], &["kernel_nope"]),
        c(&["run", "{GEMM}", "--random", "1", "--outputs", "{OUT}", "-I", "{TMP}", "-DDATA_TYPE=struct"], &["error"]),
    ]
}

/// A valid `.npy` file (format 1.0) of little-endian `descr` values.
fn npy(descr: &str, shape: &[usize], bytes: &[u8]) -> Vec<u8> {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    let shape_txt = if shape.len() == 1 { format!("({},)", dims[0]) } else { format!("({})", dims.join(", ")) };
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape_txt}, }}");
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend((header.len() as u16).to_le_bytes());
    out.extend(header.as_bytes());
    out.extend(bytes);
    out
}

/// Good inputs for gemm.c (NI=12, NJ=14, NK=16, double) in `dir`, then one of them spoiled.
fn gemm_inputs(dir: &Path, spoil: &str) {
    std::fs::create_dir_all(dir).expect("mkdir");
    let f64s = |n: usize| (0..n).flat_map(|k| (k as f64 * 0.25).to_le_bytes()).collect::<Vec<u8>>();
    let files: Vec<(&str, Vec<usize>)> =
        vec![("alpha", vec![]), ("beta", vec![]), ("C", vec![12, 14]), ("A", vec![12, 16]), ("B", vec![16, 14])];
    for (name, shape) in files {
        let n = shape.iter().product::<usize>();
        let mut data = npy("<f8", &shape, &f64s(n));
        match (spoil, name) {
            ("shape", "C") => data = npy("<f8", &[14, 12], &f64s(n)),
            ("dtype", "A") => data = npy("<f4", &shape, &(0..n).flat_map(|k| (k as f32).to_le_bytes()).collect::<Vec<u8>>()),
            ("truncated", "B") => data.truncate(data.len() - 100),
            ("header", "alpha") => data = b"\x93NUMPY\x01\x00\xff\x7f{'descr': garbage".to_vec(),
            ("missing", "beta") => continue,
            ("empty", "A") => data.clear(),
            _ => {}
        }
        std::fs::write(dir.join(format!("{name}.npy")), data).expect("write npy");
    }
}

#[test]
fn bad_arguments_and_paths_are_reported_and_write_nothing() {
    let tmp = Tmp::new("args");
    for spoil in ["shape", "dtype", "truncated", "header", "missing", "empty"] {
        gemm_inputs(&tmp.0.join(spoil), spoil);
    }
    // The unspoiled inputs are good: the spoiling is what the cases test.
    gemm_inputs(&tmp.0.join("good"), "none");
    let good_out = tmp.path("good-out");
    let ok = run(&["run", &kernel("gemm.c"), "--inputs", &tmp.path("good"), "--outputs", &good_out]);
    assert!(ok.status.success(), "good .npy inputs rejected: {}", String::from_utf8_lossy(&ok.stderr));
    assert!(Path::new(&good_out).join("C.npy").exists());
    std::fs::write(tmp.0.join("garbage.toml"), "this is [not a board\n").expect("write");
    std::fs::write(tmp.0.join("a-file"), "a plain file where a directory is expected").expect("write");
    std::fs::create_dir_all(tmp.0.join("users")).expect("mkdir");
    std::fs::write(tmp.0.join("users/notes.txt"), "the user's own file").expect("write");

    let cases = arg_cases();
    let mut failures = Vec::new();
    for (k, (args, want)) in cases.iter().enumerate() {
        let out = tmp.path(&format!("out-{k}"));
        let args: Vec<String> = args.iter().map(|a| a.replace("{OUT}", &out).replace("{TMP}", &tmp.0.to_string_lossy())).collect();
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        if let Err(e) = expect_failure(&argv, want) {
            failures.push(e);
        }
        if Path::new(&out).exists() {
            failures.push(format!("dpnc {}: left {out} behind", args.join(" ")));
        }
    }
    assert!(!Path::new("/proc/dpnc-cannot-write-here").exists());
    assert!(tmp.0.join("users/notes.txt").exists(), "a refused output directory lost the user's file");
    assert!(tmp.0.join("good/A.npy").exists(), "a refused run lost its inputs");
    println!("{} command-line cases checked through the dpnc binary", cases.len());
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), cases.len(), failures.join("\n\n"));
}

/// `-o` writes its directory whole, replacing an earlier run's (no stale file survives), and
/// `--report` and `--emit` still print beside it.
#[test]
fn output_directories_are_replaced_whole_and_reports_still_print() {
    let tmp = Tmp::new("replace");
    let out = tmp.path("design");
    let gemm = kernel("gemm.c");
    let first = run(&[&gemm, "--tile", "4", "--target", "cpu", "-o", &out]);
    assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));
    assert!(Path::new(&out).join("kernel.cpp").exists());
    let second = run(&[&gemm, "--tile", "4", "-o", &out, "--report", "--emit", "dot"]);
    assert!(second.status.success(), "{}", String::from_utf8_lossy(&second.stderr));
    let stdout = String::from_utf8_lossy(&second.stdout);
    assert!(stdout.contains("digraph") && stdout.contains("bands:"), "--emit dot and --report with -o printed:\n{stdout}");
    assert!(Path::new(&out).join("package_xo.tcl").exists());
    assert!(!Path::new(&out).join("kernel.cpp").exists(), "the first run's kernel.cpp survived the second");
    let beside: Vec<String> =
        std::fs::read_dir(&tmp.0).expect("tmp").flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(beside, vec!["design".to_string()], "staging directories left behind");
}

/// Values past the kernel's hyperplanes are not used, and a repeated `--par` too large for a
/// tile is capped; the user is told so.
#[test]
fn unused_and_capped_shape_values_are_noted() {
    let out = run(&[&kernel("gemm.c"), "--report", "--tile", "4,4,4,4", "--par", "2,2,2,2,2"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("--tile gives 4 values, but the deepest loop nest has 3 tiling hyperplanes: 1 not used"), "{stderr}");
    assert!(stderr.contains("--par gives 5 values"), "{stderr}");
    let out = run(&[&kernel("gemm.c"), "--report", "--tile", "4,2", "--par", "3"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("--par 3, repeated on hyperplane 1, is capped at its tile size 2"), "{stderr}");
}

/// Construction, reports and generated designs follow the accesses, not the declared extents:
/// a 4 x 4 loop over two arrays of 4.3 billion elements each (per-cell tables of their full
/// size once aborted the process).
#[test]
fn work_follows_the_accesses_not_the_declared_extents() {
    let tmp = Tmp::new("huge");
    let file = bad("huge_arrays_small_loop.c").to_string_lossy().into_owned();
    let report = run(&[&file, "--report", "--tile", "2", "-o", &tmp.path("design")]);
    let stdout = String::from_utf8_lossy(&report.stdout);
    assert!(report.status.success(), "{}", String::from_utf8_lossy(&report.stderr));
    assert!(stdout.contains("statement instances: 16") && stdout.contains("DDR traffic: 128 B read + 128 B written"), "{stdout}");
    assert!(Path::new(&tmp.path("design")).join("package_xo.tcl").exists());
}

/// Absurd but legal shapes do not overflow or panic: one tile covering everything, `--par`
/// almost as large as the tile on every hyperplane, sizes near `i64::MAX`.
#[test]
fn absurd_but_legal_shapes_work() {
    let gemm = kernel("gemm.c");
    for args in [
        vec![gemm.as_str(), "--report", "--tile", "99999999999"],
        vec![gemm.as_str(), "--report", "--tile", "9223372036854775807"],
        vec![gemm.as_str(), "--report", "--tile", "8", "--par", "5,5,5"],
        vec![gemm.as_str(), "--report", "--tile", "1", "--par", "1"],
    ] {
        let out = run(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "dpnc {}: {stderr}", args.join(" "));
        assert!(!stderr.contains("panicked"), "{stderr}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains("bands:"), "dpnc {}: no report:\n{stdout}", args.join(" "));
    }
}

/// A kernel of `n` statements in one loop, each `A[i] = <rhs with k>`.
fn statements_in_one_loop(n: usize, rhs: &str) -> String {
    let body: String = (1..=n).map(|k| format!("    A[i] = {};\n", rhs.replace("{k}", &k.to_string()))).collect();
    format!(
        "void kernel_many(float A[16], float B[16])\n{{\n#pragma scop\n  for (int i = 0; i < 16; i++) {{\n{body}  }}\n#pragma endscop\n}}\n"
    )
}

/// Hundreds of statements in one loop: the analyses that compare pairs of statements stop at
/// their isl operation quota and name the statements, instead of running for minutes.
#[test]
fn many_statements_are_refused_at_a_quota() {
    let tmp = Tmp::new("many");
    // Each reads what the one before wrote: exact dataflow compares every earlier writer.
    let chain = tmp.path("chain.c");
    std::fs::write(&chain, statements_in_one_loop(200, "A[i] + B[i] * {k}.0f")).expect("write");
    let want = format!("{chain}:204:5: error: the exact dataflow of this kernel is too costly to compute");
    expect_failure(&["run", &chain, "--random", "1", "--outputs", &tmp.path("out"), "--check"], &[&want, "200 statements"])
        .unwrap_or_else(|e| panic!("{e}"));
    // Each overwrites the others' cells: tiling checks every pair of writers.
    let writes = tmp.path("writes.c");
    std::fs::write(&writes, statements_in_one_loop(300, "B[i] * {k}.0f")).expect("write");
    let want = format!("{writes}:5:5: error: finding tiling hyperplanes is too costly");
    expect_failure(&[&writes, "--report"], &[&want, "its largest loop nest holds 300 statements"]).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn extreme_kernels_answer_quickly() {
    for (name, _, _) in EXTREME {
        let file = bad(name).to_string_lossy().into_owned();
        let tmp = Tmp::new("known");
        let out_dir = tmp.path("out");
        let t = std::time::Instant::now();
        let mut child = Command::new(dpnc())
            .args(["run", &file, "--random", "1", "--outputs", &out_dir, "--check"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn dpnc");
        // Either a quick success or a quick, clean refusal; give up after 30 s.
        while child.try_wait().expect("wait").is_none() && t.elapsed().as_secs() < 30 {
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        if child.try_wait().expect("wait").is_none() {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{name}: no answer after {:?}", t.elapsed());
        }
        let out = child.wait_with_output().expect("output");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success() || failure_text(&[&file], &out).is_ok(), "{name}: {stderr}");
    }
}
