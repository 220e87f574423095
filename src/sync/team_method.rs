//! The synchronisation methods of this module as the waits of a work segment
//! shared by a team (Hockney's Figs. 3-6): a master that starts the workers, does
//! its own share and waits for theirs, and workers that wait to start and say
//! they are done. The `hockney-sync` kernel times one segment loop through each.
//!
//! A blocking method's hand-over costs a line transfer when its waiter is
//! awake and a wake-up (tens of µs on a VM) when it sleeps, so each wait is
//! made in a [`Regime`] the caller names, by construction: `Awake`, the
//! waiter polls the method's own non-blocking test (the lock's state, the
//! event's flag) until the wait would return at once, then waits; `Asleep`,
//! it waits at once, and every post a waiter waits for is held back
//! [`ASLEEP_HOLD`] (busy) by its poster, long past any spin phase (the
//! lock's is at most ten rounds of pauses and yields, a few µs): every
//! blocking wait sleeps, by construction.
//! The std barrier has no such test: awake, its parties first meet at a
//! spin rendezvous, so that its waiter waits at most a line transfer.

use crate::control::{RankError, TeamControl};
use crate::sync::Poll;
use crate::sync::barrier::{Episode, SpinBarrier};
use crate::sync::events::{Event, ParkEvent};
use crate::sync::locks::BinaryLock;
use crate::sync::spin::{DONE, GO, SpinFlag};
use crossbeam_utils::CachePadded;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How long a poster holds back a post in the asleep regime ([`Regime`]).
pub(crate) const ASLEEP_HOLD: Duration = Duration::from_micros(100);

/// How a waiter is when its hand-over comes (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Regime {
    /// Kept polling: the method's wait returns at once.
    Awake,
    /// Waits at once, in the method's own blocking wait.
    Asleep,
}

impl Regime {
    /// Holds the poster back [`ASLEEP_HOLD`], busy, in the asleep regime:
    /// its waiter is asleep when the post comes.
    #[inline]
    fn hold(self) {
        if self == Regime::Asleep {
            let start = Instant::now();
            while start.elapsed() < ASLEEP_HOLD {
                std::hint::spin_loop();
            }
        }
    }

    /// Polls `ready` (with `poll`, to `c`'s deadline) where the waiter is
    /// kept awake; nothing where it is to sleep.
    #[inline]
    fn keep_awake(
        self,
        poll: Poll,
        c: &TeamControl,
        peer: usize,
        ready: impl FnMut() -> bool,
    ) -> Result<(), RankError> {
        match self {
            Regime::Awake => poll.until(c, peer, ready),
            Regime::Asleep => Ok(()),
        }
    }
}

/// The waits of a method whose processors stay alive between segments.
pub(crate) trait TeamMethod: Sync {
    /// Per-thread state.
    type Local: Default;
    /// Once per thread, before the first batch.
    fn setup(&self, _part: usize) {}
    /// Master, before its share.
    fn master_begin(
        &self,
        l: &mut Self::Local,
        c: &TeamControl,
        r: Regime,
    ) -> Result<(), RankError>;
    /// Master, after its share.
    fn master_end(&self, l: &mut Self::Local, c: &TeamControl, r: Regime) -> Result<(), RankError>;
    /// Worker `part`, before its share; nothing for a method whose workers
    /// meet the master only after their share (events, barriers).
    fn worker_begin(
        &self,
        _l: &mut Self::Local,
        _part: usize,
        _c: &TeamControl,
        _r: Regime,
    ) -> Result<(), RankError> {
        Ok(())
    }
    /// Worker `part`, after its share.
    fn worker_end(
        &self,
        l: &mut Self::Local,
        part: usize,
        c: &TeamControl,
        r: Regime,
    ) -> Result<(), RankError>;
}

/// Fig. 4: `go[w]` and `done[w]` start set; the master clears `go`, works, sets
/// `done` (blocking until the worker clears it).
pub(crate) struct Locks {
    pub(crate) go: Vec<CachePadded<BinaryLock>>,
    pub(crate) done: Vec<CachePadded<BinaryLock>>,
    /// How a waiter kept awake polls the lock.
    pub(crate) poll: Poll,
}

impl Locks {
    /// Every worker's `go` and `done` locks, set.
    pub(crate) fn new(workers: usize, poll: Poll) -> Self {
        let set = || {
            (0..workers)
                .map(|_| CachePadded::new(BinaryLock::new_locked()))
                .collect()
        };
        Locks {
            go: set(),
            done: set(),
            poll,
        }
    }
}

