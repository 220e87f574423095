//! The sweep of `hockney-sync`: each method's calibration, and its rounds,
//! interleaved with the other methods' (see the module doc of
//! [`super::sync`], "Measurement design").

use super::rate_probe::{Serial, serial_rate};
use super::sync_method::with_method;
use super::sync_plan::{
    ASLEEP, GrainSamples, LONG_GRAINS, LONG_OVER_S_HALF, MAX_PASSES, Method, MethodSweep,
    SERIAL_ELEMENTS, SUB_BATCHES, SyncPlan, grain_sub_batches, linear_grains, short_grains,
};
use super::team_batch::{Batch, PROBE_GRAIN, RATE_GRAIN};
use crate::control::{Placement, RankError};
use crate::kernels::KernelError;
use crate::kernels::harness::timing::{STRAY_FACTOR, calibrate, measure, per_rep_ns, resized_reps};
use crate::model::interval;
use crate::platform::{ClockInfo, context_switches, futex_wakes};
use std::sync::Mutex;
use std::time::Duration;

/// What a method measures once before its rounds: the grains (the first `short`
/// of them the short ones), each grain's segments per batch, and the probes'
/// repetitions per batch.
#[derive(Debug)]
pub(super) struct Calibration {
    /// How long a grain's batch should last.
    target: Duration,
    grains: Vec<usize>,
    short: usize,
    reps: Vec<u64>,
    /// The grains timed in the asleep regime too (the methods with
    /// [`Method::two_regimes`]; none for the others), and their segments
    /// per batch.
    asleep: Vec<usize>,
    asleep_reps: Vec<u64>,
    pair_reps: u64,
    serial_reps: u64,
    syscall_reps: u64,
}

/// How many of the shortest grains a method with two regimes also times
/// asleep: `t_0` asleep is their median.
pub(crate) const ASLEEP_GRAINS: usize = 2;

impl Calibration {
    /// One grain of `reps` segments with the probes' repetitions given
    /// (`[pair, rate, system call]`) and no target, so that no batch stops
    /// early: a Criterion sample's round ([`super::sync_bench`]).
    pub(super) fn fixed(grain: usize, reps: u64, probes: [u64; 3]) -> Calibration {
        Calibration {
            target: Duration::ZERO,
            grains: vec![grain],
            short: 1,
            reps: vec![reps],
            asleep: Vec::new(),
            asleep_reps: Vec::new(),
            pair_reps: probes[0],
            serial_reps: probes[1],
            syscall_reps: probes[2],
        }
    }
}

/// One round of a method: per grain its time per segment, sleeps per
/// segment and preemptions per second; the rate probe (flop/ns); the pair
/// probe (ns), where the method takes it; the system-call probe (ns).
pub(super) struct Round {
    pub(super) grains: Vec<[f64; 3]>,
    pub(super) asleep: Vec<[f64; 3]>,
    pub(super) serial: f64,
    pub(super) pair: Option<f64>,
    pub(super) syscall: f64,
}

