//! Resource figures from Yosys: `synth_xilinx` (UltraScale+ family, without the SAT-based
//! `share` pass) on a generated design, its `stat` cell counts summed into LUTs, flip-flops,
//! block RAMs, UltraRAMs and DSPs.

use std::path::Path;
use std::process::Command;

/// What a design uses, as Yosys maps it.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Resources {
    pub luts: u64,
    pub ffs: u64,
    /// 36 Kb block RAMs (a RAMB18 counts half).
    pub bram36: f64,
    pub uram: u64,
    pub dsps: u64,
}

impl Resources {
    fn add_times(&mut self, o: &Resources, k: u64) {
        self.luts += k * o.luts;
        self.ffs += k * o.ffs;
        self.bram36 += k as f64 * o.bram36;
        self.uram += k * o.uram;
        self.dsps += k * o.dsps;
    }
}

/// A module of a design synthesised with its hierarchy kept: how many instances the design
/// holds (over every parameterisation of it) and their own cells (submodules' not included),
/// so that the rows add up to the design.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ModuleUse {
    pub module: String,
    pub instances: u64,
    pub total: Resources,
}

/// What Yosys reports: the design's figures, per module when the hierarchy was kept, and
/// each module's slowest path when asked for.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Synthesis {
    pub total: Resources,
    pub modules: Vec<ModuleUse>,
    pub paths: Vec<crate::timing::ModuleDepth>,
}

/// What to ask Yosys for beyond the design's total.
#[derive(Clone, Copy, Debug, Default)]
pub struct Ask {
    /// Keep the hierarchy (no optimisation across module boundaries, so the total comes out
    /// a little above the flattened design's) to say where the resources go.
    pub per_module: bool,
    /// Each module's slowest path ([`crate::timing`]); keeps the hierarchy (flattened after the
    /// resources are counted, so that paths cross module boundaries).
    pub timing: bool,
}

/// Sums the cell counts of a `stat` report (the last one: the whole design).
pub fn parse_stat(text: &str) -> Resources {
    let last = text.rfind("Number of cells").map_or(text, |i| &text[i..]);
    cells(last)
}

/// A module's name without Yosys's parameterisation (`$paramod$<hash>\dpn_fifo`,
/// `$paramod\dpn_axi_lite_ctrl\NUM_ARGS=…`).
pub(crate) fn base_name(m: &str) -> &str {
    match m.strip_prefix("$paramod") {
        Some(rest) => {
            let rest = rest.trim_start_matches('$');
            let parts: Vec<&str> = rest.split('\\').collect();
            // `$<hash>\name` or `\name\PARAM=…`: the name is the part without `=` after a hash.
            parts.iter().skip(1).find(|p| !p.contains('=')).copied().unwrap_or(rest)
        }
        None => m,
    }
}

/// Per module (parameterisations merged), its instances and their own cells, from a `stat`
/// report of a hierarchical design: each `=== module ===` section, weighted by how many times
/// the `design hierarchy` tree holds the module (counts multiply down the tree). Largest
/// LUT users first.
pub fn parse_modules(text: &str) -> Vec<ModuleUse> {
    let mut own: std::collections::HashMap<&str, Resources> = Default::default();
    let mut tree = "";
    for sec in text.split("\n=== ").skip(1) {
        let Some((name, body)) = sec.split_once(" ===") else { continue };
        if name == "design hierarchy" {
            tree = body;
        } else {
            own.insert(name, cells(body));
        }
    }
    let mut count: std::collections::BTreeMap<&str, u64> = Default::default();
    let mut stack: Vec<u64> = Vec::new();
    for line in tree.lines().take_while(|l| !l.contains("Number of")) {
        let mut it = line.split_whitespace();
        let (Some(name), Some(n)) = (it.next(), it.next().and_then(|n| n.parse::<u64>().ok())) else { continue };
        let depth = (line.len() - line.trim_start().len()).saturating_sub(3) / 2;
        stack.truncate(depth);
        let k = n * stack.last().copied().unwrap_or(1);
        stack.push(k);
        *count.entry(name).or_default() += k;
    }
    let mut rows: Vec<ModuleUse> = Vec::new();
    for (name, k) in count {
        let Some(r) = own.get(name) else { continue };
        let base = base_name(name);
        let i = rows.iter().position(|m| m.module == base).unwrap_or_else(|| {
            rows.push(ModuleUse { module: base.to_string(), instances: 0, total: Resources::default() });
            rows.len() - 1
        });
        rows[i].instances += k;
        rows[i].total.add_times(r, k);
    }
    rows.sort_by(|a, b| b.total.luts.cmp(&a.total.luts).then(b.total.ffs.cmp(&a.total.ffs)).then(a.module.cmp(&b.module)));
    rows
}

/// The LUTs one single-bit LUT-RAM primitive `RAM<depth>X1S` or `RAM<depth>X1D` takes: a LUT per
/// 64 entries (at least one), twice that for a second port.
fn lut_ram_luts(cell: &str) -> u64 {
    let depth: u64 = cell.trim_start_matches("RAM").split('X').next().and_then(|d| d.parse().ok()).unwrap_or(64);
    let ports = if cell.ends_with('D') { 2 } else { 1 };
    depth.div_ceil(64) * ports
}

