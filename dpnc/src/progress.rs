//! Progress of the steps that take more than a few seconds (interpreting, sweeping tile sizes,
//! building and running a simulation, synthesis): a live bar with an estimate when stderr is
//! a terminal (indicatif), plain lines at most every [`EVERY`] otherwise (logs, CI, tests).

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// The least time between two plain progress lines.
const EVERY: Duration = Duration::from_secs(2);

/// One step's progress.
pub struct Progress {
    /// The live bar, on a terminal only.
    bar: Option<ProgressBar>,
    label: String,
    /// How many units the step has, if known (a bar; otherwise a spinner).
    total: Option<u64>,
    start: Instant,
    /// When the last plain line was printed.
    shown: Instant,
}

impl Progress {
    /// A step named `label` of `total` units (`None`: unknown).
    pub fn new(label: &str, total: Option<u64>) -> Progress {
        Progress::since(label, total, Instant::now())
    }

    /// [`Progress::new`] for a step begun at `start` (its estimate counts from there).
    pub fn since(label: &str, total: Option<u64>, start: Instant) -> Progress {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = match total {
                Some(n) => ProgressBar::new(n).with_style(
                    ProgressStyle::with_template("{prefix} [{bar:30}] {percent:>3}% {elapsed} (about {eta} left) {msg}")
                        .unwrap_or_else(|_| ProgressStyle::default_bar())
                        .progress_chars("=> "),
                ),
                None => ProgressBar::new_spinner().with_style(
                    ProgressStyle::with_template("{prefix} {spinner} {elapsed} {msg}").unwrap_or_else(|_| ProgressStyle::default_spinner()),
                ),
            };
            bar.set_prefix(label.to_string());
            let bar = bar.with_elapsed(start.elapsed());
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        Progress { bar, label: label.to_string(), total, start, shown: Instant::now() }
    }

    /// `done` units so far, and what is going on (may be empty).
    pub fn set(&mut self, done: u64, what: &str) {
        match &self.bar {
            Some(bar) => {
                bar.set_position(done);
                bar.set_message(what.to_string());
            }
            None if self.shown.elapsed() >= EVERY => {
                self.shown = Instant::now();
                eprintln!("{}", line(&self.label, done, self.total, self.start.elapsed(), what));
            }
            None => {}
        }
    }

    /// What is going on, for a step without a count (a spinner's message, or a plain line).
    pub fn note(&mut self, what: &str) {
        match &self.bar {
            Some(bar) => bar.set_message(what.to_string()),
            None => eprintln!("dpnc: {what}"),
        }
    }

    /// A line always shown (above the bar on a terminal).
    pub fn println(&self, text: &str) {
        match &self.bar {
            Some(bar) => bar.println(text),
            None => eprintln!("{text}"),
        }
    }

    /// The step is over: the bar goes away.
    pub fn finish(self) {
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
        }
    }
}

/// Where a long network construction reports: a bar per loop nest's bands, and one per
/// symbolic pass that takes long.
pub fn construction() -> dpnc_dpn::OnStep {
    // The bar shown now and what it counts.
    let bar: std::sync::Mutex<Option<(Counted, Progress)>> = std::sync::Mutex::new(None);
    dpnc_dpn::OnStep(std::sync::Arc::new(move |step: dpnc_dpn::Step| {
        let Ok(mut bar) = bar.lock() else { return };
        let (counted, label, total, done, what, last, start) = match step {
            dpnc_dpn::Step::Band { nest, band, bands, percent } => (
                Counted::Bands(nest),
                format!("network, nest {nest}"),
                bands,
                band + u64::from(percent.is_none()),
                percent.map_or("bands".to_string(), |pc| format!("bands; band {} {pc}% assembled", band + 1)),
                band + 1 == bands && percent.is_none(),
                Instant::now(),
            ),
            dpnc_dpn::Step::Isl { pass, done, total, started } => {
                (Counted::Pass(pass), pass.to_string(), total, done, String::new(), done == total, started)
            }
        };
        if bar.as_ref().is_none_or(|(c, _)| *c != counted) {
            if let Some((_, old)) = bar.take() {
                old.finish();
            }
            *bar = Some((counted, Progress::since(&label, Some(total), start)));
        }
        if let Some((_, b)) = bar.as_mut() {
            b.set(done, &what);
        }
        if last {
            if let Some((_, finished)) = bar.take() {
                finished.finish();
            }
        }
    }))
}

/// What a construction's bar counts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Counted {
    /// The bands of a loop nest.
    Bands(usize),
    /// The questions of a symbolic pass.
    Pass(&'static str),
}

/// A plain progress line: the count, the share and an estimate of the time left when the
/// total is known.
fn line(label: &str, done: u64, total: Option<u64>, elapsed: Duration, what: &str) -> String {
    let secs = elapsed.as_secs_f64();
    let count = match total {
        Some(n) if n > 0 && done > 0 => {
            let left = secs * (n.saturating_sub(done)) as f64 / done as f64;
            format!("{done} of {n} ({:.0}%, {secs:.0} s, about {left:.0} s left)", 100.0 * done as f64 / n as f64)
        }
        Some(n) => format!("{done} of {n} ({secs:.0} s)"),
        None => format!("{done} ({secs:.0} s)"),
    };
    let what = if what.is_empty() { String::new() } else { format!("; {what}") };
    format!("dpnc: {label}: {count}{what}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_lines_estimate_the_time_left_from_the_rate_so_far() {
        let l = line("interpreter", 250, Some(1000), Duration::from_secs(10), "");
        assert_eq!(l, "dpnc: interpreter: 250 of 1000 (25%, 10 s, about 30 s left)");
        assert_eq!(line("sweep", 0, Some(8), Duration::from_secs(3), "tile 4"), "dpnc: sweep: 0 of 8 (3 s); tile 4");
        assert_eq!(line("cycles", 7, None, Duration::from_secs(1), ""), "dpnc: cycles: 7 (1 s)");
    }
}
