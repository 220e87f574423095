//! `hockney-sync`'s two regimes of a blocking hand-over (the waiter kept
//! awake, the waiter made to sleep), by construction: on this machine each
//! blocking method's asleep segments cost more than its awake ones, and the
//! share of waits that slept is near 0 awake and near 1 asleep. Orderings
//! and shares only, never absolute times.

mod common;

use halfperf::kernels::hockney::{Method, SyncPlan, sweep_method};
use halfperf::platform::{allowed_cpus, measure_clock};
use std::time::Duration;

/// What a poster holds back in the asleep regime, ns (the library's
/// `ASLEEP_HOLD`, 100 µs).
const HOLD_NS: f64 = 100_000.0;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// LOCKS, both EVENTS, the std barrier and the pool at grains of 16 and 32
/// flop on two CPUs, three rounds: awake, the median segment is below the
/// asleep one's less its holds (2 x 100 µs, 1 for the barrier, none for
/// the pool, whose hold is outside the clock), and its waits slept at most
/// once in four segments (the median over rounds and grains); asleep, they
/// slept at least 0.8 of the segment's waits (2 for the LOCKS and EVENTS, 1
/// for the barrier and the pool's worker). A spin flag has no asleep
/// regime.
#[test]
fn each_blocking_method_is_slower_asleep_than_awake() {
    let cpus: Vec<usize> = allowed_cpus().into_iter().take(2).collect();
    if cpus.len() < 2 {
        return common::cannot_run_here(
            "each_blocking_method_is_slower_asleep_than_awake",
            "it needs 2 CPUs",
        );
    }
    let _turn = common::measuring();
    let clock = measure_clock();
    let never = || false;
    let plan = SyncPlan {
        cpus,
        parts: 2,
        grains: Some(vec![16, 32]),
        points: 2,
        max_grain: 32,
        trials: 3,
        target: Duration::from_millis(3),
        wait_timeout: Duration::from_secs(10),
        oversubscribe: false,
        skip_part: None,
    };
    for (method, waits) in [
        (Method::Locks, 2.0),
        (Method::EventsCondvar, 2.0),
        (Method::EventsPark, 2.0),
        (Method::BarrierStd, 1.0),
        (Method::TasksPool, 1.0),
    ] {
        assert!(method.two_regimes(), "{method:?}");
        let s = sweep_method(method, &plan, &clock, &never).unwrap();
        let awake = median(s.grains.iter().flat_map(|g| g.samples_ns.clone()).collect());
        let holds = f64::from(method.asleep_holds()) * HOLD_NS;
        let asleep = median(
            s.asleep
                .iter()
                .flat_map(|g| g.samples_ns.iter().map(|t| t - holds))
                .collect(),
        );
        assert_eq!(s.asleep.len(), 2, "{method:?}");
        assert!(
            asleep > awake,
            "{method:?}: asleep {asleep} ns, awake {awake} ns"
        );
        let slept = |g: &[halfperf::kernels::hockney::sync::GrainSamples]| {
            median(
                g.iter()
                    .flat_map(|g| g.blocks_per_segment.clone())
                    .collect(),
            ) / waits
        };
        let (awake_share, asleep_share) = (slept(&s.grains), slept(&s.asleep));
        assert!(awake_share <= 0.25, "{method:?}: awake {awake_share}");
        assert!(asleep_share >= 0.8, "{method:?}: asleep {asleep_share}");
    }
    assert!(!Method::SpinHint.two_regimes());
    let s = sweep_method(Method::SpinHint, &plan, &clock, &never).unwrap();
    assert!(s.asleep.is_empty());
}
