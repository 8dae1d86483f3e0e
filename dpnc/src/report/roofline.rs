//! The roofline of the board with this design on it: where its arithmetic intensity puts it
//! under the roof, and, once simulated, the performance it reached (its operations over its
//! simulated cycles at the board's clock).

use super::Facts;
use crate::plot::{LogAxis, Svg};
use std::fmt::Write;

/// GFLOP/s the simulated design reached at the board's clock, if it was simulated.
pub fn achieved_gflops(f: &Facts) -> Option<f64> {
    let sim = f.simulation.as_ref()?;
    let seconds = sim.cycles as f64 / (f.board.clock_mhz * 1e6);
    (sim.cycles > 0).then(|| f.metrics.flops as f64 / seconds / 1e9)
}

/// The plot as an SVG element.
pub fn svg(f: &Facts) -> String {
    let (bw, peak) = (f.board.bandwidth_gbs, f.board.peak_gflops);
    let ai = f.metrics.intensity();
    let ridge = peak / bw;
    let roof = |a: f64| (a * bw).min(peak);
    let achieved = achieved_gflops(f);
    let (w, h) = (640.0, 400.0);
    let (x0, x1, y0, y1) = (70.0, 610.0, 20.0, 340.0);
    let xa = LogAxis::covering([ai, ridge / 8.0, ridge * 8.0], x0, x1);
    let ya = LogAxis::covering([roof(xa.lo), peak * 2.0].into_iter().chain(achieved).chain([roof(ai)]), y1, y0);
    let mut g = Svg { s: String::new() };
    let _ = writeln!(
        g.s,
        r#"<svg id="roofline" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="{w}" role="img" aria-label="roofline">"#
    );
    g.y_axis(&ya, x0, x1, false, "#333", true);
    for (v, labelled) in xa.ticks() {
        let x = xa.at(v);
        g.line(x, y1, x, y1 + if labelled { 6.0 } else { 3.0 }, r##"stroke="#333""##);
        if labelled {
            g.text(x, y1 + 20.0, r#"font-size="12" text-anchor="middle""#, &crate::plot::fmt_tick(v));
        }
    }
    g.frame(x0, y0, x1, y1);
    let start = xa.lo;
    g.polyline(
        &[(xa.at(start), ya.at(roof(start))), (xa.at(ridge), ya.at(peak)), (x1, ya.at(peak))],
        r##"stroke="#222" stroke-width="2.5""##,
    );
    g.text(x1 - 4.0, ya.at(peak) - 6.0, r#"font-size="12" text-anchor="end""#, &format!("{peak:.0} GFLOP/s ({})", f.board.name));
    // The bandwidth on the slope, halfway to the ridge (in log scale), left of the line.
    let mid = (start * ridge).sqrt();
    g.text(xa.at(mid) - 6.0, ya.at(roof(mid)) - 6.0, r#"font-size="12" text-anchor="end""#, &format!("{bw:.1} GB/s"));
    let (px, py) = (xa.at(ai), ya.at(roof(ai)));
    g.line(px, y1, px, py, r##"stroke="#1f5fa8" stroke-dasharray="4 3""##);
    g.circle(px, py, 6.0, "#1f5fa8");
    g.text(px + 9.0, py + 14.0, r##"font-size="12" fill="#1f5fa8""##, &format!("bound {:.1} GFLOP/s at {ai:.3} flop/B", roof(ai)));
    if let Some(a) = achieved {
        let y = ya.at(a);
        g.square(px, y, 6.0, "#c0392b");
        g.text(px + 9.0, y + 4.0, r##"font-size="12" fill="#c0392b""##, &format!("simulated {a:.2} GFLOP/s"));
    }
    g.text((x0 + x1) / 2.0, h - 12.0, r#"font-size="13" text-anchor="middle""#, "arithmetic intensity (flop per DDR byte)");
    let _ = writeln!(
        g.s,
        r#"<text x="16" y="{:.0}" font-size="13" text-anchor="middle" transform="rotate(-90 16 {:.0})">GFLOP/s</text>"#,
        (y0 + y1) / 2.0,
        (y0 + y1) / 2.0
    );
    g.s.push_str("</svg>\n");
    g.s
}
