//! A team of MPI processes (built with `--features mpi`): one rank per process
//! of `mpirun`, each pinned to a CPU of its node chosen from its node-local rank.
//!
//! [`Processes::init`] initialises MPI at `MPI_THREAD_SINGLE`, as a plain
//! `MPI_Init` does: every MPI call of the process is made by the thread that
//! initialised MPI (the team is reached only through a [`ProcessesHandle`] on
//! that thread, and an endpoint lives only inside [`Processes::run`]'s body
//! there); the process's other threads (the Ctrl-C handler) make none. Open
//! MPI 4.1 costs every blocking 8-byte message about 30 ns more at any level
//! above SINGLE, FUNNELED included (shared memory; `results/mpi.md`), which
//! made the raw-MPI baseline 1.3 times a plain C ping-pong. It refuses a world of one process, splits the world by node
//! (`MPI_Comm_split_type` with `MPI_COMM_TYPE_SHARED`), pins the process to the
//! CPU its node-local rank picks from the CPUs it may use, reads the pin back,
//! and gathers every rank's host, CPU model and CPU on every rank. Two processes
//! on one CPU of one host make the team oversubscribed: they wait by yielding
//! instead of spinning.
//!
//! [`Processes::run`] runs one kernel's body on this process, as
//! [`Team::run`](super::Team::run) runs it on a thread: all ranks first meet at a
//! start gate (`MPI_Ibarrier` polled under the deadline), then each gets a fresh
//! [`MpiEndpoint`] on its own communicator. The team starts the process's
//! [`Watchdog`], which holds the deadline of the endpoints' blocking calls
//! (and makes no MPI call), and names it each kernel it runs. Rank 0 times, as everywhere. A rank
//! whose body fails returns the error naming the kernel and itself; the caller
//! reports it and ends the job with [`Processes::abort`], so that no other rank
//! waits for it longer than its own deadline.

use super::{RankCtx, TeamError};
use crate::control::{Placement, RankError, TeamControl, WaitStrategy};
use crate::platform::{DistanceClass, PinError, allowed_cpus, pin_current_thread};
use crate::transport::mpi::{MpiEndpoint, Watchdog, wait_for};
use mpi::Threading;
use mpi::environment::Universe;
use mpi::ffi;
use mpi::raw::AsRaw;
use mpi::topology::{Color, Communicator, SimpleCommunicator};
use mpi::traits::CommunicatorCollectives;
use serde::{Deserialize, Serialize};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::time::Duration;

/// One rank as the team records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcessInfo {
    /// Its rank in the world.
    pub rank: usize,
    /// Its host name.
    pub host: String,
    /// Its node's CPU model, where known.
    pub cpu_model: Option<String>,
    /// The CPU it is pinned to (read back).
    pub cpu: usize,
    /// Its rank among the processes of its node.
    pub node_rank: usize,
    /// Its process id on its host.
    pub pid: u32,
}

/// Why a team of processes could not be formed.
#[derive(Debug, thiserror::Error)]
pub enum ProcessTeamError {
    /// MPI was initialised before.
    #[error("MPI is already initialised in this process")]
    AlreadyInitialised,
    /// A world of one process: not started by `mpirun`, or with `-n 1`.
    #[error(
        "--transport mpi needs at least 2 MPI processes, and this world has 1: start it with `mpirun -n 2 halfperf run ... --transport mpi`"
    )]
    WorldOfOne,
    /// Pinning failed.
    #[error("rank {rank}: {error}")]
    Pin {
        /// The rank.
        rank: usize,
        /// Why.
        error: PinError,
    },
}

/// With this set to `1` in the environment, no watchdog starts and every
/// endpoint polls `MPI_Test` as before the watchdog, so that
/// `scripts/mpi-baseline.sh` can time both waits side by side.
pub const POLL_ENV: &str = "HALFPERF_MPI_POLL";

/// The longest sleep between two polls of a process waiting outside a group
/// ([`Processes::run_group`]): the most a group's end waits for it.
const IDLE_SLEEP_MAX: Duration = Duration::from_millis(10);

/// Bytes of one rank's record in the gather (host, CPU model, numbers).
const RECORD_BYTES: usize = 512;

/// The team of MPI processes this process belongs to.
pub struct Processes {
    world: SimpleCommunicator,
    rank: usize,
    members: Vec<ProcessInfo>,
    library_version: String,
    placement: Placement,
    control: Arc<TeamControl>,
    /// Holds the deadline of the endpoints' blocking calls (stopped before MPI
    /// is finalised).
    watchdog: Option<Watchdog>,
    // Last: dropping it finalises MPI, after the communicators above are freed.
    _universe: Universe,
}

