//! Resource figures from Yosys: `synth_xilinx` (UltraScale+ family, without the SAT-based
//! `share` pass) on a generated design, its `stat` cell counts summed into LUTs, flip-flops,
//! block RAMs, UltraRAMs and DSPs.

use std::path::Path;
use std::process::Command;

/// What a design uses, as Yosys maps it.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Resources {
    pub luts: u64,
    pub ffs: u64,
    /// 36 Kb block RAMs (a RAMB18 counts half).
    pub bram36: f64,
    pub uram: u64,
    pub dsps: u64,
}

/// Sums the cell counts of a `stat` report (the last one: the whole flattened design).
pub fn parse_stat(text: &str) -> Resources {
    let last = text.rfind("Number of cells").map_or(text, |i| &text[i..]);
    let mut r = Resources::default();
    for line in last.lines() {
        let mut it = line.split_whitespace();
        let (Some(cell), Some(n)) = (it.next(), it.next()) else { continue };
        let Ok(n) = n.parse::<u64>() else { continue };
        match cell {
            c if c.starts_with("LUT") && c.len() == 4 => r.luts += n,
            "LUT6_2" => r.luts += n,
            "FDRE" | "FDSE" | "FDCE" | "FDPE" => r.ffs += n,
            "RAMB36E2" => r.bram36 += n as f64,
            "RAMB18E2" => r.bram36 += n as f64 / 2.0,
            "URAM288" => r.uram += n,
            "DSP48E2" => r.dsps += n,
            // Distributed RAM and shift registers live in LUTs: the LUTs each primitive takes.
            "RAM32M" | "RAM64M" => r.luts += 4 * n,
            "RAM32M16" | "RAM64M8" => r.luts += 8 * n,
            c if c.starts_with("RAM") && c.ends_with("X1D") => r.luts += 2 * n,
            c if c.starts_with("RAM") && !c.starts_with("RAMB") => r.luts += n,
            "SRL16E" | "SRLC32E" => r.luts += n,
            _ => {}
        }
    }
    r
}

/// Runs `yosys` on `files` with top `top` (output in `dir/yosys.log`); `Err` carries the log's tail.
pub fn yosys(dir: &Path, top: &str, files: &[std::path::PathBuf]) -> Result<Resources, String> {
    let reads: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    // synth_xilinx's script with its `coarse` step spelt out minus `share`: that SAT-based
    // resource sharing ran out of 24 GB on a small GEMM design (64-bit loop arithmetic).
    let flow = format!("synth_xilinx -flatten -family xcup -top {top}");
    let script = format!(
        "read_verilog {}; {flow} -run :coarse; techmap -map +/cmp2lut.v -map +/cmp2lcu.v -D LUT_WIDTH=6; alumacc; opt; memory -nomap; opt_clean; {flow} -run map_memory:; tee -o stat.txt stat",
        reads.join(" ")
    );
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let out = Command::new("yosys")
        .args(["-q", "-l", "yosys.log", "-p", &script])
        .current_dir(dir)
        .output()
        .map_err(|e| format!("cannot run yosys: {e} (Debian: apt-get install yosys)"))?;
    if !out.status.success() {
        let log = std::fs::read_to_string(dir.join("yosys.log")).unwrap_or_default();
        let tail: Vec<&str> = log.lines().rev().take(12).collect();
        use std::os::unix::process::ExitStatusExt;
        let how = match out.status.signal() {
            // The kernel's out-of-memory killer sends SIGKILL: say so rather than leave a log tail to puzzle over.
            Some(9) => "was killed (SIGKILL: most likely out of memory; the design is too large for this machine)".to_string(),
            Some(sig) => format!("was killed by signal {sig}"),
            None => "fails".to_string(),
        };
        return Err(format!("yosys {how}; the end of its log:\n{}", tail.into_iter().rev().collect::<Vec<_>>().join("\n")));
    }
    let stat = std::fs::read_to_string(dir.join("stat.txt")).map_err(|e| format!("yosys wrote no statistics: {e}"))?;
    Ok(parse_stat(&stat))
}
