//! The bench's fits on synthetic samples with known parameters.

use super::*;
use crate::kernels::hockney::sync_bench::{GrainRun, SyncSample};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// `count` samples of `t` ns, each times `1 + u` with `u` uniform in
/// `[0, spread)` (a timing is never faster than the machine), seeded.
fn noisy(t: f64, count: usize, spread: f64, rng: &mut Xoshiro256PlusPlus) -> Vec<f64> {
    (0..count)
        .map(|_| t * (1.0 + spread * rng.random::<f64>()))
        .collect()
}

fn headline<'a>(r: &'a KernelResult, name: &str, of: Option<&str>) -> &'a Param {
    r.headline
        .iter()
        .find(|p| p.name == name && p.of.as_deref() == of)
        .unwrap_or_else(|| panic!("{name} of {of:?} in {:?}", r.headline))
}

fn within(p: &Param, want: f64, tolerance: f64) {
    assert!(
        (p.value / want - 1.0).abs() < tolerance,
        "{} = {} where {want} was made",
        p.name,
        p.value
    );
}

/// A triad in f64 (four arrays, 32 bytes an element) on a CPU of 32 KiB
/// L1, 1 MiB L2 and 32 MiB L3: the paper's 8 lengths, then six a level as
/// `hockney-vector` places them, by hand: L1 from 1.25 x 400 x 32 = 16,000
/// B (500 elements, 496 on a multiple of 8) to 0.6 of 32 KiB (614.4, 608);
/// L2 from 1.5 x 32 KiB (1536) to 0.6 MiB (19,660.8, 19,656); L3 from 1.5
/// MiB (49,152) to 0.6 x 32 MiB (629,144); memory from twice the L3
/// (2 Mi elements) to four times it (4 Mi). Each is named by level and
/// rank; the breaks lie at the caches. The quick pass: the 5 paper
/// lengths and three a level, no memory (64 MiB, its cap, is not past
/// twice the L3).
#[test]
fn vector_lengths_follow_the_kernels_levels() {
    let caches = [(1u8, 32u64 << 10), (2, 1 << 20), (3, 32 << 20)];
    let at = vector_lengths(false, 32, &caches);
    let names: Vec<&str> = at.levels.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, ["L1", "L2", "L3", "memory"]);
    assert_eq!(at.breaks, [1024.0, 32768.0, 1048576.0]);
    assert_eq!(at.lengths.len(), 8 + 4 * 6);
    let find = |param: &str| {
        at.lengths
            .iter()
            .find(|l| l.1 == param)
            .unwrap_or_else(|| panic!("{param} in {:?}", at.lengths))
            .0
    };
    assert_eq!(at.lengths[0], (16, "16".to_owned()));
    assert_eq!(at.lengths[7], (400, "400".to_owned()));
    for (param, n) in [
        ("L1-1", 496),
        ("L1-6", 608),
        ("L2-1", 1536),
        ("L2-6", 19656),
        ("L3-1", 49152),
        ("L3-6", 629144),
        ("memory-1", 2 << 20),
        ("memory-6", 4 << 20),
    ] {
        assert_eq!(find(param), n, "{param}");
    }
    assert!(at.lengths.windows(2).all(|w| w[0].0 < w[1].0));
    let quick = vector_lengths(true, 32, &caches);
    let params: Vec<&str> = quick.lengths.iter().map(|l| l.1.as_str()).collect();
    assert_eq!(
        params,
        [
            "16", "64", "128", "256", "400", "L1-1", "L1-2", "L1-3", "L2-1", "L2-2", "L2-3",
            "L3-1", "L3-2", "L3-3"
        ]
    );
    assert_eq!(quick.levels.len(), 3);
    // Another machine's caches move the lengths, not the names.
    let other = vector_lengths(false, 32, &[(1, 48 << 10), (2, 2 << 20), (3, 96 << 20)]);
    let names = |v: &VectorLengths| v.lengths.iter().map(|l| l.1.clone()).collect::<Vec<_>>();
    assert_eq!(names(&other), names(&at));
    assert_eq!(
        (at.lengths[14].1.as_str(), at.lengths[14].0),
        ("L2-1", 1536)
    );
    assert_eq!(other.lengths[14].0, 2304);
}

