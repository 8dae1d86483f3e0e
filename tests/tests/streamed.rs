//! A band too big to hold its reads' sources whole is resolved and assembled in chunks, the
//! two overlapping (`Config::chunk`): the network must be exactly the one that the whole
//! band gives. Every kernel of the test set and `streamed/row_sweeps.c`, with chunks of a
//! few instances (so that chunks end inside a statement's loops, and sources lie chunks
//! back), with and without parallel sub-bands, with what code generation needs (the chunks'
//! size also bounds the events of a channel whose live window is tracked in a band where its
//! values stay in order, so that windows left out and the second assembly they ask for are
//! tested too).

use dpnc_dpn::Config;
use dpnc_frontend::{dataflow, Options, SourceMap};

#[test]
fn streamed_bands_give_the_network_of_whole_bands() {
    let (mut builds, mut streamed, mut again, mut failures) = (0, 0, 0, Vec::new());
    // Besides the test set, a kernel whose band pipes with interleaved statements and
    // scalars from DDR in its inner loop (`build/stretch.rs`).
    let extra = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("streamed/row_sweeps.c");
    for f in dpnc_tests::kernels().into_iter().chain([extra]) {
        let mut sm = SourceMap::new();
        let p = dpnc_frontend::load(&mut sm, &f, &Options::default()).unwrap_or_else(|d| panic!("{}", d.render(&sm)));
        let sare = dataflow::compute(&p).expect("dataflow");
        for (tile, par, codegen, chunk) in
            [(vec![4], vec![1], true, 7), (vec![4, 6], vec![2, 1], false, 1), (vec![8], vec![1, 2], false, 64)]
        {
            let cfg = |chunk| Config { tile: tile.clone(), par: par.clone(), codegen, chunk, ..Config::default() };
            let (Ok(whole), Ok(chunked)) = (dpnc_dpn::construct(&p, &sare, &cfg(0)), dpnc_dpn::construct(&p, &sare, &cfg(chunk))) else {
                failures.push(format!("{} {tile:?}/{par:?}: one of the builds failed", f.display()));
                continue;
            };
            builds += 1;
            streamed += chunked.stats.streamed_bands;
            again += usize::from(chunked.stats.assembled_again);
            assert_eq!(whole.stats.streamed_bands, 0, "{}: a test kernel's band streamed by default", f.display());
            let json = |d: &dpnc_dpn::ir::Dpn| serde_json::to_string(d).expect("json");
            if json(&whole.dpn) != json(&chunked.dpn) {
                failures.push(format!("{} {tile:?}/{par:?} chunks of {chunk}: the networks differ", f.display()));
            }
        }
    }
    println!("{builds} networks, {streamed} bands streamed, {again} assembled again for their windows");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(streamed > builds, "only {streamed} streamed bands in {builds} networks");
    assert!(again > 0, "no network was assembled again for a window left out");
}
