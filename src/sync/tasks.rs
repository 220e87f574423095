//! TASKS (Hockney, Fig. 3): the master starts a task on the other processor
//! (`TSKSTART`), does its own half, and waits for the task to end (`TSKWAIT`), so
//! the cost of creating a task is paid at every segment. [`spawn_join`] is that,
//! with a new OS thread per processor and segment (`std::thread::scope`), started
//! while the master's affinity is open to the segment's CPUs so that it can run at
//! once, and pinned by itself to its CPU first (`TSKSTART` put the task on the
//! other CPU).
//!
//! A modern program would keep its threads: [`Pool`] is a persistent pool of
//! pinned workers with a fork/join call, built as the work-stealing pools are
//! (rayon): an idle worker polls for a new job for a while (`spin_polls`), then
//! announces that it sleeps and parks; a fork wakes only sleeping workers; the
//! master does its share and then waits for the others.
//!
//! # Memory ordering
//! A fork publishes the job with a `SeqCst` increment of the generation that a
//! worker reads with at least `Acquire`; the `SeqCst` pair (generation bump, then
//! reading the sleep flags; set the sleep flag, then re-read the generation) is the
//! Dekker handshake that keeps a fork from missing a worker that is going to sleep.
//! A worker's `Release` decrement of `pending` publishes its results, and the
//! master's `Acquire` read of `pending == 0` sees them.

use super::POLL_SLICE;
use crate::platform::{PinError, pin_current_thread};
use crossbeam_utils::CachePadded;
use std::cell::UnsafeCell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Fig. 3: runs `work(p)` for `p` in `1..parts` on new threads pinned to
/// `cpus[p % cpus.len()]`, `work(0)` on the calling thread, and joins them.
/// A panic in a task is propagated when the scope ends.
///
/// The caller runs on `cpus[0]`. A new thread inherits its creator's affinity, and
/// with the master's one CPU it could not start before the master blocked in the
/// join, after its own half: the segment would run serially. So the master opens
/// its affinity to every CPU of the segment while it starts the tasks (the kernel
/// may place each task on an idle CPU at once), and closes it again before its own
/// half; each task then pins itself to its CPU. Both are the task start's own cost.
#[inline(never)]
pub fn spawn_join<F: Fn(usize) + Sync>(cpus: &[usize], parts: usize, work: &F) {
    std::thread::scope(|scope| {
        set_affinity(cpus);
        for p in 1..parts {
            let cpu = cpus[p % cpus.len()];
            scope.spawn(move || {
                // One affinity call, no read-back: this is the task start's own cost.
                core_affinity::set_for_current(core_affinity::CoreId { id: cpu });
                work(p);
            });
        }
        set_affinity(&cpus[..1]);
        work(0);
    });
}

/// Sets the calling thread's affinity to `cpus` (those below `CPU_SETSIZE`).
fn set_affinity(cpus: &[usize]) {
    // SAFETY: `cpu_set_t` is plain data and all-zero is the empty set; `CPU_SET`
    // writes only inside the set for indices below `CPU_SETSIZE`, which the filter
    // ensures; `sched_setaffinity` reads `size_of::<cpu_set_t>()` bytes of it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &c in cpus.iter().filter(|&&c| c < libc::CPU_SETSIZE as usize) {
            libc::CPU_SET(c, &mut set);
        }
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
}

/// A type-erased job: the data pointer and the function that runs it for a part.
#[derive(Clone, Copy)]
struct JobRef {
    data: *const (),
    run: unsafe fn(*const (), usize),
}

/// # Safety
/// `data` must point to a live `F`.
unsafe fn run_job<F: Fn(usize) + Sync>(data: *const (), part: usize) {
    // SAFETY: the caller guarantees `data` is a live `F` (fork_join keeps it
    // borrowed until every worker has finished).
    let f = unsafe { &*(data as *const F) };
    f(part);
}

fn no_job(_: *const (), _: usize) {}

struct PoolShared {
    generation: CachePadded<AtomicU64>,
    pending: CachePadded<AtomicUsize>,
    /// Written by the master only while no worker runs a job (pending == 0 and
    /// before the generation bump that announces it).
    job: UnsafeCell<JobRef>,
    sleeping: Vec<CachePadded<AtomicBool>>,
    panicked: AtomicBool,
    stop: AtomicBool,
    spin_polls: u32,
}

// SAFETY: `job` is the only non-Sync field; it is written by the forking thread
// only while every worker is idle (see `fork_join`) and read by workers only
// after they acquire the generation that announced it.
unsafe impl Sync for PoolShared {}
// SAFETY: as above; the raw pointer inside `job` is only dereferenced under the
// same protocol.
unsafe impl Send for PoolShared {}

