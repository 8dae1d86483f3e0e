//! Graphviz rendering of a DPN: processes as boxes (loads, computes, stores in columns),
//! channels as edges labelled with kind and size.

use crate::ir::*;
use dpnc_frontend::ir::Program;
use petgraph::visit::EdgeRef;
use std::fmt::Write;

pub fn render(p: &Program, dpn: &Dpn) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "digraph \"{}\" {{\n  rankdir=LR;\n  node [shape=box, fontname=\"monospace\"];", dpn.kernel);
    let _ = writeln!(o, "  label=\"{} — tiles {:?}, par {:?}, {} band(s)\";", dpn.kernel, dpn.tile, dpn.par, dpn.bands);
    for (group, title) in [(0, "load"), (1, "compute"), (2, "store")] {
        let _ = writeln!(o, "  subgraph cluster_{title} {{ label=\"{title}\"; style=dashed;");
        for (i, pr) in dpn.processes.iter().enumerate() {
            let (g, what) = match &pr.kind {
                ProcessKind::Load { var } => (0, format!("DDR → {}", p.vars[*var].name)),
                ProcessKind::Compute { stmt, .. } => (1, p.stmts[*stmt].name.clone()),
                ProcessKind::Store { var } => (2, format!("{} → DDR", p.vars[*var].name)),
            };
            if g == group {
                let _ = writeln!(o, "    p{i} [label=\"{}\\n{what}\\n{} iterations\"];", pr.name, pr.iterations);
            }
        }
        let _ = writeln!(o, "  }}");
    }
    let g = crate::graph::network(dpn);
    for e in g.edge_references() {
        let c = &dpn.channels[*e.weight()];
        let style = match c.class {
            ChannelClass::Io => "solid",
            ChannelClass::Local => "dotted",
            ChannelClass::Sync => "dashed",
        };
        let kind = c.kind.label();
        let port = c.port.map(|r| format!(" r{r}")).unwrap_or_default();
        let _ = writeln!(o, "  p{} -> p{} [style={style}, label=\"{kind} {}{port}\"];", g[e.source()], g[e.target()], c.size);
    }
    let _ = writeln!(o, "}}");
    o
}
