//! The watchdog that holds the deadline of the transport's blocking calls.
//!
//! A rank alone on its CPU sends with `MPI_Send` and receives with
//! `MPI_Recv`, as a plain MPI program does, rather than polling `MPI_Test`
//! under the deadline: the polled wait costs a ping-pong several per cent
//! (`results/mpi.md`). A blocking call cannot be interrupted, so a thread of
//! its own keeps the deadline: the rank arms the process's [`WORD`] around
//! each blocking call, and the watchdog, sampling it every
//! [`tick`](crate::transport::watch::tick), ends the process when one call
//! has lasted the deadline. It prints the same line a failed wait gives
//! (kernel, rank, peer, deadline) and exits with status 2 without another MPI
//! call (the process runs MPI at `MPI_THREAD_SINGLE`, so the watchdog may
//! make none); `mpirun` then ends the other processes of the job, as after a
//! rank's `MPI_Abort`. The result file keeps every kernel finished before
//! (rank 0 writes it after each).
//!
//! One watchdog a process (MPI is one a process): the team of processes
//! starts it after MPI is initialised and the process pinned (the thread
//! shares the rank's CPU and wakes at most four times a second), names the
//! kernel before each run, and stops it before MPI is finalised. Endpoints
//! made while no watchdog runs keep the polled waits.

use crate::control::RankError;
use crate::transport::watch::{WatchWord, Watcher, tick};
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The process's watch word: armed around every blocking MPI call of the
/// transport (made only by the thread that initialised MPI).
pub(crate) static WORD: WatchWord = WatchWord::new();

/// Whether a watchdog runs (endpoints block only then).
static RUNNING: AtomicBool = AtomicBool::new(false);

/// Whether a watchdog is watching [`WORD`].
#[inline]
pub(crate) fn running() -> bool {
    // Acquire: pairs with the Release in `Watchdog::start`, after the thread
    // is spawned, so a blocking wait is armed only once it watches.
    RUNNING.load(Ordering::Acquire)
}

/// The process's watchdog; stops (and joins its thread) when dropped.
#[derive(Debug)]
pub struct Watchdog {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

#[derive(Debug)]
struct Shared {
    stop: AtomicBool,
    /// The kernel the process runs, named in the report.
    kernel: Mutex<String>,
}

impl Watchdog {
    /// Starts the watchdog of `rank` with the team's `deadline`; `None` when
    /// one already runs in this process or the thread cannot start.
    pub fn start(rank: usize, deadline: Duration) -> Option<Watchdog> {
        if running() {
            return None;
        }
        let shared = Arc::new(Shared {
            stop: AtomicBool::new(false),
            kernel: Mutex::new(String::new()),
        });
        let theirs = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("halfperf-mpi-watchdog".into())
            .spawn(move || watch(&theirs, rank, deadline))
            .ok()?;
        // Release: see `running`.
        RUNNING.store(true, Ordering::Release);
        Some(Watchdog {
            shared,
            thread: Some(thread),
        })
    }

    /// Names the kernel the process runs from now on (outside the timed code).
    pub fn kernel(&self, name: &str) {
        let mut k = self.shared.kernel.lock().unwrap_or_else(|p| p.into_inner());
        k.clear();
        k.push_str(name);
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        // Relaxed: the flag carries no data; `unpark` wakes the thread, and
        // `join` orders its end before ours.
        self.shared.stop.store(true, Ordering::Relaxed);
        // Release: pairs with `running`'s Acquire; no endpoint made after
        // this arms the word.
        RUNNING.store(false, Ordering::Release);
        if let Some(t) = self.thread.take() {
            t.thread().unpark();
            let _ = t.join();
        }
    }
}

/// The watchdog's loop: sample every tick until stopped; on a stall, report
/// and end the process.
fn watch(shared: &Shared, rank: usize, deadline: Duration) {
    let origin = Instant::now();
    let every = tick(deadline);
    let mut watcher = Watcher::new(Duration::ZERO);
    // Relaxed: see `Drop`.
    while !shared.stop.load(Ordering::Relaxed) {
        std::thread::park_timeout(every);
        let Some(stalled) = watcher.sample(&WORD, origin.elapsed(), deadline) else {
            continue;
        };
        let kernel = shared
            .kernel
            .lock()
            .map(|k| k.clone())
            .unwrap_or_else(|p| p.into_inner().clone());
        let error = RankError::Deadline {
            peer: stalled.peer,
            waited_ms: stalled.waited.as_millis() as u64,
        };
        // The line a failed wait gives (the team's `TeamError::Rank`).
        let mut err = std::io::stderr().lock();
        let _ = writeln!(
            err,
            "halfperf: error: kernel {kernel}, rank {rank}: {error}"
        );
        let _ = err.flush();
        // SAFETY: `_exit` ends the process at once, running no exit handler
        // (MPI's among them, which must not run beside the rank's thread
        // inside an MPI call); it has no memory preconditions.
        unsafe { libc::_exit(2) };
    }
}
