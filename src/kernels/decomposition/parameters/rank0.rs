//! What rank 0 times in each of the decomposition's experiments, and the team
//! run of one size that drives them.

use super::super::background::Background;
use super::super::protocol::{
    Nodes, Samples, check_len, ns, q, q_sys, read, read_before_arrival, system_return, write,
};
use super::lanes::Probe;
use super::plan::{Experiment, MAX_DISTANCE, Plan, experiments_at_size};
use crate::control::RankError;
use crate::kernels::harness::timing::Timer;
use crate::platform::LineAligned;
use std::hint::black_box;

/// Everything rank 0 measured at one size in one repetition.
#[derive(Debug, Clone)]
pub(super) struct SizeTimes {
    pub(super) size: usize,
    /// `T_1 .. T_5` with `Q` after the writes.
    pub(super) echo_busy: Vec<f64>,
    /// The same with the processors idle (section 5.1).
    pub(super) echo_idle: Vec<f64>,
    pub(super) neighbour: NeighbourTimes,
    pub(super) forward: ForwardTimes,
    pub(super) twice_f_e_u: f64,
    /// Test 6 with rank 1 returning the message in its system.
    pub(super) twice_f_e_u_system: f64,
    /// The write call that opens test 6's echo, timed in test 6's own
    /// iterations (a clock read more inside the round trip, taken out of
    /// `twice_f_e_u`): what test 6's `F` costs, against the write call of
    /// test 4 (`F + S`).
    pub(super) send_call_test_6: f64,
    /// The two CPUs' round trips just before and just after the team run of
    /// this size ([`super::lanes::probe`]; NaN on one CPU).
    pub(super) probes: [Probe; 2],
}

/// One repetition of the whole experiment.
#[derive(Debug, Clone)]
pub(super) struct Repetition {
    pub(super) sizes: Vec<SizeTimes>,
}

/// Rank 0's figures of tests 2 to 4 (Appendix A) for one size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(in crate::kernels::decomposition) struct NeighbourTimes {
    /// What rank 0's system took from `Q(COMPTIME)` while the echo arrived, beyond
    /// what it takes with nothing in flight: `R` ([`lost_ns`](super::super::protocol::SysTime::lost_ns)).
    pub(in crate::kernels::decomposition) r_ns: f64,
    /// Where the transport's progress is shared ([`Nodes::PROGRESS_SHARED`]):
    /// rank 0's own polls that moved something beyond as many idle ones of
    /// the same `Q`, the threads' `R`, for comparison (NaN elsewhere).
    pub(in crate::kernels::decomposition) r_own_polls_ns: f64,
    /// The same from the whole `Q(COMPTIME)`, timed as the paper did (its excess
    /// over `Q(COMPTIME)` alone), for comparison.
    pub(in crate::kernels::decomposition) r_whole_q_ns: f64,
    /// Timed read of the arrived echo: `A + U`.
    pub(in crate::kernels::decomposition) a_plus_u_ns: f64,
    /// A read call with nothing in flight, up to where it would wait: `A` timed
    /// by itself ([`read_before_arrival`]), a check on the solved `A`.
    pub(in crate::kernels::decomposition) a_alone_ns: f64,
    /// The clock's read overhead, subtracted from every figure above timed
    /// directly.
    pub(in crate::kernels::decomposition) clock_ns: f64,
    /// The write call alone.
    pub(in crate::kernels::decomposition) send_call_ns: f64,
    /// The write call and what rank 0's system took from the `Q(SENDTIME)` after
    /// it, beyond its share with nothing in flight: `F + S`.
    pub(in crate::kernels::decomposition) f_plus_s_ns: f64,
    /// Write then `Q(SENDTIME)` timed whole, less `Q(SENDTIME)` alone.
    pub(in crate::kernels::decomposition) f_plus_s_whole_q_ns: f64,
    /// Iterations whose echo had not arrived when `Q(COMPTIME)` ended, or had
    /// before it began (dropped from `R` and `A + U`).
    pub(in crate::kernels::decomposition) late: u64,
}

