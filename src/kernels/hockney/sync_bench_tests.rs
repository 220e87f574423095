//! The bench's samples through the kernel's fit, on synthetic samples with
//! known parameters.

use super::*;

/// `n` samples of a grain of `s` flop on `t = t0 + s / 8` (r_inf = 8
/// flop/ns on two processors of 4 flop/ns each), awake, with the probes at
/// 125 ns (pair) and 300 ns (system call); sample `i` is `1 + spread i / n`
/// times slower, so the median is about `1 + spread / 2` times the line.
fn samples(s: usize, t0: f64, n: usize, spread: f64, pair: bool) -> GrainRun {
    let v = (0..n)
        .map(|i| SyncSample {
            time_ns: (t0 + s as f64 / 8.0) * (1.0 + spread * i as f64 / n as f64),
            blocks_per_segment: 0.0,
            preempted_per_s: 0.0,
            serial_flop_per_ns: 4.0,
            pair_ns: pair.then_some(125.0),
            syscall_ns: 300.0,
        })
        .collect();
    (s, 100, v)
}

fn plan() -> SyncPlan {
    SyncPlan {
        cpus: vec![0, 1],
        parts: 2,
        grains: None,
        points: 1,
        max_grain: 1 << 14,
        trials: 1,
        target: Duration::ZERO,
        wait_timeout: Duration::from_secs(1),
        oversubscribe: false,
        skip_part: None,
    }
}

fn value(r: &KernelResult, name: &str) -> f64 {
    r.headline
        .iter()
        .find(|p| p.name == name)
        .unwrap_or_else(|| panic!("{name} in {:?}", r.headline))
        .value
}

const SHORT: [usize; 5] = [16, 32, 48, 64, 256];
const LONG: [usize; 4] = [4096, 16384, 32768, 65536];

/// A spinning method at t0 = 120 ns, r_inf = 8 flop/ns: s_1/2 = 960 flop.
/// Every sample at most 1 % slow: the medians lie 0.45 % above the line,
/// so t0 comes back within 1 %, r_inf and s_1/2 within 2 %, each inside
/// its bootstrap interval, as the kernel names them; beside them the
/// pair probe (125 ns), the rate probe (2 x 4 = 8 Gflop/s) and the
/// system call (300 ns).
#[test]
fn a_spinning_method_gives_t0_r_inf_and_s_half() {
    let grains: Vec<GrainRun> = SHORT
        .iter()
        .chain(&LONG)
        .map(|&s| samples(s, 120.0, 10, 0.01, true))
        .collect();
    let r = bench_result(Method::SpinHint, &grains, SHORT.len(), &plan(), 20.0, &[]);
    assert_eq!(
        (r.kernel.as_str(), r.transport.as_deref()),
        ("hockney-sync", Some("spin-hint"))
    );
    for (name, want, tol) in [
        ("t0_ns", 120.0, 0.01),
        ("r_inf_flop_per_s", 8e9, 0.02),
        ("s_half_flop", 960.0, 0.02),
    ] {
        let p = r.headline.iter().find(|p| p.name == name).unwrap();
        assert!((p.value / want - 1.0).abs() < tol, "{name} = {}", p.value);
        let [lo, hi] = p.ci95.unwrap_or_else(|| panic!("{name} has an interval"));
        assert!(lo <= p.value && p.value <= hi, "{name}: {lo}..{hi}");
    }
    assert_eq!(value(&r, "probe_round_trip_ns"), 125.0);
    assert!((value(&r, "rate_probe_flop_per_s") - 8e9).abs() < 1.0);
    assert_eq!(value(&r, "syscall_probe_ns"), 300.0);
    assert!(r.headline.iter().all(|p| p.name != "t_wake_ns"));
}

/// An EVENTS-like method: its short grains awake (t = 1200 + s/8) in four
/// samples of ten and sleeping twice a segment at 30 us a sleep in the
/// others; its long grains always sleeping twice. As the kernel does, t0
/// is the awake samples' (1200 ns), a sleep adds 30 000 ns, and r_inf is
/// the rate probe's (8 flop/ns, the long grains' line being no measure of
/// the work), so s_1/2 = 9600 flop.
#[test]
fn a_method_that_sleeps_in_some_samples_takes_t0_from_the_others() {
    let mut grains: Vec<GrainRun> = SHORT
        .iter()
        .chain(&LONG)
        .map(|&s| samples(s, 1200.0, 10, 0.0, true))
        .collect();
    for (i, (_, _, v)) in grains.iter_mut().enumerate() {
        for (k, sample) in v.iter_mut().enumerate() {
            if i >= SHORT.len() || k >= 4 {
                sample.time_ns += 60_000.0;
                sample.blocks_per_segment = 2.0;
            }
        }
    }
    let r = bench_result(
        Method::EventsCondvar,
        &grains,
        SHORT.len(),
        &plan(),
        20.0,
        &[],
    );
    assert!((value(&r, "t0_ns") - 1200.0).abs() < 1e-6);
    assert!((value(&r, "t_wake_ns") - 30_000.0).abs() < 1e-6);
    assert!((value(&r, "r_inf_flop_per_s") - 8e9).abs() < 1.0);
    assert!((value(&r, "s_half_flop") - 9600.0).abs() < 1e-3);
    assert_eq!(r.fits[0].params.get("r_inf_from_rate_probe"), Some(&1.0));
}