impl TeamMethod for Locks {
    type Local = ();
    fn master_begin(&self, _: &mut (), _: &TeamControl, r: Regime) -> Result<(), RankError> {
        r.hold();
        self.go.iter().for_each(|l| l.lock_off());
        Ok(())
    }
    fn master_end(&self, _: &mut (), c: &TeamControl, r: Regime) -> Result<(), RankError> {
        for (i, l) in self.done.iter().enumerate() {
            r.keep_awake(self.poll, c, i + 1, || !l.is_locked())?;
            l.lock_on(c, i + 1)?;
        }
        Ok(())
    }
    fn worker_begin(
        &self,
        _: &mut (),
        part: usize,
        c: &TeamControl,
        r: Regime,
    ) -> Result<(), RankError> {
        let go = &self.go[part - 1];
        r.keep_awake(self.poll, c, 0, || !go.is_locked())?;
        go.lock_on(c, 0)
    }
    fn worker_end(
        &self,
        _: &mut (),
        part: usize,
        _: &TeamControl,
        r: Regime,
    ) -> Result<(), RankError> {
        r.hold();
        self.done[part - 1].lock_off();
        Ok(())
    }
}

/// The calls of Fig. 5 that an event offers.
pub(crate) trait Fig5Event: Sync {
    fn new() -> Self;
    /// Called once by the thread that will wait on the event.
    fn register(&self) {}
    fn post(&self);
    fn wait(&self, c: &TeamControl, peer: usize) -> Result<(), RankError>;
    fn clear(&self);
    /// Whether it looks posted, without waiting (a hint).
    fn peek(&self) -> bool;
}

/// `Fig5Event` for an event type whose inherent calls bear the trait's names:
/// each call forwards to the inherent one; `extra` holds what the type adds
/// (a `register`).
macro_rules! fig5_event {
    ($event:ident { $($extra:tt)* }) => {
        impl Fig5Event for $event {
            fn new() -> Self {
                $event::new()
            }
            fn post(&self) {
                $event::post(self);
            }
            fn wait(&self, c: &TeamControl, peer: usize) -> Result<(), RankError> {
                $event::wait(self, c, peer)
            }
            fn clear(&self) {
                $event::clear(self);
            }
            fn peek(&self) -> bool {
                $event::peek(self)
            }
            $($extra)*
        }
    };
}

fig5_event!(Event {});
fig5_event!(ParkEvent {
    fn register(&self) {
        ParkEvent::register(self);
    }
});

/// Fig. 5: a pair of events per worker, on condvars or on park/unpark (call order:
/// see `crate::sync::events`).
pub(crate) struct Events<E> {
    pub(crate) to_worker: Vec<E>,
    pub(crate) to_master: Vec<E>,
    /// How a waiter kept awake polls its event.
    pub(crate) poll: Poll,
}

impl<E: Fig5Event> Events<E> {
    pub(crate) fn new(workers: usize, poll: Poll) -> Self {
        Events {
            to_worker: (0..workers).map(|_| E::new()).collect(),
            to_master: (0..workers).map(|_| E::new()).collect(),
            poll,
        }
    }
}

impl<E: Fig5Event> TeamMethod for Events<E> {
    type Local = ();
    fn setup(&self, part: usize) {
        if part == 0 {
            self.to_master.iter().for_each(E::register);
        } else {
            self.to_worker[part - 1].register();
        }
    }
    fn master_begin(&self, _: &mut (), _: &TeamControl, _: Regime) -> Result<(), RankError> {
        Ok(())
    }
    fn master_end(&self, _: &mut (), c: &TeamControl, r: Regime) -> Result<(), RankError> {
        for (i, e) in self.to_master.iter().enumerate() {
            r.keep_awake(self.poll, c, i + 1, || e.peek())?;
            e.wait(c, i + 1)?;
            e.clear();
        }
        r.hold();
        self.to_worker.iter().for_each(E::post);
        Ok(())
    }
    fn worker_end(
        &self,
        _: &mut (),
        part: usize,
        c: &TeamControl,
        r: Regime,
    ) -> Result<(), RankError> {
        let to_worker = &self.to_worker[part - 1];
        r.hold();
        self.to_master[part - 1].post();
        r.keep_awake(self.poll, c, 0, || to_worker.peek())?;
        to_worker.wait(c, 0)?;
        to_worker.clear();
        Ok(())
    }
}

