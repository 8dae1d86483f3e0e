//! Wide fan-outs and fan-ins of the top module as trees of registers: the reset and the start
//! pulse reach every module, and every module's `done` reaches the kernel's `ap_done`. A net
//! with hundreds of loads or a wide AND between registers would be the slowest path of a large
//! design; here no register drives more than [`FANOUT`] others (or, at the leaves, modules), and
//! no AND takes more than [`FANOUT`] inputs. Every leaf of a tree is at the same depth, so every
//! module leaves reset and sees `start` in the same cycle, as when the nets were direct.
//!
//! The registers carry `keep`: synthesis would otherwise merge the copies of one bit back into
//! one register.

use std::fmt::Write;

/// Most loads of one register of a tree, and most inputs of one AND of the `done` reduction.
pub const FANOUT: usize = 16;

/// Registers per level, from the root's level to the leaves', for `n` loads of [`FANOUT`] each.
fn levels(n: usize) -> Vec<usize> {
    let mut sizes = vec![n.div_ceil(FANOUT).max(1)];
    while sizes[sizes.len() - 1] > 1 {
        let up = sizes[sizes.len() - 1].div_ceil(FANOUT);
        sizes.push(up);
    }
    sizes.reverse();
    sizes
}

/// `{{c{p[j]}}, …}`: each register of a level of `n` copies the one of `parent` above it, the
/// first [`FANOUT`] children from `parent[0]` (the concatenation lists the last first).
fn copies(parent: &str, n: usize) -> String {
    let parts: Vec<String> =
        (0..n.div_ceil(FANOUT)).rev().map(|j| format!("{{{}{{{parent}[{j}]}}}}", (n - j * FANOUT).min(FANOUT))).collect();
    format!("{{{}}}", parts.join(", "))
}

/// A register tree that copies `source` to `loads` loads.
pub struct FanOut {
    name: String,
    /// Registers between `source` and a load.
    pub depth: usize,
}

impl FanOut {
    /// Writes the tree `name` (registers `name_l0`, `name_l1`, …) that copies `source` to
    /// `loads` loads, clocked by `clk`, its registers holding `init` from configuration (a reset
    /// tree starts asserted, so that no module runs before the reset reaches it).
    pub fn write(o: &mut String, name: &str, source: &str, loads: usize, clk: &str, init: bool) -> FanOut {
        let sizes = levels(loads);
        let _ = writeln!(o, "    // {name}: {source} to {loads} loads through {} level(s) of registers.", sizes.len());
        for (k, n) in sizes.iter().enumerate() {
            let _ = writeln!(o, "    (* keep = \"true\" *) reg [{}:0] {name}_l{k} = {{{n}{{1'b{}}}}};", n - 1, u8::from(init));
        }
        let _ = writeln!(o, "    always @(posedge {clk}) begin\n        {name}_l0 <= {{{}{{{source}}}}};", sizes[0]);
        for k in 1..sizes.len() {
            let _ = writeln!(o, "        {name}_l{k} <= {};", copies(&format!("{name}_l{}", k - 1), sizes[k]));
        }
        o.push_str("    end\n");
        FanOut { name: name.to_string(), depth: sizes.len() }
    }

    /// The register that load `k` reads.
    pub fn load(&self, k: usize) -> String {
        format!("{}_l{}[{}]", self.name, self.depth - 1, k / FANOUT)
    }
}

/// Writes the AND of `inputs` as a tree of registers named `name_l0`, `name_l1`, … (the
/// inputs registered first, then ANDs of at most [`FANOUT`] per level); returns the register
/// that holds it and its latency in cycles.
pub fn and_tree(o: &mut String, name: &str, inputs: &[String], clk: &str) -> (String, usize) {
    let width = inputs.len().max(1);
    let first =
        if inputs.is_empty() { "1'b1".to_string() } else { format!("{{{}}}", inputs.iter().rev().cloned().collect::<Vec<_>>().join(", ")) };
    let _ = writeln!(o, "    // {name}: the AND of {} signal(s), registered, then reduced {FANOUT} at a time a level.", inputs.len());
    let _ = writeln!(o, "    (* keep = \"true\" *) reg [{}:0] {name}_l0;", width - 1);
    let mut body = format!("        {name}_l0 <= {first};\n");
    // The reduction's levels are a fan-out tree's, leaves first.
    let ups: Vec<usize> = if width > 1 { levels(width).into_iter().rev().collect() } else { Vec::new() };
    let mut below = width;
    for (k, &up) in ups.iter().enumerate() {
        let ands: Vec<String> =
            (0..up).rev().map(|j| format!("&{name}_l{k}[{}:{}]", (j * FANOUT + FANOUT).min(below) - 1, j * FANOUT)).collect();
        let _ = writeln!(o, "    (* keep = \"true\" *) reg [{}:0] {name}_l{};", up - 1, k + 1);
        let _ = writeln!(body, "        {name}_l{} <= {{{}}};", k + 1, ands.join(", "));
        below = up;
    }
    let _ = writeln!(o, "    always @(posedge {clk}) begin\n{body}    end");
    (format!("{name}_l{}[0]", ups.len()), ups.len() + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trees_are_balanced_and_bounded() {
        assert_eq!(levels(1), [1]);
        assert_eq!(levels(16), [1]);
        assert_eq!(levels(17), [1, 2]);
        assert_eq!(levels(300), [1, 2, 19]);
        assert_eq!(copies("p", 20), "{{4{p[1]}}, {16{p[0]}}}");
    }
}
