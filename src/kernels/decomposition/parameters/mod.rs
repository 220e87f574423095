//! `decomposition`: Krumme & Greenfield's six times F, S, R, A, U, E per transport,
//! message size and version of the background computation `Q` (sections 2 to 4,
//! 5.1 and Appendix A's program).
//!
//! Six hosted virtual nodes ([`crate::team::hosted`]) on two spinning workers,
//! one per CPU: ranks 0, 2, 4 on the first, 1, 3, 5 on the second, so every hop
//! between consecutive ranks crosses a CPU and no hop waits for a thread wake-up.
//! Rank 0 is the paper's node 0 and the only one that times; rank 1 its neighbour;
//! ranks 2 to 5 extend the chain so that rank `d` lies `d` hops from rank 0. Every
//! node has system buffers and forwards in its system, not its program (see
//! [`super::protocol`]), so the six times mean here:
//! - `F`: the write call: the copy into a system buffer, and the hand-over to the
//!   transport (its copy into the receiver's memory) when it has room;
//! - `S`: what a node's computation loses to a message it sends on, past the write
//!   call (for a forwarded message, handing the system buffer to the transport);
//! - `R`: what a node's computation loses while a message arrives: the poll that
//!   finds it and the copy out of the transport into a system buffer;
//! - `A`: the read call up to the message (a look at the delivered queue);
//! - `U`: the rest of the read call, the copy from the system buffer to the user;
//! - `E`: the elapsed time of one hop, from a message ready in the sender's system
//!   buffer to it lying in the next node's: the transport's copy in, the
//!   receiver's poll and its copy out.
//!
//! `Q` runs in chunks of about 2 µs; between chunks the worker polls the nodes it
//! hosts, rank 0's own system first. `Q(SENDTIME)` is 10 chunks and `Q(COMPTIME)`
//! five times that, as Appendix A's 5 and 25 units. The files of this kernel:
//! - [`plan`]: the experiments, their scripts for every rank, and the schedule:
//!   each experiment has 100 timed iterations in 25 rounds (50 in 10 with
//!   `--quick`) in which the experiments at a size take turns in blocks, so that the
//!   differences the solve takes are of figures measured over the same stretch of
//!   time;
//! - [`rank0`]: what rank 0 times in each experiment, every event with the clock
//!   around it (the run's clock read overhead taken out of the figures timed
//!   directly), lost computation timed around the polls of rank 0's own system
//!   inside the `Q` (the whole-`Q` excesses are reported beside);
//! - [`lanes`]: the transport's buffers and slots a size gets (buffers sized for
//!   the size, as many slots a lane as keep every hop at one cost), and the probes
//!   of the two CPUs' round trips before and after each size, which flag a run
//!   measured in more than one state of the machine;
//! - [`solve`]: `E, R, S, F, U, A` solved in the paper's order
//!   ([`crate::model::decomposition::solve`]; `F + S` with the write call that
//!   test 6 pays, `solve::f_plus_s_of_test_6`) from the medians of each
//!   experiment's iterations, the points (mean and deviation over the five
//!   repetitions, three with `--quick`, or `--trials`), the lines `X0 + X1 n`
//!   (Table 3) and the warnings that say why a parameter fell below zero;
//! - `over_mpi` (with `--features mpi`): the same six nodes multiplexed
//!   over MPI processes by message tags (`--transport mpi`), the experiments
//!   and the solve unchanged;
//! - this file: the kernel's entry and its run, one team run a size.
//!
//! The experiments: (1) the echo at distance `d = 1..5`, idle and busy, whose
//! half-increments give `E`; (2) tests 2 to 4 of Appendix A in one loop (`R`,
//! `A + U`, `F + S`); (3) test 5, `R + S`; (4) test 6, `2 (F + E + U)`; (5) a
//! check of the model, not in the paper: test 6 with rank 1 returning the message
//! in its system, whose excess over `2E + F + (A + U)` explains a negative `A`;
//! (6) `A` alone, the read call's first look at empty queues. Every iteration ends
//! with a wash of both CPUs' private caches
//! ([`crate::team::hosted::Host::wash_caches`]), so that every iteration finds the
//! transport's and the nodes' memory in the same place. Why each choice was made,
//! with the measurements that decided it, is in the commit history.

mod lanes;
#[cfg(feature = "mpi")]
mod over_mpi;
mod plan;
mod rank0;
mod solve;