/// An f64 dyadic multiply at r_inf = 8 flop/ns with n_1/2 = 40 in L1 and
/// 2 flop/ns with n_1/2 = 400 beyond it: the bench's fits give both levels'
/// parameters within 3 % under 2 % noise, each with an interval that holds
/// the value made.
#[test]
fn vector_fits_recover_each_levels_parameters() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let caches = [(1u8, 64u64 << 10)];
    let l1_elements = (64 << 10) / 24;
    let lengths: Vec<Samples> = vector_lengths(false, 24, &caches)
        .lengths
        .into_iter()
        .map(|(n, _)| {
            let (r, half) = if n <= l1_elements {
                (8.0, 40.0)
            } else {
                (2.0, 400.0)
            };
            (n, 100, noisy((n as f64 + half) / r, 20, 0.02, &mut rng))
        })
        .collect();
    let site = VectorSite {
        simd: Simd::detect(),
        cpu: 0,
        caches: &caches,
        t0_clock_ns: 20.0,
        quick: false,
    };
    let r = vector_result(Operation::Dyadic, "f64", 8, lengths, &site);
    assert_eq!(r.kernel, "hockney-vector");
    assert_eq!(r.transport.as_deref(), Some("dyadic-f64"));
    for (level, r_inf, half) in [("L1", 8e9, 40.0), ("memory", 2e9, 400.0)] {
        let rate = headline(
            &r,
            &format!("{}_r_inf_flop_per_s", level.to_lowercase()),
            Some(level),
        );
        within(rate, r_inf, 0.03);
        let [lo, hi] = rate.ci95.expect("an interval");
        assert!(lo < r_inf * 1.02 && hi > r_inf * 0.98, "{lo}..{hi}");
        let n = headline(
            &r,
            &format!("{}_n_half_flop", level.to_lowercase()),
            Some(level),
        );
        within(n, half, 0.15);
    }
}

/// The grains are the kernel's layout at fixed sizes: four near-zero ones
/// (16 to 64 flop) then a short one for every method but a new thread's
/// start, and long ones far above the method's s_1/2 (a spin's 0.5 to 2
/// kflop, an awake event's 3 to 9, a thread start's hundreds); the quick
/// mode's are a subset, so its ids are among the full run's.
#[test]
fn sync_grains_lie_on_either_side_of_s_half() {
    for method in Method::ALL {
        let (short, long) = sync_grains(method, false);
        let s_half = match method {
            Method::TasksSpawn => 300_000,
            m if m.spins_at_short_grains() => 2_000,
            _ => 9_000,
        };
        assert!(short.len() >= 3 && long.len() >= 3, "{method:?}");
        assert!(short.iter().all(|&s| s < s_half / 4 && s % 16 == 0));
        assert!(long.iter().all(|&s| s > s_half && s % 16 == 0));
        assert!(long[long.len() - 1] >= 30 * s_half, "{method:?}: {long:?}");
        if method != Method::TasksSpawn {
            assert_eq!(short[..4], [16, 32, 48, 64]);
        }
        let (qs, ql) = sync_grains(method, true);
        assert!(qs.iter().all(|g| short.contains(g)) && ql.iter().all(|g| long.contains(g)));
        assert_eq!((qs.len() + 1, ql.len() + 1), (short.len(), long.len()));
    }
}

/// A spinning method at t0 = 300 ns and r_inf = 8 flop/ns (s_1/2 = 2400
/// flop) on the bench's own grains, every sample up to 3 % slow and its
/// probes steady: the kernel's fit recovers all three within their
/// bootstrap intervals, and names them as `hockney-sync` does, with the
/// pair probe beside them.
#[test]
fn sync_fits_recover_t0_r_inf_and_s_half() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
    let (short, long) = sync_grains(Method::SpinHint, false);
    let grains: Vec<GrainRun> = short
        .iter()
        .chain(&long)
        .map(|&s| (s, 1000, sync_samples(300.0 + s as f64 / 8.0, 20, &mut rng)))
        .collect();
    let topology = crate::platform::Topology::detect().expect("topology");
    let plan = crate::kernels::hockney::sync_bench::bench_plan(
        &topology,
        &[0, 1],
        std::time::Duration::ZERO,
    );
    let r = sync_result(Method::SpinHint, &grains, short.len(), &plan, 20.0, &[]);
    assert_eq!(
        (r.kernel.as_str(), r.transport.as_deref()),
        ("hockney-sync", Some("spin-hint"))
    );
    let of = Some("spin-hint");
    // The minimum noise is 0, the median 1.5 %: the medians lie 1.5 % above.
    for (name, want) in [
        ("r_inf_flop_per_s", 8e9 / 1.015),
        ("t0_ns", 300.0 * 1.015),
        ("s_half_flop", 2400.0),
    ] {
        let p = headline(&r, name, of);
        within(p, want, 0.05);
        let [lo, hi] = p.ci95.unwrap_or_else(|| panic!("{name} has an interval"));
        assert!(
            lo <= p.value && p.value <= hi && hi - lo < 0.2 * p.value,
            "{name}: {lo}..{hi}"
        );
    }
    within(headline(&r, "probe_round_trip_ns", of), 125.0, 1e-9);
}

