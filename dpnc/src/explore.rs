//! `dpnc explore`: sweep tile sizes, print each network's DDR traffic, arithmetic intensity
//! and on-chip memory with the attainable performance on a board (a roofline), and optionally
//! plot them as SVG (or PNG through `rsvg-convert`).

use crate::plot::{fmt_tick, LogAxis, Svg};
use crate::{Failure, Source};
use clap::Args;
use dpnc_boards::Board;
use dpnc_dpn::explore::Point;
use dpnc_dpn::metrics::Report;
use dpnc_frontend::ir::Program;
use dpnc_frontend::SourceMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// At most this many points in one sweep.
const MAX_POINTS: usize = 256;

/// The end of `dpnc explore --help`.
const AFTER_HELP: &str = concat!(
    "TILE SPEC (--tile), a comma-separated list of items:\n",
    "  A..B        A, 2A, 4A, … up to B, the same size on every hyperplane (8..128: 8,16,32,64,128)\n",
    "  A..B:STEP   A, A+STEP, A+2·STEP, … up to B, on every hyperplane (16..64:16: 16,32,48,64)\n",
    "  S           one point, size S on every hyperplane\n",
    "  S1xS2x…     one point with a size per hyperplane (32x32x8; the last size repeats)\n",
    "  e.g. --tile 8,16,32   --tile 4..64   --tile 16..64:16,32x32x8\n",
    "\n",
    "ROOFLINE: attainable GFLOP/s = min(compute ceiling, intensity × the board's DDR bandwidth), where\n",
    "  intensity = floating-point operations / DDR bytes of the network, and\n",
    "  compute ceiling = DSP slices × flops per DSP per cycle × clock. The default flops per DSP per\n",
    "  cycle is 0.4 for binary32 kernels (a multiply on 3 DSPs + an add on 2) and 2/14 for binary64\n",
    "  ones (11 + 3). Below the ridge point (ceiling / bandwidth) a tile size is memory-bound.\n",
    "\n",
    "Examples:\n",
    "  dpnc explore gemm.c --tile 8..128 --board vcu1525 --plot gemm.svg\n",
    "  dpnc explore gemm.c -I polybench/utilities -DSMALL_DATASET --tile 16..64:16 --par 2\n",
    "  dpnc explore gemm.c --tile 32,32x32x8 --board my-board.toml",
);

#[derive(Args, Debug)]
#[command(after_help = AFTER_HELP)]
pub struct ExploreArgs {
    #[command(flatten)]
    pub source: Source,
    /// Tile sizes to try (see TILE SPEC below).
    #[arg(long, value_name = "SPEC", default_value = "8..128", value_parser = parse_tile_spec)]
    pub tile: TileSpec,
    /// Parallel sub-bands along the outer hyperplanes, the same for every point.
    #[arg(long, value_name = "P1,P2,…", value_delimiter = ',', default_value = "1")]
    pub par: Vec<i64>,
    /// Tiling hyperplanes per statement, e.g. "S0: t, 2t + i; S1: t, 2t + i + 1".
    #[arg(long, value_name = "SPEC")]
    pub hyperplanes: Option<String>,
    /// Board for the roofline: a catalogue name or the path of a board TOML file.
    #[arg(long, value_name = "NAME|FILE", default_value = "vcu1525")]
    pub board: String,
    /// Write a plot: intensity and on-chip memory per tile size, and the roofline. `.svg`, or
    /// `.png` when `rsvg-convert` is installed.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    /// Compute model: floating-point operations per DSP slice per cycle (default: 0.4 for
    /// float kernels, 2/14 for double ones).
    #[arg(long, value_name = "X")]
    pub flops_per_dsp: Option<f64>,
    /// Build at most N networks at once (default: one per core). Each build holds every
    /// statement instance in memory.
    #[arg(short = 'j', long, value_name = "N")]
    pub jobs: Option<usize>,
}

/// The points of a sweep: one `--tile` vector each.
#[derive(Clone, Debug, PartialEq)]
pub struct TileSpec(pub Vec<Vec<i64>>);