use lanes::{Probe, lane_span, probe, slots_for};
use plan::{Plan, RANKS, notimes, plan_steps, repetitions, script_over, sizes};
use rank0::{Repetition, SizeTimes, rank0};
use solve::add_q;

pub(super) use lanes::store_and_forward;
/// The process machinery, for the interference kernel over MPI.
#[cfg(feature = "mpi")]
pub(super) use over_mpi::{
    Layout, Ran, backgrounds, go_on, hosting_processes, library_yields, run_nodes,
};
pub use plan::PAPER_SIZES;
pub(super) use plan::{Experiment, script_of};
pub(crate) use plan::{SENDTIME, rounds};
pub(super) use rank0::rank0_rs;

use super::background::{Background, QKind};
use super::protocol::{CHUNK, Node, cpu_pair, hosted_team, interrupted, wash_bytes};
use crate::control::Placement;
use crate::kernels::harness::probe::probe_param;
use crate::kernels::{KernelError, KernelSpec, RunContext};
use crate::results::KernelResult;
use crate::team::hosted::HostedTeam;
use crate::team::{Team, TeamError};
use crate::transport::{Transport, TransportConfig};

/// The kernel's name, as users type it and its results carry it.
pub(crate) const NAME: &str = "decomposition";

pub(super) const DECOMPOSITION: KernelSpec = KernelSpec {
    name: NAME,
    method: "krumme-greenfield",
    paper: "Krumme & Greenfield 1988, sections 2-4 and 5.1, Tables 1-3, Appendix A",
    about: "the six message-cost times F S R A U E per transport, size and integer/floating-point Q, with lines X0 + X1 n",
    in_quick_suite: true,
    over_mpi: crate::kernels::OverMpi::pair(crate::kernels::mpi_run!(over_mpi::run)),
    card: &[crate::kernels::card::CardEntry::of(
        NAME,
        crate::kernels::card::CardRows::MessageCosts,
    )],
    run,
    plan: |b| super::estimate::decomposition(b, SENDTIME),
};

/// The plan, one team run per repetition and size, each with system and transport
/// buffers for that size only.
///
/// Buffers sized for the longest message (64 KiB) lie 64 KiB apart, so the first
/// lines of every buffer fall into the same few sets of the caches; the dozens of
/// buffers a worker touches in an echo over five hops then evict each other, and
/// a hop's copies cost more or less by where its buffers happen to lie: at 2000 B
/// the increments `T_{d+1} − T_d` ranged from 0.2 to 2 µs, and the `U` solved from
/// them came out 200 ns above the timed read `A + U`. With buffers of the
/// message's size they are uniform (1.4 to 1.9 µs), as the paper's model assumes.
fn run_on<T: Transport>(
    team: &HostedTeam,
    plan: &Plan<'_>,
) -> Result<Vec<Repetition>, KernelError> {
    let mut out = Vec::with_capacity(plan.repetitions);
    // One size's probe after is the next one's before: nothing runs between.
    let mut before = (plan.probe)()?;
    for _ in 0..plan.repetitions {
        let mut sizes = Vec::with_capacity(plan.sizes.len());
        for size in plan.sizes {
            if (plan.cancelled)() {
                break;
            }
            let one = Plan {
                sizes: std::slice::from_ref(size),
                repetitions: 1,
                ..*plan
            };
            let config = store_and_forward(*size, slots_for(*size, plan.lane_span));
            let runs = run_sized::<T>(team, &config, &one).map_err(interrupted)?;
            let after = (plan.probe)()?;
            for r in runs {
                sizes.extend(r.sizes.into_iter().map(|s| SizeTimes {
                    probes: [before, after],
                    ..s
                }));
            }
            before = after;
        }
        out.push(Repetition { sizes });
    }
    Ok(out)
}

/// One team run of `plan` with transport buffers `config`.
fn run_sized<T: Transport>(
    team: &HostedTeam,
    config: &TransportConfig,
    plan: &Plan<'_>,
) -> Result<Vec<Repetition>, TeamError> {
    let max = config.max_message_bytes;
    let steps = plan_steps(plan);
    let nodes = (0..RANKS)
        .map(|rank| Node::new(rank, RANKS, max, plan.bg, script_over(rank, &steps, plan)))
        .collect();
    let eps = T::endpoints(team.control(), config);
    team.run(NAME, eps, nodes, |host| rank0(host, plan))
}

