//! The arithmetic between the clock and the reported figures, in one place.
//!
//! Every kernel times batches ([`super::harness::timing`]) and ends with a time per
//! repetition in ns; what a repetition is differs by kernel, and so does the
//! figure the result reports. The conversions here are the whole of that step,
//! each from its paper's definition, and each pinned by a test on hand-computed
//! values:
//!
//! - a round trip carries two messages, so the one-way time of a ping-pong
//!   (scibench PP, section 5.1, Fig. 7) or of an echo (CoMet section 2.2.1) is
//!   half the round trip: [`one_way_ns`];
//! - a message of `N` bytes delivered in `t` ns moves `N / t` bytes per ns, which
//!   is `10^3 N / t` MB/s (10^6 bytes a second, as scibench and CoMet print
//!   bandwidth): [`bandwidth_mb_per_s`];
//! - a rate is work over time: `W` flop (or bytes) in `t` ns is `10^9 W / t` a
//!   second (Hockney's `r = flop / time`): [`per_second`];
//! - a triad is two vector instructions an element, and Hockney (section 3.1)
//!   divides its time by two so that `t` is the time of one vector instruction:
//!   [`per_instruction_ns`].
//!
//! Times that are not positive (a batch shorter than the clock's overhead) give a
//! rate of 0, never an infinity, so that the JSON stays finite.

/// Messages in one round trip: the request and the reply.
pub const MESSAGES_PER_ROUND_TRIP: f64 = 2.0;

/// The one-way time of a message whose round trip (there and back, two messages)
/// took `round_trip_ns`.
pub fn one_way_ns(round_trip_ns: f64) -> f64 {
    round_trip_ns / MESSAGES_PER_ROUND_TRIP
}

/// [`one_way_ns`] of every sample.
pub fn one_way_samples(round_trip_ns: &[f64]) -> Vec<f64> {
    round_trip_ns.iter().map(|&t| one_way_ns(t)).collect()
}

/// The bandwidth, in MB/s (10^6 bytes a second), of `bytes` delivered in
/// `time_ns`; 0 when the time is not positive.
pub fn bandwidth_mb_per_s(bytes: f64, time_ns: f64) -> f64 {
    per_second(bytes, time_ns) / 1e6
}

/// `work` (flop, bytes, operations) per second done in `time_ns`; 0 when the
/// time is not positive.
pub fn per_second(work: f64, time_ns: f64) -> f64 {
    if time_ns > 0.0 {
        work / time_ns * 1e9
    } else {
        0.0
    }
}

/// The time of one vector instruction of an operation that issues
/// `instructions` chained instructions per element step and took
/// `time_ns` in all (Hockney 3.1: "in the case of triadic operations TMIN is
/// divided by two").
pub fn per_instruction_ns(time_ns: f64, instructions: usize) -> f64 {
    time_ns / instructions as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every expected value below is computed by hand from the definitions in the
    /// module documentation; none is read back from the code.
    #[test]
    fn a_round_trip_is_two_messages() {
        assert_eq!(one_way_ns(1000.0), 500.0);
        assert_eq!(one_way_ns(137.0), 68.5);
        assert_eq!(
            one_way_samples(&[300.0, 302.0, 0.0]),
            vec![150.0, 151.0, 0.0]
        );
    }

    #[test]
    fn bandwidth_is_bytes_over_one_way_time_in_megabytes_per_second() {
        // 8 bytes in 139.3 ns: 8 / 139.3e-9 B/s = 57.43 MB/s.
        assert!((bandwidth_mb_per_s(8.0, 139.3) - 57.430_007).abs() < 1e-5);
        // 64 KiB in 7377.6 ns: 65536 / 7.3776e-6 = 8883.1 MB/s (the README's row).
        assert!((bandwidth_mb_per_s(65536.0, 7377.6) - 8_883.105_6).abs() < 1e-3);
        // The paper's iPSC/860 peak: 85,000 B in 34 ms is 2.5 MB/s.
        assert!((bandwidth_mb_per_s(85_000.0, 34e6) - 2.5).abs() < 1e-12);
        assert_eq!(bandwidth_mb_per_s(8.0, 0.0), 0.0);
        assert_eq!(bandwidth_mb_per_s(8.0, -3.0), 0.0);
    }

    #[test]
    fn a_rate_is_work_over_time() {
        // Hockney Table I: 400 flop at 70 Mflop/s take 400 / 0.07 ns.
        assert!((per_second(400.0, 400.0 / 0.07) - 70e6).abs() < 1e-6);
        // 2 x 1000 flop of a triad in 250 ns: 8 Gflop/s.
        assert_eq!(per_second(2000.0, 250.0), 8e9);
        assert_eq!(per_second(1.0, 0.0), 0.0);
    }

    #[test]
    fn a_triads_time_is_halved_to_one_instruction() {
        assert_eq!(per_instruction_ns(300.0, 2), 150.0);
        assert_eq!(per_instruction_ns(300.0, 1), 300.0);
    }
}
