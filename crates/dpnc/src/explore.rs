//! `dpnc explore`: tile-size sweep (placeholder until the sweep lands).

use crate::{Failure, Source};
use clap::Args;
use dpnc_frontend::SourceMap;

#[derive(Args, Debug)]
pub struct ExploreArgs {
    #[command(flatten)]
    pub source: Source,
}

pub fn run(sm: &mut SourceMap, args: &ExploreArgs) -> Result<(), Failure> {
    let _ = crate::load(sm, &args.source)?;
    Err("explore is not implemented yet".to_string().into())
}
