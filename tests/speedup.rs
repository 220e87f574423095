//! Lamanna's benchmark: the matrix squaring runs tiny on N = 1, 2 and 4 ranks (virtual
//! processors beyond the CPUs), verifies its product on every rank, and the eq. 13
//! fit with its derived quantities exists.

mod common;

use halfperf::kernels::speedup::{SpeedupPlan, run_with};
use halfperf::kernels::{RunConfig, RunContext};
use halfperf::platform::{Topology, allowed_cpus, measure_clock};
use halfperf::transport::TransportKind;
use std::time::Duration;

#[test]
fn tiny_benchmark_verifies_and_fits_eq13() {
    let topology = Topology::detect().expect("topology");
    let allowed = allowed_cpus();
    let clock = measure_clock();
    let config = RunConfig {
        quick: true,
        transports: vec![TransportKind::Mailbox, TransportKind::Channel],
        wait_timeout: Duration::from_secs(20),
        // Runs on a one-CPU machine too (every rank then shares the CPU).
        oversubscribe: true,
        ..RunConfig::default()
    };
    let ctx = RunContext::quiet(&topology, &allowed, &clock, &config);
    let plan = SpeedupPlan {
        order: 8,
        loads: vec![1, 10, 100],
        processors: vec![1, 2, 4],
        runs: 2,
    };
    let results = run_with(&ctx, &plan).expect("the benchmark runs and verifies");
    assert_eq!(results.len(), 2, "one result per transport");
    for r in &results {
        assert_eq!(r.kernel, "speedup");
        // 3 loads x 3 rank counts measured, each verified.
        let measured: Vec<_> = r
            .points
            .iter()
            .filter(|p| p.stats("time_ms").is_some())
            .collect();
        assert_eq!(measured.len(), 9);
        for p in &measured {
            assert_eq!(p.number("verified"), Some(1.0));
            let t = p.stats("time_ms").unwrap();
            assert!(t.count == 2 && t.min > 0.0, "{t:?}");
            assert!(p.number("speedup").unwrap() > 0.0);
        }
        // N = 1 is the uniprocessor time: speedup 1 by construction.
        for p in measured
            .iter()
            .filter(|p| p.number("processors") == Some(1.0))
        {
            assert!((p.number("speedup").unwrap() - 1.0).abs() < 1e-9);
        }
        // Eq. 13 free and with b = 1, each with a, b, c and R^2 over every run, and
        // the message-latency fit that calibrates the simulator.
        if allowed.len() < 2 {
            // No forwarding chain without two spinning workers: no T_ML, no simulation.
            assert_eq!(r.fits.len(), 2, "{:?}", r.warnings);
            assert!(r.warnings.iter().any(|w| w.contains("no message latency")));
            common::cannot_run_here(
                "tiny_benchmark_verifies_and_fits_eq13 (eq. 13 and T_ML)",
                "the message-latency chain needs 2 CPUs",
            );
            continue;
        }
        assert_eq!(r.fits.len(), 3, "{:?}", r.warnings);
        for f in &r.fits[..2] {
            assert!(f.model.starts_with("eq. 13"));
            assert_eq!(f.n_points, 18);
            for k in ["a_ms", "b", "c_ms_per_node"] {
                assert!(f.params[k].is_finite(), "{k}");
            }
            assert!(f.r2.is_finite());
        }
        assert_eq!(r.fits[1].params["b"], 1.0);
        // T_ML over chains of 1..4 links with store-and-forward nodes: a point per
        // (size, hops), the three costs of eqs. 7-9, and a longer chain never faster
        // than a shorter one at the same size (each link adds a copy in and out).
        let costs = &r.fits[2];
        assert!(costs.model.starts_with("eqs. 7-9"));
        for k in ["tl_ms", "tc_ms_per_byte", "ti_ms"] {
            assert!(costs.params[k].is_finite(), "{k}");
        }
        // t_l split between the sender (rank 0's send call) and the destination
        // (the rest): both present and non-negative, summing to the fitted t_l within
        // their errors (the simulator takes a negative t_l as 0, with a warning),
        // measured from a send call of every size.
        let (send, receive) = (costs.params["tl_send_ms"], costs.params["tl_receive_ms"]);
        assert!(send >= 0.0 && receive >= 0.0, "{send} + {receive}");
        let error = costs.std_errors["tl_send_ms"]
            + costs.std_errors["tl_receive_ms"]
            + costs.std_errors["tl_ms"];
        assert!(
            (send + receive - costs.params["tl_ms"].max(0.0)).abs() <= error + 1e-12,
            "{send} + {receive} against t_l {} +/- {error}",
            costs.params["tl_ms"]
        );
        assert!([0.0, 1.0].contains(&costs.params["tl_split_measured"]));
        let calls = r
            .points
            .iter()
            .filter_map(|p| p.number("send_call_ms"))
            .collect::<Vec<_>>();
        assert!(
            calls.len() >= 2 && calls.iter().all(|c| c.is_finite()),
            "{calls:?}"
        );
        assert!(
            r.warnings.iter().any(|w| w.contains("split")),
            "{:?}",
            r.warnings
        );
        let latency = |hops: f64, size: f64| {
            r.points
                .iter()
                .find(|p| p.number("hops") == Some(hops) && p.number("size_bytes") == Some(size))
                .and_then(|p| p.number("one_way_ms"))
                .expect("a T_ML point")
        };
        let largest = r
            .points
            .iter()
            .filter_map(|p| p.number("hops").and(p.number("size_bytes")))
            .fold(0.0, f64::max);
        assert!(
            latency(4.0, largest) > latency(1.0, largest),
            "4 links {} ms, 1 link {} ms",
            latency(4.0, largest),
            latency(1.0, largest)
        );
        // Every measured (load, N) simulated; the paired t tests pair N > 1
        // only (N = 1 is U, the simulation's input): 6 pairs over every
        // point, 3 a pinned N (2 and 4 up to the CPUs) over the pinned ones.
        for p in &measured {
            assert!(p.number("simulated_ms").unwrap() > 0.0);
        }
        let tests: Vec<_> = r
            .points
            .iter()
            .filter(|p| p.number("validation_pairs").is_some())
            .collect();
        assert_eq!(tests.len(), 2, "{:?}", r.warnings);
        assert_eq!(tests[0].number("pinned_only"), Some(0.0));
        assert_eq!(tests[0].number("validation_pairs"), Some(6.0));
        let pinned_n = [2usize, 4].iter().filter(|&&n| n <= allowed.len()).count();
        assert_eq!(tests[1].number("pinned_only"), Some(1.0));
        assert_eq!(
            tests[1].number("validation_pairs"),
            Some(3.0 * pinned_n as f64)
        );
        for t in &tests {
            assert!(t.number("t").unwrap().is_finite());
        }
        assert_eq!(
            r.warnings
                .iter()
                .filter(|w| w.starts_with("paired t test"))
                .count(),
            2,
            "{:?}",
            r.warnings
        );
        // Eq. 18 for every N > 1: a point, or a warning when the fitted b makes 80%
        // unreachable (b > 1.25 happens with blocks this small on a loaded machine).
        let eq18 = r
            .points
            .iter()
            .filter(|p| p.number("uniprocessor_ms_needed_eq18").is_some())
            .count();
        let unreachable = r
            .warnings
            .iter()
            .filter(|w| w.starts_with("eq. 18"))
            .count();
        assert_eq!(eq18 + unreachable, 2, "{:?}", r.warnings);
    }
}

#[test]
fn an_order_not_divisible_by_n_is_refused() {
    let topology = Topology::detect().expect("topology");
    let allowed = allowed_cpus();
    let clock = measure_clock();
    let config = RunConfig {
        quick: true,
        oversubscribe: true,
        ..RunConfig::default()
    };
    let ctx = RunContext::quiet(&topology, &allowed, &clock, &config);
    let plan = SpeedupPlan {
        order: 6,
        loads: vec![1],
        processors: vec![1, 4],
        runs: 1,
    };
    let err = run_with(&ctx, &plan).unwrap_err().to_string();
    assert!(err.contains("not divisible"), "{err}");
}
