//! Text renderings of the frontend's results (`--emit scop`, `--emit sare`).

use dpnc_frontend::dataflow::Sare;
use dpnc_frontend::ir::{Program, VarKind};
use dpnc_frontend::polyhedral::Model;
use dpnc_frontend::SourceMap;
use std::fmt::Write;

fn stmt_text(sm: &SourceMap, p: &Program, k: usize) -> String {
    sm.snippet(p.stmts[k].span).split_whitespace().collect::<Vec<_>>().join(" ")
}

fn header(p: &Program, out: &mut String) {
    let _ = writeln!(out, "# kernel {}: {} statement(s)", p.kernel, p.stmts.len());
    let params: Vec<String> = p
        .params
        .iter()
        .map(|q| match q.value {
            Some(v) => format!("{} = {v}", q.name),
            None => format!("{} (unknown)", q.name),
        })
        .collect();
    let _ = writeln!(out, "parameters: {}", if params.is_empty() { "none".into() } else { params.join(", ") });
    for v in &p.vars {
        let dims: String = v.dims.iter().map(|d| format!("[{d}]")).collect();
        let role = match (v.kind, v.read, v.written) {
            (VarKind::Local, ..) => "local",
            (_, _, true) => "argument, written",
            (_, true, false) => "argument, read only",
            _ => "argument, unused",
        };
        let _ = writeln!(out, "variable {} {}{dims}  ({role})", v.ty.c_name(), v.name);
    }
}

pub fn scop(p: &Program, sm: &SourceMap) -> Result<String, dpnc_frontend::Diagnostic> {
    let m = dpnc_frontend::dataflow::simplified_model(&Model::new(p))?;
    let mut out = String::new();
    header(p, &mut out);
    let _ = writeln!(out, "context: {}{{ : {} }}", m.params, if m.context.is_empty() { "1 = 1" } else { &m.context });
    let fixed: Vec<String> = p.params.iter().filter_map(|q| q.value.map(|v| format!("{} = {v}", q.name))).collect();
    if !fixed.is_empty() {
        let _ = writeln!(out, "fixed:   {}{{ : {} }}", m.params, fixed.join(" and "));
    }
    for (k, s) in p.stmts.iter().enumerate() {
        let _ = writeln!(out, "\n{}: {}", s.name, stmt_text(sm, p, k));
        let _ = writeln!(out, "  domain:   {}", m.domains[k]);
        let _ = writeln!(out, "  schedule: {}", m.schedules[k]);
        let _ = writeln!(out, "  write:    {}", m.writes[k]);
        for r in &m.reads[k] {
            let _ = writeln!(out, "  read:     {r}");
        }
    }
    Ok(out)
}

/// The SARE as text; `parametric` tells whether it holds for every parameter value or only
/// for the given ones.
pub fn sare(p: &Program, sare: &Sare, parametric: bool, sm: &SourceMap) -> String {
    let mut out = String::new();
    header(p, &mut out);
    if !parametric {
        let _ = writeln!(
            out,
            "# at these parameter values only: the parametric dataflow needs more than {} isl operations",
            dpnc_frontend::dataflow::PARAMETRIC_OPERATIONS
        );
    }
    for (k, s) in p.stmts.iter().enumerate() {
        let _ = writeln!(out, "\n{}[{}] : {}", s.name, s.iters.join(", "), stmt_text(sm, p, k));
        let _ = writeln!(out, "  for {}", sare.domains[k]);
        for (r, a) in s.reads.iter().enumerate() {
            let _ = writeln!(out, "  {} (read {r}) =", sm.snippet(a.span));
            let flow = &sare.reads[k][r];
            for src in &flow.sources {
                let what = if src.stmt.is_some() { "" } else { "   [initial value]" };
                let _ = writeln!(out, "      {}{what}", src.text.replace(&format!("{}_r{r}[", s.name), &format!("{}[", s.name)));
            }
        }
    }
    for (k, v) in p.vars.iter().enumerate() {
        if let Some(flow) = &sare.finals[k] {
            let _ = writeln!(out, "\nfinal {} =", v.name);
            for src in &flow.sources {
                let what = if src.stmt.is_some() { "" } else { "   [never written]" };
                let _ = writeln!(out, "      {}{what}", src.text.replace(&format!("F_{}[", v.name), &format!("{}[", v.name)));
            }
        }
    }
    out
}
