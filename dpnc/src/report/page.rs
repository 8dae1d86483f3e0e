//! The page: the facts laid out for reading (rows of formatted figures), rendered through the
//! askama template `templates/report.html`.

use super::{network, roofline, Facts, Role};
use askama::Template;

/// One figure of the summary at the top.
struct Card {
    label: &'static str,
    value: String,
    note: String,
}

/// A row of the channel table.
struct ChannelRow {
    name: String,
    from: String,
    to: String,
    class: String,
    kind: String,
    colour: &'static str,
    size: usize,
    elem: String,
    writes: u64,
    /// Peak and cycles full, once simulated ("" before).
    peak: String,
    full: String,
}

/// A row of the DDR traffic table.
struct TrafficRow {
    what: &'static str,
    read: u64,
    written: u64,
    total: u64,
    /// Against the design's own traffic.
    ratio: String,
}

/// A row of the resources table.
struct ResourceRow {
    name: &'static str,
    used: String,
    available: u64,
    share: String,
    /// The bar's width, percent (at most 100).
    bar: f64,
}

/// A row of the per-process table of a simulation.
struct ProcessRow {
    name: String,
    role: String,
    iterations: u64,
    work: u64,
    wait_in: u64,
    wait_out: u64,
    idle: u64,
    /// Shares of the run, percent, for the stacked bar.
    bars: [f64; 3],
}

#[derive(Template)]
#[template(path = "report.html")]
struct Page<'a> {
    f: &'a Facts,
    params: String,
    shape: String,
    cards: Vec<Card>,
    network: String,
    labelled: bool,
    kinds: Vec<(&'static str, &'static str)>,
    channels: Vec<ChannelRow>,
    traffic: Vec<TrafficRow>,
    resources: Vec<ResourceRow>,
    modules: Vec<dpnc_rtl::synth::ModuleUse>,
    processes: Vec<ProcessRow>,
    roofline: String,
}

fn pct(x: f64, of: f64) -> f64 {
    if of > 0.0 {
        100.0 * x / of
    } else {
        0.0
    }
}