/// Measures one method over its grains: calibrates them, then times them
/// round after round on one instantiation of the method.
pub fn sweep_method(
    method: Method,
    plan: &SyncPlan,
    clock: &ClockInfo,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> Result<MethodSweep, KernelError> {
    let mut sweeps = sweep_methods(&Threads, &[method], plan, clock, cancelled, &|_| {})?;
    Ok(sweeps.pop().expect("one sweep a method"))
}

/// One method between its visits: what its calibration gave, and its rounds.
struct Visited {
    method: Method,
    serial: f64,
    in_team: bool,
    cal: Calibration,
    reps: Vec<u64>,
    rounds: Vec<Round>,
    placement: Placement,
}

/// Where a method's instantiations run: on threads of this process
/// ([`Threads`], `with_method`) or on MPI processes (`sync_mpi`). Each
/// call makes one instantiation (team, synchronisation objects, vectors)
/// and runs `driver` on the master with its batch function.
pub trait Instances {
    /// One instantiation of `method` on `plan`, `driver` run on it; its
    /// result and the processors' placement.
    fn with<R: Send>(
        &self,
        method: Method,
        plan: &SyncPlan,
        driver: &(dyn Fn(&mut Batch<'_>) -> Result<R, RankError> + Sync),
    ) -> Result<(R, Placement), KernelError>;
}

/// The methods' instantiations on threads of this process.
pub struct Threads;

impl Instances for Threads {
    fn with<R: Send>(
        &self,
        method: Method,
        plan: &SyncPlan,
        driver: &(dyn Fn(&mut Batch<'_>) -> Result<R, RankError> + Sync),
    ) -> Result<(R, Placement), KernelError> {
        with_method(method, plan, driver)
    }
}

/// Measures `methods` over their grains, interleaved: each is calibrated on
/// an instantiation of its own, then every round visits every method in
/// turn, on a fresh instantiation (team, synchronisation objects, vectors)
/// that times that round's grains and probes, so that a method's rounds
/// spread over the whole sweep as the methods' rounds of a grain do over
/// the method's. A single method keeps one instantiation for all its rounds.
/// `step` is called after every calibration and every visit. `on` says
/// where: [`Threads`] of this process, or MPI processes (`sync_mpi`).
pub fn sweep_methods(
    on: &impl Instances,
    methods: &[Method],
    plan: &SyncPlan,
    clock: &ClockInfo,
    cancelled: &(dyn Fn() -> bool + Sync),
    step: &dyn Fn(Method),
) -> Result<Vec<MethodSweep>, KernelError> {
    let own_cpus = own_cpus(plan);
    let mut visited = Vec::with_capacity(methods.len());
    for &method in methods {
        if cancelled() {
            break;
        }
        let serial = serial_rate(clock, plan.target);
        let in_team = method.probes_in_team() && own_cpus;
        let driver = |batch: &mut Batch<'_>| {
            let mut probe = Serial::new(SERIAL_ELEMENTS);
            calibrate_method(method, plan, serial, in_team, clock, batch, &mut probe)
        };
        let (cal, placement) = on.with(method, plan, &driver)?;
        step(method);
        let reps = cal.reps.clone();
        visited.push(Visited {
            method,
            serial,
            in_team,
            cal,
            reps,
            rounds: Vec::with_capacity(plan.trials),
            placement,
        });
    }
    let per_visit = match methods.len() {
        1 => plan.trials,
        _ => 1,
    };
    let mut done = 0;
    while done < plan.trials && !cancelled() {
        let n = per_visit.min(plan.trials - done);
        for v in visited.iter_mut() {
            let reps = Mutex::new(std::mem::take(&mut v.reps));
            let (cal, in_team) = (&v.cal, v.in_team);
            let driver = |batch: &mut Batch<'_>| -> Result<Vec<Round>, RankError> {
                let mut reps = reps.lock().expect("one visit at a time");
                // The rate probe's vectors on shared CPUs, one set a visit,
                // their pages touched before any timed pass.
                let mut probe = Serial::new(SERIAL_ELEMENTS);
                probe.batch(1);
                let mut rounds = Vec::with_capacity(n);
                for _ in 0..n {
                    if cancelled() {
                        break;
                    }
                    rounds.push(one_round(
                        cal, &mut reps, in_team, own_cpus, clock, batch, &mut probe,
                    )?);
                }
                Ok(rounds)
            };
            let (rounds, _) = on.with(v.method, plan, &driver)?;
            v.reps = reps.into_inner().expect("one visit at a time");
            v.rounds.extend(rounds);
            step(v.method);
        }
        done += n;
    }
    Ok(visited.into_iter().map(Visited::into_sweep).collect())
}

/// Whether `plan`'s processors have CPUs of their own (the rate probe then
/// runs on all of them at once).
fn own_cpus(plan: &SyncPlan) -> bool {
    !plan.shared_cpus() && matches!(plan.cpus.as_slice(), [a, b, ..] if a != b)
}

impl Visited {
    fn into_sweep(self) -> MethodSweep {
        let Visited {
            method,
            serial,
            cal,
            rounds,
            placement,
            ..
        } = self;
        let empty = |grains: &[usize], reps: &[u64]| -> Vec<GrainSamples> {
            grains
                .iter()
                .zip(reps)
                .map(|(&grain, &reps)| GrainSamples {
                    grain,
                    reps,
                    samples_ns: Vec::with_capacity(rounds.len()),
                    blocks_per_segment: Vec::with_capacity(rounds.len()),
                    preempted_per_s: Vec::with_capacity(rounds.len()),
                })
                .collect()
        };
        let mut grains = empty(&cal.grains, &cal.reps);
        let mut asleep = empty(&cal.asleep, &cal.asleep_reps);
        let (mut serial_rounds, mut pair_rounds) = (Vec::new(), Vec::new());
        let mut syscall_rounds = Vec::new();
        for round in rounds {
            let of_round = round.grains.into_iter().zip(grains.iter_mut());
            for ([t, blocks, preempted], gs) in
                of_round.chain(round.asleep.into_iter().zip(asleep.iter_mut()))
            {
                gs.samples_ns.push(t);
                gs.blocks_per_segment.push(blocks);
                gs.preempted_per_s.push(preempted);
            }
            serial_rounds.push(round.serial);
            pair_rounds.extend(round.pair);
            syscall_rounds.push(round.syscall);
        }
        grains.retain(|g| !g.samples_ns.is_empty());
        asleep.retain(|g| !g.samples_ns.is_empty());
        let short = cal.short.min(grains.len());
        MethodSweep {
            method,
            grains,
            short,
            asleep,
            serial_flop_per_ns: serial,
            serial_rounds,
            pair_rounds,
            syscall_rounds,
            placement,
        }
    }
}

/// The grains of `method` (from a pilot of the smallest segment and of one
/// pass over the vectors, unless the plan gives them) and the batch sizes.
fn calibrate_method(
    method: Method,
    plan: &SyncPlan,
    serial: f64,
    in_team: bool,
    clock: &ClockInfo,
    batch: &mut Batch<'_>,
    probe: &mut Serial,
) -> Result<Calibration, RankError> {
    let unit = 8 * plan.parts;
    let (grains, short) = match &plan.grains {
        Some(g) => (g.clone(), g.len()),
        None => {
            let min = |v: Vec<f64>| v.into_iter().fold(f64::INFINITY, f64::min);
            let (_, pilot) = measure(3, plan.target, clock, |reps| batch(unit, reps))?;
            let t_small = min(pilot);
            // The rate of a segment's work: every processor's while all of
            // them compute (the rate probe), not P times one's alone, which
            // two vCPUs on one core's hardware threads never reach: there
            // the long pilot's work at P times the serial rate came out at
            // half its time, the other half taken for overhead, and `s_1/2`
            // for a hundred times the true one (long grains at 1.9 Mflop
            // where `s_1/2` was 240 flop, on a 2-vCPU VM).
            let rate = match own_cpus(plan) {
                true => {
                    let reps = probe.reps_for(plan.target / 4);
                    probe.rate(batch(RATE_GRAIN, reps)?, reps, clock) * plan.parts as f64
                }
                false => serial * plan.parts as f64,
            };
            // A second pilot, one pass over the vectors: a method that spins
            // before it blocks (parking_lot's locks) hands small segments over
            // fast and long ones slowly; its t_0 is the long segments'.
            let long = plan.max_grain.max(unit);
            let (_, pilot) = measure(3, plan.target, clock, |reps| batch(long, reps))?;
            let s_half = t_small.max(min(pilot) - long as f64 / rate) * rate;
            let longest = MAX_PASSES * plan.max_grain.max(64 * plan.parts);
            let hi = ((s_half / 2.0) as usize).clamp(8 * unit, longest / 64);
            let mut grains = short_grains(method, unit, hi, plan.points);
            let short = grains.len();
            let top = ((LONG_OVER_S_HALF * s_half) as usize).clamp(16 * hi, longest);
            grains.extend(
                linear_grains(top / 4, top, LONG_GRAINS, unit)
                    .into_iter()
                    .filter(|&g| g > hi),
            );
            (grains, short)
        }
    };
    let reps = grains
        .iter()
        .map(|&g| calibrate(plan.target, |r| batch(g, r)))
        .collect::<Result<Vec<u64>, _>>()?;
    let asleep: Vec<usize> = match method.two_regimes() {
        true => grains[..short]
            .iter()
            .take(ASLEEP_GRAINS)
            .copied()
            .collect(),
        false => Vec::new(),
    };
    let asleep_reps = asleep
        .iter()
        .map(|&g| calibrate(plan.target, |r| batch(g | ASLEEP, r)))
        .collect::<Result<Vec<u64>, _>>()?;
    // The pair probe on the method's own threads: one batch of the two-flag
    // round trip, a quarter of the target long, at the start of every round.
    let pair_reps = match in_team {
        true => calibrate(plan.target / 4, |r| batch(PROBE_GRAIN, r))?,
        false => 0,
    };
    // The rate probe: one serial batch a round, a quarter of the target long;
    // the system-call probe an eighth.
    let serial_reps = probe.reps_for(plan.target / 4);
    let syscall_reps = calibrate(plan.target / 8, |r| Ok::<_, RankError>(futex_wakes(r)))?;
    Ok(Calibration {
        target: plan.target,
        grains,
        short,
        reps,
        asleep,
        asleep_reps,
        pair_reps,
        serial_reps,
        syscall_reps,
    })
}

/// One round: the pair probe where the method takes it (`in_team`), every
/// grain's batch as sub-batches, the system-call probe on the master's CPU,
/// then the rate probe, on every processor at once (`RATE_GRAIN`) where the
/// method's processors have CPUs of their own (`own_cpus`), else on the
/// master's CPU while the others wait.
pub(super) fn one_round(
    cal: &Calibration,
    reps: &mut [u64],
    in_team: bool,
    own_cpus: bool,
    clock: &ClockInfo,
    batch: &mut Batch<'_>,
    probe: &mut Serial,
) -> Result<Round, RankError> {
    let pair = match in_team {
        true => Some(per_rep_ns(
            batch(PROBE_GRAIN, cal.pair_reps)?,
            cal.pair_reps,
            clock,
        )),
        false => None,
    };
    let mut grains = Vec::with_capacity(cal.grains.len());
    for ((&grain, reps), &calibrated) in cal.grains.iter().zip(reps.iter_mut()).zip(&cal.reps) {
        let (row, whole) = grain_batch(batch, grain, *reps, cal.target, clock)?;
        *reps = resized_reps(*reps, calibrated, SUB_BATCHES as u64, whole, cal.target);
        grains.push(row);
    }
    let mut asleep = Vec::with_capacity(cal.asleep.len());
    for (&grain, &reps) in cal.asleep.iter().zip(&cal.asleep_reps) {
        asleep.push(grain_batch(batch, grain | ASLEEP, reps, cal.target, clock)?.0);
    }
    let syscall = per_rep_ns(futex_wakes(cal.syscall_reps), cal.syscall_reps, clock);
    let took = match own_cpus {
        true => batch(RATE_GRAIN, cal.serial_reps)?,
        false => probe.batch(cal.serial_reps),
    };
    Ok(Round {
        grains,
        asleep,
        serial: probe.rate(took, cal.serial_reps, clock),
        pair,
        syscall,
    })
}

/// One grain's batch of `reps` segments in a round, timed as sub-batches
/// ([`grain_sub_batches`]: an asleep grain's a segment each): per segment
/// its time and sleeps, each the median over
/// the sub-batches, and the preemptions per second of them all; and the
/// batch's time, scaled to all its sub-batches where it stopped early (a
/// batch past [`STRAY_FACTOR`] times `target`; never with a zero `target`).
pub(super) fn grain_batch(
    batch: &mut Batch<'_>,
    grain: usize,
    reps: u64,
    target: Duration,
    clock: &ClockInfo,
) -> Result<([f64; 3], Duration), RankError> {
    let (n, sub) = grain_sub_batches(grain, reps);
    let mut split = Vec::with_capacity(n);
    let mut split_blocks = Vec::with_capacity(n);
    let (mut taken, mut elapsed, mut done) = (0, Duration::ZERO, 0);
    for _ in 0..n {
        let switches = context_switches();
        let t = batch(grain, sub)?;
        let switched = context_switches().since(switches);
        split.push(per_rep_ns(t, sub, clock));
        split_blocks.push(switched.voluntary as f64 / sub as f64);
        taken += switched.involuntary;
        elapsed += t;
        done += 1;
        // A batch already past its bound (hand-overs that began to
        // sleep after the calibration) ends here: the round keeps the
        // sub-batches it has, and the next round's batch is resized.
        if !target.is_zero() && elapsed > target * STRAY_FACTOR {
            break;
        }
    }
    let whole = elapsed.mul_f64(n as f64 / done as f64);
    let median = |v: &mut Vec<f64>| interval::median_in_place(v).unwrap_or(f64::NAN);
    let row = [
        median(&mut split),
        median(&mut split_blocks),
        taken as f64 / elapsed.as_secs_f64().max(1e-9),
    ];
    Ok((row, whole))
}
