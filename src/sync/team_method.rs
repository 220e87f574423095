//! The synchronisation methods of this module as the waits of a work segment
//! shared by a team (Hockney's Figs. 3-6): a master that starts the workers, does
//! its own share and waits for theirs, and workers that wait to start and say
//! they are done. The `hockney-sync` kernel times one segment loop through each.

use crate::control::{RankError, TeamControl};
use crate::sync::Poll;
use crate::sync::barrier::{Episode, SpinBarrier};
use crate::sync::events::{Event, ParkEvent};
use crate::sync::locks::BinaryLock;
use crate::sync::spin::{DONE, GO, SpinFlag};
use crossbeam_utils::CachePadded;

/// The waits of a method whose processors stay alive between segments.
pub(crate) trait TeamMethod: Sync {
    /// Per-thread state.
    type Local: Default;
    /// Once per thread, before the first batch.
    fn setup(&self, _part: usize) {}
    /// Master, before its share.
    fn master_begin(&self, l: &mut Self::Local, c: &TeamControl) -> Result<(), RankError>;
    /// Master, after its share.
    fn master_end(&self, l: &mut Self::Local, c: &TeamControl) -> Result<(), RankError>;
    /// Worker `part`, before its share.
    fn worker_begin(
        &self,
        l: &mut Self::Local,
        part: usize,
        c: &TeamControl,
    ) -> Result<(), RankError>;
    /// Worker `part`, after its share.
    fn worker_end(
        &self,
        l: &mut Self::Local,
        part: usize,
        c: &TeamControl,
    ) -> Result<(), RankError>;
}

/// Fig. 4: `go[w]` and `done[w]` start set; the master clears `go`, works, sets
/// `done` (blocking until the worker clears it).
pub(crate) struct Locks {
    pub(crate) go: Vec<CachePadded<BinaryLock>>,
    pub(crate) done: Vec<CachePadded<BinaryLock>>,
}

impl TeamMethod for Locks {
    type Local = ();
    fn master_begin(&self, _: &mut (), _: &TeamControl) -> Result<(), RankError> {
        self.go.iter().for_each(|l| l.lock_off());
        Ok(())
    }
    fn master_end(&self, _: &mut (), c: &TeamControl) -> Result<(), RankError> {
        for (i, l) in self.done.iter().enumerate() {
            l.lock_on(c, i + 1)?;
        }
        Ok(())
    }
    fn worker_begin(&self, _: &mut (), part: usize, c: &TeamControl) -> Result<(), RankError> {
        self.go[part - 1].lock_on(c, 0)
    }
    fn worker_end(&self, _: &mut (), part: usize, _: &TeamControl) -> Result<(), RankError> {
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
}

impl Fig5Event for Event {
    fn new() -> Self {
        Event::new()
    }
    fn post(&self) {
        Event::post(self);
    }
    fn wait(&self, c: &TeamControl, peer: usize) -> Result<(), RankError> {
        Event::wait(self, c, peer)
    }
    fn clear(&self) {
        Event::clear(self);
    }
}

impl Fig5Event for ParkEvent {
    fn new() -> Self {
        ParkEvent::new()
    }
    fn register(&self) {
        ParkEvent::register(self);
    }
    fn post(&self) {
        ParkEvent::post(self);
    }
    fn wait(&self, c: &TeamControl, peer: usize) -> Result<(), RankError> {
        ParkEvent::wait(self, c, peer)
    }
    fn clear(&self) {
        ParkEvent::clear(self);
    }
}

/// Fig. 5: a pair of events per worker, on condvars or on park/unpark (call order:
/// see `crate::sync::events`).
pub(crate) struct Events<E> {
    pub(crate) to_worker: Vec<E>,
    pub(crate) to_master: Vec<E>,
}

impl<E: Fig5Event> Events<E> {
    pub(crate) fn new(workers: usize) -> Self {
        Events {
            to_worker: (0..workers).map(|_| E::new()).collect(),
            to_master: (0..workers).map(|_| E::new()).collect(),
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
    fn master_begin(&self, _: &mut (), _: &TeamControl) -> Result<(), RankError> {
        Ok(())
    }
    fn master_end(&self, _: &mut (), c: &TeamControl) -> Result<(), RankError> {
        for (i, e) in self.to_master.iter().enumerate() {
            e.wait(c, i + 1)?;
            e.clear();
        }
        self.to_worker.iter().for_each(E::post);
        Ok(())
    }
    fn worker_begin(&self, _: &mut (), _: usize, _: &TeamControl) -> Result<(), RankError> {
        Ok(())
    }
    fn worker_end(&self, _: &mut (), part: usize, c: &TeamControl) -> Result<(), RankError> {
        self.to_master[part - 1].post();
        self.to_worker[part - 1].wait(c, 0)?;
        self.to_worker[part - 1].clear();
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
    fn master_begin(&self, _: &mut (), _: &TeamControl) -> Result<(), RankError> {
        self.flags.iter().for_each(|f| f.post(GO));
        Ok(())
    }
    #[inline]
    fn master_end(&self, _: &mut (), c: &TeamControl) -> Result<(), RankError> {
        for (i, f) in self.flags.iter().enumerate() {
            f.wait_for(DONE, self.poll, c, i + 1)?;
        }
        Ok(())
    }
    #[inline]
    fn worker_begin(&self, _: &mut (), part: usize, c: &TeamControl) -> Result<(), RankError> {
        self.flags[part - 1].wait_for(GO, self.poll, c, 0)
    }
    #[inline]
    fn worker_end(&self, _: &mut (), part: usize, _: &TeamControl) -> Result<(), RankError> {
        self.flags[part - 1].post(DONE);
        Ok(())
    }
}

/// `std::sync::Barrier` at the end of each segment (no timeout: see
/// `crate::sync::barrier`); every party looks at the abort flag after it.
pub(crate) struct StdBarrier(pub(crate) std::sync::Barrier);

impl StdBarrier {
    pub(crate) fn meet(&self, c: &TeamControl) -> Result<(), RankError> {
        self.0.wait();
        if c.aborted() {
            return Err(RankError::Aborted);
        }
        Ok(())
    }
}

impl TeamMethod for StdBarrier {
    type Local = ();
    fn master_begin(&self, _: &mut (), _: &TeamControl) -> Result<(), RankError> {
        Ok(())
    }
    fn master_end(&self, _: &mut (), c: &TeamControl) -> Result<(), RankError> {
        self.meet(c)
    }
    fn worker_begin(&self, _: &mut (), _: usize, _: &TeamControl) -> Result<(), RankError> {
        Ok(())
    }
    fn worker_end(&self, _: &mut (), _: usize, c: &TeamControl) -> Result<(), RankError> {
        self.meet(c)
    }
}

/// The dissemination spin barrier at the end of each segment.
pub(crate) struct SpinBarrierMethod {
    pub(crate) barrier: SpinBarrier,
    pub(crate) poll: Poll,
}

impl TeamMethod for SpinBarrierMethod {
    type Local = Episode;
    fn master_begin(&self, _: &mut Episode, _: &TeamControl) -> Result<(), RankError> {
        Ok(())
    }
    fn master_end(&self, l: &mut Episode, c: &TeamControl) -> Result<(), RankError> {
        self.barrier.wait(0, l, self.poll, c)
    }
    fn worker_begin(&self, _: &mut Episode, _: usize, _: &TeamControl) -> Result<(), RankError> {
        Ok(())
    }
    fn worker_end(&self, l: &mut Episode, rank: usize, c: &TeamControl) -> Result<(), RankError> {
        self.barrier.wait(rank, l, self.poll, c)
    }
}
