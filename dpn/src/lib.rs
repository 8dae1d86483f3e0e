//! Data-aware process networks (Alias & Plesco, CC 2021): tiling of the SARE's iteration
//! domains into bands, partitioning into Load / Compute / Store processes joined by
//! channels, channel typing and sizing, a software executor, and metrics.
//!
//! Start at [`build::build`]; the network is in [`ir`]; [`exec::run`] executes it on the
//! per-process [`trace`]s that [`build::construct`] keeps on request.

pub mod build;
pub mod dot;
pub mod error;
pub mod exec;
pub mod explore;
pub mod footprint;
pub mod graph;
pub mod ir;
mod jobs;
pub mod loops;
pub mod metrics;
pub mod predicate;
pub mod relations;
pub mod scan;
pub mod shape;
pub mod sync;
pub mod tiling;
pub mod trace;
pub mod validate;

pub use build::{build, construct, BuildStats, Config, Construction, OnStep, Step};
pub use error::Error;
pub use ir::Dpn;
