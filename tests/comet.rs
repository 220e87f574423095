//! CoMet: every kernel runs and verifies its data on P = 2, 4 and 9 (virtual
//! processors beyond the CPUs), and the section 4.1 analysis recovers known
//! parameters from synthetic curves (the iPSC/860's own figures).

mod common;

use halfperf::kernels::comet::{self, hop_fit, matrix::grid::Grid, message_curve_fits};
use halfperf::kernels::{RunConfig, RunContext};
use halfperf::platform::{Topology, allowed_cpus, measure_clock};
use halfperf::results::KernelResult;
use halfperf::sync::Poll;
use halfperf::sync::barrier::{CentralBarrier, LocalSense};
use halfperf::team::{Team, TeamSpec};
use halfperf::transport::TransportKind;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// Runs kernel `name` on `processors` with tiny sweeps and one trial per point.
fn run(name: &str, processors: &[usize], transports: &[TransportKind]) -> Vec<KernelResult> {
    run_trials(name, processors, transports, 1)
}

/// As [`run`], with `trials` trials per point (the minimum is fitted).
fn run_trials(
    name: &str,
    processors: &[usize],
    transports: &[TransportKind],
    trials: usize,
) -> Vec<KernelResult> {
    let topology = Topology::detect().expect("topology");
    let allowed = allowed_cpus();
    let clock = measure_clock();
    let config = RunConfig {
        quick: true,
        transports: transports.to_vec(),
        sizes: Some(vec![0, 64, 4096]),
        trials: Some(trials),
        wait_timeout: Duration::from_secs(20),
        // Runs on a one-CPU machine too (every rank then shares the CPU).
        oversubscribe: true,
        ..RunConfig::default()
    };
    let ctx = RunContext::quiet(&topology, &allowed, &clock, &config);
    // Nine ranks on two CPUs beside another test's nine would time the
    // scheduler: the tests of this file that run teams take turns.
    let _turn = common::measuring();
    let results = comet::run_on_processors(name, &ctx, processors)
        .unwrap_or_else(|e| panic!("{name} on {processors:?}: {e}"));
    assert!(!results.is_empty(), "{name}: no results");
    for r in &results {
        assert!(!r.points.is_empty(), "{}: no points", r.kernel);
        assert_eq!(r.method, "comet");
    }
    results
}

fn min_of(r: &KernelResult, quantity: &str) -> Vec<f64> {
    r.points
        .iter()
        .map(|p| p.stats(quantity).expect(quantity).min)
        .collect()
}

const BOTH: [TransportKind; 2] = [TransportKind::Mailbox, TransportKind::Channel];

#[test]
fn echo_over_eight_hops_is_verified_and_fitted_with_h() {
    // Nine ranks share two CPUs, so a hop is a forwarding rank's receive and
    // send plus, now and then, a wait for its CPU: the fit of one run's
    // minima over three trials once came out below 10 ns, and once, in a CI
    // run beside this file's other tests, at -9.2 us. Up to three runs; the
    // structure holds in every one, the hop cost in at least one.
    let mut fitted = Vec::new();
    for _ in 0..3 {
        let results = run_trials("comet-echo", &[2, 4, 9], &BOTH, 3);
        let hops: Vec<_> = results
            .iter()
            .filter(|r| r.kernel == "comet-echo-hops")
            .collect();
        assert_eq!(hops.len(), 2);
        let mut h_ns = Vec::new();
        for r in hops {
            assert_eq!(r.ranks, 9);
            assert_eq!(r.points.len(), 8 * 3, "8 hop counts x 3 sizes");
            assert!(min_of(r, "one_way_ns").iter().all(|t| *t > 0.0));
            let fit = r
                .fits
                .iter()
                .find(|f| f.model.contains("(n - 1) h"))
                .expect("hop fit");
            h_ns.push(fit.params["h_ns"]);
        }
        // A store-and-forward hop is a receive and a send on a forwarding
        // rank: at least a cache-line transfer (tens of ns), and on virtual
        // processors a thread wake-up, but well under 10 ms.
        if h_ns.iter().all(|h| (10.0..1e7).contains(h)) {
            return;
        }
        fitted.push(h_ns);
    }
    panic!("no run fitted h between 10 ns and 10 ms (mailbox, channel): {fitted:?}");
}

#[test]
fn exchange_and_overlap_are_verified_between_rank_0_and_the_last_rank() {
    for p in [2, 4, 9] {
        let r = run("comet-exchange", &[p], &[TransportKind::Mailbox]);
        assert_eq!(r[0].ranks, p);
        assert!(min_of(&r[0], "exchange_ns").iter().all(|t| *t > 0.0));
    }
    for p in [2, 9] {
        let r = run("comet-overlap", &[p], &[TransportKind::Channel]);
        assert_eq!(r[0].points.len(), 3 * 3, "3 sizes x 3 vector lengths");
        for pt in &r[0].points {
            assert!(pt.number("gain_percent").expect("gain").is_finite());
            assert!(pt.stats("async_ns").expect("async").min > 0.0);
        }
    }
}

