//! Preprocessor + parser on arbitrary text (with and without `--kernel`).
#![no_main]
use dpnc_frontend::{parser, preprocess, SourceMap};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut sm = SourceMap::new();
    let file = sm.add("fuzz.c", text.into_owned());
    let opts = preprocess::PpOptions::default();
    if let Ok(tokens) = preprocess::preprocess(&mut sm, file, &opts) {
        let _ = parser::parse_unit(&tokens, None);
        let _ = parser::parse_unit(&tokens, Some("kernel"));
    }
});