/// Why a pool could not be used.
#[derive(Debug, thiserror::Error)]
pub enum PoolError {
    /// A worker could not be pinned.
    #[error("pool worker {worker}: {source}")]
    Pin {
        /// The worker (1-based part number).
        worker: usize,
        /// Why.
        source: PinError,
    },
    /// A job panicked on a worker.
    #[error("a pool worker panicked while running a job")]
    Panicked,
}

/// A persistent pool of pinned worker threads with a fork/join call.
pub struct Pool {
    shared: Arc<PoolShared>,
    threads: Vec<JoinHandle<()>>,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool")
            .field("workers", &self.threads.len())
            .finish()
    }
}

impl Pool {
    /// Starts one worker per CPU of `worker_cpus`, each pinned to its CPU (a CPU
    /// may repeat, for oversubscribed runs). An idle worker polls `spin_polls`
    /// times before it parks; 0 parks at once (for workers sharing a CPU).
    pub fn new(worker_cpus: &[usize], spin_polls: u32) -> Result<Pool, PoolError> {
        let shared = Arc::new(PoolShared {
            generation: CachePadded::new(AtomicU64::new(0)),
            pending: CachePadded::new(AtomicUsize::new(0)),
            job: UnsafeCell::new(JobRef {
                data: std::ptr::null(),
                run: no_job,
            }),
            sleeping: worker_cpus
                .iter()
                .map(|_| CachePadded::new(AtomicBool::new(false)))
                .collect(),
            panicked: AtomicBool::new(false),
            stop: AtomicBool::new(false),
            spin_polls,
        });
        let (tx, rx) = std::sync::mpsc::channel();
        let mut threads = Vec::with_capacity(worker_cpus.len());
        for (i, &cpu) in worker_cpus.iter().enumerate() {
            let shared = Arc::clone(&shared);
            let tx = tx.clone();
            threads.push(
                std::thread::Builder::new()
                    .name(format!("halfperf-pool-{}", i + 1))
                    .spawn(move || {
                        let pinned = pin_current_thread(cpu);
                        let ok = pinned.is_ok();
                        let _ = tx.send((i, pinned));
                        if ok {
                            worker_loop(&shared, i);
                        }
                    })
                    .expect("spawning a pool worker"),
            );
        }
        let mut pool = Pool { shared, threads };
        for _ in 0..worker_cpus.len() {
            let (i, pinned) = rx.recv().expect("pool workers report their pinning");
            if let Err(source) = pinned {
                pool.shutdown();
                return Err(PoolError::Pin {
                    worker: i + 1,
                    source,
                });
            }
        }
        Ok(pool)
    }

    /// Number of worker threads (parts beyond the master's).
    pub fn workers(&self) -> usize {
        self.threads.len()
    }

    /// Holds the caller back, busy, until every worker has announced that it
    /// sleeps and still does `settle` later: past its spin phase and parked,
    /// so that the next fork wakes every worker (the asleep regime of
    /// `hockney-sync`). `false` if that did not happen within `timeout`. A
    /// worker whose park times out (every 5 ms) clears its flag and spins
    /// again, which the second look after `settle` catches.
    pub fn hold_until_asleep(&self, settle: Duration, timeout: Duration) -> bool {
        let s = &*self.shared;
        // Relaxed: a hint of the regime; no data is read on its strength,
        // and the segment's own count of sleeps records what happened.
        let all = || s.sleeping.iter().all(|f| f.load(Ordering::Relaxed));
        let start = Instant::now();
        while start.elapsed() < timeout {
            if all() {
                let parked = Instant::now();
                while parked.elapsed() < settle {
                    std::hint::spin_loop();
                }
                if all() {
                    return true;
                }
            }
            std::hint::spin_loop();
        }
        false
    }

    /// Runs `work(p)` for every worker `p` in `1..=workers` on the workers and
    /// `work(0)` on the calling thread, and returns when all have finished.
    ///
    /// The join waits without a deadline: returning while a worker still runs
    /// `work` would leave it reading a closure that is gone. Workers cannot be
    /// lost except by the scheduler, and a panicking job is caught and reported.
    #[inline]
    pub fn fork_join<F: Fn(usize) + Sync>(&self, work: &F) -> Result<(), PoolError> {
        let s = &*self.shared;
        let job = JobRef {
            data: work as *const F as *const (),
            run: run_job::<F>,
        };
        // SAFETY: no worker runs a job now: the previous fork_join returned only
        // after `pending` reached 0 (Acquire), which every worker's last read of
        // `job` precedes; workers read `job` again only after the bump below.
        unsafe { *s.job.get() = job };
        // Relaxed: published by the SeqCst bump below.
        s.pending.store(self.threads.len(), Ordering::Relaxed);
        // SeqCst: publishes the job and orders against the sleep flags (Dekker).
        s.generation.fetch_add(1, Ordering::SeqCst);
        for (i, t) in self.threads.iter().enumerate() {
            // SeqCst: the other half of the Dekker handshake with `worker_loop`.
            if s.sleeping[i].load(Ordering::SeqCst) {
                t.thread().unpark();
            }
        }
        work(0);
        let mut polls: u32 = 0;
        // Acquire: pairs with each worker's Release decrement.
        while s.pending.load(Ordering::Acquire) != 0 {
            if polls < s.spin_polls {
                std::hint::spin_loop();
                polls += 1;
            } else {
                std::thread::yield_now();
            }
        }
        // Relaxed: written before the Release decrement we acquired.
        if s.panicked.swap(false, Ordering::Relaxed) {
            return Err(PoolError::Panicked);
        }
        Ok(())
    }

