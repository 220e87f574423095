//! Arbitrary bytes through the result-file reader that `halfperf compare` and
//! `halfperf report` use: it must refuse or accept, never panic. An accepted
//! document then goes through the comparison and its CSV, as `compare` would.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // `results::read` reads the file as UTF-8 first; non-UTF-8 bytes end there.
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(doc) = halfperf::results::parse(text) {
        let both = [doc.clone(), doc];
        let c = halfperf::results::compare(&both);
        let _ = halfperf::results::to_csv(&c);
    }
});
