//! `dpnc explore` end to end: the table, the SVG plot, board and tile-spec errors.

use std::path::PathBuf;
use std::process::{Command, Output};

fn dpnc() -> Command {
    Command::new(env!("CARGO_BIN_EXE_dpnc"))
}

fn kernel(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/kernels").join(name)
}

fn tempdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("dpnc-explore-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn explore(args: &[&str]) -> Output {
    dpnc().arg("explore").arg(kernel("gemm.c")).args(args).output().expect("dpnc runs")
}

fn ok(out: &Output) -> String {
    assert!(out.status.success(), "dpnc failed:\n{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// One table row: the tile label and its numeric columns.
struct Row {
    tile: String,
    bands: u64,
    read: u64,
    write: u64,
    total: u64,
    intensity: f64,
    bound: String,
}

/// The rows under the header line that starts with `tile`, up to the first blank line.
fn table_rows(table: &str) -> Vec<Row> {
    let mut lines = table.lines().skip_while(|l| !l.starts_with("tile ")).skip(1);
    let mut out = Vec::new();
    for l in lines.by_ref().take_while(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = l.split_whitespace().collect();
        assert_eq!(f.len(), 11, "a row has 11 columns: {l}");
        out.push(Row {
            tile: f[0].to_string(),
            bands: f[1].parse().unwrap(),
            read: f[2].parse().unwrap(),
            write: f[3].parse().unwrap(),
            total: f[4].parse().unwrap(),
            intensity: f[5].parse().unwrap(),
            bound: f[10].to_string(),
        });
    }
    out
}

fn ceil_div(a: u64, b: u64) -> u64 {
    a.div_ceil(b)
}

/// GEMM (NI=12, NJ=14, NK=16, double) tiled t×t×t with order (i, j, k): one band per C tile,
/// ⌈NI/t⌉·⌈NJ/t⌉ of them. A band of bi×bj loads bi·NK of A, NK·bj of B and bi·bj of C, and stores
/// its C tile once, so the traffic is (NI·NK·⌈NJ/t⌉ + NK·NJ·⌈NI/t⌉ + 2·NI·NJ) words. Every
/// ceiling is non-increasing in t and ⌈14/t⌉ goes 7, 4, 2 for t = 2, 4, 8: the traffic must
/// strictly decrease (24,192 → 14,208 → 9,344 bytes) while the flop count stays the same.
#[test]
fn gemm_table_one_row_per_size_and_traffic_decreases() {
    let out = explore(&["--tile", "2..8"]);
    let text = ok(&out);
    assert!(text.contains("kernel kernel_gemm (ni=12 nj=14 nk=16)"), "{text}");
    assert!(text.contains("board vcu1525"), "{text}");
    assert!(text.contains("76.8 GB/s"), "{text}");
    let rows = table_rows(&text);
    assert_eq!(rows.iter().map(|r| r.tile.as_str()).collect::<Vec<_>>(), ["2", "4", "8"], "{text}");
    let (ni, nj, nk) = (12u64, 14u64, 16u64);
    for (r, t) in rows.iter().zip([2u64, 4, 8]) {
        assert_eq!(r.bands, ceil_div(ni, t) * ceil_div(nj, t), "tile {t}");
        assert_eq!(r.read, 8 * (ni * nk * ceil_div(nj, t) + nk * nj * ceil_div(ni, t) + ni * nj), "tile {t}");
        assert_eq!(r.write, 8 * ni * nj, "tile {t}");
        assert_eq!(r.total, r.read + r.write);
        assert_eq!(r.bound, "memory", "tile {t}: far below the ridge point");
    }
    for w in rows.windows(2) {
        assert!(
            w[1].total < w[0].total,
            "DDR traffic must strictly decrease: tile {} {} B, tile {} {} B",
            w[0].tile,
            w[0].total,
            w[1].tile,
            w[1].total
        );
        assert!(w[1].intensity > w[0].intensity);
    }
    // Progress on stderr, one line per point.
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().filter(|l| l.starts_with('[')).count(), 3, "{err}");
    assert!(err.contains("[3/3] tile "), "{err}");
}

#[test]
fn tile_lists_and_per_dimension_points() {
    let out = explore(&["--tile", "4,8x8x2"]);
    let rows = table_rows(&ok(&out));
    assert_eq!(rows.iter().map(|r| r.tile.as_str()).collect::<Vec<_>>(), ["4", "8x8x2"]);
    // One point: no progress lines.
    let out = explore(&["--tile", "4x4x2"]);
    assert_eq!(table_rows(&ok(&out)).len(), 1);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("[1/1]"));
}

