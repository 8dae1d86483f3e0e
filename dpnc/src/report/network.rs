//! The network drawn as SVG: loads on the left, each statement's compute processes in a grid
//! of its sub-bands, stores on the right; channels as curves coloured by kind, labelled with
//! kind and size (on hover only where there are too many to read at once).

use super::{ChannelFacts, Facts, Role};
use crate::plot::esc;
use std::fmt::Write;

/// A process box's size and the room around it.
const BOX_W: f64 = 132.0;
const BOX_H: f64 = 40.0;
const GAP_X: f64 = 44.0;
const GAP_Y: f64 = 18.0;
/// Room between columns of groups, for the channels' curves and labels.
const LANE: f64 = 150.0;
/// Above this many channels between processes, labels show on hover only.
const LABELLED: usize = 40;

/// The colour of a channel kind (also the legend's).
pub fn kind_colour(kind: &str) -> &'static str {
    match kind {
        "FIFO" => "#1f5fa8",
        "FIFO+reg" => "#7b3fa0",
        _ => "#d9661a",
    }
}

fn role_fill(role: Role) -> &'static str {
    match role {
        Role::Load => "#e6f0fa",
        Role::Compute => "#eef7ee",
        Role::Store => "#fbeee6",
    }
}

/// A group of processes drawn together: a title and its members in a grid.
struct Group {
    title: String,
    /// (process, row, column)
    members: Vec<(usize, usize, usize)>,
    rows: usize,
    cols: usize,
}

/// The groups, left to right: loads, one per statement (sub-bands in a grid: the first
/// sub-band coordinate down, the second across), stores.
fn groups(f: &Facts) -> Vec<Group> {
    let mut out = Vec::new();
    let column = |title: &str, role: Role| {
        let ps: Vec<usize> = (0..f.processes.len()).filter(|&k| f.processes[k].role == role).collect();
        Group { title: title.into(), rows: ps.len(), cols: 1, members: ps.iter().enumerate().map(|(r, &k)| (k, r, 0)).collect() }
    };
    out.push(column("loads", Role::Load));
    // Statements in the kernel's order.
    let mut stmts: Vec<&str> = f.nests.iter().flat_map(|n| n.statements.iter().map(String::as_str)).collect();
    for pr in f.processes.iter().filter(|p| p.role == Role::Compute) {
        if !stmts.contains(&pr.of.as_str()) {
            stmts.push(&pr.of);
        }
    }
    for s in stmts {
        let ps: Vec<usize> = (0..f.processes.len()).filter(|&k| f.processes[k].role == Role::Compute && f.processes[k].of == s).collect();
        let coord = |k: usize, d: usize| f.processes[k].subband.get(d).copied().unwrap_or(0).max(0) as usize;
        let two = ps.iter().any(|&k| f.processes[k].subband.len() >= 2);
        let mut members: Vec<(usize, usize, usize)> =
            ps.iter().enumerate().map(|(i, &k)| if two { (k, coord(k, 0), coord(k, 1)) } else { (k, i, 0) }).collect();
        // Sub-bands need not be numbered from 0: rows and columns as they are used.
        let mut rows: Vec<usize> = members.iter().map(|m| m.1).collect();
        let mut cols: Vec<usize> = members.iter().map(|m| m.2).collect();
        rows.sort_unstable();
        rows.dedup();
        cols.sort_unstable();
        cols.dedup();
        for m in &mut members {
            m.1 = rows.iter().position(|&r| r == m.1).unwrap_or(0);
            m.2 = cols.iter().position(|&c| c == m.2).unwrap_or(0);
        }
        let title = if ps.len() > 1 { format!("{s}: {} sub-bands", ps.len()) } else { s.to_string() };
        out.push(Group { title, members, rows: rows.len(), cols: cols.len() });
    }
    out.push(column("stores", Role::Store));
    out.retain(|g| !g.members.is_empty());
    out
}

