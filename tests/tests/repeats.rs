//! Bands that repeat an earlier band are not assembled (`build/repeat.rs`), and those proved
//! translates of an analysed band are not even analysed, most not even enumerated
//! (`build/translate.rs`): the network
//! must be exactly the one that analysing and assembling every band gives. Every kernel of the test set, at
//! tile shapes whose interior bands repeat, with and without parallel sub-bands, with what
//! code generation needs (scratchpad windows, synchronisation predicates).

use dpnc_dpn::Config;
use dpnc_frontend::{dataflow, Options, SourceMap};

#[test]
fn repeated_bands_give_the_network_that_assembling_them_gives() {
    let (mut builds, mut repeated, mut translated, mut shifted, mut failures) = (0, 0, 0, 0, Vec::new());
    // Bands proved translates of a streamed band, whose template keeps only what that proof needs.
    let mut of_streamed = 0;
    for f in dpnc_tests::kernels() {
        let mut sm = SourceMap::new();
        let p = dpnc_frontend::load(&mut sm, &f, &Options::default()).unwrap_or_else(|d| panic!("{}", d.render(&sm)));
        let sare = dataflow::compute(&p).expect("dataflow");
        // Code generation's extra work (windows, isl predicates) once per kernel: it is the slow part.
        let shapes =
            [(vec![4], vec![1], true, 0), (vec![2], vec![1], false, 0), (vec![4, 6], vec![2, 1], false, 0), (vec![4], vec![2], false, 8)];
        for (tile, par, codegen, chunk) in shapes {
            let cfg = |every_band| Config { tile: tile.clone(), par: par.clone(), codegen, every_band, chunk, ..Config::default() };
            let (Ok(all), Ok(fast)) = (dpnc_dpn::construct(&p, &sare, &cfg(true)), dpnc_dpn::construct(&p, &sare, &cfg(false))) else {
                failures.push(format!("{} {tile:?}/{par:?}: one of the builds failed", f.display()));
                continue;
            };
            builds += 1;
            repeated += fast.stats.repeated_bands;
            translated += fast.stats.translated_bands;
            shifted += fast.stats.shifted_bands;
            of_streamed += fast.stats.shifted_of_compact;
            assert_eq!(all.stats.repeated_bands, 0);
            let json = |d: &dpnc_dpn::ir::Dpn| serde_json::to_string(d).expect("json");
            if json(&all.dpn) != json(&fast.dpn) {
                failures.push(format!(
                    "{} {tile:?}/{par:?} (chunks {chunk}): the networks differ ({} repeated bands)",
                    f.display(),
                    fast.stats.repeated_bands
                ));
            }
        }
    }
    println!(
        "{builds} networks, {repeated} bands built as repeats, {translated} of them proved translates before their analysis, {shifted} without their enumeration ({of_streamed} of streamed bands)"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Not vacuous: the stencils' and matrix kernels' interior bands do repeat.
    assert!(repeated > builds, "only {repeated} repeated bands in {builds} networks");
    assert!(translated > builds / 2, "only {translated} bands proved translates in {builds} networks");
    assert!(shifted > builds / 4, "only {shifted} bands proved translates without their enumeration in {builds} networks");
    assert!(of_streamed > 0, "no band proved a translate of a streamed band");
}

/// The stats of `kernel`'s construction under `cfg(false)`, once its network is checked
/// to be the one that assembling every band gives (`cfg(true)`).
fn same_as_every_band(kernel: &str, defines: &[(&str, &str)], cfg: impl Fn(bool) -> Config) -> dpnc_dpn::BuildStats {
    let f = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("kernels").join(kernel);
    let defines = defines.iter().map(|(k, v)| (k.to_string(), Some(v.to_string()))).collect();
    let mut sm = SourceMap::new();
    let p = dpnc_frontend::load(&mut sm, &f, &Options { defines, ..Options::default() }).unwrap_or_else(|d| panic!("{}", d.render(&sm)));
    let sare = dataflow::compute(&p).expect("dataflow");
    let (all, fast) = (dpnc_dpn::construct(&p, &sare, &cfg(true)).unwrap(), dpnc_dpn::construct(&p, &sare, &cfg(false)).unwrap());
    let json = |d: &dpnc_dpn::ir::Dpn| serde_json::to_string(d).expect("json");
    assert_eq!(json(&all.dpn), json(&fast.dpn));
    fast.stats
}

/// Syrk's bands below the diagonal read rows `i` and `j` of `A` from two tiles that move
/// apart from one band to the next: each band is still proved its template's translate
/// (the two reads' cells stay disjoint), not only the bands along one diagonal, and the
/// network is the one that assembling every band gives.
#[test]
fn reads_of_one_array_moving_apart_keep_their_bands_translates() {
    // Rows 0..24 in six full tiles of 4: fifteen full bands below the diagonal, six on it.
    let stats =
        same_as_every_band("syrk.c", &[("N", "26"), ("M", "3")], |every_band| Config { tile: vec![4], every_band, ..Config::default() });
    // The first full band below the diagonal and the first on it are analysed; the other
    // fourteen and five are proved their translates without enumeration.
    assert!(stats.shifted_bands >= 19, "{stats:?}");
}

/// Covariance tiled along all three loops (`cov[i][j] /= …` and `cov[j][i] = …` shifted past
/// the k loop, as a nest too big to build gets) reads `data[k][i]` and `data[k][j]`, which the
/// nest before wrote: from one band to the next the two reads move apart, their cells and
/// their producers by different constants. Each band is still proved its template's
/// translate, and the network is the one that assembling every band gives.
#[test]
fn reads_of_values_an_earlier_nest_wrote_may_move_apart() {
    // Columns 0..24 in six full tiles of 4: fifteen full bands above the diagonal, six on it.
    let hyperplanes = Some("S4: i, j, 0; S5: i, j, k; S6: i, j, 2; S7: i, j, 2".to_string());
    let stats = same_as_every_band("covariance.c", &[("M", "26"), ("N", "3")], |every_band| Config {
        tile: vec![4],
        every_band,
        hyperplanes: hyperplanes.clone(),
        ..Config::default()
    });
    assert!(stats.shifted_bands >= 19, "{stats:?}");
}
