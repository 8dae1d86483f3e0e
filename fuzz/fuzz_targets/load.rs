//! The whole frontend on arbitrary text: `load_str` (preprocessing, parsing, affine
//! extraction), then, for small accepted programs, the exact dataflow (isl: its cost grows
//! with the program's structure, not with its sizes). Guarded by size so that one input
//! stays well under a second: at most 4 KiB of text, 6 statements, loop depth 4.
#![no_main]
use dpnc_frontend::{dataflow, Options, SourceMap};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.len() > 4096 {
        return;
    }
    let text = String::from_utf8_lossy(data);
    let mut sm = SourceMap::new();
    let Ok(p) = dpnc_frontend::load_str(&mut sm, "fuzz.c", &text, &Options::default()) else { return };
    if p.stmts.len() > 6 || p.stmts.iter().any(|s| s.iters.len() > 4) {
        return;
    }
    let _ = dataflow::compute(&p);
});
