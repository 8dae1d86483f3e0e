//! Bad inputs: every file in `tests/bad/` holds exactly one thing outside the accepted C
//! subset, and its first line says which diagnostic dpnc must give:
//!
//! ```text
//! /* expect LINE:COL MESSAGE-SUBSTRING [FLAGS]… */    e.g. /* expect 7:15 subscript depends on */
//! /* expect - MESSAGE-SUBSTRING */                    an error without a source position
//! ```
//!
//! Bracketed groups at the end are command-line flags (`[-DM=0]`, `[--kernel NAME]`, `[-IDIR]`)
//! or a `[bug: …]` note. A file with a bug note states the *correct* diagnostic that dpnc does
//! not give yet; such files are left out of the main test and checked by the ignored
//! `known_bugs` test (`cargo test -p dpnc-tests --test bad_inputs -- --ignored`).

use dpnc_frontend::{Diagnostic, Options, SourceMap};
use std::path::{Path, PathBuf};
use std::process::Command;

fn bad_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("bad")
}

/// The parsed first-line expectation of one bad file.
#[derive(Debug)]
struct Expect {
    /// `(line, col)`, 1-based; `None` for `-` (no position).
    pos: Option<(usize, usize)>,
    message: String,
    options: Options,
    bug: Option<String>,
}

fn parse_expect(path: &Path, text: &str) -> Result<Expect, String> {
    let first = text.lines().next().unwrap_or("");
    let body = first
        .strip_prefix("/* expect ")
        .and_then(|s| s.strip_suffix(" */"))
        .ok_or_else(|| format!("first line is not `/* expect LINE:COL MESSAGE */`: {first:?}"))?;
    let (pos, rest) = body.split_once(' ').ok_or("expectation has no message")?;
    let pos = if pos == "-" {
        None
    } else {
        let (l, c) = pos.split_once(':').ok_or_else(|| format!("bad position `{pos}`"))?;
        Some((l.parse().map_err(|_| format!("bad line in `{pos}`"))?, c.parse().map_err(|_| format!("bad column in `{pos}`"))?))
    };
    // The message ends where the first trailing group (` [-…]` or ` [bug:…]`) begins.
    let groups_at = [" [-", " [bug:"].iter().filter_map(|g| rest.find(g)).min().unwrap_or(rest.len());
    let message = rest[..groups_at].trim().to_string();
    if message.is_empty() {
        return Err("empty message substring".into());
    }
    let mut options = Options::default();
    let mut bug = None;
    let mut groups = rest[groups_at..].trim();
    while !groups.is_empty() {
        let inner = groups.strip_prefix('[').ok_or_else(|| format!("expected `[` at {groups:?}"))?;
        let close = inner.find(']').ok_or_else(|| format!("unclosed `[` at {groups:?}"))?;
        let group = &inner[..close];
        groups = inner[close + 1..].trim_start();
        if let Some(note) = group.strip_prefix("bug:") {
            bug = Some(note.trim().to_string());
            continue;
        }
        let mut words = group.split_whitespace();
        while let Some(w) = words.next() {
            if let Some(d) = w.strip_prefix("-D") {
                let (name, value) = match d.split_once('=') {
                    Some((n, v)) => (n.to_string(), Some(v.to_string())),
                    None => (d.to_string(), None),
                };
                options.defines.push((name, value));
            } else if let Some(dir) = w.strip_prefix("-I") {
                options.include_dirs.push(path.parent().unwrap_or(Path::new(".")).join(dir));
            } else if w == "--kernel" {
                options.kernel = Some(words.next().ok_or("`--kernel` without a name")?.to_string());
            } else {
                return Err(format!("unknown flag `{w}` in the expectation"));
            }
        }
    }
    // Headers next to the bad files are found without a flag, as `-I tests/bad` would.
    options.include_dirs.push(bad_dir());
    Ok(Expect { pos, message, options, bug })
}

/// Loads one bad file and checks its diagnostic; `Err` describes every mismatch.
fn check(path: &Path, exp: &Expect) -> Result<(), String> {
    let mut sm = SourceMap::new();
    let d: Diagnostic = match dpnc_frontend::load(&mut sm, path, &exp.options) {
        Ok(p) => return Err(format!("accepted ({} statement(s)), but it must be rejected", p.stmts.len())),
        Err(d) => d,
    };
    let rendered = d.render(&sm);
    let mut problems = Vec::new();
    if !d.message.contains(&exp.message) {
        problems.push(format!("message {:?} does not contain {:?}", d.message, exp.message));
    }
    let got = d.position(&sm);
    match (exp.pos, &got) {
        (None, None) => {
            if !rendered.starts_with(&format!("error: {}", d.message)) {
                problems.push("render() of a position-less error does not start with `error: MESSAGE`".into());
            }
        }
        (None, Some((p, l, c))) => problems.push(format!("expected no position, got {p}:{l}:{c}")),
        (Some((l, c)), None) => problems.push(format!("expected {l}:{c}, got no position")),
        (Some((l, c)), Some((p, gl, gc))) => {
            if Path::new(p) != path {
                problems.push(format!("position is in `{p}`, not in the file itself"));
            }
            if (l, c) != (*gl, *gc) {
                problems.push(format!("expected position {l}:{c}, got {gl}:{gc}"));
            }
            // The rendering: header, the offending source line, a caret under the column.
            let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
            let src_line = text.lines().nth(gl - 1).unwrap_or("").replace('\t', " ");
            let header = format!("{p}:{gl}:{gc}: error: {}", d.message);
            if rendered.lines().next() != Some(header.as_str()) {
                problems.push(format!("render() does not start with {header:?}"));
            }
            let gutter = gl.to_string().len();
            let lines: Vec<&str> = rendered.lines().collect();
            let src_at = lines.iter().position(|x| *x == format!("{gl} | {src_line}"));
            match src_at {
                None => problems.push(format!("render() does not show line {gl} ({src_line:?})")),
                Some(k) => {
                    let caret = format!("{:gutter$} | {}^", "", " ".repeat(gc - 1));
                    if !lines.get(k + 1).is_some_and(|x| x.starts_with(&caret)) {
                        problems.push(format!("render() has no `^` under column {gc} of line {gl}"));
                    }
                }
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("{}\n    got: {}", problems.join("; "), rendered.trim_end().replace('\n', "\n         ")))
    }
}

/// Every `.c` file of `tests/bad`, sorted, with its expectation.
fn cases() -> Vec<(PathBuf, Result<Expect, String>)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(bad_dir())
        .expect("tests/bad exists")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|f| {
            let exp = std::fs::read_to_string(&f).map_err(|e| e.to_string()).and_then(|t| parse_expect(&f, &t));
            (f, exp)
        })
        .collect()
}