impl std::fmt::Debug for Processes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Processes")
            .field("rank", &self.rank)
            .field("members", &self.members)
            .field("placement", &self.placement)
            .finish_non_exhaustive()
    }
}

impl Processes {
    /// Initialises MPI and forms the team (collective over the world), with
    /// `wait_timeout` the deadline of every wait and `cpu_model` this node's.
    pub fn init(
        wait_timeout: Duration,
        cpu_model: Option<String>,
    ) -> Result<Processes, ProcessTeamError> {
        // SINGLE: see the module doc. Every level provides at least it.
        let (universe, _) = mpi::initialize_with_threading(Threading::Single)
            .ok_or(ProcessTeamError::AlreadyInitialised)?;
        let world = universe.world();
        let rank = world.rank() as usize;
        let size = world.size() as usize;
        if size < 2 {
            return Err(ProcessTeamError::WorldOfOne);
        }
        let node = world.split_shared(rank as i32);
        let node_rank = node.rank() as usize;
        drop(node);
        let allowed = allowed_cpus();
        let cpu = allowed[node_rank % allowed.len()];
        pin_current_thread(cpu).map_err(|error| ProcessTeamError::Pin { rank, error })?;
        let host = mpi::environment::processor_name()
            .ok()
            .filter(|h| !h.is_empty())
            .unwrap_or_else(|| "unknown".into());
        let me = ProcessInfo {
            rank,
            host,
            cpu_model,
            cpu,
            node_rank,
            pid: std::process::id(),
        };
        let mut record = [0u8; RECORD_BYTES];
        let text = serde_json::to_vec(&me).expect("a record serialises");
        let n = text.len().min(RECORD_BYTES);
        record[..n].copy_from_slice(&text[..n]);
        let mut all = vec![0u8; RECORD_BYTES * size];
        world.all_gather_into(&record[..], &mut all[..]);
        let members: Vec<ProcessInfo> = all
            .chunks(RECORD_BYTES)
            .enumerate()
            .map(|(r, rec)| {
                let end = rec.iter().position(|b| *b == 0).unwrap_or(rec.len());
                serde_json::from_slice(&rec[..end]).unwrap_or_else(|_| ProcessInfo {
                    rank: r,
                    host: "unknown".into(),
                    cpu_model: None,
                    cpu: usize::MAX,
                    node_rank: 0,
                    pid: 0,
                })
            })
            .collect();
        // The other ranks on this node poll while they wait: the load check
        // counts their CPU time as the measurement's, not a neighbour's.
        let peers: Vec<u32> = members
            .iter()
            .filter(|m| m.rank != rank && m.host == members[rank].host)
            .map(|m| m.pid)
            .collect();
        crate::platform::count_as_own(&peers);
        let shares = |m: &ProcessInfo| {
            members
                .iter()
                .any(|o| o.rank != m.rank && o.host == m.host && o.cpu == m.cpu)
        };
        let waits: Vec<WaitStrategy> = members
            .iter()
            .map(|m| {
                if shares(m) {
                    WaitStrategy::Block
                } else {
                    WaitStrategy::Spin
                }
            })
            .collect();
        let placement = if waits.contains(&WaitStrategy::Block) {
            Placement::Oversubscribed
        } else {
            Placement::Pinned
        };
        let library_version = mpi::environment::library_version()
            .map(|v| {
                v.trim_matches(|c: char| c == '\0' || c.is_whitespace())
                    .to_string()
            })
            .unwrap_or_else(|_| "unknown".into());
        Ok(Processes {
            world,
            rank,
            members,
            library_version,
            placement,
            control: TeamControl::new(waits, wait_timeout),
            // After the pin: the thread shares this rank's CPU.
            watchdog: match std::env::var_os(POLL_ENV) {
                Some(v) if v == "1" => None,
                _ => Watchdog::start(rank, wait_timeout),
            },
            _universe: universe,
        })
    }

    /// This process's rank.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// Number of processes.
    pub fn size(&self) -> usize {
        self.members.len()
    }

    /// Every rank's host, CPU model and CPU, rank order.
    pub fn members(&self) -> &[ProcessInfo] {
        &self.members
    }

    /// The CPU of each rank, rank order.
    pub fn cpus(&self) -> Vec<usize> {
        self.members.iter().map(|m| m.cpu).collect()
    }

    /// How many distinct CPUs (of all hosts) the processes are pinned to: more
    /// processes than that make some of them virtual processors.
    pub fn distinct_cpus(&self) -> usize {
        let mut cpus: Vec<(&str, usize)> = self
            .members
            .iter()
            .map(|m| (m.host.as_str(), m.cpu))
            .collect();
        cpus.sort_unstable();
        cpus.dedup();
        cpus.len()
    }

