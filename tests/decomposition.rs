//! Krumme & Greenfield's kernels on a small sweep, on hosted virtual nodes: the six
//! parameters come out finite and ordered as hops and copies order them, and
//! streams through a rank slow its computation down. Timing assertions are orderings and generous bounds only: the
//! machine running the tests may be a loaded two-core virtual machine.

use halfperf::control::Placement;
use halfperf::kernels::{self, RunConfig, RunContext};
use halfperf::platform::{Topology, allowed_cpus, measure_clock};
use halfperf::results::KernelResult;
use std::sync::Mutex;

/// The kernels time; run one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn run(kernel: &str, config: RunConfig) -> Vec<KernelResult> {
    let _one_at_a_time = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let topology = Topology::detect().expect("topology");
    let allowed = allowed_cpus();
    let clock = measure_clock();
    let config = RunConfig {
        oversubscribe: allowed.len() < 2,
        ..config
    };
    let ctx = RunContext::quiet(&topology, &allowed, &clock, &config);
    let spec = kernels::find(kernel).expect("registered");
    kernels::run_kernel(spec, &ctx).expect("the kernel runs")
}

/// The median over repetitions (robust to a repetition that other work on the
/// machine disturbed) of `name` at `size` for one `Q` (0 integer, 1 float).
fn median(r: &KernelResult, q_float: f64, size: f64, name: &str) -> f64 {
    r.points
        .iter()
        .find(|p| p.number("q_float") == Some(q_float) && p.number("size_bytes") == Some(size))
        .and_then(|p| p.stats(name))
        .unwrap_or_else(|| panic!("{name} at {size} B missing"))
        .median
}

const SMALL: f64 = 16.0;
const BIG: f64 = 65_536.0;

#[test]
fn six_parameters_are_finite_and_ordered_by_the_copies() {
    // Full blocks (100 iterations, so that their medians hold on a loaded machine),
    // two sizes, three repetitions. The structure is asserted on every run; the
    // timings may miss on a machine whose memory speed changes under it, so a run
    // whose timings miss is run again, up to three runs, and the last is judged.
    let mut misses = Vec::new();
    for _ in 0..3 {
        let results = run(
            "decomposition",
            RunConfig {
                quick: false,
                sizes: Some(vec![SMALL as usize, BIG as usize]),
                trials: Some(3),
                ..RunConfig::default()
            },
        );
        assert_eq!(results.len(), 2, "one result per transport");
        results.iter().for_each(structure_holds);
        misses = results.iter().flat_map(timing_misses).collect();
        if misses.is_empty() {
            break;
        }
    }
    assert!(misses.is_empty(), "{}", misses.join("; "));
}

/// What every run must show, whatever the machine's load.
fn structure_holds(r: &KernelResult) {
    let t = r.transport.as_deref().unwrap_or("?");
    assert_eq!(r.ranks, 6);
    assert_eq!(r.placement, Placement::Hosted);
    assert!(r.warnings.iter().any(|w| w.contains("round-robin")));
    // Both versions of Q, two sizes, every parameter finite.
    assert_eq!(r.points.len(), 4, "{t}");
    for p in &r.points {
        for name in ["e_ns", "r_ns", "s_ns", "f_ns", "u_ns", "a_ns", "e_busy_ns"] {
            let s = p
                .stats(name)
                .unwrap_or_else(|| panic!("{t}: {name} missing"));
            assert!(s.mean.is_finite() && s.std_dev.is_finite(), "{t} {name}");
        }
        // The directly measured composites are positive. (The half-increments
        // `e_d1_d2_ns` and `e_d4_d5_ns` are differences of two echoes, not
        // measurements: where the links differ in cost the last one falls to
        // a few hundred ns and, six ranks on two CPUs, can reach zero. They
        // are judged against E with the timings, in `timing_misses`; so are
        // the busy echo less the `Q(SENDTIME)` it waited through, and A alone
        // less the clock, each a difference of two medians tens of ns apart at
        // 16 bytes.)
        for name in [
            "a_plus_u_ns",
            "send_call_ns",
            "send_call_test_6_ns",
            "echo_idle_d1_ns",
            "echo_idle_d2_ns",
            "echo_idle_d3_ns",
            "echo_idle_d4_ns",
            "echo_idle_d5_ns",
            "twice_f_e_u_system_ns",
            "clock_ns",
            "cpu_round_trip_ns",
            "cpu_round_trip_64k_ns",
        ] {
            assert!(p.stats(name).unwrap().median > 0.0, "{t} {name}");
        }
    }
    // Lines over the two sizes, for both versions of Q.
    assert_eq!(r.fits.len(), 12, "{t}");
}