fn positive(s: &str, what: &str) -> Result<i64, String> {
    let v: i64 = s.trim().parse().map_err(|_| format!("`{}` is not an integer {what}", s.trim()))?;
    if v < 1 {
        return Err(format!("{what} {v} is not positive"));
    }
    Ok(v)
}

/// Parse a tile spec (see `--help`): a comma-separated list of `A..B`, `A..B:STEP`, `S` and
/// `S1xS2x…`. Duplicates are dropped, the first occurrence kept.
pub fn parse_tile_spec(spec: &str) -> Result<TileSpec, String> {
    fn push(p: Vec<i64>, points: &mut Vec<Vec<i64>>) -> Result<(), String> {
        if !points.contains(&p) {
            points.push(p);
        }
        if points.len() > MAX_POINTS {
            return Err(format!("more than {MAX_POINTS} tile sizes; use a coarser step"));
        }
        Ok(())
    }
    let mut points: Vec<Vec<i64>> = Vec::new();
    for item in spec.split(',').map(str::trim) {
        if item.is_empty() {
            return Err(format!("empty item in tile spec `{spec}`"));
        }
        if let Some((a, rest)) = item.split_once("..") {
            let (b, step) = match rest.split_once(':') {
                Some((b, st)) => (b, Some(positive(st, "step")?)),
                None => (rest, None),
            };
            let (a, b) = (positive(a, "tile size")?, positive(b, "tile size")?);
            if b < a {
                return Err(format!("empty range `{item}`: {b} is less than {a}"));
            }
            let mut s = a;
            while s <= b {
                push(vec![s], &mut points)?;
                s = match step {
                    Some(st) => s.saturating_add(st),
                    None => s.saturating_mul(2),
                };
            }
        } else if item.contains(['x', 'X']) {
            let sizes = item.split(['x', 'X']).map(|s| positive(s, "tile size")).collect::<Result<Vec<_>, _>>()?;
            push(sizes, &mut points)?;
        } else {
            push(vec![positive(item, "tile size")?], &mut points)?;
        }
    }
    Ok(TileSpec(points))
}

/// `32` for a size on every hyperplane, `32x16x8` for one per hyperplane.
pub fn tile_label(t: &[i64]) -> String {
    t.iter().map(|s| s.to_string()).collect::<Vec<_>>().join("x")
}

/// The roofline for one board and compute model.
#[derive(Clone, Debug)]
struct Roof {
    bandwidth_gbs: f64,
    peak_gflops: f64,
}

impl Roof {
    fn attainable(&self, intensity: f64) -> f64 {
        (intensity * self.bandwidth_gbs).min(self.peak_gflops)
    }
    fn ridge(&self) -> f64 {
        self.peak_gflops / self.bandwidth_gbs
    }
    fn bound(&self, intensity: f64) -> &'static str {
        if intensity <= 0.0 {
            "-"
        } else if intensity < self.ridge() {
            "memory"
        } else {
            "compute"
        }
    }
}

