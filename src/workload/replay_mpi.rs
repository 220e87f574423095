//! `replay --transport mpi`: a GOAL schedule replayed by the processes of
//! `mpirun`, one rank a process (feature `mpi`), with the thread replay's engine,
//! checks and result.
//!
//! Each process runs its rank's operations with the same `RankEngine` as a
//! thread of the thread replay, over its [`MpiEndpoint`](crate::transport::mpi::MpiEndpoint) (buffered sends of the
//! schedule's largest message, so that ranks may send to each other at once),
//! after the team's start gate; rank 0 times, as everywhere. Then every rank's
//! record travels to rank 0 in one gather of equal-length `u64` vectors (the
//! counts, then the finish times, then rank 0's times), and rank 0 builds the
//! same [`ReplayOutcome`] as the thread replay, marked `over_mpi`, with the CPU
//! each process pinned itself to and the team's placement.
//!
//! # Invariants
//! - The world has exactly the schedule's ranks; anything else is refused on every
//!   process alike before any message.
//! - No hang: every wait has the team's deadline; a rank that fails returns its
//!   error, and the caller ends the job (`Processes::abort`) so that no peer waits
//!   in the gather.

use super::replay::{
    ReplayConfig, ReplayError, ReplayOutcome, outcome, run_rank, validate, warmup,
};
use super::replay_calc::CalcRate;
use super::replay_engine::RankRecord;
use crate::model::goal::Schedule;
use crate::team::mpi::Processes;
use crate::transport::TransportConfig;
use mpi::traits::{Communicator, Root};

/// Counts ahead of the per-trial times in a record's vector.
const HEAD: usize = 5;

/// Replays `schedule` on the processes of `procs`, `config.trials` timed trials
/// after a warm-up (`config.transport`, `cpus` and `oversubscribe` are the
/// thread replay's and unused here). Rank 0 returns the outcome, the other
/// ranks `None`.
pub fn replay_mpi(
    schedule: &Schedule,
    config: &ReplayConfig,
    procs: &Processes,
) -> Result<Option<ReplayOutcome>, ReplayError> {
    let max_wire = validate(schedule)?;
    if let Some(m) = schedule.meetings.first() {
        return Err(ReplayError::Unsupported {
            schedule: schedule.name.clone(),
            rank: m.members[0],
            label: format!("//@ sync {}", m.method),
            line: m.line,
            what: "a `//@ sync` meeting synchronises threads; replay it over mailbox or channel"
                .into(),
        });
    }
    if config.trials == 0 {
        return Err(ReplayError::NoTrials);
    }
    if procs.size() != schedule.num_ranks as usize {
        return Err(ReplayError::WorldSize {
            schedule: schedule.name.clone(),
            num_ranks: schedule.num_ranks,
            processes: procs.size(),
        });
    }
    let rate = CalcRate::calibrate();
    let record = procs
        .run_buffered(
            &format!("replay {}", schedule.name),
            Some(max_wire),
            |ctx, ep| {
                let warmup = warmup(schedule, &TransportConfig::buffered(max_wire));
                run_rank(
                    ctx,
                    ep,
                    (schedule, None),
                    rate,
                    max_wire,
                    (config.trials, warmup),
                )
            },
        )
        .map_err(|source| ReplayError::Team {
            schedule: schedule.name.clone(),
            transport: config.transport,
            source,
        })?;
    let mine = pack(&record, config.trials);
    let root = procs.world().process_at_rank(0);
    if procs.rank() != 0 {
        root.gather_into(&mine[..]);
        return Ok(None);
    }
    let mut all = vec![0u64; mine.len() * procs.size()];
    root.gather_into_root(&mine[..], &mut all[..]);
    let records: Vec<RankRecord> = all
        .chunks(mine.len())
        .map(|v| unpack(v, config.trials))
        .collect();
    let hosts = procs.members().iter().map(|m| m.cpu).collect();
    let mut out = outcome(schedule, config, (procs.placement(), hosts), rate, &records)?;
    out.over_mpi = true;
    Ok(Some(out))
}

/// A record as `HEAD` counts, the finish times, then the times (zeros on ranks
/// other than 0), `HEAD + 2 trials` numbers.
fn pack(r: &RankRecord, trials: usize) -> Vec<u64> {
    let mut v = vec![
        r.calc_asked_ns,
        r.calc_took_ns,
        r.messages,
        r.bytes_checked,
        r.warmup_trials as u64,
    ];
    v.extend((0..trials).map(|t| r.finish_ns.get(t).copied().unwrap_or(0)));
    v.extend((0..trials).map(|t| r.time_ns.get(t).copied().unwrap_or(0)));
    v
}

fn unpack(v: &[u64], trials: usize) -> RankRecord {
    RankRecord {
        calc_asked_ns: v[0],
        calc_took_ns: v[1],
        messages: v[2],
        bytes_checked: v[3],
        warmup_trials: v[4] as usize,
        finish_ns: v[HEAD..HEAD + trials].to_vec(),
        time_ns: v[HEAD + trials..HEAD + 2 * trials].to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_survives_packing() {
        let r = RankRecord {
            finish_ns: vec![10, 20, 30],
            time_ns: vec![11, 21, 31],
            calc_asked_ns: 5,
            calc_took_ns: 6,
            messages: 7,
            bytes_checked: 8,
            warmup_trials: 9,
        };
        let v = pack(&r, 3);
        assert_eq!(v, vec![5, 6, 7, 8, 9, 10, 20, 30, 11, 21, 31]);
        let back = unpack(&v, 3);
        assert_eq!(back.finish_ns, r.finish_ns);
        assert_eq!(back.time_ns, r.time_ns);
        assert_eq!(
            (
                back.calc_asked_ns,
                back.calc_took_ns,
                back.messages,
                back.bytes_checked,
                back.warmup_trials
            ),
            (5, 6, 7, 8, 9)
        );
    }
}