/// Checks that every start tag has its end tag, in order; returns the tag names seen.
fn balanced(svg: &str) -> Vec<String> {
    let mut stack: Vec<String> = Vec::new();
    let mut seen = Vec::new();
    let mut rest = svg;
    while let Some(i) = rest.find('<') {
        let j = rest[i..].find('>').map(|j| i + j).expect("unterminated tag");
        let tag = &rest[i + 1..j];
        assert!(!tag.contains('<'), "`<` inside a tag: {tag}");
        if let Some(name) = tag.strip_prefix('/') {
            let open = stack.pop().unwrap_or_else(|| panic!("</{name}> without a start tag"));
            assert_eq!(open, name.trim(), "mismatched end tag");
        } else if !tag.starts_with('?') && !tag.starts_with('!') {
            let name = tag.split_whitespace().next().unwrap_or("").trim_end_matches('/').to_string();
            seen.push(name.clone());
            if !tag.ends_with('/') {
                stack.push(name);
            }
        }
        rest = &rest[j + 1..];
    }
    assert!(stack.is_empty(), "unclosed tags: {stack:?}");
    seen
}

#[test]
fn svg_plot_is_well_formed_and_labelled() {
    let dir = tempdir("svg");
    let path = dir.join("gemm.svg");
    ok(&explore(&["--tile", "2..8", "--board", "vcu1525", "--plot", path.to_str().unwrap()]));
    let svg = std::fs::read_to_string(&path).expect("the plot is written");
    assert!(svg.starts_with("<svg"), "{}", &svg[..svg.len().min(200)]);
    assert!(svg.trim_end().ends_with("</svg>"));
    let tags = balanced(&svg);
    assert_eq!(tags.iter().filter(|t| *t == "svg").count(), 1);
    assert!(tags.iter().any(|t| t == "polyline") && tags.iter().any(|t| t == "circle"));
    for needle in [
        "kernel_gemm",
        "vcu1525",
        "tile size",
        "arithmetic intensity (flop/B)",
        "on-chip memory (KiB)",
        "attainable performance (GFLOP/s)",
        "Roofline",
        "compute ceiling",
        "DDR 76.8 GB/s",
    ] {
        assert!(svg.contains(needle), "the plot lacks `{needle}`");
    }
    // The tile sizes label the x axis of the left panel and the points of the roofline.
    for t in ["2", "4", "8"] {
        assert!(svg.matches(&format!(">{t}</text>")).count() >= 2, "tile {t} is not labelled twice");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn unknown_board_lists_the_known_ones_and_writes_nothing() {
    let dir = tempdir("board");
    let path = dir.join("never.svg");
    let out = explore(&["--tile", "4", "--board", "nosuchboard", "--plot", path.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown board `nosuchboard`"), "{err}");
    for b in dpnc_boards::catalogue() {
        assert!(err.contains(b), "{b} missing from: {err}");
    }
    assert!(!path.exists(), "no output file on failure");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn board_from_a_user_file() {
    let dir = tempdir("userboard");
    let path = dir.join("small.toml");
    std::fs::write(
        &path,
        "name = \"small\"\npart = \"xc7z020clg400-1\"\nluts = 53200\nffs = 106400\ndsps = 220\nbram36 = 140\nuram = 0\n\
         clock_mhz = 100.0\nplatform = \"none\"\n\n[[memory]]\nname = \"DDR\"\nkind = \"DDR3\"\nwidth_bits = 32\nbandwidth_gbs = 4.2\n",
    )
    .unwrap();
    let text = ok(&explore(&["--tile", "4", "--board", path.to_str().unwrap()]));
    assert!(text.contains("board small"), "{text}");
    assert!(text.contains("4.2 GB/s"), "{text}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_tile_spec_and_plot_name_are_errors() {
    let out = explore(&["--tile", "8..4"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("empty range"), "{}", String::from_utf8_lossy(&out.stderr));
    let out = explore(&["--tile", "4", "--plot", "/tmp/plot.pdf"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains(".svg"));
}

#[test]
fn png_needs_rsvg_convert() {
    let dir = tempdir("png");
    let path = dir.join("gemm.png");
    let out = explore(&["--tile", "2,4", "--plot", path.to_str().unwrap()]);
    let have_rsvg = Command::new("rsvg-convert").arg("--version").output().is_ok();
    if have_rsvg {
        ok(&out);
        let bytes = std::fs::read(&path).expect("the PNG is written");
        assert!(bytes.starts_with(b"\x89PNG"), "not a PNG");
    } else {
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("rsvg-convert") && err.contains(".svg"), "{err}");
        assert!(!path.exists());
    }
    std::fs::remove_dir_all(&dir).ok();
}
