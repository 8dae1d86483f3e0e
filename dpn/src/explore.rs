//! Design-space exploration: build the network for many tile sizes and report each one's
//! figures (`dpnc explore`, DESIGN.md §4 "Metrics").
//!
//! The builds are independent, so they run in parallel (rayon's global pool, or the pool the
//! caller installs); the result keeps the order of the sizes given, whatever order the builds
//! finish in.

use crate::build::{build, Config};
use crate::metrics::{report, Report};
use crate::Error;
use dpnc_frontend::dataflow::Sare;
use dpnc_frontend::ir::Program;
use rayon::prelude::*;

/// One point of a sweep: the tile sizes and the network's figures, or why it could not be built.
pub type Point = (Vec<i64>, Result<Report, String>);

/// Builds and measures the network for every entry of `sizes` (each a `--tile` vector: the
/// last size repeats for deeper nests), in parallel, in the order given; the rest of the
/// configuration comes from `base` (its `tile` is ignored). Calls `done(index, point)` as each point finishes, from whichever
/// thread built it (for progress reports).
pub fn sweep(p: &Program, sare: &Sare, sizes: &[Vec<i64>], base: &Config, done: &(dyn Fn(usize, &Point) + Sync)) -> Vec<Point> {
    sizes
        .par_iter()
        .enumerate()
        .map(|(i, tile)| {
            let point = (tile.clone(), measure(p, sare, &Config { tile: tile.clone(), ..base.clone() }));
            done(i, &point);
            point
        })
        .collect()
}

/// Builds (and so validates) and measures one network.
pub fn measure(p: &Program, sare: &Sare, cfg: &Config) -> Result<Report, String> {
    let dpn = build(p, sare, cfg).map_err(|e| match e {
        Error::User(d) => match d.help {
            Some(h) => format!("{} ({h})", d.message),
            None => d.message,
        },
        internal => internal.to_string(),
    })?;
    Ok(report(p, &dpn))
}