fn run(ctx: &RunContext<'_>) -> Result<Vec<KernelResult>, KernelError> {
    let kernel = NAME;
    let cpus = cpu_pair(ctx, kernel)?;
    let wash = wash_bytes(ctx.topology, &cpus);
    let span = lane_span(ctx.topology, &cpus);
    let team = hosted_team(ctx, &cpus, RANKS, wash)?;
    let sizes = sizes(ctx);
    if sizes.is_empty() {
        return Err(KernelError::NotRunnable {
            kernel: kernel.into(),
            reason: "no message sizes given".into(),
        });
    }
    let repetitions = ctx
        .config
        .trials
        .unwrap_or_else(|| repetitions(ctx.config.quick));
    let reps = notimes(ctx.config.quick);
    let probe_team = match &cpus[..] {
        [a, b, ..] => Some(Team::new(&ctx.team_spec(vec![*a, *b], 2, false))?),
        _ => None,
    };
    let probe = || probe_team.as_ref().map_or(Ok(Probe::NONE), probe);
    let backgrounds: Vec<Background> = QKind::ALL
        .iter()
        .map(|&k| Background::calibrate(k, SENDTIME, CHUNK))
        .collect();
    ctx.progress.begin(
        kernel,
        (ctx.config.transports.len() * backgrounds.len() * repetitions * sizes.len()) as u64,
    );
    let mut out = Vec::new();
    for &transport in &ctx.config.transports {
        let mut result =
            KernelResult::new(kernel, "krumme-greenfield", team.placement(), cpus.clone())
                .with_transport(Some(transport.name()))
                .with_pair_distance(ctx.topology)
                .with_ranks(team.size());
        // The two-flag round trips before and after every size, both `Q`s.
        let mut probes = Vec::new();
        for bg in &backgrounds {
            if ctx.cancelled() {
                break;
            }
            let on_size = |size: usize| {
                ctx.progress
                    .step(&format!("{transport} {} Q {size} B", bg.kind.name()))
            };
            let cancelled = || ctx.cancelled();
            let plan = Plan {
                bg: *bg,
                sizes: &sizes,
                reps,
                clock_ns: ctx.clock.read_overhead_ns,
                repetitions,
                rounds: rounds(ctx.config.quick),
                lane_span: span,
                probe: &probe,
                on_size: &on_size,
                cancelled: &cancelled,
            };
            let reps = crate::with_transport!(transport, run_on(&team, &plan))?;
            probes.extend(
                reps.iter()
                    .flat_map(|r| &r.sizes)
                    .flat_map(|s| s.probes.map(|p| p.line_ns)),
            );
            add_q(&mut result, bg.kind, &reps, span, rounds(ctx.config.quick));
        }
        result.headline.extend(probe_param(&probes, None));
        result
            .warnings
            .push(placement_note(team.placement(), &cpus, wash));
        out.push(result);
    }
    ctx.progress.end();
    if ctx.cancelled() {
        return Err(KernelError::Interrupted);
    }
    Ok(out)
}

fn placement_note(placement: Placement, cpus: &[usize], wash: usize) -> String {
    format!(
        "{placement} processors: {RANKS} virtual nodes dealt round-robin on spinning workers pinned to CPUs {cpus:?}{}; nodes are polled between 2 us chunks of Q, forwarding is done by the nodes' systems (R + S), no wait parks; every CPU reads {} KiB between timed iterations (a wash of its private caches)",
        if cpus.len() < 2 {
            " (one CPU: hops do not cross CPUs)"
        } else {
            " (every hop crosses a CPU)"
        },
        wash / 1024
    )
}

#[cfg(test)]
mod tests {
    use super::super::protocol::{Block, Op};
    use super::lanes::LANE_SPAN_UNKNOWN;
    use super::plan::{MAX_DISTANCE, experiments_at_size};
    use super::plan::{REPETITIONS, ROUNDS};
    use super::rank0::{ForwardTimes, NeighbourTimes};
    use super::solve::{Shortfall, probed_at, state_change};
    use super::*;
    use crate::model::decomposition::{ExperimentTimes, TABLE_1_US};

