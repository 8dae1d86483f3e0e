//! The board catalogue (DESIGN.md §9): FPGA part, resources, memory banks, default clock and
//! Vitis platform of each board dpnc targets, read from TOML files.
//!
//! The catalogue files live in the repository's `boards/` folder and are compiled into the
//! binary, so `dpnc --board vcu1525` works from any directory. A user may also pass the path of
//! a TOML file of the same shape:
//!
//! ```toml
//! name = "myboard"
//! description = "optional, one line"
//! part = "xcvu9p-fsgd2104-2L-e"
//! luts = 1182240
//! ffs = 2364480
//! dsps = 6840
//! bram36 = 2160          # 36 Kb block RAMs
//! uram = 960             # 288 Kb UltraRAMs
//! clock_mhz = 300.0      # default kernel clock
//! platform = "xilinx_vcu1525_xdma_201830_1"
//!
//! [[memory]]             # one table per bank
//! name = "DDR[0]"        # as Vitis connectivity names it: DDR[0], HBM[0], PLRAM[0], …
//! kind = "DDR4"          # DDR4, HBM2, …
//! width_bits = 64
//! bandwidth_gbs = 19.2   # peak, GB/s (10^9 bytes per second)
//! size_gib = 16.0        # optional
//! ```
//!
//! Unknown keys are errors, so that a misspelt key is not silently ignored.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The catalogue: (name, TOML text), embedded at build time.
const CATALOGUE: &[(&str, &str)] = &[
    ("u200", include_str!("../u200.toml")),
    ("u250", include_str!("../u250.toml")),
    ("u280", include_str!("../u280.toml")),
    ("vcu1525", include_str!("../vcu1525.toml")),
];

/// Single-precision compute model for [`Board::peak_gflops`]: flops per DSP slice per cycle.
///
/// A floating-point datapath on a DSP48E2 device spends its DSPs on multipliers and adders: with
/// the Xilinx Floating-Point Operator (PG060) at full DSP usage, a binary32 multiply takes 3 DSP
/// slices and a binary32 add 2. A multiply–add pair, 2 flops, therefore costs 5 DSPs: 2/5 = 0.4
/// flop per DSP per cycle when every DSP works every cycle. This is an upper bound (it ignores
/// the LUT and routing limits and the shell's share); it is what the roofline's ceiling uses.
pub const FP32_FLOPS_PER_DSP_PER_CYCLE: f64 = 0.4;

/// Double-precision compute model: a binary64 multiply takes about 11 DSP slices and a binary64
/// add 3 at full DSP usage (PG060), so a multiply–add pair costs 14 DSPs: 2/14 flop per DSP per
/// cycle.
pub const FP64_FLOPS_PER_DSP_PER_CYCLE: f64 = 2.0 / 14.0;

/// One memory bank (a DDR channel, an HBM pseudo-channel, …).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bank {
    /// The bank as Vitis connectivity (`--connectivity.sp`) names it: `DDR[0]`, `HBM[31]`, ….
    pub name: String,
    /// "DDR4", "HBM2", …
    pub kind: String,
    /// Data width of the bank's interface in bits (ECC bits excluded).
    pub width_bits: u32,
    /// Peak bandwidth in GB/s (10^9 bytes per second).
    pub bandwidth_gbs: f64,
    /// Capacity in GiB, where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size_gib: Option<f64>,
}

/// A board: its FPGA, the FPGA's resources, its memory, its default clock and Vitis platform.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Board {
    /// Short name, as given to `--board`.
    pub name: String,
    /// One line for humans (plot titles, reports).
    #[serde(default)]
    pub description: String,
    /// The FPGA part, as Vivado spells it.
    pub part: String,
    pub luts: u64,
    pub ffs: u64,
    pub dsps: u64,
    /// 36 Kb block RAMs.
    pub bram36: u64,
    /// 288 Kb UltraRAMs.
    pub uram: u64,
    pub memory: Vec<Bank>,
    /// Default kernel clock in MHz.
    pub clock_mhz: f64,
    /// The Vitis platform (shell) name.
    pub platform: String,
}