/// The kernel's own diagnosis that the paper's model does not hold at `size`:
/// for both versions of `Q`, a warning that a parameter fell below zero and
/// that the echo's half-increments fall along the chain (its links differ in
/// cost, so the solve's chain of differences carries the difference into `A`,
/// `F` and `U`).
fn links_differ(r: &KernelResult, size: f64) -> bool {
    let at = format!(", {size} B: ");
    ["integer Q", "floating-point Q"].iter().all(|q| {
        r.warnings.iter().any(|w| {
            w.starts_with(&format!("{q}{at}")) && w.contains("half-increments fall along the chain")
        })
    })
}

/// The orderings and bounds the timings must meet: each one missed, described.
///
/// Some hold only where the paper's model holds, every link of the echo
/// costing the same `E`: the first and last half-increments near `E`, the
/// solved parameters above their floors, `A` flat, `F` and `U` growing with
/// the copies. On a two-vCPU EPYC VM, in the state where 64 KiB there and back
/// between the two CPUs took 16 µs, every one of 12 runs at 64 KiB found the
/// first link's half-increment at 7.2 to 8.3 µs and the last at 0.5 to 2.3 µs
/// (E 4.5 to 5.0 µs), A at -4 to -5 µs; in the state where it took 8 µs they
/// were near E. Where the kernel says so itself ([`links_differ`]), those
/// misses at that size are printed, not failed: the result explains its own
/// numbers. Every other check holds in every state.
fn timing_misses(r: &KernelResult) -> Vec<String> {
    let mut m = Misses {
        transport: r.transport.as_deref().unwrap_or("?"),
        explained: links_differ(r, BIG),
        list: Vec::new(),
    };
    // Medians over repetitions, averaged over the two versions of Q.
    let at = |size, name| (median(r, 0.0, size, name) + median(r, 1.0, size, name)) / 2.0;
    // Hosted nodes spin, so nothing here waits for a thread wake-up: the copies
    // show. The echo over five hops takes longer than over one, a 64 KiB
    // message longer than 16 bytes; the timed read of an already arrived
    // message (its copy out) and the write call (its copies in) grow with the
    // size.
    for size in [SMALL, BIG] {
        m.check(
            at(size, "echo_idle_d5_ns") > at(size, "echo_idle_d1_ns"),
            format!("five hops not slower than one at {size} B"),
        );
        // The probes around each size: 64 KiB there and back costs more than
        // a cache line.
        m.check(
            at(size, "cpu_round_trip_64k_ns") > at(size, "cpu_round_trip_ns"),
            format!("the 64 KiB probe not slower than the cache line's at {size} B"),
        );
        // The first and last links' half-increments are E's parts (E is the
        // mean of four): within a factor of two of it.
        for name in ["e_d1_d2_ns", "e_d4_d5_ns"] {
            let (x, e) = (at(size, name), at(size, "e_ns"));
            m.model(
                size,
                x > e / 2.0 && x < 2.0 * e,
                format!("{name} = {x} at {size} B against E = {e}"),
            );
        }
    }
    for size in [SMALL, BIG] {
        for name in ["echo_busy_d1_ns", "a_alone_ns"] {
            let v = at(size, name);
            m.check(v > 0.0, format!("{name} = {v} at {size} B"));
        }
    }
    for name in ["echo_idle_d1_ns", "a_plus_u_ns", "send_call_ns"] {
        m.check(
            at(BIG, name) > at(SMALL, name),
            format!("{name} does not grow with the size"),
        );
    }
    // The lost computation is there, and a forward costs more than a
    // receipt: R > 0 and S > 0 at both sizes.
    for size in [SMALL, BIG] {
        for name in ["r_ns", "s_ns"] {
            let v = at(size, name);
            m.check(v > 0.0, format!("{name} = {v} at {size} B"));
        }
    }
    // The copies: E, F and U grow by microseconds from 16 B to 64 KiB (the
    // copies of 64 KiB take one to several µs here, against tens of ns for
    // 16 B), while A, the call without the copy, stays within a few µs.
    for name in ["e_ns", "s_ns", "r_ns"] {
        let grow = at(BIG, name) - at(SMALL, name);
        m.check(grow > 300.0, format!("{name} grew by {grow} ns only"));
    }
    // F and U are solved through E's chain of differences.
    for name in ["f_ns", "u_ns"] {
        let grow = at(BIG, name) - at(SMALL, name);
        m.model(BIG, grow > 300.0, format!("{name} grew by {grow} ns only"));
    }
    // No parameter far below zero: the solve's chain of differences holds to
    // some tens of ns on a quiet machine (the bound leaves room for a loaded
    // one; before the polls were timed one by one, misses reached 1 to 7 µs).
    // At 64 KiB the copies dominate, and where the machine's memory is shared
    // their speed can change threefold from one repetition to the next (a
    // two-vCPU EPYC VM: E from 6.6 to 17.5 µs between runs, the lowest of the
    // six parameters down to -0.22 E over 56 `--quick` runs): there the bound
    // is half a hop, which a solve that took E or U with the wrong sign
    // (about -2E) still breaks.
    for size in [SMALL, BIG] {
        let floor = if size == BIG {
            -(at(BIG, "e_ns") / 2.0).max(500.0)
        } else {
            -500.0
        };
        for name in ["e_ns", "r_ns", "s_ns", "f_ns", "u_ns", "a_ns"] {
            let v = at(size, name);
            m.model(
                size,
                v > floor,
                format!("{name} = {v} ns at {size} B (floor {floor})"),
            );
        }
    }
    // A timed by itself is the read's look at its queues, whatever the size:
    // well under the read of an arrived 64 KiB message, and flat.
    m.check(
        at(BIG, "a_alone_ns") < at(BIG, "a_plus_u_ns"),
        "A alone not under A + U at 64 KiB".into(),
    );
    let alone = at(BIG, "a_alone_ns") - at(SMALL, "a_alone_ns");
    m.check(
        alone.abs() < 1_000.0,
        format!("A alone changed by {alone} ns"),
    );
    // The clock's read overhead subtracted is tens of ns, not microseconds.
    m.check(
        at(SMALL, "clock_ns") < 2_000.0,
        "clock overhead over 2 µs".into(),
    );
    // A flat: within the floor's half a hop (at least 5 µs) from 16 B to 64 KiB.
    let da = at(BIG, "a_ns") - at(SMALL, "a_ns");
    let flat = (at(BIG, "e_ns") / 2.0).max(5_000.0);
    m.model(
        BIG,
        da.abs() < flat,
        format!("A changed by {da} ns (bound {flat})"),
    );
    m.list
}

