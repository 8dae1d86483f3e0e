//! A cell of the library timed alone (`dpnc synth-cell`): every input but the clock
//! registered, every output registered, the clock enable held at 1, so that each path inside
//! the cell runs from a register to a register as it would in a design.

use crate::synth::{yosys, Ask, Synthesis};
use serde_json::Value;
use std::path::Path;

/// A port of the cell, as Yosys elaborates it with the parameters given.
struct Port {
    name: String,
    input: bool,
    width: usize,
}

/// Synthesises cell `module` (e.g. `dpn_fadd`) with `params` (name, value) between registers
/// in `dir`, asking for its paths ([`super::deepest_paths`]); `extra`: a Verilog file read with
/// the library (a module of a generated design, which may instantiate the library's cells and
/// the modules of the other Verilog files in its folder).
pub fn time_cell(dir: &Path, module: &str, params: &[(String, String)], extra: Option<&Path>) -> Result<Synthesis, String> {
    let mut files = Vec::new();
    for (name, _) in crate::cells::CELLS {
        files.push(crate::cells::write(dir, name)?);
    }
    if let Some(f) = extra {
        // Yosys runs in `dir`.
        let f = f.canonicalize().map_err(|e| format!("{}: {e}", f.display()))?;
        files.extend(siblings(&f)?);
        files.push(f);
    }
    let ports = ports(dir, module, params, &files)?;
    let top = dir.join("cell_top.v");
    std::fs::write(&top, wrapper(module, params, &ports)).map_err(|e| format!("{}: {e}", top.display()))?;
    files.push(top);
    yosys(dir, "cell_top", &files, Ask { per_module: false, timing: true })
}

/// The other Verilog files in `file`'s folder, sorted: a design's modules (a compute process
/// instantiates its walker and its datapath); Yosys keeps only those the cell uses.
fn siblings(file: &Path) -> Result<Vec<std::path::PathBuf>, String> {
    let folder = file.parent().ok_or_else(|| format!("{}: no folder", file.display()))?;
    let entries = std::fs::read_dir(folder).map_err(|e| format!("{}: {e}", folder.display()))?;
    let mut v: Vec<_> = entries.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|e| e == "v") && p != file).collect();
    v.sort();
    Ok(v)
}

/// The cell's ports with `params` set, from Yosys's elaboration.
fn ports(dir: &Path, module: &str, params: &[(String, String)], files: &[std::path::PathBuf]) -> Result<Vec<Port>, String> {
    let reads: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    let set: String = params.iter().map(|(k, v)| format!("chparam -set {k} {v} {module}; ")).collect();
    let script = format!("read_verilog {}; {set}hierarchy -top {module}; proc; write_json ports.json", reads.join(" "));
    crate::synth::run_script(dir, &script).map_err(|e| format!("cannot elaborate cell {module}: {e}"))?;
    let text = std::fs::read_to_string(dir.join("ports.json")).map_err(|e| format!("yosys wrote no ports.json: {e}"))?;
    let json: Value = serde_json::from_str(&text).map_err(|e| format!("ports.json does not parse: {e}"))?;
    // With parameters set the cell may be elaborated as `$paramod\<module>\…`.
    let modules = json["modules"].as_object().into_iter().flatten();
    let mut cell = modules.filter(|(name, _)| crate::synth::base_name(name) == module).map(|(_, m)| m);
    let ports = cell.next().and_then(|m| m["ports"].as_object()).ok_or_else(|| format!("no module {module} in the cell library"))?;
    Ok(ports
        .iter()
        .map(|(name, p)| Port { name: name.clone(), input: p["direction"] == "input", width: p["bits"].as_array().map_or(1, Vec::len) })
        .collect())
}

/// A top module `cell_top` holding the cell between registers.
fn wrapper(module: &str, params: &[(String, String)], ports: &[Port]) -> String {
    let range = |w: usize| if w > 1 { format!("[{}:0] ", w - 1) } else { String::new() };
    let mut head = vec!["input clk".to_string()];
    let (mut body, mut conns) = (String::new(), Vec::new());
    for p in ports {
        let (n, r) = (&p.name, range(p.width));
        match n.as_str() {
            "clk" => conns.push(".clk(clk)".to_string()),
            "ce" => conns.push(".ce(1'b1)".to_string()),
            _ if p.input => {
                head.push(format!("input {r}i_{n}"));
                body += &format!("    reg {r}r_{n};\n    always @(posedge clk) r_{n} <= i_{n};\n");
                conns.push(format!(".{n}(r_{n})"));
            }
            _ => {
                head.push(format!("output reg {r}o_{n}"));
                body += &format!("    wire {r}w_{n};\n    always @(posedge clk) o_{n} <= w_{n};\n");
                conns.push(format!(".{n}(w_{n})"));
            }
        }
    }
    let set: Vec<String> = params.iter().map(|(k, v)| format!(".{k}({v})")).collect();
    let set = if set.is_empty() { String::new() } else { format!("#({}) ", set.join(", ")) };
    format!("module cell_top ({});\n{body}    {module} {set}dut ({});\nendmodule\n", head.join(", "), conns.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wrapper_registers_every_port_but_the_clock_and_enable() {
        let ports = [("clk", true, 1), ("ce", true, 1), ("a", true, 32), ("y", false, 32)].map(|(n, i, w)| Port {
            name: n.into(),
            input: i,
            width: w,
        });
        let v = wrapper("dpn_fadd", &[("LATENCY".into(), "4".into())], &ports);
        assert!(v.contains("input [31:0] i_a") && v.contains("r_a <= i_a"), "{v}");
        assert!(v.contains("output reg [31:0] o_y") && v.contains("o_y <= w_y"), "{v}");
        assert!(v.contains("dpn_fadd #(.LATENCY(4)) dut (.clk(clk), .ce(1'b1), .a(r_a), .y(w_y))"), "{v}");
    }
}