fn name(f: &Path) -> String {
    f.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}

#[test]
fn bad_inputs_are_rejected_at_the_culprit() {
    let cases = cases();
    let mut failures = Vec::new();
    let mut checked = 0;
    let mut bugs = Vec::new();
    for (f, exp) in &cases {
        match exp {
            Err(e) => failures.push(format!("{}: bad expectation line: {e}", name(f))),
            Ok(exp) if exp.bug.is_some() => bugs.push(name(f)),
            Ok(exp) => {
                checked += 1;
                if let Err(e) = check(f, exp) {
                    failures.push(format!("{}: {e}", name(f)));
                }
            }
        }
    }
    if !bugs.is_empty() {
        println!("skipped {} file(s) documenting known bugs (run with --ignored): {}", bugs.len(), bugs.join(", "));
    }
    assert!(failures.is_empty(), "{} of {} bad input(s) failed:\n  {}", failures.len(), checked, failures.join("\n  "));
    assert!(checked >= 24, "only {checked} bad inputs checked in tests/bad; at least 24 expected");
}

#[test]
#[ignore = "bug: known wrong diagnostics, one file each in tests/bad (`[bug: …]` in the expectation)"]
fn known_bugs() {
    let mut failures = Vec::new();
    for (f, exp) in cases() {
        if let Ok(exp) = exp {
            if let Some(bug) = &exp.bug {
                if let Err(e) = check(&f, &exp) {
                    failures.push(format!("{}: {e}\n    bug: {bug}", name(&f)));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} known bug(s) still present:\n  {}", failures.len(), failures.join("\n  "));
}

/// The newest `dpnc` binary built in this workspace, if any.
fn dpnc_binary() -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut targets = vec![root.join("target")];
    if let Some(t) = std::env::var_os("CARGO_TARGET_DIR") {
        targets.insert(0, PathBuf::from(t));
    }
    let exe = format!("dpnc{}", std::env::consts::EXE_SUFFIX);
    targets
        .iter()
        .flat_map(|t| [t.join("debug").join(&exe), t.join("release").join(&exe)])
        .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
        .max()
        .map(|(_, p)| p)
}

struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let dir = std::env::temp_dir().join(format!("dpnc-{tag}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("create temp dir");
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs dpnc, asserts failure and that stderr starts with `FILE:LINE:COL: error:`.
fn expect_cli_failure(dpnc: &Path, args: &[&str], file: &str, line: usize, col: usize) {
    let out = Command::new(dpnc).args(args).output().expect("run dpnc");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "dpnc {args:?} succeeded on a bad input; stderr:\n{stderr}");
    let want = format!("{file}:{line}:{col}: error:");
    assert!(stderr.starts_with(&want), "dpnc {args:?}: stderr does not start with {want:?}:\n{stderr}");
}

#[test]
fn cli_reports_bad_inputs_and_writes_nothing() {
    let Some(dpnc) = dpnc_binary() else {
        println!("note: no dpnc binary under target/{{debug,release}}; skipping the CLI test (run `cargo build -p dpnc` first)");
        return;
    };
    let dir = bad_dir();
    let subscript = dir.join("non_affine_subscript.c");
    let subscript = subscript.to_str().expect("UTF-8 path");
    expect_cli_failure(&dpnc, &[subscript, "--emit", "scop"], subscript, 10, 12);

    let tmp = TempDir::new("bad-cli");
    let out = tmp.0.join("out");
    let out_s = out.to_str().expect("UTF-8 path");
    let indirect = dir.join("indirect_subscript.c");
    let indirect = indirect.to_str().expect("UTF-8 path");
    expect_cli_failure(&dpnc, &["run", indirect, "--random", "1", "--outputs", out_s], indirect, 9, 14);
    assert!(!out.exists(), "`dpnc run` left {} behind after a rejected input", out.display());

    // A kernel the frontend accepts but whose execution fails (out-of-bounds write at
    // i = n - 1): the interpreter's error must also leave no partial outputs.
    let oob = tmp.0.join("oob.c");
    std::fs::write(
        &oob,
        "#define N 8\nvoid kernel_oob(int n, double A[N], double B[N])\n{\n  int i;\n#pragma scop\n  for (i = 0; i < n; i++)\n    A[i + 1] = B[i];\n#pragma endscop\n}\n\nint main(void)\n{\n  static double A[N], B[N];\n  kernel_oob(N, A, B);\n  return 0;\n}\n",
    )
    .expect("write oob.c");
    let oob = oob.to_str().expect("UTF-8 path");
    expect_cli_failure(&dpnc, &["run", oob, "--random", "1", "--outputs", out_s], oob, 7, 5);
    assert!(!out.exists(), "`dpnc run` left {} behind after a failed execution", out.display());
}