/// The TASKS take no pair probe of their own: the others' stand beside
/// their t0. Samples of unequal count are fitted over the rounds all have.
#[test]
fn the_tasks_borrow_the_other_methods_probes() {
    let mut grains: Vec<GrainRun> = [16usize, 4096, 1 << 20, 1 << 21, 1 << 22]
        .iter()
        .map(|&s| samples(s, 50_000.0, 10, 0.0, false))
        .collect();
    grains[0].2.truncate(7);
    let r = bench_result(
        Method::TasksSpawn,
        &grains,
        2,
        &plan(),
        20.0,
        &[130.0, 128.0, 126.0],
    );
    assert_eq!(value(&r, "probe_round_trip_ns"), 128.0);
    assert!((value(&r, "t0_ns") - 50_000.0).abs() < 1.0);
    assert!((value(&r, "s_half_flop") - 400_000.0).abs() < 10.0);
    let own = pair_probes(
        [
            samples(16, 1.0, 3, 0.0, true).2,
            samples(16, 1.0, 2, 0.0, false).2,
        ]
        .iter()
        .map(|v| &v[..]),
    );
    assert_eq!(own, [125.0; 3]);
}

/// A real sample of the spin flag on this machine's first two CPUs: a
/// positive time, verified, with its probes; on one CPU the processors
/// share it and the rate probe runs on the master alone. Its batch is
/// calibrated to the plan's target in the first sample and kept: at least
/// one segment, and one of more than 20 segments of 64 flop reached the
/// kernel's quick target, 1 ms (by the median segment at least a fifth of
/// it: a preemption may have lengthened the calibration's batch). Criterion
/// is told the segment time times its count.
#[test]
fn a_sample_runs_calibrates_its_batch_and_carries_its_probes() {
    let topology = Topology::detect().expect("topology");
    let allowed = crate::platform::allowed_cpus();
    let cpus: Vec<usize> = allowed.iter().take(2).copied().collect();
    let plan = bench_plan(&topology, &cpus, Duration::from_millis(1));
    let clock = crate::platform::measure_clock();
    let mut segments = 0;
    let s = sync_sample(Method::SpinBare, &plan, 64, &mut segments, &clock).expect("a sample");
    assert!(s.time_ns > 0.0, "{s:?}");
    assert!(s.serial_flop_per_ns > 0.0 && s.syscall_ns > 0.0, "{s:?}");
    assert_eq!(s.pair_ns.is_some(), cpus.len() == 2 && cpus[0] != cpus[1]);
    assert!(segments >= 1, "{segments}");
    assert!(
        segments <= 20 || segments as f64 * s.time_ns >= 0.2e6,
        "{segments} segments of {} ns",
        s.time_ns
    );
    let kept = segments;
    let again = sync_sample(Method::SpinBare, &plan, 64, &mut segments, &clock).expect("a sample");
    assert_eq!(segments, kept);
    assert!(again.time_ns > 0.0);
    let told = criterion_time(&again, 1000);
    assert!(
        (told.as_secs_f64() * 1e9 / 1000.0 - again.time_ns).abs() < 1e-3 * again.time_ns + 1e-6
    );
}

/// A blocking method's bench: its grains awake on `t = 500 + s / 8`, and
/// its two shortest again with the [`ASLEEP`] bit, each segment the two
/// holds (200 µs), 30 µs and its work, both waits sleeping. The kernel's
/// result takes `t0` from the awake grains (500 ns within 1 %) and
/// `t0_asleep` (30 µs) and `t_wake` (30 µs less 500 ns) from the asleep ones.
#[test]
fn a_blocking_method_gives_both_regimes() {
    let hold = super::super::sync_result::asleep_hold_ns(Method::EventsPark);
    let mut grains: Vec<GrainRun> = SHORT
        .iter()
        .chain(&LONG)
        .map(|&s| samples(s, 500.0, 10, 0.0, true))
        .collect();
    for s in [16usize, 32] {
        let (_, reps, mut v) = samples(s, hold + 30_000.0, 10, 0.0, true);
        v.iter_mut().for_each(|x| x.blocks_per_segment = 2.0);
        grains.push((s | ASLEEP, reps, v));
    }
    let r = bench_result(Method::EventsPark, &grains, SHORT.len(), &plan(), 20.0, &[]);
    assert!((value(&r, "t0_ns") / 500.0 - 1.0).abs() < 0.01);
    assert!((value(&r, "t0_asleep_ns") - 30_000.0).abs() < 5.0);
    assert!((value(&r, "t_wake_ns") - 29_500.0).abs() < 10.0);
    assert_eq!(r.fits[0].params["blocks_over_waits_asleep"], 1.0);
    // The asleep grains are not points of the awake line.
    assert_eq!(r.points.len(), SHORT.len() + LONG.len());
}