/// `count` awake samples of `t` ns (each up to 3 % slow), with steady probes.
fn sync_samples(t: f64, count: usize, rng: &mut Xoshiro256PlusPlus) -> Vec<SyncSample> {
    noisy(t, count, 0.03, rng)
        .into_iter()
        .map(|time_ns| SyncSample {
            time_ns,
            blocks_per_segment: 0.0,
            preempted_per_s: 0.0,
            serial_flop_per_ns: 4.0,
            pair_ns: Some(125.0),
            syscall_ns: 300.0,
        })
        .collect()
}

/// One-way t = 200 ns + 0.05 ns/B, round trips twice that: t_startup,
/// t_per_byte and n_1/2 = 4000 B come back, with the probe beside them.
#[test]
fn latency_fits_recover_startup_and_per_byte() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    let sizes: Vec<Samples> = [8usize, 64, 1024, 16384, 65536]
        .iter()
        .map(|&b| {
            (
                b,
                100,
                noisy(2.0 * (200.0 + 0.05 * b as f64), 10, 0.01, &mut rng),
            )
        })
        .collect();
    let site = PairSite {
        cpus: vec![0, 1],
        placement: Placement::Pinned,
        distance: None,
    };
    let r = latency_result("mailbox", &site, &sizes, &[150.0, 152.0, 149.0]);
    assert_eq!(
        (r.kernel.as_str(), r.transport.as_deref()),
        ("pingpong", Some("mailbox"))
    );
    let fit = &r.fits[0].params;
    assert!((fit["t_startup_ns"] / 200.0 - 1.0).abs() < 0.03, "{fit:?}");
    assert!((fit["t_per_byte_ns"] / 0.05 - 1.0).abs() < 0.03, "{fit:?}");
    assert!((fit["n_half_bytes"] / 4000.0 - 1.0).abs() < 0.06, "{fit:?}");
    let t = headline(&r, "t_startup_ns", None);
    assert!(t.ci95.is_some(), "{t:?}");
    assert!(r.headline.iter().any(|p| p.name == "probe_round_trip_ns"));
}

/// 2 and 4 on any machine (4 virtual below four CPUs), then the powers of
/// two up to the CPUs and their count.
#[test]
fn barrier_processors_reach_the_cpus() {
    assert_eq!(barrier_processors(1), [2, 4]);
    assert_eq!(barrier_processors(2), [2, 4]);
    assert_eq!(barrier_processors(4), [2, 4]);
    assert_eq!(barrier_processors(12), [2, 4, 8, 12]);
    assert_eq!(barrier_processors(64), [2, 4, 8, 16, 32, 64]);
}

/// A central barrier's result from per-P times `(P, ns)`, 15 noisy samples
/// each, on `cpus` (virtual processors beyond them).
fn barrier(times: &[(usize, f64)], cpus: &[usize], seed: u64) -> KernelResult {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let per_p: Vec<Samples> = times
        .iter()
        .map(|&(p, t)| (p, 10, noisy(t, 15, 0.1, &mut rng)))
        .collect();
    let placement = match cpus.len() >= times.iter().map(|t| t.0).max().unwrap_or(0) {
        true => Placement::Pinned,
        false => Placement::Virtual,
    };
    barrier_result("comet-barrier-central", None, cpus, placement, &per_p)
}