/// The misses of one result's timing checks.
struct Misses<'a> {
    transport: &'a str,
    /// The kernel said the echo's links differ in cost at [`BIG`].
    explained: bool,
    list: Vec<String>,
}

impl Misses<'_> {
    /// A check that holds in every state of the machine.
    fn check(&mut self, ok: bool, what: String) {
        if !ok {
            self.list.push(format!("{}: {what}", self.transport));
        }
    }

    /// A check that holds where every link costs `E`: at [`BIG`], excused
    /// (and printed) where the kernel said its links differ in cost.
    fn model(&mut self, size: f64, ok: bool, what: String) {
        if !ok && size == BIG && self.explained {
            eprintln!(
                "{}: {what} (explained: the kernel says the echo's links differ in cost at {BIG} B)",
                self.transport
            );
        } else {
            self.check(ok, what);
        }
    }
}

#[test]
fn streams_through_a_rank_slow_its_computation() {
    let results = run(
        "interference",
        RunConfig {
            quick: true,
            trials: Some(3),
            ..RunConfig::default()
        },
    );
    assert_eq!(results.len(), 2);
    for r in &results {
        let t = r.transport.as_deref().unwrap_or("?");
        assert_eq!(r.ranks, 12);
        assert_eq!(r.placement, Placement::Hosted);
        assert_eq!(r.points.len(), 4, "{t}: 0 to 3 streams");
        for p in &r.points[1..] {
            let k = p.number("streams").unwrap();
            // Forwarding costs rank 0 time: the fastest run with streams is not
            // faster than the fastest without, within generous noise.
            let slowdown = p.number("slowdown_of_fastest").unwrap();
            assert!(slowdown > 0.85, "{t}, {k} streams: slowdown {slowdown}");
            assert!(p.stats("slowdown").unwrap().mean.is_finite());
            assert!(p.number("messages").unwrap() > 0.0, "{t}");
            let period = p.stats("period_ns").unwrap().median;
            assert!(period.is_finite() && period > 0.0, "{t}");
            // A finite prediction is a slowdown; a saturated one is a warning
            // (JSON has no infinity, and a file must read back).
            match p.number("predicted_slowdown_r_plus_s") {
                Some(pred) => assert!(pred >= 1.0, "{t}: predicted slowdown {pred}"),
                None => assert!(
                    r.warnings
                        .iter()
                        .any(|w| w.starts_with(&format!("{k} streams: "))
                            && w.contains("saturation")),
                    "{t}, {k} streams: neither a prediction nor a saturation warning"
                ),
            }
        }
    }
}
