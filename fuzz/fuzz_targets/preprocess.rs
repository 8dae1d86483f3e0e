//! The preprocessor on arbitrary text: an error or tokens, never a panic or a hang.
#![no_main]
use dpnc_frontend::{preprocess, SourceMap};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut sm = SourceMap::new();
    let file = sm.add("fuzz.c", text.into_owned());
    let opts = preprocess::PpOptions { include_dirs: vec![], defines: vec![("FUZZ".into(), Some("1".into()))] };
    let _ = preprocess::preprocess(&mut sm, file, &opts);
});