/// The network as an SVG element (scaled to the page's width).
pub fn svg(f: &Facts) -> String {
    let groups = groups(f);
    let top = 40.0;
    // Each process's box: its top-left corner.
    let mut at = vec![(0.0, 0.0); f.processes.len()];
    let mut x = 20.0;
    let mut frames = Vec::new();
    let mut height: f64 = 0.0;
    for g in &groups {
        let w = g.cols as f64 * (BOX_W + GAP_X) - GAP_X;
        let h = g.rows as f64 * (BOX_H + GAP_Y) - GAP_Y;
        for &(k, r, c) in &g.members {
            at[k] = (x + c as f64 * (BOX_W + GAP_X), top + 26.0 + r as f64 * (BOX_H + GAP_Y));
        }
        frames.push((x - 10.0, top, w + 20.0, h + 40.0, g.title.clone()));
        height = height.max(h + 40.0 + top);
        x += w + LANE;
    }
    let (width, height) = (x - LANE + 30.0, height + 30.0);
    let between: Vec<&ChannelFacts> = f.channels.iter().filter(|c| c.producer != c.consumer).collect();
    let mut o = String::new();
    let _ = writeln!(
        o,
        r#"<svg id="network" class="{}" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:.0} {height:.0}" width="100%" style="max-width: {width:.0}px; min-width: {:.0}px" role="img" aria-label="the process network of {}">"#,
        if between.len() > LABELLED { "many" } else { "few" },
        // Shrunk to the page's width, but not much: names stay readable (the box scrolls).
        width.min(900.0).max(width * 0.8),
        esc(&f.kernel)
    );
    o.push_str("<defs>");
    for kind in ["FIFO", "FIFO+reg", "scratchpad"] {
        let _ = write!(
            o,
            r#"<marker id="arrow-{}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{}"/></marker>"#,
            marker(kind),
            kind_colour(kind)
        );
    }
    o.push_str("</defs>\n");
    for (fx, fy, fw, fh, title) in &frames {
        let _ = writeln!(
            o,
            r##"<rect class="group" x="{fx:.1}" y="{fy:.1}" width="{fw:.1}" height="{fh:.1}" rx="8"/><text class="group-title" x="{:.1}" y="{:.1}">{}</text>"##,
            fx + 8.0,
            fy + 17.0,
            esc(title)
        );
    }
    // Channels first, so that boxes sit on top of them.
    for (k, c) in f.channels.iter().enumerate() {
        let (px, py) = at[c.producer];
        let (qx, qy) = at[c.consumer];
        let colour = kind_colour(&c.kind);
        let dash = if c.class == "sync" { r#" stroke-dasharray="5 3""# } else { "" };
        let label = format!("{} {}", c.kind, c.size);
        let (path, lx, ly) = if c.producer == c.consumer {
            // A channel from a process to itself: a loop over its box.
            let (x0, x1, y) = (px + BOX_W * 0.6, px + BOX_W * 0.9, py);
            (format!("M{x0:.1},{y:.1} C{x0:.1},{:.1} {x1:.1},{:.1} {x1:.1},{y:.1}", y - 16.0, y - 16.0), x1 + 4.0, y - 8.0)
        } else {
            // Forward: right side to left side; backward (a consumer further left): left side
            // to right side, between the two columns; within a column: a bow on its right.
            let (sy, ey) = (py + BOX_H / 2.0, qy + BOX_H / 2.0);
            let (sx, ex, c1, c2) = if qx > px + BOX_W / 2.0 {
                let bend = ((qx - px - BOX_W) / 2.0).max(40.0);
                (px + BOX_W, qx, px + BOX_W + bend, qx - bend)
            } else if qx + BOX_W / 2.0 < px {
                let bend = ((px - qx - BOX_W) / 2.0).max(40.0);
                (px, qx + BOX_W, px - bend, qx + BOX_W + bend)
            } else {
                let bow = 24.0 + (ey - sy).abs() / 6.0;
                (px + BOX_W, qx + BOX_W, px + BOX_W + bow, qx + BOX_W + bow)
            };
            (format!("M{sx:.1},{sy:.1} C{c1:.1},{sy:.1} {c2:.1},{ey:.1} {ex:.1},{ey:.1}"), (c1 + c2) / 2.0, (sy + ey) / 2.0 - 3.0)
        };
        let _ = writeln!(
            o,
            r#"<g class="edge" data-from="{}" data-to="{}"><title>{} ({}, {}): {} {} of {}, {} values written</title><path d="{path}" stroke="{colour}"{dash} marker-end="url(#arrow-{})"/><text x="{lx:.1}" y="{ly:.1}" fill="{colour}">{}</text></g>"#,
            c.producer,
            c.consumer,
            esc(&c.name),
            c.class,
            k,
            c.kind,
            c.size,
            esc(&c.elem),
            c.writes,
            marker(&c.kind),
            esc(&label)
        );
    }
    for (k, pr) in f.processes.iter().enumerate() {
        let (bx, by) = at[k];
        let what = match pr.role {
            Role::Load => format!("DDR → {}", pr.of),
            Role::Store => format!("{} → DDR", pr.of),
            Role::Compute => format!("{} iterations", pr.iterations),
        };
        let _ = writeln!(
            o,
            r#"<g class="proc" data-p="{k}"><title>{} ({:?} of {}): {} iterations</title><rect x="{bx:.1}" y="{by:.1}" width="{BOX_W}" height="{BOX_H}" rx="5" fill="{}"/><text class="name" x="{:.1}" y="{:.1}">{}</text><text class="what" x="{:.1}" y="{:.1}">{}</text></g>"#,
            esc(&pr.name),
            pr.role,
            esc(&pr.of),
            pr.iterations,
            role_fill(pr.role),
            bx + 7.0,
            by + 16.0,
            esc(&pr.name),
            bx + 7.0,
            by + 32.0,
            esc(&what)
        );
    }
    o.push_str("</svg>\n");
    o
}

/// A channel kind's marker id.
fn marker(kind: &str) -> &'static str {
    match kind {
        "FIFO" => "fifo",
        "FIFO+reg" => "fiforeg",
        _ => "scratchpad",
    }
}