/// One round of tests 2 to 4 on rank 0, neighbour rank 1 (the timed write to
/// rank 3), added to `acc`. Each iteration ends with `Q(COMPTIME)` and
/// `Q(SENDTIME)` timed with nothing in flight, the baselines.
#[inline(never)]
pub(super) fn rank0_neighbour<H: Nodes>(
    host: &mut H,
    bg: &Background,
    out: &[u8],
    inbuf: &mut [u8],
    reps: u64,
    acc: &mut NeighbourSamples,
) -> Result<(), RankError> {
    let (st, ct) = (bg.send_chunks, bg.comp_chunks);
    let shared = H::PROGRESS_SHARED;
    for a in 0..=reps {
        write(host, 1, out)?;
        q(host, bg, st)?;
        // An echo already here (a preempted Q(SENDTIME)) did not arrive inside.
        let early = host.parts().0.room.arrived(1);
        let t0 = Timer::start();
        let sys_r = q_sys(host, bg, ct)?;
        let arrived = !early && host.parts().0.room.arrived(1);
        let t1 = Timer::start();
        let n = read(host, 1, inbuf)?;
        let t2 = Timer::start();
        write(host, 3, out)?;
        let t3 = Timer::start();
        let sys_s = q_sys(host, bg, st)?;
        let t4 = Timer::start();
        check_len(n, out.len())?;
        // Baselines of the whole-Q figures: nothing is in flight now (rank 1
        // waits for the next message). The same code as the Qs they are the
        // baselines of, kept whole (the clock reads around the polls are about
        // 2 µs of a Q(COMPTIME)).
        let b0 = Timer::start();
        black_box(q_sys(host, bg, ct)?);
        let b1 = Timer::start();
        black_box(q_sys(host, bg, st)?);
        let b2 = Timer::start();
        read_before_arrival(host, 1, inbuf)?;
        let b3 = Timer::start();
        system_return();
        if a > 0 {
            if arrived {
                acc.r.push(ns(t0, t1));
                acc.r_sys.push(sys_r.lost_ns(shared));
                if shared {
                    acc.r_own.push(sys_r.excess_ns());
                }
                acc.au.push(ns(t1, t2));
            } else {
                acc.late += 1;
            }
            acc.call.push(ns(t2, t3));
            acc.fs.push(ns(t2, t4));
            acc.fs_sys.push(ns(t2, t3) + sys_s.lost_ns(shared));
            acc.comp.push(ns(b0, b1));
            acc.send.push(ns(b1, b2));
            acc.alone.push(ns(b2, b3));
        }
        host.wash_caches()?;
    }
    Ok(())
}

/// Rank 0's samples of tests 2 to 4 at one size, pooled over the rounds.
pub(super) struct NeighbourSamples {
    pub(super) r: Samples,
    pub(super) r_sys: Samples,
    pub(super) r_own: Samples,
    pub(super) au: Samples,
    pub(super) call: Samples,
    pub(super) fs: Samples,
    pub(super) fs_sys: Samples,
    pub(super) comp: Samples,
    pub(super) send: Samples,
    pub(super) alone: Samples,
    pub(super) late: u64,
}

impl NeighbourSamples {
    /// Room for `reps` iterations.
    pub(super) fn new(reps: u64) -> NeighbourSamples {
        let [r, r_sys, r_own, au, call, fs, fs_sys, comp, send, alone] =
            std::array::from_fn(|_| Samples::new(reps));
        NeighbourSamples {
            r,
            r_sys,
            r_own,
            au,
            call,
            fs,
            fs_sys,
            comp,
            send,
            alone,
            late: 0,
        }
    }

    /// The block's figures, `clock_ns` taken from those timed directly.
    pub(super) fn times(&self, clock_ns: f64) -> NeighbourTimes {
        // The whole-Q figures are differences of intervals, where the clock cancels.
        let c = clock_ns;
        NeighbourTimes {
            r_ns: self.r_sys.median(),
            r_own_polls_ns: self.r_own.median(),
            r_whole_q_ns: self.r.median() - self.comp.median(),
            a_plus_u_ns: self.au.median() - c,
            a_alone_ns: self.alone.median() - c,
            clock_ns: c,
            send_call_ns: self.call.median() - c,
            f_plus_s_ns: self.fs_sys.median() - c,
            f_plus_s_whole_q_ns: self.fs.median() - self.send.median(),
            late: self.late,
        }
    }
}

/// Rank 0's figures of test 5.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(in crate::kernels::decomposition) struct ForwardTimes {
    /// What rank 0's system took from `Q(COMPTIME)` while it forwarded the
    /// message, beyond what it takes with nothing in flight: `R + S`.
    pub(in crate::kernels::decomposition) r_plus_s_ns: f64,
    /// The same from the whole `Q(COMPTIME)`, timed as the paper did.
    pub(in crate::kernels::decomposition) r_plus_s_whole_q_ns: f64,
    /// Iterations whose forward fell outside the timed `Q` (left out).
    pub(in crate::kernels::decomposition) late: u64,
}

