//! `dpnc boards` end to end, and the error an unknown `--board` gives.

use std::path::PathBuf;
use std::process::{Command, Output};

/// The catalogue, with figures written from the data sheets (not read from boards/*.toml): name,
/// part, LUTs, DSPs, 36 Kb BRAMs, URAMs, memory summary, platform.
type Board = (&'static str, &'static str, u64, u64, u64, u64, &'static str, &'static str);
const BOARDS: &[Board] = &[
    ("u200", "xcu200-fsgd2104-2-e", 1_182_240, 6_840, 2_160, 960, "4 x DDR4, 76.8 GB/s", "xilinx_u200_gen3x16_xdma_2_202110_1"),
    ("u250", "xcu250-figd2104-2L-e", 1_728_000, 12_288, 2_688, 1_280, "4 x DDR4, 76.8 GB/s", "xilinx_u250_gen3x16_xdma_4_1_202210_1"),
    (
        "u280",
        "xcu280-fsvh2892-2L-e",
        1_303_680,
        9_024,
        2_016,
        960,
        "32 x HBM2 + 2 x DDR4, 498.4 GB/s",
        "xilinx_u280_gen3x16_xdma_1_202211_1",
    ),
    ("vcu1525", "xcvu9p-fsgd2104-2L-e", 1_182_240, 6_840, 2_160, 960, "4 x DDR4, 76.8 GB/s", "xilinx_vcu1525_xdma_201830_1"),
];

fn dpnc() -> Command {
    Command::new(env!("CARGO_BIN_EXE_dpnc"))
}

fn kernel(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/kernels").join(name)
}

fn text(out: &Output) -> (String, String) {
    (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn boards_lists_the_catalogue() {
    let out = dpnc().arg("boards").output().expect("dpnc runs");
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "dpnc boards failed:\n{stdout}\n{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 1 + BOARDS.len(), "a header and one line per board:\n{stdout}");
    let header: Vec<&str> = lines[0].split_whitespace().collect();
    assert_eq!(header, ["board", "part", "LUT", "DSP", "BRAM36", "URAM", "memory", "clock", "platform", "built", "for"], "{stdout}");
    for (line, &(name, part, luts, dsps, bram, uram, memory, platform)) in lines[1..].iter().zip(BOARDS) {
        let cols: Vec<&str> = line.split_whitespace().collect();
        let expected = [name.to_string(), part.to_string(), luts.to_string(), dsps.to_string(), bram.to_string(), uram.to_string()];
        assert_eq!(cols[..6], expected[..], "{line}");
        assert!(line.contains(&format!("  {memory}  ")), "{line}");
        assert!(line.contains("  300 MHz  "), "{line}");
        assert!(line.contains(&format!("  {platform}  ")), "{line}");
        // The release in the platform's name (`_201830_`: 2018.3, SDAccel's; from 2019.2 on, Vitis's).
        let release = if name == "vcu1525" {
            "SDAccel 2018.3"
        } else if name == "u200" {
            "Vitis 2021.1"
        } else {
            "Vitis 2022.1"
        };
        assert!(line.ends_with(&format!("  {release}")), "{line}");
    }
    // The columns line up: every row is as long as the header up to the platform column.
    let platform_at = lines[0].find("platform").unwrap();
    for line in &lines[1..] {
        assert!(line[..platform_at].ends_with("  ") && !line[platform_at..].starts_with(' '), "{line}");
    }
}

#[test]
fn unknown_board_lists_every_known_board() {
    let out = dpnc().arg("explore").arg(kernel("gemm.c")).args(["--tile", "4", "--board", "nope"]).output().expect("dpnc runs");
    let (stdout, stderr) = text(&out);
    assert!(!out.status.success(), "dpnc explore --board nope succeeded:\n{stdout}");
    assert!(stderr.contains("unknown board `nope`"), "{stderr}");
    assert!(stderr.contains("known boards: u200, u250, u280, vcu1525"), "{stderr}");
    for &(name, ..) in BOARDS {
        assert!(stderr.contains(name), "{name} missing from: {stderr}");
    }
}
