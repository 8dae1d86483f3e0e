//! The design report end to end: `-o` writes it, `sim --report` and `synth --report` fill in
//! their figures, and the page loads in headless Chromium with every part present.

use std::path::{Path, PathBuf};
use std::process::Command;

fn dpnc() -> Command {
    Command::new(env!("CARGO_BIN_EXE_dpnc"))
}

fn kernel(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/kernels").join(name)
}

/// Runs dpnc with `args`; its stdout, after checking it succeeded.
fn ok(args: &[&str], dir: &Path) -> Vec<u8> {
    let out = dpnc().args(args).output().expect("dpnc runs");
    assert!(out.status.success(), "dpnc {args:?} failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains(&format!("its report: {}", dir.join("report.html").display())), "{said}");
    out.stdout
}

fn facts(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).expect("report.json")).expect("JSON")
}

/// What headless Chromium makes of `page`: the DOM after its script ran, and every console
/// message (an error in the page's script, a failed load). Also writes a screenshot to `shot`.
fn chromium(page: &Path, shot: &Path) -> (String, Vec<String>) {
    let profile = page.with_file_name("chromium-profile");
    let run = |extra: &[&str]| {
        let out = Command::new("chromium")
            // As root in a container, without the network: no sandbox, no background fetches.
            .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"])
            .args(["--disable-background-networking", "--disable-component-update", "--disable-sync"])
            .arg(format!("--user-data-dir={}", profile.display()))
            .args(["--enable-logging=stderr", "--v=0"])
            .args(extra)
            .arg(format!("file://{}", page.display()))
            .output()
            .expect("chromium runs (Debian's package `chromium`, in scripts/packages.txt)");
        assert!(out.status.success(), "chromium failed: {}", String::from_utf8_lossy(&out.stderr));
        let console: Vec<String> =
            String::from_utf8_lossy(&out.stderr).lines().filter(|l| l.contains(":CONSOLE")).map(String::from).collect();
        (String::from_utf8_lossy(&out.stdout).into_owned(), console)
    };
    let (dom, mut console) = run(&["--dump-dom"]);
    let (_, more) = run(&["--window-size=1400,3000", &format!("--screenshot={}", shot.display())]);
    console.extend(more);
    (dom, console)
}

/// How many times `needle` occurs in `hay`.
fn count(hay: &str, needle: &str) -> usize {
    hay.matches(needle).count()
}