    /// What this kernel's experiments would measure on a machine with Table 1's
    /// parameters.
    fn measured(size: usize, [e, r, s, f, u, a]: [f64; 6]) -> SizeTimes {
        let [e, r, s, f, u, a] = [e, r, s, f, u, a].map(|v| v * 1e3);
        let echo = |x: f64| {
            (1..=MAX_DISTANCE)
                .map(|d| 2.0 * f + 2.0 * d as f64 * e + 2.0 * u + x)
                .collect()
        };
        SizeTimes {
            size,
            echo_busy: echo(0.0),
            echo_idle: echo(5_000.0),
            neighbour: NeighbourTimes {
                r_ns: r,
                r_own_polls_ns: f64::NAN,
                r_whole_q_ns: r,
                a_plus_u_ns: a + u,
                a_alone_ns: a,
                clock_ns: 0.0,
                send_call_ns: f,
                f_plus_s_ns: f + s,
                f_plus_s_whole_q_ns: f + s,
                late: 0,
            },
            forward: ForwardTimes {
                r_plus_s_ns: r + s,
                r_plus_s_whole_q_ns: r + s,
                late: 0,
            },
            twice_f_e_u: 2.0 * (f + e + u),
            twice_f_e_u_system: 2.0 * (f + e + u) - (f + u),
            send_call_test_6: f,
            probes: [Probe::NONE; 2],
        }
    }

    /// A run whose 64 KiB probes span more than half again their least is
    /// flagged with the range; one within it, or on one CPU (no probes), is not.
    #[test]
    fn a_change_of_state_is_flagged_from_the_probes() {
        let at = |bulk: [f64; 2]| {
            let mut s = measured(16, TABLE_1_US[0]);
            s.probes = bulk.map(|bulk_ns| Probe {
                line_ns: 100.0,
                bulk_ns,
            });
            Repetition { sizes: vec![s] }
        };
        let calm = [at([8000.0, 8200.0]), at([9000.0, 11_900.0])];
        assert_eq!(state_change(QKind::Integer, &calm), None);
        let moved = [at([8000.0, 8200.0]), at([9000.0, 26_000.0])];
        let w = state_change(QKind::Float, &moved).unwrap();
        assert!(
            w.starts_with(
                "floating-point Q: the two CPUs' round trip of 64 KiB ranged from 8000 to 26000 ns"
            ),
            "{w}"
        );
        let one_cpu = [at([f64::NAN; 2])];
        assert_eq!(state_change(QKind::Integer, &one_cpu), None);
        // The points carry both probes, before and after each size.
        let result = analysed(&moved);
        let p = &result.points[0];
        assert_eq!(p.stats("cpu_round_trip_64k_ns").unwrap().max, 26_000.0);
        assert_eq!(p.stats("cpu_round_trip_ns").unwrap().median, 100.0);
        assert!(
            result
                .warnings
                .iter()
                .any(|w| w.contains("ranged from 8000"))
        );
        assert_eq!(
            probed_at(&[&moved[0].sizes[0], &moved[1].sizes[0]]),
            ", with the CPUs' round trips at 100 ns (a line) and 8600 ns (64 KiB)"
        );
        assert_eq!(probed_at(&[&one_cpu[0].sizes[0]]), "");
    }

    fn empty_result() -> KernelResult {
        KernelResult::new(NAME, "krumme-greenfield", Placement::Hosted, vec![0, 1])
            .with_transport(Some("mailbox"))
            .with_ranks(RANKS)
    }

    /// The analysis of an integer `Q`'s repetitions `reps` at the full
    /// run's rounds, lanes of the unknown span.
    fn analysed(reps: &[Repetition]) -> KernelResult {
        let mut result = empty_result();
        add_q(&mut result, QKind::Integer, reps, LANE_SPAN_UNKNOWN, ROUNDS);
        result
    }