#[test]
fn broadcast_and_global_sum_are_verified_on_2_4_and_9() {
    for name in ["comet-broadcast", "comet-global-sum"] {
        let results = run(name, &[2, 4, 9], &BOTH);
        assert_eq!(results.len(), 4, "{name}: two algorithms x two transports");
        for r in &results {
            assert_eq!(r.ranks, 9);
            assert_eq!(r.placement.to_string(), "virtual");
            let ps: Vec<f64> = r
                .points
                .iter()
                .map(|p| p.number("processors").unwrap())
                .collect();
            assert!(ps.contains(&2.0) && ps.contains(&4.0) && ps.contains(&9.0));
            assert!(r.fits.iter().any(|f| f.x == "log2_processors"));
        }
    }
}

#[test]
fn barriers_run_on_2_4_and_9() {
    let results = run("comet-barrier", &[2, 4, 9], &BOTH);
    let names: Vec<&str> = results.iter().map(|r| r.kernel.as_str()).collect();
    assert_eq!(
        names,
        [
            "comet-barrier-central",
            "comet-barrier-dissemination",
            "comet-barrier-dissemination",
            "comet-barrier-std"
        ]
    );
    for r in &results {
        assert_eq!(r.points.len(), 3);
        assert!(min_of(r, "barrier_ns").iter().all(|t| *t > 0.0));
    }
}

#[test]
fn contention_runs_with_load_at_50_and_90_percent() {
    for p in [4, 9] {
        let r = run("comet-contention", &[p], &[TransportKind::Mailbox]);
        let loads: Vec<f64> = r[0]
            .points
            .iter()
            .map(|pt| pt.number("load_fraction").unwrap())
            .collect();
        assert_eq!(loads, [0.0, 0.0, 0.0, 0.5, 0.5, 0.5, 0.9, 0.9, 0.9]);
        let sizes: Vec<f64> = r[0]
            .points
            .iter()
            .map(|pt| pt.number("load_size_bytes").unwrap())
            .collect();
        assert!(sizes[3] >= 16.0 && sizes[6] >= sizes[3], "{sizes:?}");
    }
}

#[test]
fn matrix_kernels_verify_on_2_4_and_9() {
    for (name, transport) in [
        ("comet-update-guard", TransportKind::Mailbox),
        ("comet-shift", TransportKind::Channel),
        ("comet-transpose", TransportKind::Mailbox),
        ("comet-row-col-broadcast", TransportKind::Channel),
    ] {
        let results = run(name, &[2, 4, 9], &[transport]);
        for r in &results {
            assert_eq!(r.points.len(), 3 * 4, "{}: 3 P x 4 orders", r.kernel);
            assert!(r.points.iter().all(|p| p.number("verified") == Some(1.0)));
            assert!(min_of(r, "time_ns").iter().all(|t| t.is_finite()));
        }
    }
}

#[test]
fn the_grids_are_the_papers() {
    let g = Grid::for_processors(16);
    assert_eq!((g.rows, g.cols), (4, 4));
    let g = Grid::for_processors(8);
    assert_eq!((g.rows, g.cols), (2, 4));
    // Gray code: grid neighbours differ in one address bit (section 3.3).
    for r in 0..8 {
        let (t, b, w, e) = g.neighbours(r);
        for n in [t, b, w, e] {
            assert!(n == r || (n ^ r).count_ones() == 1, "{r} {n}");
        }
    }
}

/// The iPSC/860 echo of section 4.1: 79 us + 0.63 us/B up to 100 bytes,
/// 156 us + 0.41 us/B above.
fn ipsc(n: f64) -> f64 {
    if n <= 100.0 {
        79_000.0 + 630.0 * n
    } else {
        156_000.0 + 410.0 * n
    }
}