/// The resources of the cell counts in `text` (one `stat` section).
fn cells(text: &str) -> Resources {
    let mut r = Resources::default();
    for line in text.lines() {
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
            c if c.starts_with("RAM") && !c.starts_with("RAMB") => r.luts += lut_ram_luts(c) * n,
            "SRL16E" | "SRLC32E" => r.luts += n,
            _ => {}
        }
    }
    r
}

/// Runs `yosys` on `files` with top `top` (output in `dir/yosys.log`); `Err` carries the log's
/// tail.
pub fn yosys(dir: &Path, top: &str, files: &[std::path::PathBuf], ask: Ask) -> Result<Synthesis, String> {
    let hierarchy = ask.per_module || ask.timing;
    let then =
        if ask.timing { "tee -o stat.txt stat; write_json hier.json; flatten; write_json flat.json" } else { "tee -o stat.txt stat" };
    run_yosys(dir, top, files, hierarchy, then)?;
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).map_err(|e| format!("yosys wrote no {f}: {e}"));
    let stat = read("stat.txt")?;
    let paths = if ask.timing { crate::timing::deepest_paths(&read("hier.json")?, &read("flat.json")?, top)? } else { Vec::new() };
    Ok(Synthesis { total: parse_stat(&stat), modules: if ask.per_module { parse_modules(&stat) } else { Vec::new() }, paths })
}

/// Runs `synth_xilinx` on `files` in `dir` (hierarchy kept where `per_module`), then `then`
/// (Yosys commands that write what the caller reads).
fn run_yosys(dir: &Path, top: &str, files: &[std::path::PathBuf], per_module: bool, then: &str) -> Result<(), String> {
    let reads: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    // synth_xilinx's script with its `coarse` step spelt out minus `share`: that SAT-based
    // resource sharing ran out of 24 GB on a small GEMM design (64-bit loop arithmetic).
    let flow = format!("synth_xilinx{} -family xcup -top {top}", if per_module { "" } else { " -flatten" });
    let script = format!(
        "read_verilog {}; {flow} -run :coarse; techmap -map +/cmp2lut.v -map +/cmp2lcu.v -D LUT_WIDTH=6; alumacc; opt; memory -nomap; opt_clean; {flow} -run map_memory:; {then}",
        reads.join(" ")
    );
    run_script(dir, &script)
}

/// Runs the Yosys `script` in `dir` (its log in `yosys.log`); a failure says how Yosys ended
/// and ends with its log's last lines.
pub(crate) fn run_script(dir: &Path, script: &str) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let out = Command::new("yosys")
        .args(["-q", "-l", "yosys.log", "-p", script])
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
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    // The shape of Yosys 0.23's `stat` on a hierarchical design, cut down by hand.
    const STAT: &str = "
27. Printing statistics.

=== $paramod$0a6d\\dpn_fadd ===

   Number of cells:                 12
     CARRY4                          2
     LUT3                           10

=== $paramod$77aa\\dpn_fadd ===

   Number of cells:                  4
     LUT6                            4

=== p_S0_0 ===

   Number of cells:                 9
     $paramod$0a6d\\dpn_fadd       2
     FDRE                            5
     LUT2                            2
     RAM32M16                        1

=== top ===

   Number of cells:                 3
     $paramod$77aa\\dpn_fadd       1
     p_S0_0                          2
     DSP48E2                         1

=== design hierarchy ===

   top                               1
     $paramod$77aa\\dpn_fadd       1
     p_S0_0                          2
       $paramod$0a6d\\dpn_fadd     2

   Number of cells:                 99
     DSP48E2                         1
     FDRE                           10
     LUT2                            4
     LUT3                           40
     LUT6                            4
     RAM32M16                        2
";

    #[test]
    fn a_lut_ram_takes_a_lut_per_64_entries_and_port() {
        let stat = "   Number of cells: 5\n     RAM32X1S 1\n     RAM64X1D 1\n     RAM128X1D 1\n     RAM256X1S 1\n     RAM512X1S 1\n";
        assert_eq!(parse_stat(stat).luts, 1 + 2 + 4 + 4 + 8);
    }

    #[test]
    fn totals_come_from_the_last_section() {
        let r = parse_stat(STAT);
        // 4 + 40 + 4 LUTs, and a RAM32M16 is 8 LUTs.
        assert_eq!(r, Resources { luts: 48 + 16, ffs: 10, bram36: 0.0, uram: 0, dsps: 1 });
    }

    #[test]
    fn modules_are_weighted_by_their_instances_down_the_tree() {
        let m = parse_modules(STAT);
        let row = |n: &str| m.iter().find(|r| r.module == n).cloned().unwrap_or_else(|| panic!("no row {n}"));
        // Four instances of one dpn_fadd (2 in each of 2 p_S0_0) and one of another.
        assert_eq!(row("dpn_fadd").instances, 5);
        assert_eq!(row("dpn_fadd").total.luts, 4 * 10 + 4);
        assert_eq!(row("p_S0_0").instances, 2);
        assert_eq!(row("p_S0_0").total, Resources { luts: 2 * (2 + 8), ffs: 10, bram36: 0.0, uram: 0, dsps: 0 });
        assert_eq!(row("top").total.dsps, 1);
        // The rows add up to the design, largest LUT users first.
        let luts: u64 = m.iter().map(|r| r.total.luts).sum();
        assert_eq!(luts, parse_stat(STAT).luts);
        assert_eq!(m[0].module, "dpn_fadd");
    }
}