/// Why a board could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum BoardError {
    #[error("unknown board `{name}`; known boards: {}; or give the path of a board TOML file", known.join(", "))]
    Unknown { name: String, known: Vec<String> },
    #[error("cannot read board file {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("board file {}: {message}", path.display())]
    Parse { path: PathBuf, message: String },
    #[error("board file {}: {message}", path.display())]
    Invalid { path: PathBuf, message: String },
}

/// The names of the boards compiled into dpnc, sorted.
pub fn catalogue() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = CATALOGUE.iter().map(|(n, _)| *n).collect();
    names.sort_unstable();
    names
}

/// Load a board by catalogue name (`vcu1525`) or from a TOML file. An argument that names an
/// existing file, contains a path separator or ends in `.toml` is read as a file; anything else
/// is looked up in the catalogue.
pub fn load(name_or_path: &str) -> Result<Board, BoardError> {
    let as_path = Path::new(name_or_path);
    let looks_like_path = name_or_path.contains('/') || name_or_path.contains(std::path::MAIN_SEPARATOR) || name_or_path.ends_with(".toml");
    if looks_like_path || (as_path.is_file() && !CATALOGUE.iter().any(|(n, _)| *n == name_or_path)) {
        let text = std::fs::read_to_string(as_path).map_err(|source| BoardError::Io { path: as_path.to_path_buf(), source })?;
        return parse(&text, as_path);
    }
    match CATALOGUE.iter().find(|(n, _)| n.eq_ignore_ascii_case(name_or_path)) {
        Some((n, text)) => parse(text, &Path::new("boards").join(format!("{n}.toml"))),
        None => Err(BoardError::Unknown { name: name_or_path.to_string(), known: catalogue().iter().map(|s| s.to_string()).collect() }),
    }
}

/// Parse and check a board description; `path` is only used in messages.
pub fn parse(text: &str, path: &Path) -> Result<Board, BoardError> {
    let board: Board =
        toml::from_str(text).map_err(|e| BoardError::Parse { path: path.to_path_buf(), message: e.to_string().trim_end().to_string() })?;
    board.check().map_err(|message| BoardError::Invalid { path: path.to_path_buf(), message })?;
    Ok(board)
}

impl Board {
    /// Every bank's peak bandwidth added up, in GB/s.
    pub fn peak_bandwidth_gbs(&self) -> f64 {
        self.memory.iter().map(|b| b.bandwidth_gbs).sum()
    }

    /// The compute ceiling in GFLOP/s: every DSP slice busy every cycle of the default clock,
    /// each contributing `flops_per_dsp_per_cycle` (see [`FP32_FLOPS_PER_DSP_PER_CYCLE`] and
    /// [`FP64_FLOPS_PER_DSP_PER_CYCLE`] for the models and their assumptions).
    pub fn peak_gflops(&self, flops_per_dsp_per_cycle: f64) -> f64 {
        self.dsps as f64 * flops_per_dsp_per_cycle * self.clock_mhz / 1000.0
    }

    /// The arithmetic intensity (flop per byte) where the bandwidth slope meets the compute
    /// ceiling: below it a kernel is memory-bound.
    pub fn ridge_point(&self, flops_per_dsp_per_cycle: f64) -> f64 {
        self.peak_gflops(flops_per_dsp_per_cycle) / self.peak_bandwidth_gbs()
    }