    /// The whole analysis (solve in the paper's order, mean and deviation over
    /// repetitions, lines) on the experiments that Table 1's parameters would
    /// produce gives back Table 1 and the paper's Table 3: E = 220 + 1.285n, R = 180 + .04n,
    /// S = 150 + .01n, F = 160 + .60n, U = 130 + .61n, A = 120 + 0.0n µs (intercepts
    /// to the paper's two figures, slopes to its printed decimals).
    #[test]
    fn table_1_experiments_give_table_1_and_table_3() {
        let sizes: Vec<SizeTimes> = PAPER_SIZES
            .iter()
            .zip(TABLE_1_US)
            .map(|(&n, row)| measured(n, row))
            .collect();
        let reps: Vec<Repetition> = (0..REPETITIONS)
            .map(|_| Repetition {
                sizes: sizes.clone(),
            })
            .collect();
        let result = analysed(&reps);
        assert_eq!(result.points.len(), 5);
        let p = &result.points[2];
        assert_eq!(p.number("size_bytes"), Some(1000.0));
        for (name, want_us) in [
            ("e_ns", 1506.0),
            ("r_ns", 219.0),
            ("s_ns", 167.0),
            ("f_ns", 762.0),
            ("u_ns", 748.0),
            ("a_ns", 111.0),
            ("e_busy_ns", 1506.0),
            // The paper's model is a line in d: every half-increment is E.
            ("e_d1_d2_ns", 1506.0),
            ("e_d4_d5_ns", 1506.0),
        ] {
            let s = p.stats(name).unwrap();
            assert!((s.mean - want_us * 1e3).abs() < 1e-3, "{name} = {}", s.mean);
            assert_eq!(s.std_dev, 0.0);
        }
        let printed = [
            ("e", 220.0, 1.285, 3),
            ("r", 180.0, 0.04, 2),
            ("s", 150.0, 0.01, 2),
            ("f", 160.0, 0.60, 2),
            ("u", 130.0, 0.61, 2),
            ("a", 120.0, 0.0, 1),
        ];
        assert_eq!(result.fits.len(), 6);
        for (name, x0_us, x1_us, decimals) in printed {
            let fit = result
                .fits
                .iter()
                .find(|f| f.y == format!("{name}_ns (every repetition)"))
                .unwrap();
            let x0 = fit.params[&format!("int_{name}0_ns")] / 1e3;
            let x1 = fit.params[&format!("int_{name}1_ns_per_byte")] / 1e3;
            let scale = 10f64.powi(decimals);
            assert_eq!((x0 / 10.0).round() * 10.0, x0_us, "{name}0 = {x0}");
            assert_eq!((x1 * scale).round() / scale, x1_us, "{name}1 = {x1}");
            assert!(!fit.flagged, "{name}");
        }
        assert!(result.warnings.is_empty(), "{:?}", result.warnings);
        let text = crate::text::decomposition::tables(&result);
        assert!(text.contains("Table 1 shape") && text.contains("Table 3 shape"));
    }