pub fn render(f: &Facts) -> Result<String, String> {
    let m = &f.metrics;
    let sim = f.simulation.as_ref();
    let params = f.params.iter().map(|(n, v)| format!("{n} = {v}")).collect::<Vec<_>>().join(", ");
    let list = |v: &[i64]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ");
    let mut shape = format!("tile {}; par {}; {} band(s)", list(&f.tile), list(&f.par), m.bands);
    if f.lanes > 1 {
        shape.push_str(&format!("; {} vector lanes", f.lanes));
    }
    let mut cards = vec![
        Card {
            label: "processes",
            value: m.processes.iter().sum::<usize>().to_string(),
            note: format!("{} load, {} compute, {} store", m.processes[0], m.processes[1], m.processes[2]),
        },
        Card { label: "channels", value: f.channels.len().to_string(), note: format!("{} B on chip", m.onchip_bytes) },
        Card {
            label: "DDR traffic",
            value: format!("{} B", m.ddr_bytes()),
            note: format!("{:.2}× the compulsory {} B", m.ddr_bytes() as f64 / m.compulsory_bytes.max(1) as f64, m.compulsory_bytes),
        },
        Card {
            label: "intensity",
            value: format!("{:.3} flop/B", m.intensity()),
            note: if m.flops > 0 { format!("{} flop", m.flops) } else { "no floating-point operations".into() },
        },
    ];
    cards.push(match sim {
        Some(s) => Card {
            label: "simulated",
            value: format!("{} cycles", s.cycles),
            note: format!(
                "{}; {:.2} cycles per iteration of the busiest process",
                if s.bit_exact { "bit-exact" } else { "MISMATCH" },
                s.cycles as f64 / s.busiest_iterations.max(1) as f64
            ),
        },
        None => Card { label: "simulated", value: "not yet".into(), note: "dpnc sim … --report DIR".into() },
    });
    cards.push(match &f.synthesis {
        Some(s) => Card {
            label: "resources",
            value: format!("{} LUT, {} DSP", s.total.luts, s.total.dsps),
            note: format!("{:.1} % of the LUTs of {}", pct(s.total.luts as f64, f.board.luts as f64), f.board.name),
        },
        None => Card { label: "resources", value: "not yet".into(), note: "dpnc synth … --report DIR".into() },
    });

    let name = |k: usize| f.processes.get(k).map_or("?".to_string(), |p| p.name.clone());
    let channels = f
        .channels
        .iter()
        .map(|c| {
            let run = sim.and_then(|s| s.channels.iter().find(|r| r.name == c.name));
            ChannelRow {
                name: c.name.clone(),
                from: name(c.producer),
                to: name(c.consumer),
                class: c.class.clone(),
                kind: c.kind.clone(),
                colour: network::kind_colour(&c.kind),
                size: c.size,
                elem: c.elem.clone(),
                writes: c.writes,
                peak: run.map_or(String::new(), |r| r.peak.to_string()),
                full: run.map_or(String::new(), |r| r.cycles_full.to_string()),
            }
        })
        .collect();

    let design = m.ddr_bytes();
    let row = |what, read: u64, written: u64| TrafficRow {
        what,
        read,
        written,
        total: read + written,
        ratio: format!("{:.2}×", (read + written) as f64 / design.max(1) as f64),
    };
    let mut traffic = vec![
        row("this design", m.ddr_read_bytes, m.ddr_write_bytes),
        row("untiled original (every access to DDR)", m.untiled_read_bytes, m.untiled_write_bytes),
        TrafficRow {
            what: "compulsory (inputs once, outputs once)",
            read: 0,
            written: 0,
            total: m.compulsory_bytes,
            ratio: format!("{:.2}×", m.compulsory_bytes as f64 / design.max(1) as f64),
        },
    ];
    if let Some(s) = sim {
        traffic.insert(1, row("simulated (whole beats)", s.bytes_fetched, s.bytes_written));
    }

    let resources = f
        .synthesis
        .as_ref()
        .map(|s| {
            let r = &s.total;
            let b = &f.board;
            let row = |name, used: f64, available: u64| ResourceRow {
                name,
                used: if used.fract() == 0.0 { format!("{used:.0}") } else { format!("{used:.1}") },
                available,
                share: format!("{:.2} %", pct(used, available as f64)),
                bar: pct(used, available as f64).min(100.0),
            };
            vec![
                row("LUT", r.luts as f64, b.luts),
                row("FF", r.ffs as f64, b.ffs),
                row("BRAM36", r.bram36, b.bram36),
                row("URAM", r.uram as f64, b.uram),
                row("DSP", r.dsps as f64, b.dsps),
            ]
        })
        .unwrap_or_default();

    let processes = sim
        .map(|s| {
            s.processes
                .iter()
                .map(|p| {
                    let runs: Vec<_> = f.processes.iter().filter(|q| q.hardware == p.name).collect();
                    let role = match runs.first() {
                        Some(q) if q.role == Role::Compute => format!("compute {}", q.of),
                        Some(q) => format!("memory of {}", q.of),
                        None => String::new(),
                    };
                    let dpnc_sim::ProcessCycles { work, wait_in, wait_out, .. } = p.cycles;
                    let busy = work + wait_in + wait_out;
                    let c = s.cycles as f64;
                    ProcessRow {
                        name: p.name.clone(),
                        role,
                        iterations: runs.iter().map(|q| q.iterations).sum(),
                        work,
                        wait_in,
                        wait_out,
                        idle: s.cycles.saturating_sub(busy),
                        bars: [pct(work as f64, c), pct(wait_in as f64, c), pct(wait_out as f64, c)],
                    }
                })
                .collect()
        })
        .unwrap_or_default();

    let between = f.channels.iter().filter(|c| c.producer != c.consumer).count();
    let page = Page {
        f,
        params,
        shape,
        cards,
        network: network::svg(f),
        labelled: between <= 40,
        kinds: ["FIFO", "FIFO+reg", "scratchpad"].iter().map(|k| (*k, network::kind_colour(k))).collect(),
        channels,
        traffic,
        resources,
        modules: f.synthesis.as_ref().map_or(Vec::new(), |s| s.modules.clone()),
        processes,
        roofline: roofline::svg(f),
    };
    page.render().map_err(|e| format!("cannot render {}: {e}", super::PAGE))
}
