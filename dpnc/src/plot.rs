//! SVG plot primitives shared by `explore`'s plot and the design report: logarithmic axes with
//! 1-2-5 ticks, and an SVG text buffer with the shapes the plots draw.

use std::fmt::Write;

pub(crate) fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// A tick label: 0.01, 0.5, 3, 20, 1k, 2.5M …
pub(crate) fn fmt_tick(v: f64) -> String {
    let (v, suffix) = if v >= 1e9 {
        (v / 1e9, "G")
    } else if v >= 1e6 {
        (v / 1e6, "M")
    } else if v >= 1e3 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    let s = if v >= 1.0 || v == 0.0 { format!("{}", (v * 100.0).round() / 100.0) } else { format!("{}", significant(v)) };
    format!("{s}{suffix}")
}

/// The largest 1, 2 or 5 times a power of ten that is at most `v` (> 0).
fn nice_floor(v: f64) -> f64 {
    let d = 10f64.powf(v.log10().floor());
    [5.0, 2.0, 1.0].iter().map(|m| m * d).find(|&t| t <= v * (1.0 + 1e-9)).unwrap_or(d)
}

/// The smallest 1, 2 or 5 times a power of ten that is at least `v` (> 0).
fn nice_ceil(v: f64) -> f64 {
    let d = 10f64.powf(v.log10().floor());
    [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * d).find(|&t| t >= v * (1.0 - 1e-9)).unwrap_or(10.0 * d)
}

/// Round to 2 significant digits (tick values are 1, 2 or 5 times a power of ten).
fn significant(v: f64) -> f64 {
    let e = v.abs().log10().floor();
    let m = 10f64.powf(e - 1.0);
    (v / m).round() * m
}

/// A logarithmic axis from `lo` to `hi` mapped onto pixels `p0` (at lo) .. `p1` (at hi).
#[derive(Clone, Copy)]
pub(crate) struct LogAxis {
    pub lo: f64,
    pub hi: f64,
    p0: f64,
    p1: f64,
}

impl LogAxis {
    /// An axis covering `values` (positive ones), widened to the 1-2-5 ticks around them, with
    /// a little room when a value sits on an end.
    pub(crate) fn covering(values: impl IntoIterator<Item = f64>, p0: f64, p1: f64) -> LogAxis {
        let (mut lo, mut hi) = (f64::INFINITY, 0f64);
        for v in values.into_iter().filter(|v| v.is_finite() && *v > 0.0) {
            lo = lo.min(v);
            hi = hi.max(v);
        }
        if !lo.is_finite() {
            (lo, hi) = (1.0, 10.0);
        }
        let mut l = nice_floor(lo);
        let mut h = nice_ceil(hi);
        if lo < l * 1.1 {
            l = nice_floor(l * 0.999);
        }
        if hi > h / 1.1 {
            h = nice_ceil(h * 1.001);
        }
        LogAxis { lo: l, hi: h, p0, p1 }
    }
    pub(crate) fn at(&self, v: f64) -> f64 {
        let v = v.max(self.lo * 1e-3);
        self.p0 + (v.log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10()) * (self.p1 - self.p0)
    }
    /// (value, labelled) ticks: 1-2-5 per decade when the axis spans at most three decades,
    /// otherwise labels on the decades only and unlabelled 2 and 5 ticks.
    pub(crate) fn ticks(&self) -> Vec<(f64, bool)> {
        let decades = (self.hi / self.lo).log10();
        let mut out = Vec::new();
        let mut e = self.lo.log10().floor() as i32;
        while 10f64.powi(e) <= self.hi * 1.0001 {
            let mantissas: &[f64] = if decades <= 1.2 { &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0] } else { &[1.0, 2.0, 5.0] };
            for &m in mantissas {
                let v = m * 10f64.powi(e);
                if v >= self.lo * 0.9999 && v <= self.hi * 1.0001 {
                    out.push((v, m == 1.0 || decades <= 3.0));
                }
            }
            e += 1;
        }
        out
    }
}

pub(crate) struct Svg {
    pub s: String,
}

impl Svg {
    pub(crate) fn line(&mut self, x1: f64, y1: f64, x2: f64, y2: f64, style: &str) {
        let _ = writeln!(self.s, r#"<line x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" {style}/>"#);
    }
    pub(crate) fn text(&mut self, x: f64, y: f64, attrs: &str, body: &str) {
        let _ = writeln!(self.s, r#"<text x="{x:.1}" y="{y:.1}" {attrs}>{}</text>"#, esc(body));
    }
    pub(crate) fn polyline(&mut self, pts: &[(f64, f64)], style: &str) {
        let coords = pts.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect::<Vec<_>>().join(" ");
        let _ = writeln!(self.s, r#"<polyline points="{coords}" fill="none" {style}/>"#);
    }
    pub(crate) fn circle(&mut self, x: f64, y: f64, r: f64, fill: &str) {
        let _ = writeln!(self.s, r#"<circle cx="{x:.1}" cy="{y:.1}" r="{r}" fill="{fill}" stroke="white" stroke-width="1"/>"#);
    }
    pub(crate) fn square(&mut self, x: f64, y: f64, r: f64, fill: &str) {
        let _ = writeln!(
            self.s,
            r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{fill}" stroke="white" stroke-width="1"/>"#,
            x - r,
            y - r,
            2.0 * r,
            2.0 * r
        );
    }
    pub(crate) fn frame(&mut self, x0: f64, y0: f64, x1: f64, y1: f64) {
        let _ = writeln!(
            self.s,
            r##"<rect x="{x0:.1}" y="{y0:.1}" width="{:.1}" height="{:.1}" fill="none" stroke="#333" stroke-width="1"/>"##,
            x1 - x0,
            y1 - y0
        );
    }
    /// Horizontal ticks, labels and light grid lines of a log y axis on the left (`right` false)
    /// or right edge of the frame x0..x1.
    pub(crate) fn y_axis(&mut self, ax: &LogAxis, x0: f64, x1: f64, right: bool, color: &str, grid: bool) {
        for (v, labelled) in ax.ticks() {
            let y = ax.at(v);
            if grid {
                self.line(x0, y, x1, y, r##"stroke="#e4e4e4" stroke-width="1""##);
            }
            let (x, d) = if right { (x1, 1.0) } else { (x0, -1.0) };
            self.line(x, y, x + d * if labelled { 6.0 } else { 3.0 }, y, &format!(r#"stroke="{color}" stroke-width="1""#));
            if labelled {
                let anchor = if right { "start" } else { "end" };
                self.text(x + d * 9.0, y + 4.0, &format!(r#"font-size="12" text-anchor="{anchor}" fill="{color}""#), &fmt_tick(v));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_axis_and_ticks() {
        let ax = LogAxis::covering([0.3, 7.0], 0.0, 100.0);
        assert!(ax.lo <= 0.3 && ax.hi >= 7.0);
        assert!(ax.at(ax.lo).abs() < 1e-9 && (ax.at(ax.hi) - 100.0).abs() < 1e-9);
        let t: Vec<String> = ax.ticks().iter().filter(|t| t.1).map(|t| fmt_tick(t.0)).collect();
        assert!(t.contains(&"1".to_string()) && t.contains(&"0.5".to_string()) && t.contains(&"5".to_string()), "{t:?}");
        assert_eq!(fmt_tick(2000.0), "2k");
        assert_eq!(fmt_tick(0.02), "0.02");
        assert_eq!(fmt_tick(1e6), "1M");
    }
}