/// Test 5 on rank 0 in one block: `R + S`, and the iterations whose forward
/// fell outside the timed `Q`. Each iteration ends with a baseline `Q(COMPTIME)`
/// with nothing in flight.
#[inline(never)]
pub(in crate::kernels::decomposition) fn rank0_rs<H: Nodes>(
    host: &mut H,
    bg: &Background,
    out: &[u8],
    reps: u64,
) -> Result<ForwardTimes, RankError> {
    let mut acc = ForwardSamples::new(reps);
    rank0_forward(host, bg, out, reps, &mut acc)?;
    Ok(acc.times())
}

/// One round of test 5 on rank 0, added to `acc`.
#[inline(never)]
pub(super) fn rank0_forward<H: Nodes>(
    host: &mut H,
    bg: &Background,
    out: &[u8],
    reps: u64,
    acc: &mut ForwardSamples,
) -> Result<(), RankError> {
    let (st, ct) = (bg.send_chunks, bg.comp_chunks);
    let shared = H::PROGRESS_SHARED;
    host.parts().0.room.route(1, 3, reps + 1)?;
    for a in 0..=reps {
        let before = host.parts().0.room.forwarded();
        write(host, 1, out)?;
        q(host, bg, st)?;
        // A forward already done here (a preempted Q(SENDTIME)) is not inside.
        let early = host.parts().0.room.forwarded() > before;
        let t0 = Timer::start();
        let sys = q_sys(host, bg, ct)?;
        let t1 = Timer::start();
        let inside = !early && host.parts().0.room.forwarded() > before;
        host.wait_until(1, |node, _| {
            Ok((node.room.forwarded() > before && node.room.sent_all()).then_some(()))
        })?;
        q(host, bg, st)?;
        let b0 = Timer::start();
        black_box(q_sys(host, bg, ct)?);
        let b1 = Timer::start();
        if a > 0 {
            if inside {
                acc.rs.push(ns(t0, t1));
                acc.rs_sys.push(sys.lost_ns(shared));
            } else {
                acc.late += 1;
            }
            acc.comp.push(ns(b0, b1));
        }
        host.wash_caches()?;
    }
    Ok(())
}

/// Rank 0's samples of test 5 at one size, pooled over the rounds.
pub(in crate::kernels::decomposition) struct ForwardSamples {
    pub(super) rs: Samples,
    pub(super) rs_sys: Samples,
    pub(super) comp: Samples,
    pub(super) late: u64,
}

impl ForwardSamples {
    /// Room for `reps` iterations.
    pub(super) fn new(reps: u64) -> ForwardSamples {
        let [rs, rs_sys, comp] = std::array::from_fn(|_| Samples::new(reps));
        ForwardSamples {
            rs,
            rs_sys,
            comp,
            late: 0,
        }
    }

    /// The figures.
    pub(super) fn times(&self) -> ForwardTimes {
        ForwardTimes {
            r_plus_s_ns: self.rs_sys.median(),
            r_plus_s_whole_q_ns: self.rs.median() - self.comp.median(),
            late: self.late,
        }
    }
}

/// One round of test 6 on rank 0: `2 (F + E + U)`, the neighbour echoing at
/// once (`X = 0`), added to `efu`; with `call`, the write call that opens it
/// too (a clock read more inside the round trip).
#[inline(never)]
pub(super) fn rank0_efu<H: Nodes>(
    host: &mut H,
    bg: &Background,
    out: &[u8],
    inbuf: &mut [u8],
    reps: u64,
    efu: &mut Samples,
    mut call: Option<&mut Samples>,
) -> Result<(), RankError> {
    for a in 0..=reps {
        let t0 = Timer::start();
        write(host, 1, out)?;
        let written = call.is_some().then(Timer::start);
        let n = read(host, 1, inbuf)?;
        let t1 = Timer::start();
        check_len(n, out.len())?;
        q(host, bg, bg.send_chunks)?;
        if a > 0 {
            efu.push(ns(t0, t1));
            if let (Some(call), Some(w)) = (call.as_deref_mut(), written) {
                call.push(ns(t0, w));
            }
        }
        host.wash_caches()?;
    }
    Ok(())
}