pub fn run(sm: &mut SourceMap, args: &ExploreArgs) -> Result<(), Failure> {
    let board = dpnc_boards::load(&args.board).map_err(|e| e.to_string())?;
    if let Some(path) = &args.plot {
        check_plot_path(path)?;
    }
    if let Some(x) = args.flops_per_dsp {
        if !(x.is_finite() && x > 0.0) {
            return Err(format!("--flops-per-dsp must be positive, not {x}").into());
        }
    }
    if args.jobs == Some(0) {
        return Err("--jobs must be at least 1".to_string().into());
    }
    let p = crate::load(sm, &args.source)?;
    let sare = dpnc_frontend::dataflow::compute(&p)?;
    let double = p.vars.iter().any(|v| v.ty == dpnc_frontend::ir::ScalarType::Double);
    let (fpd, model) = match args.flops_per_dsp {
        Some(x) => (x, "--flops-per-dsp".to_string()),
        None if double => (dpnc_boards::FP64_FLOPS_PER_DSP_PER_CYCLE, "binary64 model: multiply on 11 DSPs + add on 3".to_string()),
        None => (dpnc_boards::FP32_FLOPS_PER_DSP_PER_CYCLE, "binary32 model: multiply on 3 DSPs + add on 2".to_string()),
    };
    let roof = Roof { bandwidth_gbs: board.peak_bandwidth_gbs(), peak_gflops: board.peak_gflops(fpd) };

    let sizes = &args.tile.0;
    let n = sizes.len();
    let base = dpnc_dpn::Config {
        tile: Vec::new(),
        par: args.par.clone(),
        subbands: Default::default(),
        hyperplanes: args.hyperplanes.clone(),
        max_instances: 0,
        progress: false,
        on_step: None,
        keep_traces: false,
        codegen: false,
        every_band: false,
        chunk: 0,
        max_band: 0,
    };
    let start = Instant::now();
    // The tile sizes finished so far, and their bar (a sweep of one has none).
    let bar = std::sync::Mutex::new((0u64, (n > 1).then(|| crate::progress::Progress::new("explore", Some(n as u64)))));
    let progress = |_: usize, (tile, r): &Point| {
        let Ok(mut guard) = bar.lock() else { return };
        let (finished, Some(bar)) = &mut *guard else { return };
        *finished += 1;
        let what = match r {
            Ok(r) => format!("{:.3} flop/B", r.intensity()),
            Err(_) => "failed".to_string(),
        };
        bar.println(&format!("[{finished}/{n}] tile {}: {what} ({:.1} s)", tile_label(tile), start.elapsed().as_secs_f64()));
        bar.set(*finished, "tile sizes");
    };
    // The builds recurse over the kernel's loops and expressions: give them the same room as
    // the main thread.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.jobs.unwrap_or(0))
        .stack_size(256 << 20)
        .build()
        .map_err(|e| format!("cannot start the worker threads: {e}"))?;
    let points = pool.install(|| dpnc_dpn::explore::sweep(&p, &sare, sizes, &base, &progress));
    if let Ok((_, Some(bar))) = bar.into_inner() {
        bar.finish();
    }

    print!("{}", table(&p, &board, &roof, fpd, &model, &points));
    let ok = points.iter().filter(|(_, r)| r.is_ok()).count();
    if ok == 0 {
        let first = points.iter().find_map(|(t, r)| r.as_ref().err().map(|e| format!("tile {}: {e}", tile_label(t))));
        return Err(format!("no tile size could be built; {}", first.unwrap_or_default()).into());
    }
    if ok < n {
        eprintln!("warning: {} of {n} tile sizes could not be built (see the table)", n - ok);
    }
    if let Some(path) = &args.plot {
        let svg = plot_svg(&p, &board, &roof, &points);
        write_plot(path, &svg)?;
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}

fn params_text(p: &Program) -> String {
    p.params.iter().map(|q| format!("{}={}", q.name, q.value.map_or("?".to_string(), |v| v.to_string()))).collect::<Vec<_>>().join(" ")
}

/// On-chip RAM of the board in bytes: 36 Kb block RAMs and 288 Kb UltraRAMs.
fn board_ram_bytes(b: &Board) -> f64 {
    (b.bram36 as f64 * 36.0 + b.uram as f64 * 288.0) * 1024.0 / 8.0
}

fn table(p: &Program, board: &Board, roof: &Roof, fpd: f64, model: &str, points: &[Point]) -> String {
    let mut o = String::new();
    let first = points.iter().find_map(|(_, r)| r.as_ref().ok());
    let _ = writeln!(o, "kernel {} ({})", p.kernel, params_text(p));
    if let Some(r) = first {
        let _ = writeln!(
            o,
            "  {} floating-point operations; DDR bytes untiled {} (every access to memory), compulsory {}",
            r.flops,
            r.untiled_read_bytes + r.untiled_write_bytes,
            r.compulsory_bytes
        );
    }
    let _ = writeln!(o, "board {}: {}; {}", board.name, board.label(), board.memory_summary());
    let _ = writeln!(
        o,
        "  compute ceiling {:.1} GFLOP/s = {} DSP x {:.3} flop/DSP/cycle x {} MHz ({model}); ridge point {:.2} flop/B",
        roof.peak_gflops,
        board.dsps,
        fpd,
        board.clock_mhz,
        roof.ridge()
    );
    let _ = writeln!(o);
    let header = [
        ("tile", 10),
        ("bands", 6),
        ("DDR read B", 12),
        ("DDR write B", 12),
        ("DDR total B", 12),
        ("flop/B", 9),
        ("on-chip words", 14),
        ("on-chip B", 11),
        ("RAM %", 7),
        ("GFLOP/s", 9),
        ("bound", 8),
    ];
    let mut line = String::new();
    for (i, (h, w)) in header.iter().enumerate() {
        if i == 0 {
            let _ = write!(line, "{h:<w$}");
        } else {
            let _ = write!(line, " {h:>w$}");
        }
    }
    let _ = writeln!(o, "{}", line.trim_end());
    let ram = board_ram_bytes(board);
    for (tile, r) in points {
        let label = tile_label(tile);
        match r {
            Ok(r) => {
                let ai = r.intensity();
                let _ = writeln!(
                    o,
                    "{label:<10} {:>6} {:>12} {:>12} {:>12} {:>9.3} {:>14} {:>11} {:>7.2} {:>9.1} {:>8}",
                    r.bands,
                    r.ddr_read_bytes,
                    r.ddr_write_bytes,
                    r.ddr_bytes(),
                    ai,
                    r.onchip_words,
                    r.onchip_bytes,
                    100.0 * r.onchip_bytes as f64 / ram,
                    roof.attainable(ai),
                    roof.bound(ai)
                );
            }
            Err(e) => {
                let _ = writeln!(o, "{label:<10} error: {e}");
            }
        }
    }
    let _ = writeln!(o, "\nRAM % = on-chip bytes / the board's block RAM + UltraRAM ({:.0} KiB)", ram / 1024.0);
    o
}

fn check_plot_path(path: &Path) -> Result<(), Failure> {
    match path.extension().and_then(|e| e.to_str()).map(|e| e.to_ascii_lowercase()).as_deref() {
        Some("svg") => Ok(()),
        Some("png") => {
            if std::process::Command::new("rsvg-convert").arg("--version").output().is_ok() {
                Ok(())
            } else {
                Err(format!(
                    "cannot write {}: PNG output needs `rsvg-convert` (Debian/Ubuntu package librsvg2-bin), which is not installed; \
                     write an .svg instead",
                    path.display()
                )
                .into())
            }
        }
        _ => Err(format!(
            "--plot {}: the plot is written as .svg (or .png with rsvg-convert); give a file name ending in one of those",
            path.display()
        )
        .into()),
    }
}

fn write_plot(path: &Path, svg: &str) -> Result<(), Failure> {
    let png = path.extension().and_then(|e| e.to_str()).is_some_and(|e| e.eq_ignore_ascii_case("png"));
    if !png {
        return std::fs::write(path, svg).map_err(|e| format!("cannot write {}: {e}", path.display()).into());
    }
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new("rsvg-convert")
        .arg("-f")
        .arg("png")
        .arg("-o")
        .arg(path)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run rsvg-convert: {e}"))?;
    let fed = child.stdin.take().map(|mut s| s.write_all(svg.as_bytes()));
    let out = child.wait_with_output().map_err(|e| format!("rsvg-convert: {e}"))?;
    if !out.status.success() || !matches!(fed, Some(Ok(()))) {
        let _ = std::fs::remove_file(path);
        return Err(format!("rsvg-convert could not write {}: {}", path.display(), String::from_utf8_lossy(&out.stderr).trim()).into());
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The plot: hand-written SVG.

const BLUE: &str = "#1f5fa8";
const ORANGE: &str = "#d9661a";
const GREY: &str = "#555555";
const RED: &str = "#c0392b";
const GREEN: &str = "#2e8b57";

/// The two-panel plot: intensity and on-chip memory against tile size; the roofline.
pub fn plot_svg_for(kernel: &str, params: &str, board: &Board, bandwidth_gbs: f64, peak_gflops: f64, points: &[Point]) -> String {
    let roof = Roof { bandwidth_gbs, peak_gflops };
    let ok: Vec<(String, &Report)> = points.iter().filter_map(|(t, r)| r.as_ref().ok().map(|r| (tile_label(t), r))).collect();
    let (w, h) = (1200.0, 580.0);
    let mut g = Svg { s: String::new() };
    let _ = writeln!(
        g.s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">"#
    );
    let _ = writeln!(g.s, r#"<rect x="0" y="0" width="{w}" height="{h}" fill="white"/>"#);
    g.text(
        w / 2.0,
        30.0,
        r#"font-size="19" font-weight="bold" text-anchor="middle""#,
        &format!("dpnc explore: {kernel} on {}", board.name),
    );
    let flops = ok.first().map(|(_, r)| r.flops).unwrap_or(0);
    g.text(
        w / 2.0,
        52.0,
        r##"font-size="13" text-anchor="middle" fill="#444""##,
        &format!("{params}; {flops} flop; {}; {:.1} GB/s, {:.1} GFLOP/s ceiling", board.label(), bandwidth_gbs, peak_gflops),
    );

    // Left panel: intensity (left axis) and on-chip KiB (right axis) against tile size.
    let (x0, x1, y0, y1) = (90.0, 520.0, 100.0, 450.0);
    g.text(
        (x0 + x1) / 2.0,
        88.0,
        r#"font-size="14" font-weight="bold" text-anchor="middle""#,
        "Intensity and on-chip memory per tile size",
    );
    let ai = LogAxis::covering(ok.iter().map(|(_, r)| r.intensity()), y1, y0);
    let kib = LogAxis::covering(ok.iter().map(|(_, r)| r.onchip_bytes as f64 / 1024.0), y1, y0);
    g.y_axis(&ai, x0, x1, false, BLUE, true);
    g.y_axis(&kib, x0, x1, true, ORANGE, false);
    let n = ok.len().max(1);
    let xs: Vec<f64> = (0..ok.len()).map(|i| x0 + (i as f64 + 0.5) * (x1 - x0) / n as f64).collect();
    let long_labels = ok.iter().map(|(l, _)| l.len()).max().unwrap_or(0) * 7 * n > (x1 - x0) as usize;
    for (x, (label, _)) in xs.iter().zip(&ok) {
        g.line(*x, y1, *x, y1 + 5.0, r##"stroke="#333" stroke-width="1""##);
        if long_labels {
            g.text(*x, y1 + 16.0, &format!(r#"font-size="12" text-anchor="end" transform="rotate(-35 {x:.1} {:.1})""#, y1 + 16.0), label);
        } else {
            g.text(*x, y1 + 19.0, r#"font-size="12" text-anchor="middle""#, label);
        }
    }
    let ai_pts: Vec<(f64, f64)> =
        xs.iter().zip(&ok).filter(|(_, (_, r))| r.intensity() > 0.0).map(|(x, (_, r))| (*x, ai.at(r.intensity()))).collect();
    let kib_pts: Vec<(f64, f64)> = xs
        .iter()
        .zip(&ok)
        .filter(|(_, (_, r))| r.onchip_bytes > 0)
        .map(|(x, (_, r))| (*x, kib.at(r.onchip_bytes as f64 / 1024.0)))
        .collect();
    g.polyline(&kib_pts, &format!(r#"stroke="{ORANGE}" stroke-width="2" stroke-dasharray="6 4""#));
    g.polyline(&ai_pts, &format!(r#"stroke="{BLUE}" stroke-width="2""#));
    for &(x, y) in &kib_pts {
        g.square(x, y, 4.5, ORANGE);
    }
    for &(x, y) in &ai_pts {
        g.circle(x, y, 5.0, BLUE);
    }
    if ai_pts.is_empty() {
        g.text(
            (x0 + x1) / 2.0,
            (y0 + y1) / 2.0,
            r##"font-size="13" text-anchor="middle" fill="#a00""##,
            "no floating-point operations: intensity is 0",
        );
    }
    g.frame(x0, y0, x1, y1);
    g.text((x0 + x1) / 2.0, y1 + 48.0, r#"font-size="14" text-anchor="middle""#, "tile size");
    let (cy, cx) = ((y0 + y1) / 2.0, x0 - 58.0);
    g.text(
        cx,
        cy,
        &format!(r#"font-size="14" text-anchor="middle" fill="{BLUE}" transform="rotate(-90 {cx:.1} {cy:.1})""#),
        "arithmetic intensity (flop/B)",
    );
    let cx = x1 + 62.0;
    g.text(
        cx,
        cy,
        &format!(r#"font-size="14" text-anchor="middle" fill="{ORANGE}" transform="rotate(90 {cx:.1} {cy:.1})""#),
        "on-chip memory (KiB)",
    );
    // Legend, in a row under the panel.
    let ly = y1 + 80.0;
    let lx = x0 - 20.0;
    g.line(lx, ly, lx + 26.0, ly, &format!(r#"stroke="{BLUE}" stroke-width="2""#));
    g.circle(lx + 13.0, ly, 4.5, BLUE);
    g.text(lx + 32.0, ly + 4.0, r#"font-size="12""#, "arithmetic intensity (left axis)");
    let lx = lx + 240.0;
    g.line(lx, ly, lx + 26.0, ly, &format!(r#"stroke="{ORANGE}" stroke-width="2" stroke-dasharray="6 4""#));
    g.square(lx + 13.0, ly, 4.0, ORANGE);
    g.text(lx + 32.0, ly + 4.0, r#"font-size="12""#, "on-chip memory (right axis)");

    // Right panel: the roofline.
    let (x0, x1) = (720.0, 1150.0);
    g.text((x0 + x1) / 2.0, 88.0, r#"font-size="14" font-weight="bold" text-anchor="middle""#, "Roofline");
    let ridge = roof.ridge();
    let ais: Vec<f64> = ok.iter().map(|(_, r)| r.intensity()).filter(|v| *v > 0.0).collect();
    let xa = LogAxis::covering(ais.iter().copied().chain([ridge / 4.0, ridge * 4.0]), x0, x1);
    let ya = LogAxis::covering(ais.iter().map(|&a| roof.attainable(a)).chain([roof.attainable(xa.lo), peak_gflops * 1.5]), y1, y0);
    g.y_axis(&ya, x0, x1, false, "#222", true);
    for (v, labelled) in xa.ticks() {
        let x = xa.at(v);
        g.line(x, y0, x, y1, r##"stroke="#e4e4e4" stroke-width="1""##);
        g.line(x, y1, x, y1 + if labelled { 6.0 } else { 3.0 }, r##"stroke="#333" stroke-width="1""##);
        if labelled {
            g.text(x, y1 + 19.0, r#"font-size="12" text-anchor="middle""#, &fmt_tick(v));
        }
    }
    // The roof: bandwidth slope up to the ridge point, then the compute ceiling.
    let x_start = xa.lo.max(ya.lo / bandwidth_gbs);
    let roof_pts = [(xa.at(x_start), ya.at(x_start * bandwidth_gbs)), (xa.at(ridge), ya.at(peak_gflops)), (x1, ya.at(peak_gflops))];
    g.line(xa.at(ridge), ya.at(peak_gflops), xa.at(ridge), y1, &format!(r#"stroke="{GREY}" stroke-width="1" stroke-dasharray="3 3""#));
    g.text(
        xa.at(ridge) - 4.0,
        y1 - 8.0,
        &format!(r#"font-size="11" text-anchor="end" fill="{GREY}""#),
        &format!("ridge {ridge:.1} flop/B"),
    );
    g.polyline(&roof_pts, r##"stroke="#222" stroke-width="2.5""##);
    g.text(x1 - 6.0, ya.at(peak_gflops) - 8.0, r#"font-size="12" text-anchor="end""#, &format!("compute ceiling {peak_gflops:.1} GFLOP/s"));
    // Bandwidth label along the slope, a little above it, where it is farthest from the points.
    let (sx0, sy0) = roof_pts[0];
    let (sx1, sy1) = roof_pts[1];
    let angle = (sy1 - sy0).atan2(sx1 - sx0).to_degrees();
    let point_xs: Vec<f64> = ais.iter().map(|&a| xa.at(a)).collect();
    let half = 45.0 * (angle.to_radians().cos()).abs();
    let f = (1..=14)
        .map(|i| 0.06 * i as f64)
        .filter(|f| sx0 + f * (sx1 - sx0) - half > x0 + 4.0)
        .map(|f| (f, point_xs.iter().map(|&x| (x - (sx0 + f * (sx1 - sx0))).abs() - half).fold(f64::INFINITY, f64::min)))
        .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.total_cmp(&a.0)))
        .map_or(0.3, |(f, _)| f);
    let (mx, my) = (sx0 + f * (sx1 - sx0), sy0 + f * (sy1 - sy0) - 7.0);
    g.text(
        mx,
        my,
        &format!(r#"font-size="12" text-anchor="middle" transform="rotate({angle:.1} {mx:.1} {my:.1})""#),
        &format!("DDR {bandwidth_gbs:.1} GB/s"),
    );
    // One point per tile size; tile sizes that land on the same spot share one label. Labels go
    // above-left or below-right of the roof, wherever they overlap no label placed before.
    let mut groups: Vec<(f64, f64, f64, Vec<&str>)> = Vec::new();
    for (label, r) in &ok {
        let a = r.intensity();
        if a <= 0.0 {
            continue;
        }
        let (x, y) = (xa.at(a), ya.at(roof.attainable(a)));
        match groups.iter_mut().find(|(gx, gy, _, _)| (gx - x).abs() < 2.0 && (gy - y).abs() < 2.0) {
            Some(grp) => grp.3.push(label),
            None => groups.push((x, y, a, vec![label])),
        }
    }
    let mut placed: Vec<(f64, f64, f64, f64)> = Vec::new();
    for (k, (x, y, a, labels)) in groups.iter().enumerate() {
        g.circle(*x, *y, 5.5, if *a < ridge { RED } else { GREEN });
        let text = labels.join(", ");
        let tw = 7.5 * text.chars().count() as f64;
        // (x of the text's left end, baseline y) for: above-left, below-right, farther out.
        let mut spots = [(x - 8.0 - tw, y - 8.0), (x + 8.0, y + 17.0), (x - 8.0 - tw, y - 24.0), (x + 8.0, y + 33.0)];
        if k % 2 == 1 {
            spots.swap(0, 1);
            spots.swap(2, 3);
        }
        let clear = |&(lx, ly): &(f64, f64)| {
            lx > x0 + 2.0
                && lx + tw < w - 4.0
                && ly > y0 + 13.0
                && placed.iter().all(|&(px, py, pw, _)| lx + tw < px || px + pw < lx || ly < py - 13.0 || py < ly - 13.0)
        };
        let (lx, ly) = spots.iter().copied().find(|s| clear(s)).unwrap_or(spots[0]);
        placed.push((lx, ly, tw, 13.0));
        g.text(lx, ly, r#"font-size="12" font-weight="bold""#, &text);
    }
    if groups.is_empty() {
        g.text(
            (x0 + x1) / 2.0,
            y1 - 40.0,
            r##"font-size="13" text-anchor="middle" fill="#a00""##,
            "no floating-point operations: nothing to place",
        );
    }
    g.frame(x0, y0, x1, y1);
    g.text((x0 + x1) / 2.0, y1 + 48.0, r#"font-size="14" text-anchor="middle""#, "arithmetic intensity (flop/B)");
    let cx = x0 - 62.0;
    g.text(
        cx,
        cy,
        &format!(r#"font-size="14" text-anchor="middle" transform="rotate(-90 {cx:.1} {cy:.1})""#),
        "attainable performance (GFLOP/s)",
    );
    let ly = y1 + 80.0;
    let lx = x0 - 40.0;
    g.line(lx, ly, lx + 26.0, ly, r##"stroke="#222" stroke-width="2.5""##);
    g.text(lx + 32.0, ly + 4.0, r#"font-size="12""#, "roofline of the board");
    let lx = lx + 170.0;
    g.circle(lx + 13.0, ly, 5.0, RED);
    g.text(lx + 24.0, ly + 4.0, r#"font-size="12""#, "tile size, memory-bound");
    let lx = lx + 175.0;
    g.circle(lx + 13.0, ly, 5.0, GREEN);
    g.text(lx + 24.0, ly + 4.0, r#"font-size="12""#, "compute-bound");

    g.text(
        w / 2.0,
        h - 10.0,
        r##"font-size="11" text-anchor="middle" fill="#666""##,
        "intensity = floating-point operations / DDR bytes of the process network; attainable = min(ceiling, intensity x bandwidth)",
    );
    g.s.push_str("</svg>\n");
    g.s
}

fn plot_svg(p: &Program, board: &Board, roof: &Roof, points: &[Point]) -> String {
    plot_svg_for(&p.kernel, &params_text(p), board, roof.bandwidth_gbs, roof.peak_gflops, points)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(s: &str) -> Vec<Vec<i64>> {
        parse_tile_spec(s).unwrap_or_else(|e| panic!("{s}: {e}")).0
    }

    #[test]
    fn powers_of_two() {
        assert_eq!(spec("8..128"), vec![vec![8], vec![16], vec![32], vec![64], vec![128]]);
        assert_eq!(spec("2..8"), vec![vec![2], vec![4], vec![8]]);
        assert_eq!(spec("8..100"), vec![vec![8], vec![16], vec![32], vec![64]]);
        assert_eq!(spec("3..20"), vec![vec![3], vec![6], vec![12]]);
        assert_eq!(spec("16..16"), vec![vec![16]]);
    }

    #[test]
    fn arithmetic_steps() {
        assert_eq!(spec("16..64:16"), vec![vec![16], vec![32], vec![48], vec![64]]);
        assert_eq!(spec("10..25:10"), vec![vec![10], vec![20]]);
        assert_eq!(spec(" 4 .. 6 : 1 "), vec![vec![4], vec![5], vec![6]]);
    }

    #[test]
    fn lists_and_per_dimension_points() {
        assert_eq!(spec("8,16,32"), vec![vec![8], vec![16], vec![32]]);
        assert_eq!(spec("32x16x8"), vec![vec![32, 16, 8]]);
        assert_eq!(spec("32X16"), vec![vec![32, 16]]);
        assert_eq!(spec("4..8, 32x32x8, 8"), vec![vec![4], vec![8], vec![32, 32, 8]]);
        // Duplicates are dropped, the first occurrence kept.
        assert_eq!(spec("8,8..16"), vec![vec![8], vec![16]]);
    }

    #[test]
    fn bad_specs() {
        for (s, why) in [
            ("", "empty item"),
            ("8,", "empty item"),
            ("0..8", "not positive"),
            ("-4", "not positive"),
            ("16..8", "empty range"),
            ("8..16:0", "step 0 is not positive"),
            ("8..x", "not an integer"),
            ("8x", "not an integer"),
            ("a", "not an integer"),
            ("1..1000:1", "more than 256"),
        ] {
            let e = parse_tile_spec(s).expect_err(s);
            assert!(e.contains(why), "`{s}`: {e}");
        }
    }

    #[test]
    fn labels() {
        assert_eq!(tile_label(&[32]), "32");
        assert_eq!(tile_label(&[32, 16, 8]), "32x16x8");
    }

    #[test]
    fn roof() {
        let r = Roof { bandwidth_gbs: 76.8, peak_gflops: 820.8 };
        assert_eq!(r.bound(1.0), "memory");
        assert!((r.attainable(1.0) - 76.8).abs() < 1e-9);
        assert_eq!(r.bound(100.0), "compute");
        assert_eq!(r.attainable(100.0), 820.8);
        assert_eq!(r.bound(0.0), "-");
    }
}