    /// The memory in a few words: the banks counted by kind, in the order they first appear, and
    /// the aggregate peak bandwidth, e.g. `4 x DDR4, 76.8 GB/s` or `32 x HBM2 + 2 x DDR4, 498.4 GB/s`.
    pub fn memory_summary(&self) -> String {
        let mut kinds: Vec<(&str, usize)> = Vec::new();
        for b in &self.memory {
            match kinds.iter_mut().find(|(k, _)| *k == b.kind) {
                Some((_, n)) => *n += 1,
                None => kinds.push((&b.kind, 1)),
            }
        }
        let banks = kinds.iter().map(|(k, n)| format!("{n} x {k}")).collect::<Vec<_>>().join(" + ");
        format!("{banks}, {:.1} GB/s", self.peak_bandwidth_gbs())
    }

    /// The bank of the `k`-th array argument: arrays take the banks in turn.
    pub fn bank_of(&self, k: usize) -> (usize, &str) {
        let b = k % self.memory.len().max(1);
        (b, self.memory.get(b).map_or("DDR[0]", |m| m.name.as_str()))
    }

    /// A `v++ --link` connectivity file: one compute unit of `kernel`, each array argument
    /// (in order) on its bank ([`Board::bank_of`]).
    pub fn connectivity(&self, kernel: &str, arrays: &[&str]) -> String {
        let mut s = format!(
            "# v++ --link --config connectivity.cfg: one {kernel} compute unit, each array argument on its\n# board bank ({}, {}).\n[connectivity]\nnk={kernel}:1:{kernel}_1\n",
            self.name, self.platform
        );
        for (k, a) in arrays.iter().enumerate() {
            s.push_str(&format!("sp={kernel}_1.{a}:{}\n", self.bank_of(k).1));
        }
        s
    }

    /// The tool release the platform was built for, from its name (UG1393's naming convention:
    /// `…_202210_1` is 2022.1): v++ of that release takes it. Releases before 2019.2 were
    /// SDAccel's, which current Vitis releases do not replace a platform for.
    pub fn platform_release(&self) -> Option<String> {
        let token = self.platform.split('_').find(|t| t.len() == 6 && t.bytes().all(|b| b.is_ascii_digit()))?;
        let (year, release) = (&token[..4], &token[4..5]);
        let tool = if (year, release) < ("2019", "2") { "SDAccel" } else { "Vitis" };
        Some(format!("{tool} {year}.{release}"))
    }

    /// A short human-readable label: the description, or the name and part.
    pub fn label(&self) -> String {
        if self.description.is_empty() {
            format!("{} ({})", self.name, self.part)
        } else {
            self.description.clone()
        }
    }

    fn check(&self) -> Result<(), String> {
        if self.name.trim().is_empty() {
            return Err("`name` is empty".into());
        }
        if self.part.trim().is_empty() {
            return Err("`part` is empty: give the FPGA part as Vivado spells it".into());
        }
        if self.platform.trim().is_empty() {
            return Err("`platform` is empty: give the Vitis platform name".into());
        }
        // These strings reach Tcl, Makefiles and `v++` configuration files verbatim.
        identifier("name", &self.name, "")?;
        identifier("part", &self.part, "")?;
        identifier("platform", &self.platform, "")?;
        if let Some(c) = self.description.chars().find(|c| c.is_control()) {
            return Err(format!("`description` holds the control character {c:?}; it is one line of text"));
        }
        for (what, n) in [("luts", self.luts), ("ffs", self.ffs), ("dsps", self.dsps)] {
            if n == 0 {
                return Err(format!("{what} must be positive"));
            }
        }
        if self.bram36 == 0 && self.uram == 0 {
            return Err("bram36 and uram are both 0: a design needs on-chip memory".into());
        }
        if self.memory.is_empty() {
            return Err("no `[[memory]]` bank: the roofline and the shell need at least one".into());
        }
        for (i, b) in self.memory.iter().enumerate() {
            if b.name.trim().is_empty() {
                return Err(format!("memory bank {}: `name` is empty", i + 1));
            }
            identifier("memory bank name", &b.name, "[]")?;
            identifier(&format!("memory bank `{}`: kind", b.name), &b.kind, "")?;
            if self.memory[..i].iter().any(|o| o.name == b.name) {
                return Err(format!("memory bank `{}` is listed twice", b.name));
            }
            if b.kind.trim().is_empty() {
                return Err(format!("memory bank `{}`: `kind` is empty", b.name));
            }
            if !(b.bandwidth_gbs.is_finite() && b.bandwidth_gbs > 0.0) {
                return Err(format!("memory bank `{}`: bandwidth_gbs must be positive, not {}", b.name, b.bandwidth_gbs));
            }
            if b.width_bits == 0 {
                return Err(format!("memory bank `{}`: width_bits must be positive", b.name));
            }
            if let Some(size) = b.size_gib {
                if !(size.is_finite() && size > 0.0) {
                    return Err(format!("memory bank `{}`: size_gib must be positive, not {size}", b.name));
                }
            }
        }
        if !(self.clock_mhz.is_finite() && self.clock_mhz > 0.0) {
            return Err(format!("clock_mhz must be positive, not {}", self.clock_mhz));
        }
        Ok(())
    }
}

