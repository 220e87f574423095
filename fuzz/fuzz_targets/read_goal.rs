//! Arbitrary bytes through the GOAL reader that `halfperf simulate`, `predict` and
//! `replay` use: it must refuse or accept, never panic; an accepted schedule then
//! goes through the static checks.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // `goal::read` refuses non-UTF-8 files before parsing.
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(schedule) = halfperf::model::goal::parse(text, "fuzz.goal") {
        assert_eq!(schedule.ranks.len(), schedule.num_ranks as usize);
        let _ = halfperf::model::goal::check(&schedule);
    }
});