/// Fig. 6: one flag per worker.
pub(crate) struct Spin {
    pub(crate) flags: Vec<SpinFlag>,
    pub(crate) poll: Poll,
}

impl TeamMethod for Spin {
    type Local = ();
    #[inline]
    fn master_begin(&self, _: &mut (), _: &TeamControl, _: Regime) -> Result<(), RankError> {
        self.flags.iter().for_each(|f| f.post(GO));
        Ok(())
    }
    #[inline]
    fn master_end(&self, _: &mut (), c: &TeamControl, _: Regime) -> Result<(), RankError> {
        for (i, f) in self.flags.iter().enumerate() {
            f.wait_for(DONE, self.poll, c, i + 1)?;
        }
        Ok(())
    }
    #[inline]
    fn worker_begin(
        &self,
        _: &mut (),
        part: usize,
        c: &TeamControl,
        _: Regime,
    ) -> Result<(), RankError> {
        self.flags[part - 1].wait_for(GO, self.poll, c, 0)
    }
    #[inline]
    fn worker_end(
        &self,
        _: &mut (),
        part: usize,
        _: &TeamControl,
        _: Regime,
    ) -> Result<(), RankError> {
        self.flags[part - 1].post(DONE);
        Ok(())
    }
}

/// `std::sync::Barrier` at the end of each segment (no timeout: see
/// `crate::sync::barrier`); every party looks at the abort flag after it.
/// Awake, the parties first meet at a spin rendezvous on `arrived` (the
/// count of arrivals; each party counts its own meetings in its `Local`).
pub(crate) struct StdBarrier {
    pub(crate) barrier: std::sync::Barrier,
    pub(crate) parties: usize,
    pub(crate) arrived: CachePadded<AtomicU64>,
    pub(crate) poll: Poll,
}

impl StdBarrier {
    /// A barrier of `parties` whose rendezvous polls with `poll`.
    pub(crate) fn new(parties: usize, poll: Poll) -> StdBarrier {
        StdBarrier {
            barrier: std::sync::Barrier::new(parties),
            parties,
            arrived: CachePadded::new(AtomicU64::new(0)),
            poll,
        }
    }

    pub(crate) fn meet(
        &self,
        met: &mut u64,
        c: &TeamControl,
        r: Regime,
        me: usize,
    ) -> Result<(), RankError> {
        if r == Regime::Awake {
            *met += 1;
            let all = *met * self.parties as u64;
            // Relaxed: the rendezvous only times the arrivals; the barrier
            // that follows orders the parties' writes.
            self.arrived.fetch_add(1, Ordering::Relaxed);
            // The rank named in a deadline error: the next one round.
            let peer = (me + 1) % self.parties;
            // Relaxed: as above.
            r.keep_awake(self.poll, c, peer, || {
                self.arrived.load(Ordering::Relaxed) >= all
            })?;
        }
        self.barrier.wait();
        if c.aborted() {
            return Err(RankError::Aborted);
        }
        Ok(())
    }
}

impl TeamMethod for StdBarrier {
    type Local = u64;
    fn master_begin(&self, _: &mut u64, _: &TeamControl, _: Regime) -> Result<(), RankError> {
        Ok(())
    }
    fn master_end(&self, met: &mut u64, c: &TeamControl, r: Regime) -> Result<(), RankError> {
        self.meet(met, c, r, 0)
    }
    fn worker_end(
        &self,
        met: &mut u64,
        part: usize,
        c: &TeamControl,
        r: Regime,
    ) -> Result<(), RankError> {
        // The workers arrive last: the master sleeps in the barrier.
        r.hold();
        self.meet(met, c, r, part)
    }
}

/// The dissemination spin barrier at the end of each segment.
pub(crate) struct SpinBarrierMethod {
    pub(crate) barrier: SpinBarrier,
    pub(crate) poll: Poll,
}

impl TeamMethod for SpinBarrierMethod {
    type Local = Episode;
    fn master_begin(&self, _: &mut Episode, _: &TeamControl, _: Regime) -> Result<(), RankError> {
        Ok(())
    }
    fn master_end(&self, l: &mut Episode, c: &TeamControl, _: Regime) -> Result<(), RankError> {
        self.barrier.wait(0, l, self.poll, c)
    }
    fn worker_end(
        &self,
        l: &mut Episode,
        rank: usize,
        c: &TeamControl,
        _: Regime,
    ) -> Result<(), RankError> {
        self.barrier.wait(rank, l, self.poll, c)
    }
}