#[test]
fn the_report_shows_the_network_simulation_and_synthesis_in_a_browser() {
    let dir = std::env::temp_dir().join(format!("dpnc-report-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_str().expect("a UTF-8 path");
    let k = kernel("prefix_sum.c");
    let k = k.to_str().expect("a UTF-8 path");
    // Arrays of 256 ints: a small design, since Yosys maps all of it (large caches are
    // simulated by rtl_sim and synthesized by the benchmarks).
    let shape = ["-DN=16", "-DM=16", "--tile", "4"];

    // Written with the design: the network, no figures of runs yet.
    ok(&[&[k][..], &shape, &["-o", d]].concat(), &dir);
    let before = facts(&dir);
    assert!(before["simulation"].is_null() && before["synthesis"].is_null());
    let processes = before["processes"].as_array().expect("processes").len();
    let channels = before["channels"].as_array().expect("channels").len();
    assert!(processes >= 3 && channels >= 2, "{before}");

    // A report of another design is refused before anything runs.
    let other = dpnc().args(["sim", k, "-DN=16", "-DM=16", "--tile", "8", "--report", d]).output().expect("dpnc runs");
    let why = String::from_utf8_lossy(&other.stderr);
    assert!(!other.status.success() && why.contains("not the one this command builds") && why.contains("--tile/--par"), "{why}");

    // Simulation: the same cycles and per-process counts as dpnc sim prints.
    let sim: serde_json::Value =
        serde_json::from_slice(&ok(&[&["sim", k][..], &shape, &["--json", "--report", d]].concat(), &dir)).expect("JSON");
    let s = &facts(&dir)["simulation"];
    assert_eq!(s["cycles"], sim["cycles"]);
    assert_eq!(s["bit_exact"], serde_json::Value::Bool(true));
    let per_process = sim["processes"].as_array().expect("per process");
    assert_eq!(s["processes"].as_array().map(Vec::len), Some(per_process.len()));
    for (p, q) in per_process.iter().zip(s["processes"].as_array().into_iter().flatten()) {
        assert_eq!((&p["process"], &p["work_cycles"]), (&q["name"], &q["work"]));
        let spent = ["work_cycles", "wait_in_cycles", "wait_out_cycles"].iter().map(|w| p[w].as_u64().unwrap_or(0)).sum::<u64>();
        assert!(spent <= sim["cycles"].as_u64().unwrap_or(0), "{p}");
        let done = p["done_at"].as_u64().unwrap_or(0);
        assert!(done > 0 && done <= sim["cycles"].as_u64().unwrap_or(0), "{p}");
    }
    // Every compute process works once per iteration.
    for pr in facts(&dir)["processes"].as_array().into_iter().flatten().filter(|p| p["role"] == "Compute") {
        let run = per_process.iter().find(|q| q["process"] == pr["name"]).unwrap_or_else(|| panic!("no figures for {pr}"));
        assert_eq!(run["work_cycles"], pr["iterations"], "{}", pr["name"]);
    }

    // Synthesis (an integer kernel: no float cells), with each
    // module's rows adding up to the design.
    let synth: serde_json::Value =
        serde_json::from_slice(&ok(&[&["synth", k][..], &shape, &["--per-module", "--json", "--report", d]].concat(), &dir)).expect("JSON");
    let modules = synth["modules"].as_array().expect("per-module rows");
    let sum = |what: &str| modules.iter().map(|m| m["total"][what].as_u64().unwrap_or(0)).sum::<u64>();
    assert!(synth["resources"]["luts"].as_u64().unwrap_or(0) > 0);
    assert_eq!(sum("luts"), synth["resources"]["luts"].as_u64().unwrap_or(0));
    assert_eq!(sum("ffs"), synth["resources"]["ffs"].as_u64().unwrap_or(0));
    let names: Vec<&str> = modules.iter().filter_map(|m| m["module"].as_str()).collect();
    assert!(names.iter().any(|n| n.starts_with("p_S")) && names.iter().any(|n| n.starts_with("m_")), "{names:?}");
    let after = facts(&dir);
    assert_eq!(after["synthesis"]["total"], synth["resources"]);
    assert_eq!(after["simulation"], *s, "synthesis kept the simulation's figures");

    // The page in a browser: its script ran without a console message, and the drawing and
    // every table are there with a row per process and channel. The screenshot is kept.
    let shots = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("report-screenshots");
    std::fs::create_dir_all(&shots).expect("screenshot directory");
    let shot = shots.join("prefix_sum.png");
    let (dom, console) = chromium(&dir.join("report.html"), &shot);
    assert!(console.is_empty(), "console messages:\n{}", console.join("\n"));
    assert!(dom.contains(r#"data-ready="yes""#), "the page's script did not finish");
    assert_eq!(count(&dom, r#"<g class="proc""#), processes, "a box per process");
    assert_eq!(count(&dom, r#"<g class="edge""#), channels, "a curve per channel");
    for id in
        ["network", "nests", "channel-table", "traffic-table", "array-table", "resource-table", "module-table", "process-table", "roofline"]
    {
        assert!(dom.contains(&format!(r#"id="{id}""#)), "no #{id} on the page");
    }
    let table = |id: &str| {
        let start = dom.find(&format!(r#"id="{id}""#)).unwrap_or(0);
        let end = dom[start..].find("</table>").map_or(dom.len(), |e| start + e);
        count(&dom[start..end], "<tr>") - 1
    };
    assert_eq!(table("channel-table"), channels);
    assert_eq!(table("process-table"), per_process.len());
    assert_eq!(table("resource-table"), 5);
    assert!(!dom.contains("not yet"), "a figure is still missing");
    let png = std::fs::read(&shot).expect("a screenshot");
    assert!(png.starts_with(b"\x89PNG") && png.len() > 10_000, "{} bytes", png.len());
    eprintln!("screenshot: {}", shot.display());
    let _ = std::fs::remove_dir_all(&dir);
}