/// A name written into generated scripts: letters, digits, `_`, `-`, `.` and `extra`.
fn identifier(what: &str, value: &str, extra: &str) -> Result<(), String> {
    match value.chars().find(|&c| !(c.is_ascii_alphanumeric() || "_-.".contains(c) || extra.contains(c))) {
        Some(c) => Err(format!(
            "`{what}` = {value:?} holds {c:?}; only letters, digits, `_`, `-`, `.`{} may appear",
            if extra.is_empty() {
                String::new()
            } else {
                format!(" and {}", extra.chars().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(" "))
            }
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vcu1525_figures() {
        let b = load("vcu1525").unwrap();
        assert_eq!(b.name, "vcu1525");
        assert_eq!(b.part, "xcvu9p-fsgd2104-2L-e");
        assert_eq!((b.luts, b.ffs, b.dsps, b.bram36, b.uram), (1_182_240, 2_364_480, 6_840, 2_160, 960));
        assert_eq!(b.memory.len(), 4);
        assert!(b.memory.iter().all(|m| m.kind == "DDR4" && m.width_bits == 64 && m.bandwidth_gbs == 19.2));
        assert!((b.peak_bandwidth_gbs() - 76.8).abs() < 1e-9);
        assert_eq!(b.clock_mhz, 300.0);
        assert_eq!(b.platform, "xilinx_vcu1525_xdma_201830_1");
        assert_eq!(b.platform_release().as_deref(), Some("SDAccel 2018.3"));
        // 6840 DSPs x 0.4 flop/DSP/cycle x 0.3 GHz.
        assert!((b.peak_gflops(FP32_FLOPS_PER_DSP_PER_CYCLE) - 820.8).abs() < 1e-9);
        assert!((b.ridge_point(FP32_FLOPS_PER_DSP_PER_CYCLE) - 820.8 / 76.8).abs() < 1e-9);
        assert!(b.peak_gflops(FP64_FLOPS_PER_DSP_PER_CYCLE) < b.peak_gflops(FP32_FLOPS_PER_DSP_PER_CYCLE));
    }

    /// Banks named `{prefix}[0]` … `{prefix}[n-1]`, in order, each of the given kind, width,
    /// bandwidth and size.
    fn assert_banks(banks: &[Bank], prefix: &str, kind: &str, width: u32, gbs: f64, gib: f64) {
        for (i, m) in banks.iter().enumerate() {
            assert_eq!(m.name, format!("{prefix}[{i}]"));
            assert_eq!((m.kind.as_str(), m.width_bits, m.bandwidth_gbs, m.size_gib), (kind, width, gbs, Some(gib)), "{}", m.name);
        }
    }

    // The figures below are written from the data sheets (DS962 for the U200 and U250, DS963 for
    // the U280, the UltraScale+ product table), UG1393 (HBM) and UG1120/UG1702 (platforms), not
    // read from the TOML files: a typo in a file fails here.

    #[test]
    fn u200_figures() {
        let b = load("u200").unwrap();
        assert_eq!(b.part, "xcu200-fsgd2104-2-e");
        // XCU200 = XCVU9P: 1,182K LUTs, 2,364K FFs, 6,840 DSPs, 75.9 Mb BRAM, 270 Mb URAM.
        assert_eq!((b.luts, b.ffs, b.dsps, b.bram36, b.uram), (1_182_240, 2_364_480, 6_840, 2_160, 960));
        assert_eq!(b.bram36 * 36 * 1024, 79_626_240); // 75.9 Mib
        assert_eq!(b.uram * 288 * 1024, 283_115_520); // 270 Mib
        assert_eq!(b.memory.len(), 4);
        assert_banks(&b.memory, "DDR", "DDR4", 64, 19.2, 16.0);
        // DDR4-2400 x 8 bytes x 4 channels.
        assert!((b.peak_bandwidth_gbs() - 4.0 * 2400e6 * 8.0 / 1e9).abs() < 1e-9);
        assert_eq!(b.clock_mhz, 300.0);
        assert_eq!(b.platform, "xilinx_u200_gen3x16_xdma_2_202110_1");
        assert_eq!(b.memory_summary(), "4 x DDR4, 76.8 GB/s");
    }

    #[test]
    fn u250_figures() {
        let b = load("u250").unwrap();
        assert_eq!(b.part, "xcu250-figd2104-2L-e");
        // XCU250 = XCVU13P: 1,728K LUTs, 3,456K FFs, 12,288 DSPs, 94.5 Mb BRAM, 360 Mb URAM.
        assert_eq!((b.luts, b.ffs, b.dsps, b.bram36, b.uram), (1_728_000, 3_456_000, 12_288, 2_688, 1_280));
        assert_eq!(b.bram36 * 36 * 1024, 99_090_432); // 94.5 Mib
        assert_eq!(b.uram * 288 * 1024, 377_487_360); // 360 Mib
        assert_eq!(b.memory.len(), 4);
        assert_banks(&b.memory, "DDR", "DDR4", 64, 19.2, 16.0);
        assert!((b.peak_bandwidth_gbs() - 76.8).abs() < 1e-9);
        assert_eq!(b.clock_mhz, 300.0);
        assert_eq!(b.platform, "xilinx_u250_gen3x16_xdma_4_1_202210_1");
        assert_eq!(b.platform_release().as_deref(), Some("Vitis 2022.1"));
        assert_eq!(b.memory_summary(), "4 x DDR4, 76.8 GB/s");
        // 12288 DSPs x 0.4 flop/DSP/cycle x 0.3 GHz.
        assert!((b.peak_gflops(FP32_FLOPS_PER_DSP_PER_CYCLE) - 1474.56).abs() < 1e-9);
    }

    #[test]
    fn u280_figures() {
        let b = load("u280").unwrap();
        assert_eq!(b.part, "xcu280-fsvh2892-2L-e");
        // XCU280 = XCVU37P: 1,304K LUTs, 2,607K FFs, 9,024 DSPs, 70.9 Mb BRAM, 270 Mb URAM.
        assert_eq!((b.luts, b.ffs, b.dsps, b.bram36, b.uram), (1_303_680, 2_607_360, 9_024, 2_016, 960));
        assert_eq!(b.bram36 * 36 * 1024, 74_317_824); // 70.9 Mib
        assert_eq!(b.memory.len(), 34);
        // 32 HBM2 pseudo-channels of 256 MiB (8 GiB in all), 14.375 GB/s each (UG1393).
        assert_banks(&b.memory[..32], "HBM", "HBM2", 64, 14.375, 0.25);
        let hbm: f64 = b.memory[..32].iter().map(|m| m.bandwidth_gbs).sum();
        assert_eq!(hbm, 460.0);
        assert_eq!(b.memory[..32].iter().filter_map(|m| m.size_gib).sum::<f64>(), 8.0);
        // Then the two DDR4-2400 DIMMs, 16 GiB each.
        assert_banks(&b.memory[32..], "DDR", "DDR4", 64, 19.2, 16.0);
        assert!((b.peak_bandwidth_gbs() - (460.0 + 38.4)).abs() < 1e-9);
        assert_eq!(b.clock_mhz, 300.0);
        assert_eq!(b.platform, "xilinx_u280_gen3x16_xdma_1_202211_1");
        assert_eq!(b.memory_summary(), "32 x HBM2 + 2 x DDR4, 498.4 GB/s");
    }

    #[test]
    fn every_catalogue_board_loads() {
        assert_eq!(catalogue(), ["u200", "u250", "u280", "vcu1525"]);
        // Aggregate peak bandwidth per board, GB/s.
        let expected = [("u200", 76.8), ("u250", 76.8), ("u280", 498.4), ("vcu1525", 76.8)];
        for (name, gbs) in expected {
            let b = load(name).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(b.name, name, "a catalogue file's `name` must be its file name");
            // The embedded text passes the same checks as a user file.
            let text = CATALOGUE.iter().find(|(n, _)| *n == name).unwrap().1;
            assert_eq!(parse(text, Path::new("x.toml")).unwrap(), b);
            assert!(b.part.starts_with("xc"), "{name}: {}", b.part);
            assert!(b.platform.starts_with(&format!("xilinx_{name}_")), "{name}: {}", b.platform);
            assert!(!b.description.is_empty(), "{name}");
            assert!(b.ffs == 2 * b.luts, "{name}: UltraScale+ CLBs have two flip-flops per LUT");
            assert!(b.memory.iter().all(|m| m.bandwidth_gbs > 0.0 && m.size_gib.is_some()), "{name}");
            assert!((b.peak_bandwidth_gbs() - gbs).abs() < 1e-9, "{name}: {}", b.peak_bandwidth_gbs());
            assert!(b.memory_summary().ends_with(&format!(", {gbs:.1} GB/s")), "{name}: {}", b.memory_summary());
        }
    }

    #[test]
    fn names_are_case_insensitive() {
        assert_eq!(load("VCU1525").unwrap().name, "vcu1525");
    }

    #[test]
    fn unknown_board_lists_the_known_ones() {
        let e = load("vcu9999").unwrap_err();
        assert!(matches!(e, BoardError::Unknown { .. }));
        let m = e.to_string();
        assert!(m.contains("unknown board `vcu9999`"), "{m}");
        for known in ["u200", "u250", "u280", "vcu1525"] {
            assert!(m.contains(known), "{m}");
        }
    }

    #[test]
    fn user_file_round_trip() {
        let dir = std::env::temp_dir().join(format!("dpnc-boards-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut b = load("vcu1525").unwrap();
        b.name = "half".into();
        b.memory.truncate(2);
        let path = dir.join("half.toml");
        std::fs::write(&path, toml::to_string(&b).unwrap()).unwrap();
        let back = load(path.to_str().unwrap()).unwrap();
        assert_eq!(back, b);
        assert!((back.peak_bandwidth_gbs() - 38.4).abs() < 1e-9);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn missing_file_is_an_io_error() {
        let e = load("/nonexistent/board.toml").unwrap_err();
        assert!(matches!(e, BoardError::Io { .. }), "{e}");
        assert!(e.to_string().contains("/nonexistent/board.toml"));
    }

    #[test]
    fn bad_files_are_rejected_with_a_reason() {
        let p = Path::new("x.toml");
        let good = include_str!("../vcu1525.toml");
        let e = parse(&good.replace("dsps =", "dsp ="), p).unwrap_err();
        assert!(matches!(e, BoardError::Parse { .. }), "{e}");
        let e = parse(&good.replace("bandwidth_gbs = 19.2", "bandwidth_gbs = 0.0"), p).unwrap_err();
        assert!(e.to_string().contains("bandwidth_gbs must be positive"), "{e}");
        let no_memory: String = good.split("[[memory]]").next().unwrap().to_string();
        let e = parse(&no_memory, p).unwrap_err();
        assert!(e.to_string().contains("memory"), "{e}");
        let e = parse(&good.replace("clock_mhz = 300.0", "clock_mhz = -1.0"), p).unwrap_err();
        assert!(e.to_string().contains("clock_mhz"), "{e}");
        let e = parse(&good.replace("platform = \"xilinx_vcu1525_xdma_201830_1\"", "platform = \" \""), p).unwrap_err();
        assert!(e.to_string().contains("`platform` is empty"), "{e}");
        let e = parse(&good.replace("part = \"xcvu9p-fsgd2104-2L-e\"", "part = \"\""), p).unwrap_err();
        assert!(e.to_string().contains("`part` is empty"), "{e}");
        let e = parse(&good.replace("name = \"DDR[1]\"", "name = \"DDR[0]\""), p).unwrap_err();
        assert!(e.to_string().contains("`DDR[0]` is listed twice"), "{e}");
        let e = parse(&good.replace("name = \"DDR[2]\"", "name = \"\""), p).unwrap_err();
        assert!(e.to_string().contains("memory bank 3: `name` is empty"), "{e}");
        let e = parse(&good.replacen("size_gib = 16.0", "size_gib = 0.0", 1), p).unwrap_err();
        assert!(e.to_string().contains("size_gib must be positive"), "{e}");
        let e = parse(&good.replace("luts = 1182240", "luts = 0"), p).unwrap_err();
        assert!(e.to_string().contains("luts must be positive"), "{e}");
        for (key, zero) in [("dsps = 6840", "dsps = 0"), ("ffs = 2364480", "ffs = 0")] {
            let e = parse(&good.replace(key, zero), p).unwrap_err();
            assert!(e.to_string().contains("must be positive"), "{zero}: {e}");
        }
        let e = parse(&good.replace("bram36 = 2160", "bram36 = 0").replace("uram = 960", "uram = 0"), p).unwrap_err();
        assert!(e.to_string().contains("bram36 and uram are both 0"), "{e}");
        let e = parse(&good.replace("clock_mhz = 300.0", "clock_mhz = inf"), p).unwrap_err();
        assert!(e.to_string().contains("clock_mhz must be positive, not inf"), "{e}");
        let e = parse(&good.replace("bandwidth_gbs = 19.2", "bandwidth_gbs = nan"), p).unwrap_err();
        assert!(e.to_string().contains("bandwidth_gbs must be positive"), "{e}");
        // Strings that would run as Tcl or break a Makefile or `v++` config.
        let e = parse(&good.replace("part = \"xcvu9p-fsgd2104-2L-e\"", "part = \"x]; exec touch /tmp/pwned; #\""), p).unwrap_err();
        assert!(e.to_string().contains("`part` = \"x]; exec touch /tmp/pwned; #\" holds ']'"), "{e}");
        let e = parse(&good.replace("platform = \"xilinx_vcu1525_xdma_201830_1\"", "platform = \"a b\""), p).unwrap_err();
        assert!(e.to_string().contains("`platform`"), "{e}");
        let e = parse(&good.replace("name = \"DDR[1]\"", "name = \"DDR[1]$(rm)\""), p).unwrap_err();
        assert!(e.to_string().contains("memory bank name"), "{e}");
        let e = parse(&good.replacen("name = \"vcu1525\"", "name = \"vcu1525\\nexec\"", 1), p).unwrap_err();
        assert!(e.to_string().contains("`name`"), "{e}");
        // A missing platform is a parse error (the key is required).
        let e = parse(&good.replace("platform = \"xilinx_vcu1525_xdma_201830_1\"", ""), p).unwrap_err();
        assert!(matches!(e, BoardError::Parse { .. }), "{e}");
    }
}