    /// Table 3's lines are fitted to every repetition's solve: three sizes of
    /// three repetitions, S = 40 ns + 0.1 ns/B with +-10 ns between
    /// repetitions, give nine points and seven degrees of freedom, so S0's
    /// interval (t(7) = 2.365 times its standard error, which holds the
    /// spread between repetitions) lies above zero.
    /// Over sockets a write call is mostly the socket's write, which `S`
    /// and `E` hold too, and test 4's call may cost more than test 6's.
    /// Hand-worked, ns: E 7000, R 3000, S 6500, F 1000, U 300, A 200, test
    /// 6's write call 7500 (F and the write S holds), test 4's 9000 with
    /// nothing lost after it. `F + S` taken with test 6's call gives back F
    /// = 7500 - 6500 = 1000, U = 16600/2 - 7000 - 1000 = 300, A = 500 - 300
    /// = 200; with test 4's own call F is 2500, U -1200 and A 1700.
    #[test]
    fn f_is_solved_with_the_write_call_test_6_pays() {
        let mut s = measured(16, [7.0, 3.0, 6.5, 1.0, 0.3, 0.2]);
        s.send_call_test_6 = 7500.0;
        s.neighbour.send_call_ns = 9000.0;
        s.neighbour.f_plus_s_ns = 9000.0;
        assert_eq!(solve::f_plus_s_of_test_6(&s), 7500.0);
        let (p, _) = solve::solve_size(&s).unwrap();
        let got = [p.e_ns, p.r_ns, p.s_ns, p.f_ns, p.u_ns, p.a_ns];
        let want = [7000.0, 3000.0, 6500.0, 1000.0, 300.0, 200.0];
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 1e-9, "{got:?}");
        }
        let as_timed = crate::model::decomposition::solve(&ExperimentTimes {
            size_bytes: 16.0,
            echo_ns: s.echo_idle.clone(),
            r_ns: 3000.0,
            a_plus_u_ns: 500.0,
            f_plus_s_ns: 9000.0,
            r_plus_s_ns: 9500.0,
            twice_f_e_u_ns: 16_600.0,
        })
        .unwrap();
        let got = [as_timed.f_ns, as_timed.u_ns, as_timed.a_ns];
        for (g, w) in got.iter().zip([2500.0, -1200.0, 1700.0]) {
            assert!((g - w).abs() < 1e-9, "{got:?}");
        }
        // A missing call leaves test 4's figure.
        s.send_call_test_6 = f64::NAN;
        assert_eq!(solve::f_plus_s_of_test_6(&s), 9000.0);
    }

    #[test]
    fn table_3_lines_use_every_repetition() {
        let sizes = [16usize, 1000, 2000];
        let reps: Vec<Repetition> = (0..3)
            .map(|k| Repetition {
                sizes: sizes
                    .iter()
                    .enumerate()
                    .map(|(i, &n)| {
                        let noise = 0.01 * ((k + i) % 3) as f64 - 0.01;
                        let s = 0.04 + 1e-4 * n as f64 + noise;
                        measured(n, [0.2, 0.1, s, 0.03, 0.02, 0.02])
                    })
                    .collect(),
            })
            .collect();
        let result = analysed(&reps);
        let fit = result
            .fits
            .iter()
            .find(|f| f.y == "s_ns (every repetition)")
            .unwrap();
        assert_eq!(fit.n_points, 9);
        let (s0, se) = (fit.params["int_s0_ns"], fit.std_errors["int_s0_ns"]);
        assert!((s0 - 40.0).abs() < 10.0, "S0 = {s0}");
        assert!(se > 0.0 && s0 - 2.365 * se > 0.0, "S0 = {s0} +- {se}");
        assert!(
            s0 - 12.706 * se < 0.0,
            "t(1) would not resolve it: {s0} {se}"
        );
    }

    /// A negative `A` is shown with what it is made of, from a mailbox run at
    /// 16 KiB; without the one-link check when it is missing, and nothing when
    /// `U` is.
    #[test]
    fn a_shortfall_shows_u_against_the_timed_read_and_the_one_link_echo() {
        let at_16k = Shortfall {
            u: 862.0,
            a_plus_u: 254.0,
            a_alone: 23.0,
            one_link_excess: 7126.0 - 2.0 * 2681.0 - 167.0 - 254.0,
            f: 167.0,
            f_echo: 167.0 + 862.0 - (254.0 - 23.0),
            e: 2681.0,
            e_first: 2900.0,
            e_last: 2500.0,
        };
        let why = at_16k.explain();
        assert!(why.contains("U solved from the echo: 862 ns"), "{why}");
        assert!(why.contains("timed read A + U: 254 ns"), "{why}");
        assert!(
            why.contains("the read's part before the message, timed alone: 23 ns"),
            "{why}"
        );
        // A = A alone + F - F from the echo: 23 + 167 - 798 = 254 - 862.
        assert!(
            why.contains("test 6 gives F = T6/2 - E - U = 798 ns where (F + S) - S gives 167 ns"),
            "{why}"
        );
        assert!(
            why.contains("is 1343 ns longer than 2E + F + (A + U);"),
            "{why}"
        );
        assert!(
            why.contains(
                "from (T2 - T1)/2 = 2900 ns to (T5 - T4)/2 = 2500 ns, E = 2681 ns their mean"
            ),
            "{why}"
        );
        // Half-increments that do not fall say nothing.
        let level = Shortfall {
            e_first: 2681.0,
            e_last: 2681.0,
            ..at_16k
        };
        assert!(level.explain().ends_with("longer than 2E + F + (A + U))"));
        let without = Shortfall {
            one_link_excess: f64::NAN,
            e_first: f64::NAN,
            ..at_16k
        };
        assert!(without.explain().ends_with("A alone less the difference)"));
        let missing = Shortfall {
            u: f64::NAN,
            ..at_16k
        };
        assert!(missing.explain().is_empty());
    }

    /// A background whose lengths the scripts use: `Q(SENDTIME)` 10 chunks.
    fn test_background() -> Background {
        Background {
            kind: QKind::Integer,
            unit_ns: 1.0,
            chunk_units: 2000,
            send_chunks: 10,
            comp_chunks: 50,
        }
    }

    /// Every size runs its experiments in turn, once a round, each round with a
    /// twenty-fifth of the iterations: 4 of 100, 2 of `--quick`'s 50, and the
    /// scripts block by block in the same order.
    #[test]
    fn every_round_runs_every_experiment_in_turn() {
        let (on_size, cancelled) = (|_: usize| {}, || false);
        let probe = || Ok(Probe::NONE);
        let plan = Plan {
            bg: test_background(),
            sizes: &[16, 500],
            reps: notimes(false),
            clock_ns: 0.0,
            repetitions: 2,
            rounds: ROUNDS,
            lane_span: LANE_SPAN_UNKNOWN,
            probe: &probe,
            on_size: &on_size,
            cancelled: &cancelled,
        };
        assert_eq!(plan.per_round(), 4);
        assert_eq!(
            Plan {
                reps: notimes(true),
                ..plan
            }
            .per_round(),
            2
        );
        let each = experiments_at_size();
        let steps = plan_steps(&plan);
        assert_eq!(steps.len(), 2 * 2 * ROUNDS * each.len());
        for (i, round) in steps.chunks(each.len()).enumerate() {
            let (rep, size) = (i / (2 * ROUNDS), [16, 500][i / ROUNDS % 2]);
            let want: Vec<_> = each.iter().map(|&e| (rep, size, e)).collect();
            assert_eq!(round, want.as_slice(), "round {i}");
        }
        // Rank 3 reads the timed write and test 5's forward: two blocks of
        // 4 + 1 iterations a round.
        let script: Vec<Block> = steps
            .iter()
            .flat_map(|&(_, _, e)| script_of(3, e, plan.per_round(), &plan.bg))
            .collect();
        let reads: Vec<&Block> = script
            .iter()
            .filter(|b| b.ops == vec![Op::Read(0)])
            .collect();
        assert_eq!(reads.len(), 2 * 2 * ROUNDS * 2);
        assert!(reads.iter().all(|b| b.times == 5));
    }

    /// Lanes hold two slots up to 4 KiB and at least a sixteenth of the L2 of
    /// slots beyond: 128 KiB on the Xeon's 2 MiB, 32 KiB on the EPYC's 512 KiB.
    #[test]
    fn lanes_have_two_slots_up_to_4_kib_and_span_a_sixteenth_of_the_l2_beyond() {
        let xeon = LANE_SPAN_UNKNOWN;
        for size in [1, 16, 500, 2000, 4096] {
            assert_eq!(slots_for(size, xeon), 2, "{size} B");
        }
        let spans = [
            (8192, 16, 4),
            (16_384, 8, 2),
            (32_768, 4, 2),
            (65_536, 2, 2),
            (5000, 32, 8),
        ];
        let epyc = 32 * 1024;
        for (size, on_xeon, on_epyc) in spans {
            assert_eq!(slots_for(size, xeon), on_xeon, "{size} B");
            assert_eq!(slots_for(size, epyc), on_epyc, "{size} B");
            let config = store_and_forward(size, on_xeon);
            assert!(config.slots * config.slot_bytes >= xeon, "{size} B");
        }
        // Messages longer than a lane's span still get two slots.
        assert_eq!(slots_for(256 * 1024, xeon), 2);
    }

    /// The span is a sixteenth of the smallest L2 of the CPUs used, and 128 KiB
    /// where the machine reports none.
    #[test]
    fn a_lane_spans_a_sixteenth_of_the_smallest_l2() {
        use crate::platform::CacheKind;
        let topology = crate::platform::Topology::with_caches(vec![
            (1, CacheKind::Data, 32, vec![0]),
            (2, CacheKind::Unified, 2048, vec![0]),
            (2, CacheKind::Unified, 512, vec![1]),
            (3, CacheKind::Unified, 32 * 1024, vec![0, 1]),
        ]);
        assert_eq!(lane_span(&topology, &[0]), 128 * 1024);
        assert_eq!(lane_span(&topology, &[0, 1]), 32 * 1024);
        assert_eq!(lane_span(&topology, &[7]), LANE_SPAN_UNKNOWN);
    }

    /// Tests 2 to 4: rank 1 echoes once an iteration, and rank 3 reads the timed
    /// write, on the lane of test 5's forward.
    #[test]
    fn the_timed_write_takes_the_forwards_lane() {
        let bg = test_background();
        let one = script_of(1, Experiment::Neighbour, 9, &bg);
        let reads = |s: &[Block]| s[0].ops.iter().filter(|o| matches!(o, Op::Read(0))).count();
        assert_eq!(reads(&one), 1);
        assert_eq!(
            script_of(3, Experiment::Neighbour, 9, &bg)[0].ops,
            vec![Op::Read(0)]
        );
        assert_eq!(
            script_of(3, Experiment::RPlusS, 9, &bg)[0].ops,
            vec![Op::Read(0)]
        );
    }

    /// The scripts match rank 0's program: at distance 3 ranks 1 and 2 forward
    /// both ways as many messages as rank 0 sends, rank 3 echoes, 4 and 5 rest; in
    /// test 5 rank 1 echoes through rank 0 to rank 3, which reads them.
    #[test]
    fn scripts_match_rank_0s_program() {
        let bg = test_background();
        let e = Experiment::Echo { d: 3, busy: true };
        for rank in [1, 2] {
            let s = script_of(rank, e, 9, &bg);
            assert_eq!(s.len(), 1);
            assert_eq!(s[0].times, 1);
            assert!(s[0].ops.contains(&Op::Route {
                from: rank - 1,
                to: rank + 1,
                count: 10
            }));
            assert_eq!(s[0].ops.last(), Some(&Op::AwaitRoutes));
        }
        let echo = script_of(3, e, 9, &bg);
        assert_eq!(echo[0].times, 10);
        assert_eq!(
            echo[0].ops,
            vec![Op::Read(2), Op::Compute(10), Op::Write(2), Op::Compute(10)]
        );
        assert!(script_of(4, e, 9, &bg).is_empty() && script_of(5, e, 9, &bg).is_empty());
        let idle = script_of(1, Experiment::Echo { d: 1, busy: false }, 9, &bg);
        assert_eq!(idle[0].ops, vec![Op::Read(0), Op::Write(0)]);
        assert_eq!(
            script_of(1, Experiment::Efu, 9, &bg)[0].ops,
            idle[0].ops,
            "test 6 is the idle echo at d = 1"
        );
        assert_eq!(
            script_of(1, Experiment::RPlusS, 9, &bg)[0].ops[3],
            Op::Write(0)
        );
        assert_eq!(
            script_of(3, Experiment::RPlusS, 9, &bg)[0].ops,
            vec![Op::Read(0)]
        );
        assert_eq!(
            script_of(1, Experiment::EfuSystem, 9, &bg),
            vec![Block::once(vec![
                Op::Route {
                    from: 0,
                    to: 0,
                    count: 10
                },
                Op::AwaitRoutes
            ])],
            "rank 1 returns test 6's messages in its system"
        );
        assert_eq!(experiments_at_size().len(), 2 * MAX_DISTANCE + 4);
    }

    /// A line whose whole 95 % interval lies below zero is flagged with a
    /// warning naming it; one whose interval reaches zero is not. Over 4
    /// points (2 degrees of freedom, t = 4.303): a slope of -0.157 with
    /// standard error 0.03 spans [-0.286, -0.028]; with 0.05, [-0.372, 0.058].
    #[test]
    fn a_line_below_zero_beyond_its_interval_is_flagged() {
        use crate::model::fit::LineFit;
        let line = |slope: f64, se_slope: f64| LineFit {
            intercept: 500.0,
            slope,
            r2: 0.95,
            se_intercept: 20.0,
            se_slope,
            n_points: 4,
            residuals: vec![0.0; 4],
        };
        let lines = |f: LineFit| crate::model::decomposition::ParameterLines {
            e: line(0.4, 0.01),
            r: line(0.2, 0.01),
            s: line(0.3, 0.01),
            f,
            u: line(0.1, 0.01),
            a: line(0.1, 0.01),
        };
        let mut result =
            KernelResult::new(NAME, "krumme-greenfield", Placement::Hosted, vec![0, 1]);
        super::solve::push_fits(
            &mut result,
            QKind::Integer,
            &lines(line(-0.157, 0.03)),
            "16-2000 B",
            "",
        );
        let flagged: Vec<bool> = result.fits.iter().map(|f| f.flagged).collect();
        assert_eq!(flagged, [false, false, false, true, false, false]);
        assert_eq!(result.warnings.len(), 1);
        assert!(
            result.warnings[0].contains("F1 = -0.157 [-0.286, -0.028] ns/B: below zero"),
            "{}",
            result.warnings[0]
        );
        let mut wide = KernelResult::new(NAME, "krumme-greenfield", Placement::Hosted, vec![0, 1]);
        super::solve::push_fits(
            &mut wide,
            QKind::Integer,
            &lines(line(-0.157, 0.05)),
            "16-2000 B",
            "",
        );
        assert!(wide.fits.iter().all(|f| !f.flagged));
        assert!(wide.warnings.is_empty());
    }
}