/// Barrier times of 100 ns at P = 2 and 300 at P = 4: each P's median with an
/// interval holding it; with three counts, the line a + b log2 P.
#[test]
fn barrier_medians_per_p() {
    let r = barrier(&[(2, 100.0), (4, 300.0), (8, 500.0)], &[0, 1], 5);
    for (of, t) in [("P = 2", 100.0), ("P = 4", 300.0)] {
        let p = headline(&r, "barrier_ns", Some(of));
        within(p, t * 1.05, 0.05);
        let [lo, hi] = p.ci95.expect("an interval");
        assert!(lo <= p.value && p.value <= hi);
    }
    let f = &r.fits[0].params;
    assert!((f["b_ns_per_doubling"] - 200.0).abs() < 10.0, "{f:?}");
    assert_eq!(r.ranks, 8);
    // On two CPUs, P = 4 and 8 are virtual: the line says so and is flagged.
    assert_eq!(
        r.fits[0].model,
        "t_barrier = a + b log2 P (P = 4, 8 virtual)"
    );
    assert!(r.fits[0].flagged);
    let table = crate::benchfit::per_p_table(std::slice::from_ref(&r)).expect("a table");
    let line = table.lines().last().unwrap();
    assert!(
        line.contains("(P = 4, 8 virtual)") && line.contains("flagged"),
        "{table}"
    );
    assert!(line.contains("per doubling"), "{table}");
}

/// With only P = 2 and 4 (a 2-CPU machine), each P has its median and
/// interval, and there is no line: the table says why. On 8 CPUs the line
/// through P = 2, 4, 8 is not flagged.
#[test]
fn no_barrier_line_through_two_counts() {
    let r = barrier(&[(2, 100.0), (4, 300.0)], &[0, 1], 6);
    assert!(r.fits.is_empty());
    assert_eq!(r.headline.len(), 2);
    assert!(r.headline.iter().all(|p| p.ci95.is_some()));
    let table = crate::benchfit::per_p_table(std::slice::from_ref(&r)).expect("a table");
    assert!(
        table.contains("no line a + b log2 P: 2 processor counts, a line needs 3 or more"),
        "{table}"
    );
    let cpus: Vec<usize> = (0..8).collect();
    let r = barrier(&[(2, 100.0), (4, 300.0), (8, 500.0)], &cpus, 6);
    assert_eq!(r.fits[0].model, "t_barrier = a + b log2 P");
    assert!(!r.fits[0].flagged);
}

/// Copies of t = 20 ns + N / (16 B/ns) line-aligned and 20 ns + N / (10
/// B/ns) 16 bytes past a line: each line's t_startup and t_per_byte, n_1/2 =
/// 320 B aligned, and the per-byte ratio 1.6 with an interval holding it.
#[test]
fn copy_fits_recover_each_alignments_line() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let sizes = |per_byte: f64, rng: &mut Xoshiro256PlusPlus| -> Vec<Samples> {
        [1024usize, 4096, 8192, 16384]
            .iter()
            .map(|&b| (b, 1000, noisy(20.0 + per_byte * b as f64, 100, 0.02, rng)))
            .collect()
    };
    let aligned = sizes(1.0 / 16.0, &mut rng);
    let past = sizes(1.0 / 10.0, &mut rng);
    let r = copy_result(
        1,
        &[("line-aligned", aligned), ("16-bytes-past-a-line", past)],
    );
    assert_eq!((r.kernel.as_str(), r.cpus.as_slice()), (COPY, &[1][..]));
    assert_eq!(r.points.len(), 8);
    assert_eq!(r.fits.len(), 2);
    within(
        headline(&r, "t_per_byte_ns", Some("line-aligned")),
        0.0625,
        0.01,
    );
    within(
        headline(&r, "t_per_byte_ns", Some("16-bytes-past-a-line")),
        0.1,
        0.01,
    );
    within(
        headline(&r, "t_startup_ns", Some("line-aligned")),
        20.0,
        0.2,
    );
    within(
        headline(&r, "n_half_bytes", Some("line-aligned")),
        320.0,
        0.2,
    );
    let ratio = headline(&r, "t_per_byte_over_aligned", Some("16-bytes-past-a-line"));
    within(ratio, 1.6, 0.02);
    let [lo, hi] = ratio.ci95.expect("an interval");
    assert!(lo < 1.6 && 1.6 < hi && hi - lo < 0.2, "{ratio:?}");
    // The card shows the copy's rows.
    let file = crate::benchfit::document("transport", 10, vec![r]).expect("a document");
    let card = crate::analysis::card(&file);
    let text = crate::text::card::card(&card);
    assert!(text.contains("t_per_byte_over_aligned"), "{text}");
}
