//! `hockney-program`: a chain of segments of mixed grains, measured beside
//! Hockney's eq. (9) predicted from the same method's `(r_inf, t_0)`. The
//! agreement bound holds, and is tight enough that two wrong equations (the
//! synchronisation term dropped, half the segments counted) miss it.

mod common;

use halfperf::kernels::hockney::program::{
    AGREEMENT_FACTOR, ProgramRun, agrees, groups_flop, run_program,
};
use halfperf::kernels::hockney::{Method, SyncPlan};
use halfperf::platform::{allowed_cpus, measure_clock};
use std::time::Duration;

/// A program whose synchronisation is most of its time on any machine
/// whose `s_1/2` exceeds a hundred flop: 200 segments of 16 flop, 100 of
/// 128, 10 of 1024 (P = 2, units of 8 P = 16 flop).
const GROUPS: &[(usize, u64)] = &[(1, 200), (8, 100), (64, 10)];

#[test]
fn eq9_predicts_the_chain_and_wrong_equations_miss() {
    let cpus: Vec<usize> = allowed_cpus().into_iter().take(2).collect();
    if cpus.len() < 2 {
        return common::cannot_run_here(
            "eq9_predicts_the_chain_and_wrong_equations_miss",
            "it needs 2 CPUs",
        );
    }
    let _turn = common::measuring();
    let clock = measure_clock();
    let plan = SyncPlan {
        cpus,
        parts: 2,
        grains: None,
        points: 6,
        max_grain: 16384,
        trials: 9,
        target: Duration::from_millis(2),
        wait_timeout: Duration::from_secs(10),
        oversubscribe: false,
        skip_part: None,
    };
    let groups = groups_flop(GROUPS, 2);
    assert_eq!(groups, [(16, 200), (128, 100), (1024, 10)]);
    let never = || false;
    let runs = run_program(
        &[Method::SpinHint, Method::TasksPool],
        &plan,
        &groups,
        &clock,
        &never,
    )
    .expect("the program runs and verifies");
    assert_eq!(runs.len(), 2);
    for run in runs {
        let p: ProgramRun = run.unwrap_or_else(|n| panic!("{:?}: {}", n.method, n.reason));
        let (m, t) = (p.measured_ns.0, p.predicted_ns.0);
        let say = format!(
            "{:?}: measured {m:.0} ns (rounds {:?}), eq. 9 {t:.0} ns {:?}, without s_1/2 {:.0}, q/2 {:.0}",
            p.method, p.rounds_ns, p.predicted_ns.1, p.without_sync_ns, p.q_halved_ns
        );
        eprintln!("{say}");
        assert_eq!(p.rounds_ns.len(), 9, "{say}");
        let [lo, hi] = p.predicted_ns.1;
        assert!(lo <= t && t <= hi && lo > 0.0, "{say}");
        assert!(agrees(m, t), "{say}: outside a factor {AGREEMENT_FACTOR}");
        assert!(
            !agrees(m, p.without_sync_ns),
            "{say}: s_1/2 dropped agrees too"
        );
        assert!(!agrees(m, p.q_halved_ns), "{say}: q/2 agrees too");
    }
}
