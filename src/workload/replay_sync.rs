//! The `//@ sync` meetings of a replay ([`crate::model::goal::Meeting`]): each
//! meeting runs the `hockney-sync` method it names, on the ranks' own threads,
//! as one zero-work segment of that kernel: the master (the lowest member)
//! calls the method's `master_begin` then `master_end`, every other member
//! `worker_begin` then `worker_end`, all in the awake regime (a waiter polls
//! the method's own test, then waits), which is how `t0_ns` was timed. A
//! meeting is a barrier: the master leaves once every worker has arrived, a
//! worker once the master has.
//!
//! Each meeting has its own method object (its flags, locks or events), made
//! before the team starts and used once a trial; a rank's per-method state
//! (a barrier's episode count) lives with the rank. The waits poll as
//! `hockney-sync`'s do: bare, with the spin-loop hint for `spin-hint`, and
//! giving the CPU away when ranks share CPUs; each has the team's deadline.

use crate::control::{RankError, TeamControl};
use crate::model::goal::Schedule;
use crate::sync::Poll;
use crate::sync::barrier::{Episode, SpinBarrier};
use crate::sync::events::{Event, ParkEvent};
use crate::sync::spin::SpinFlag;
use crate::sync::team_method::{
    Events, Locks, Regime, Spin, SpinBarrierMethod, StdBarrier, TeamMethod,
};

/// One meeting's method object.
enum Method {
    Locks(Locks),
    Condvar(Events<Event>),
    Park(Events<ParkEvent>),
    Spin(Spin),
    Std(StdBarrier),
    Dissemination(SpinBarrierMethod),
}

/// Every meeting of a schedule, shared by the ranks of a replay.
pub(crate) struct Meetings {
    methods: Vec<Method>,
    members: Vec<Vec<u32>>,
}

/// A rank's state for one meeting.
#[derive(Default)]
pub(crate) struct MeetLocal {
    met: u64,
    episode: Episode,
}

impl Meetings {
    /// The method objects of `s`'s meetings; `shared`: ranks share CPUs (the
    /// waits yield).
    pub(crate) fn new(s: &Schedule, shared: bool) -> Meetings {
        let poll = |hint: bool| match (shared, hint) {
            (true, _) => Poll::Yield,
            (false, true) => Poll::Hint,
            (false, false) => Poll::Bare,
        };
        let methods = s
            .meetings
            .iter()
            .map(|m| {
                let parts = m.members.len();
                let workers = parts - 1;
                match m.method.as_str() {
                    "locks" => Method::Locks(Locks::new(workers, poll(false))),
                    "events-condvar" => Method::Condvar(Events::new(workers, poll(false))),
                    "events-park" => Method::Park(Events::new(workers, poll(false))),
                    "spin-hint" | "spin-nohint" => Method::Spin(Spin {
                        flags: (0..workers).map(|_| SpinFlag::new()).collect(),
                        poll: poll(m.method == "spin-hint"),
                    }),
                    "barrier-std" => Method::Std(StdBarrier::new(parts, poll(false))),
                    "barrier-spin" => Method::Dissemination(SpinBarrierMethod {
                        barrier: SpinBarrier::new(parts),
                        poll: poll(false),
                    }),
                    other => unreachable!("the reader accepts no method `{other}`"),
                }
            })
            .collect();
        Meetings {
            methods,
            members: s.meetings.iter().map(|m| m.members.clone()).collect(),
        }
    }

    /// Rank `rank`'s part in meeting `k` (0 for the master), if a member.
    fn part(&self, k: usize, rank: usize) -> Option<usize> {
        self.members[k].iter().position(|&m| m as usize == rank)
    }

    /// Called once on rank `rank`'s own thread before its first meeting: the
    /// methods' set-up (an event's waiter registers) and the rank's state.
    pub(crate) fn setup(&self, rank: usize) -> Vec<MeetLocal> {
        for (k, m) in self.methods.iter().enumerate() {
            let Some(part) = self.part(k, rank) else {
                continue;
            };
            match m {
                Method::Locks(m) => m.setup(part),
                Method::Condvar(m) => m.setup(part),
                Method::Park(m) => m.setup(part),
                Method::Spin(m) => m.setup(part),
                Method::Std(m) => m.setup(part),
                Method::Dissemination(m) => m.setup(part),
            }
        }
        self.methods.iter().map(|_| MeetLocal::default()).collect()
    }

    /// Rank `rank` meets the other members of meeting `k`; returns when they
    /// all have arrived (the master) or the master has (a worker).
    pub(crate) fn meet(
        &self,
        k: usize,
        rank: usize,
        local: &mut MeetLocal,
        c: &TeamControl,
    ) -> Result<(), RankError> {
        let part = self.part(k, rank).ok_or_else(|| {
            RankError::Failed(format!(
                "replay: rank {rank} is not a member of meeting {k}"
            ))
        })?;
        match &self.methods[k] {
            Method::Locks(m) => segment(m, &mut (), part, c),
            Method::Condvar(m) => segment(m, &mut (), part, c),
            Method::Park(m) => segment(m, &mut (), part, c),
            Method::Spin(m) => segment(m, &mut (), part, c),
            Method::Std(m) => segment(m, &mut local.met, part, c),
            Method::Dissemination(m) => segment(m, &mut local.episode, part, c),
        }
    }
}

/// One zero-work segment of `m`, as `hockney-sync` times it, awake.
#[inline]
fn segment<M: TeamMethod>(
    m: &M,
    local: &mut M::Local,
    part: usize,
    c: &TeamControl,
) -> Result<(), RankError> {
    if part == 0 {
        m.master_begin(local, c, Regime::Awake)?;
        m.master_end(local, c, Regime::Awake)
    } else {
        m.worker_begin(local, part, c, Regime::Awake)?;
        m.worker_end(local, part, c, Regime::Awake)
    }
}