    fn shutdown(&mut self) {
        // Release: the workers' Acquire load of the generation sees it.
        self.shared.stop.store(true, Ordering::Release);
        self.shared.generation.fetch_add(1, Ordering::SeqCst);
        for t in &self.threads {
            t.thread().unpark();
        }
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.shutdown();
    }
}

fn worker_loop(s: &PoolShared, index: usize) {
    let mut seen = 0u64;
    loop {
        let mut polls: u32 = 0;
        loop {
            // Acquire: pairs with the SeqCst bump in fork_join.
            let g = s.generation.load(Ordering::Acquire);
            if g != seen {
                seen = g;
                break;
            }
            if polls < s.spin_polls {
                std::hint::spin_loop();
                polls += 1;
                continue;
            }
            // SeqCst: announce sleep, then re-check (Dekker with fork_join).
            s.sleeping[index].store(true, Ordering::SeqCst);
            if s.generation.load(Ordering::SeqCst) == seen {
                std::thread::park_timeout(POLL_SLICE);
            }
            // Relaxed: only a hint for the next fork's unpark.
            s.sleeping[index].store(false, Ordering::Relaxed);
        }
        // Acquire: pairs with the Release store in shutdown.
        if s.stop.load(Ordering::Acquire) {
            return;
        }
        // SAFETY: the job was written before the generation we acquired and is
        // not rewritten until `pending` reaches 0, which we decrement only after.
        let job = unsafe { *s.job.get() };
        // SAFETY: fork_join keeps `job.data` alive until pending is 0.
        let outcome = catch_unwind(AssertUnwindSafe(|| unsafe {
            (job.run)(job.data, index + 1)
        }));
        if outcome.is_err() {
            // Relaxed: published by the Release decrement.
            s.panicked.store(true, Ordering::Relaxed);
        }
        // Release: publishes the job's writes to the master.
        s.pending.fetch_sub(1, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::allowed_cpus;

    #[test]
    fn spawn_join_runs_every_part_once() {
        let cpus = allowed_cpus();
        let hits: Vec<AtomicUsize> = (0..3).map(|_| AtomicUsize::new(0)).collect();
        for _ in 0..20 {
            spawn_join(&cpus, 3, &|p: usize| {
                hits[p].fetch_add(1, Ordering::Relaxed);
            });
        }
        assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 20));
    }

    #[test]
    fn pool_fork_join_runs_every_part_once_and_reports_panics() {
        let cpus = allowed_cpus();
        let workers = vec![*cpus.last().unwrap(); 2];
        for spin in [0, 1000] {
            let pool = Pool::new(&workers, spin).unwrap();
            let hits: Vec<AtomicUsize> = (0..3).map(|_| AtomicUsize::new(0)).collect();
            for _ in 0..500 {
                pool.fork_join(&|p: usize| {
                    hits[p].fetch_add(1, Ordering::Relaxed);
                })
                .unwrap();
            }
            assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 500));
            let err = pool
                .fork_join(&|p: usize| assert!(p != 2, "injected"))
                .unwrap_err();
            assert!(matches!(err, PoolError::Panicked));
            pool.fork_join(&|_| {}).unwrap();
        }
    }

    /// Idle workers that park at once are all seen asleep; with a spin
    /// phase of 1000 polls they are too, once it has passed; a fork after
    /// the hold still runs every part.
    #[test]
    fn a_hold_sees_every_idle_worker_asleep() {
        let cpus = allowed_cpus();
        let workers = vec![*cpus.last().unwrap(); 2];
        for spin in [0, 1000] {
            let pool = Pool::new(&workers, spin).unwrap();
            let hits: Vec<AtomicUsize> = (0..3).map(|_| AtomicUsize::new(0)).collect();
            for _ in 0..5 {
                assert!(pool.hold_until_asleep(Duration::from_micros(100), Duration::from_secs(5)));
                pool.fork_join(&|p: usize| {
                    hits[p].fetch_add(1, Ordering::Relaxed);
                })
                .unwrap();
            }
            assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 5));
        }
    }
}