    /// Whether ranks `a` and `b` run on one node.
    pub fn same_node(&self, a: usize, b: usize) -> bool {
        self.members[a].host == self.members[b].host
    }

    /// The distance class of ranks `a` and `b`: other processes of one node, or
    /// of two nodes (MPI tells no more of where a process sits).
    pub fn distance(&self, a: usize, b: usize) -> DistanceClass {
        if self.same_node(a, b) {
            DistanceClass::OtherProcess
        } else {
            DistanceClass::OtherNode
        }
    }

    /// How the processes sit on CPUs: pinned, or oversubscribed where two share
    /// a CPU of one host.
    pub fn placement(&self) -> Placement {
        self.placement
    }

    /// The MPI library's own version string (`MPI_Get_library_version`).
    pub fn library_version(&self) -> &str {
        &self.library_version
    }

    /// The world communicator, for MPI's own collectives.
    pub fn world(&self) -> &SimpleCommunicator {
        &self.world
    }

    /// The control block (deadline and wait strategy of every rank).
    pub fn control(&self) -> &Arc<TeamControl> {
        &self.control
    }

    /// Runs `body` as this process's rank of kernel `kernel`: every rank meets
    /// at a start gate under the deadline, then runs with a fresh endpoint. A
    /// failure (an error or a panic) is returned naming the kernel and this rank.
    pub fn run<R>(
        &self,
        kernel: &str,
        body: impl FnOnce(&RankCtx<'_>, &mut MpiEndpoint) -> Result<R, RankError>,
    ) -> Result<R, TeamError> {
        self.run_buffered(kernel, None, body)
    }

    /// [`Processes::run`] with buffered sends of up to `buffer_bytes` (two whole
    /// messages per peer, see [`MpiEndpoint::new`]), for kernels whose ranks
    /// send to each other at once.
    pub fn run_buffered<R>(
        &self,
        kernel: &str,
        buffer_bytes: Option<usize>,
        body: impl FnOnce(&RankCtx<'_>, &mut MpiEndpoint) -> Result<R, RankError>,
    ) -> Result<R, TeamError> {
        self.enter(kernel)?;
        self.body_on(&self.world, self.size(), buffer_bytes, body)
            .map_err(|e| self.failed(kernel, e))
    }

    /// [`Processes::run_buffered`] on the first `ranks` processes of the world
    /// alone, as a team of their own (a communicator split from the world, so
    /// the body's ranks and size are the group's), for kernels that sweep the
    /// number of ranks within one job. The other processes wait at a barrier
    /// that the group's reach when their body ends, sleeping meanwhile so that
    /// their CPUs go to the group, and without a deadline: the group may work
    /// for longer than one wait's deadline, and a group rank that stalls meets
    /// its own deadline, whose error ends the job. Returns `None` outside the
    /// group.
    pub fn run_group<R>(
        &self,
        kernel: &str,
        ranks: usize,
        buffer_bytes: Option<usize>,
        body: impl FnOnce(&RankCtx<'_>, &mut MpiEndpoint) -> Result<R, RankError>,
    ) -> Result<Option<R>, TeamError> {
        self.enter(kernel)?;
        let inside = self.rank < ranks;
        // Collective over the world; every process passed the gate.
        let group = self.world.split_by_color(if inside {
            Color::with_value(0)
        } else {
            Color::undefined()
        });
        let out = match group {
            Some(comm) => {
                let size = ranks.min(self.size());
                let r = self.body_on(&comm, size, buffer_bytes, body);
                Some(r.map_err(|e| self.failed(kernel, e))?)
            }
            None => None,
        };
        self.idle_barrier();
        Ok(out)
    }

    /// The start of a run of `kernel`: every process meets at the start gate,
    /// then the watchdog names the kernel in its report of a stalled call.
    fn enter(&self, kernel: &str) -> Result<(), TeamError> {
        self.start_gate().map_err(|e| self.failed(kernel, e))?;
        self.name_kernel(kernel);
        Ok(())
    }

    /// A failure of this rank's body of `kernel`, as the team reports it.
    fn failed(&self, kernel: &str, error: RankError) -> TeamError {
        TeamError::Rank {
            kernel: kernel.into(),
            rank: self.rank,
            error,
        }
    }

    /// Runs `body` as this process's rank of a team of `size` over `comm`,
    /// with a fresh endpoint; a panic becomes [`RankError::Panicked`].
    fn body_on<R>(
        &self,
        comm: &SimpleCommunicator,
        size: usize,
        buffer_bytes: Option<usize>,
        body: impl FnOnce(&RankCtx<'_>, &mut MpiEndpoint) -> Result<R, RankError>,
    ) -> Result<R, RankError> {
        let mut ep = MpiEndpoint::new(comm, Arc::clone(&self.control), buffer_bytes);
        let ctx = RankCtx {
            rank: self.rank,
            size,
            cpu: self.members[self.rank].cpu,
            control: &self.control,
        };
        catch_unwind(AssertUnwindSafe(|| body(&ctx, &mut ep)))
            .unwrap_or_else(|p| Err(RankError::Panicked(super::panic_message(&*p))))
    }

    /// Names `kernel` in the watchdog's report of a stalled call.
    fn name_kernel(&self, kernel: &str) {
        if let Some(w) = &self.watchdog {
            w.kernel(kernel);
        }
    }

    /// Every process arrives, then all go: `MPI_Ibarrier` polled with a sleep
    /// between polls and no deadline (see [`Processes::run_group`]); it ends
    /// early if the team is aborted. The sleep doubles from 200 us up to
    /// [`IDLE_SLEEP_MAX`]: a process that waits long for a group wakes 100
    /// times a second, not 5000, and so takes little from the CPU it may
    /// share with a process of the group (on a VM each wake-up preempted a
    /// group process for microseconds, and the decomposition's rank 0 found
    /// its idle polls dearer than its busy ones).
    fn idle_barrier(&self) {
        let mut request = null_request();
        // SAFETY: the world communicator is live; `request` is valid for writes.
        unsafe { ffi::MPI_Ibarrier(self.world.as_raw(), &mut request) };
        let mut sleep = Duration::from_micros(200);
        loop {
            let mut flag = 0;
            // SAFETY: `request` is the active barrier request until MPI_Test
            // completes it (and we stop polling then).
            unsafe { ffi::MPI_Test(&mut request, &mut flag, ffi::RSMPI_STATUS_IGNORE) };
            if flag != 0 || self.control.aborted() {
                return;
            }
            std::thread::sleep(sleep);
            sleep = (sleep * 2).min(IDLE_SLEEP_MAX);
        }
    }

    /// Every rank arrives, then all go: `MPI_Ibarrier` polled under the
    /// deadline, so a rank that never arrives is an error, not a hang.
    fn start_gate(&self) -> Result<(), RankError> {
        let mut request = null_request();
        // SAFETY: the world communicator is live; `request` is valid for writes.
        unsafe { ffi::MPI_Ibarrier(self.world.as_raw(), &mut request) };
        let gate = wait_for(&self.control, self.rank, usize::MAX, || {
            let mut flag = 0;
            // SAFETY: `request` is the active barrier request until MPI_Test
            // completes it (and we stop polling then).
            unsafe { ffi::MPI_Test(&mut request, &mut flag, ffi::RSMPI_STATUS_IGNORE) };
            (flag != 0).then_some(())
        });
        gate.map_err(|e| match e {
            RankError::Deadline { waited_ms, .. } => RankError::Failed(format!(
                "start gate: not every process arrived within {waited_ms} ms"
            )),
            other => other,
        })
    }

    /// Ends every process of the job (`MPI_Abort`) with exit status `code`: what a
    /// rank does after reporting a failure, so that no peer waits for it.
    pub fn abort(&self, code: i32) -> ! {
        self.world.abort(code)
    }
}

/// A reference to the [`Processes`] that a context shared by threads can carry
/// (the kernels' `RunContext`): only the thread that made the handle, the one
/// that makes this process's MPI calls, can reach the team through it.
#[derive(Clone, Copy)]
pub struct ProcessesHandle<'a> {
    procs: &'a Processes,
    owner: std::thread::ThreadId,
}

impl std::fmt::Debug for ProcessesHandle<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.procs.fmt(f)
    }
}

// SAFETY: the handle hands out its reference only on the thread that made it
// (`get` checks), so the team, which is not `Sync`, is never reached from two
// threads through it.
unsafe impl Sync for ProcessesHandle<'_> {}

impl<'a> ProcessesHandle<'a> {
    /// A handle for this thread.
    pub fn new(procs: &'a Processes) -> ProcessesHandle<'a> {
        ProcessesHandle {
            procs,
            owner: std::thread::current().id(),
        }
    }

    /// The team; panics on any thread but the one that made the handle.
    pub fn get(&self) -> &'a Processes {
        assert_eq!(
            std::thread::current().id(),
            self.owner,
            "the team of MPI processes is reached only from the thread that runs the rank"
        );
        self.procs
    }
}

fn null_request() -> ffi::MPI_Request {
    // SAFETY: reading an immutable handle constant the MPI library exports.
    unsafe { ffi::RSMPI_REQUEST_NULL }
}