#[test]
fn the_piecewise_fit_finds_the_ipsc_protocol_break_and_its_lines() {
    let mut sizes: Vec<f64> = (0..=10).map(|i| f64::from(i) * 10.0).collect();
    let mut s = 128.0;
    while s <= 85_000.0 {
        sizes.push(s);
        s *= 1.5;
    }
    let times: Vec<f64> = sizes.iter().map(|&n| ipsc(n)).collect();
    let (fits, warnings) = message_curve_fits(&sizes, &times, "one_way_ns.min");
    assert!(warnings.is_empty(), "{warnings:?}");
    let summary = fits.last().expect("summary");
    assert_eq!(summary.params["breakpoints"], 1.0);
    let b = summary.params["breakpoint_1_bytes"];
    assert!((100.0..128.0).contains(&b), "breakpoint at {b}");
    let seg1 = &fits[0].params;
    let seg2 = &fits[1].params;
    assert!((seg1["t_startup_ns"] - 79_000.0).abs() < 1.0);
    assert!((seg1["t_per_byte_ns"] - 630.0).abs() < 1e-6);
    assert!((seg2["t_startup_ns"] - 156_000.0).abs() < 1.0);
    assert!((seg2["t_per_byte_ns"] - 410.0).abs() < 1e-6);
    // Peak 1 / 0.41 us per byte = 2.44 MB/s (the paper's "2.5 MB/s"), half-peak
    // t_startup / t_per_byte = 380 bytes, 90% at 9 n_half.
    assert!((seg2["peak_bandwidth_mb_per_s"] - 2.439).abs() < 0.001);
    assert!((seg2["n_half_bytes"] - 380.49).abs() < 0.01);
    assert!((seg2["n_90_bytes"] - 3424.39).abs() < 0.01);
}

#[test]
fn the_50_and_90_percent_sizes_of_a_synthetic_line_are_right() {
    // t = 156 us + 0.41 us/B, sizes 2% apart from 1 byte to 10^6 bytes.
    let (a, b) = (156_000.0, 410.0);
    let mut sizes = vec![1.0];
    while *sizes.last().unwrap() < 1e6 {
        let next = (sizes.last().unwrap() * 1.02f64).min(1e6);
        sizes.push(next);
    }
    let times: Vec<f64> = sizes.iter().map(|n| a + b * n).collect();
    let (fits, _) = message_curve_fits(&sizes, &times, "one_way_ns.min");
    let summary = fits.last().expect("summary");
    let n_max = 1e6;
    let peak = n_max / (a + b * n_max); // bytes per ns
    assert!((summary.params["measured_peak_bandwidth_mb_per_s"] - peak * 1e3).abs() < 1e-9);
    // N / (a + b N) = f peak  =>  N = f peak a / (1 - f peak b).
    for (key, f) in [
        ("half_peak_size_bytes", 0.5),
        ("ninety_percent_size_bytes", 0.9),
    ] {
        let want = f * peak * a / (1.0 - f * peak * b);
        let got = summary.params[key];
        assert!((got - want).abs() / want < 0.01, "{key}: {got} vs {want}");
    }
}

#[test]
fn the_hop_fit_recovers_h() {
    let mut sizes = Vec::new();
    let mut hops = Vec::new();
    let mut times = Vec::new();
    for n in 1..=4 {
        for s in [0.0, 100.0, 1000.0, 10_000.0] {
            sizes.push(s);
            hops.push(n);
            // The iPSC/860's h = 25 us above 100 bytes.
            times.push(156_000.0 + 410.0 * s + (n as f64 - 1.0) * 25_000.0);
        }
    }
    let fit = hop_fit(&sizes, &hops, &times).expect("fit");
    assert!((fit.params["h_ns"] - 25_000.0).abs() < 1e-6);
    assert!((fit.params["t_startup_ns"] - 156_000.0).abs() < 1e-6);
    assert!((fit.params["t_per_byte_ns"] - 410.0).abs() < 1e-9);
    assert!((fit.r2 - 1.0).abs() < 1e-12);
}

#[test]
fn the_central_barrier_holds_every_rank_until_all_arrive() {
    let cpus = allowed_cpus();
    let team = Team::new(&TeamSpec {
        cpus: cpus[..cpus.len().min(2)].to_vec(),
        ranks: 5,
        virtual_ok: true,
        oversubscribe: false,
        wait_timeout: Duration::from_secs(20),
    })
    .unwrap();
    let barrier = CentralBarrier::new(5);
    let arrived = AtomicUsize::new(0);
    team.run("barrier-test", vec![(); 5], |ctx, _| {
        let mut local = LocalSense::default();
        let poll = Poll::for_rank(ctx.control, ctx.rank);
        for episode in 1..=200 {
            arrived.fetch_add(1, Ordering::SeqCst);
            barrier.wait(&mut local, poll, ctx.control, 0)?;
            let seen = arrived.load(Ordering::SeqCst);
            assert!(
                seen >= 5 * episode,
                "episode {episode}: only {seen} arrived"
            );
            barrier.wait(&mut local, poll, ctx.control, 0)?;
        }
        Ok(())
    })
    .unwrap();
    assert_eq!(arrived.load(Ordering::SeqCst), 1000);
}