/// One round of the echo at distance `d` on rank 0: `T_d`, and `Q(SENDTIME)`
/// timed in the same iterations with nothing in flight, added to `acc`.
#[inline(never)]
pub(super) fn rank0_echo<H: Nodes>(
    host: &mut H,
    bg: &Background,
    out: &[u8],
    inbuf: &mut [u8],
    reps: u64,
    busy: bool,
    acc: &mut EchoSamples,
) -> Result<(), RankError> {
    let st = bg.send_chunks;
    let EchoSamples { t, x } = acc;
    for a in 0..=reps {
        let t0 = Timer::start();
        write(host, 1, out)?;
        if busy {
            q(host, bg, st)?;
        }
        let n = read(host, 1, inbuf)?;
        let t1 = Timer::start();
        check_len(n, out.len())?;
        q(host, bg, st)?;
        let b0 = Timer::start();
        q(host, bg, st)?;
        let b1 = Timer::start();
        if a > 0 {
            t.push(ns(t0, t1));
            x.push(ns(b0, b1));
        }
        host.wash_caches()?;
    }
    Ok(())
}

/// Rank 0's samples of one echo at one size, pooled over the rounds: `T_d`, and
/// `Q(SENDTIME)` timed alone.
pub(super) struct EchoSamples {
    pub(super) t: Samples,
    pub(super) x: Samples,
}

impl EchoSamples {
    /// Room for `reps` iterations.
    pub(super) fn new(reps: u64) -> EchoSamples {
        EchoSamples {
            t: Samples::new(reps),
            x: Samples::new(reps),
        }
    }

    /// The median `T_d`, less `Q(SENDTIME)` when busy, else the clock's overhead.
    pub(super) fn time(&self, busy: bool, clock_ns: f64) -> f64 {
        // Busy, the Q(SENDTIME) subtracted was timed with the clock too.
        self.t.median() - if busy { self.x.median() } else { clock_ns }
    }
}

/// Rank 0's program.
pub(super) fn rank0<H: Nodes>(host: &mut H, plan: &Plan<'_>) -> Result<Vec<Repetition>, RankError> {
    let max = plan.sizes.iter().copied().max().unwrap_or(0);
    let out = LineAligned::from_fn(max, |i| (i % 251) as u8);
    let mut inbuf = LineAligned::filled(max.max(32), 0u8);
    let (bg, clock_ns) = (&plan.bg, plan.clock_ns);
    let (per_round, total) = (plan.per_round(), plan.per_round() * plan.rounds as u64);
    let mut repetitions = Vec::with_capacity(plan.repetitions);
    'outer: for _ in 0..plan.repetitions {
        let mut sizes = Vec::with_capacity(plan.sizes.len());
        for &size in plan.sizes {
            let out = &out[..size];
            let echoes = || std::array::from_fn::<_, MAX_DISTANCE, _>(|_| EchoSamples::new(total));
            let (mut busy_echo, mut idle_echo) = (echoes(), echoes());
            let mut neighbour = NeighbourSamples::new(total);
            let mut forward = ForwardSamples::new(total);
            let (mut efu, mut efu_system) = (Samples::new(total), Samples::new(total));
            let mut efu_call = Samples::new(total);
            for _ in 0..plan.rounds {
                if (plan.cancelled)() {
                    break 'outer;
                }
                for e in experiments_at_size() {
                    let inbuf = &mut inbuf;
                    match e {
                        Experiment::Echo { d, busy } => {
                            let acc = if busy { &mut busy_echo } else { &mut idle_echo };
                            rank0_echo(host, bg, out, inbuf, per_round, busy, &mut acc[d - 1])?;
                        }
                        Experiment::Neighbour => {
                            rank0_neighbour(host, bg, out, inbuf, per_round, &mut neighbour)?;
                        }
                        Experiment::RPlusS => {
                            rank0_forward(host, bg, out, per_round, &mut forward)?
                        }
                        Experiment::Efu => {
                            let call = Some(&mut efu_call);
                            rank0_efu(host, bg, out, inbuf, per_round, &mut efu, call)?;
                        }
                        Experiment::EfuSystem => {
                            rank0_efu(host, bg, out, inbuf, per_round, &mut efu_system, None)?;
                        }
                    }
                }
            }
            sizes.push(SizeTimes {
                size,
                echo_busy: busy_echo.iter().map(|e| e.time(true, clock_ns)).collect(),
                echo_idle: idle_echo.iter().map(|e| e.time(false, clock_ns)).collect(),
                neighbour: neighbour.times(clock_ns),
                forward: forward.times(),
                // Three clock reads: the one at the write call's end too.
                twice_f_e_u: efu.median() - 2.0 * clock_ns,
                twice_f_e_u_system: efu_system.median() - clock_ns,
                send_call_test_6: efu_call.median() - clock_ns,
                probes: [Probe::NONE; 2],
            });
            (plan.on_size)(size);
        }
        repetitions.push(Repetition { sizes });
    }
    Ok(repetitions)
}
