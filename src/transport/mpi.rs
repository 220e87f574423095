//! The mpi transport: MPI point-to-point messages between processes (built with
//! `--features mpi`).
//!
//! Each endpoint owns a duplicate of the world communicator, so its messages
//! never match another kernel's or the team's own. A message is one send and
//! one receive of bytes with one tag; MPI's non-overtaking rule (same source,
//! tag and communicator) keeps the messages between a pair in order.
//!
//! Every wait keeps the team's deadline, so a peer that stalls or dies ends
//! it with an error naming the peer, never a hang. A rank alone on its CPU
//! calls `MPI_Send` and `MPI_Recv` as a plain program does, and the process's
//! [`Watchdog`] holds their deadline: they arm a watch word around the call,
//! and the watchdog ends the process (and so the job) when one call has
//! lasted the deadline; polling `MPI_Test` instead cost an 8-byte ping-pong
//! several per cent. Without a watchdog, and in a rank that shares its CPU,
//! a send is `MPI_Isend` and a receive `MPI_Irecv`, each completed by polling
//! `MPI_Test` (or `MPI_Iprobe`) under the deadline: bare polls with the clock
//! read every 1024 (no spin-loop hint, as MPI's own waits), or a yield after
//! every poll when the rank shares its CPU. Nothing allocates on the timed
//! path: a call's request and status live on its stack, a posted one's in a
//! slot allocated with the endpoint.
//!
//! Beside the endpoint, [`MpiEndpoint::raw_round_trips`] is the baseline the
//! `pingpong` kernel measures it against: the plain `MPI_Send`/`MPI_Recv`
//! ping-pong on the same communicator, as a C program writes it.
//!
//! # Failed waits
//! A wait that fails (deadline, abort) returns with its request still posted:
//! MPI may read a send's buffer or write a receive's until the request is
//! completed or cancelled. A receive is cancelled and freed before the error is
//! returned; a send (which MPI cannot reliably cancel) is freed, and the team
//! ends the whole job with `MPI_Abort` before the process makes another MPI
//! call that could progress it (see `crate::team::mpi`). The endpoint then
//! leaks its own buffers at drop rather than free one MPI may still use.
//!
//! # Posted requests
//! On an endpoint with buffers (`MpiEndpoint::new`'s `buffer_bytes`), `isend`
//! and `irecv` are `MPI_Isend` and `MPI_Irecv` on buffers the endpoint owns,
//! and their waits poll `MPI_Test`: what moves between the post and the wait
//! is what the library moves on its own (see [`REQUESTS_IN_FLIGHT`]). The
//! thread transports, which have no engine to move data behind the caller's
//! back, give stand-ins instead.

use super::{
    Endpoint, PendingRequests, RecvRequest, SendRequest, TransportConfig, check_peer, in_order,
    too_long,
};
use crate::control::{RankError, TeamControl, WaitStrategy};
use mpi::ffi;
use mpi::raw::AsRaw;
use mpi::topology::{Communicator, SimpleCommunicator};
use std::os::raw::{c_int, c_void};
use std::sync::Arc;

/// The tag of the transport's messages.
const DATA_TAG: c_int = 0;
/// The tag of the raw baseline's messages.
const RAW_TAG: c_int = 1;

/// Messages up to this size go in `try_send` (MPI sends them eagerly: OpenMPI's
/// shared-memory and TCP eager limits are 4 KiB and 64 KiB, headers
/// included, so a message of a whole 4096 bytes already waits for its
/// receive); longer ones go there only when sends are buffered and the peer's
/// next buffer is free (as Lamanna's exchange needs), else they wait for
/// `wait_send`.
pub const EAGER_BYTES: usize = 4096 - 256;

/// One process's end of the mpi transport.
pub struct MpiEndpoint {
    comm: SimpleCommunicator,
    rank: usize,
    size: usize,
    control: Arc<TeamControl>,
    pending: PendingRequests,
    /// Buffered sends, where the kernel needs them: per peer two buffers.
    buffered: Option<Vec<[Slot; 2]>>,
    /// Per peer, the slot its next buffered send takes.
    next_slot: Vec<usize>,
    /// The requests `isend` and `irecv` post, in buffers of the endpoint's.
    posted: Option<Posted>,
    /// Whether a wait failed and freed a request MPI may still use the
    /// buffer of: then `Drop` leaks every buffer and makes no MPI call.
    failed: std::cell::Cell<bool>,
    /// The thread that made it, the one that initialised MPI (checked in
    /// debug builds: MPI runs at `MPI_THREAD_SINGLE`).
    owner: std::thread::ThreadId,
    /// Whether `send` and `recv` block in MPI under the watchdog (a rank alone
    /// on its CPU, with the process's watchdog running) rather than poll.
    blocking: bool,
    /// `comm`'s handle and the byte type's, read once for the blocking calls.
    raw: (ffi::MPI_Comm, ffi::MPI_Datatype),
}

/// How many requests of each kind may be in flight to or from one peer.
pub const REQUESTS_IN_FLIGHT: usize = 4;

/// The posted requests of `isend` and `irecv`: per peer, a ring of
/// [`REQUESTS_IN_FLIGHT`] sends and as many receives, each with a buffer the
/// endpoint owns. A posted send is copied into its buffer and `MPI_Isend`
/// from there; a posted receive is `MPI_Irecv`ed into its buffer and copied
/// into the caller's at its test or wait. MPI so never holds the caller's
/// memory: a request dropped without its wait (safe Rust cannot forbid it)
/// leaves MPI writing only into the endpoint's buffers, which stay valid
/// until the endpoint completes the request (see `Drop`). The `n`-th request
/// to a peer takes slot `n % REQUESTS_IN_FLIGHT` and frees it at its wait.
struct Posted {
    sends: Vec<[Slot; REQUESTS_IN_FLIGHT]>,
    recvs: Vec<[Slot; REQUESTS_IN_FLIGHT]>,
}

/// A buffer of the endpoint's and the request that uses it (null when the
/// buffer is free).
struct Slot {
    buf: Vec<u8>,
    request: ffi::MPI_Request,
}

impl Slot {
    /// Copies `data` into the free slot and `MPI_Isend`s it to `to` from
    /// there, the request kept in the slot.
    #[inline]
    fn post_copy(
        &mut self,
        comm: ffi::MPI_Comm,
        to: usize,
        tag: c_int,
        data: &[u8],
    ) -> Result<(), RankError> {
        debug_assert!(self.request == null_request());
        if data.len() > self.buf.len() {
            return Err(too_long(data.len(), self.buf.len()));
        }
        self.buf[..data.len()].copy_from_slice(data);
        // SAFETY: the buffer is the endpoint's and stays valid for reads of
        // `data.len()` bytes until the request completes: a slot is not
        // written again before its request is completed (on its next use, at
        // its wait, or when the endpoint drops), and its buffer is never freed
        // while the request is in flight (after a failed wait every buffer is
        // leaked; see `Drop`). `comm` is the endpoint's live communicator.
        unsafe {
            ffi::MPI_Isend(
                self.buf.as_ptr().cast::<c_void>(),
                count(data.len()),
                ffi::RSMPI_UINT8_T,
                to as c_int,
                tag,
                comm,
                &mut self.request,
            )
        };
        Ok(())
    }
}

impl std::fmt::Debug for MpiEndpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MpiEndpoint")
            .field("rank", &self.rank)
            .field("size", &self.size)
            .finish_non_exhaustive()
    }
}

// SAFETY: the communicator handle is a pointer into the MPI library, which the
// team initialises at MPI_THREAD_SINGLE (`crate::team::mpi`): every MPI call
// must come from the thread that initialised MPI. The endpoint is `Send`
// because every `Endpoint` is, but it is made only inside `Processes::run`'s
// body, which runs on that thread (the team is reached only through a
// `ProcessesHandle`, which checks the thread), and no kernel hands it to
// another; debug builds assert the thread at every wait. It is not `Sync`
// (the handle is not), so only the thread that holds it calls through it.
unsafe impl Send for MpiEndpoint {}

impl MpiEndpoint {
    /// An endpoint on a duplicate of `world` (collective: every process of
    /// `world` makes it together), waiting by `control`'s rules and deadline.
    ///
    /// With `buffer_bytes`, sends are buffered as the thread transports' are for
    /// CoMet's kernels (two whole messages of up to `buffer_bytes` per peer): a
    /// send longer than MPI sends eagerly is copied into one of two buffers of
    /// its peer and left in flight, so that two ranks may send to each other at
    /// once (a synchronous send of a long message would wait for the matching
    /// receive, and both would wait). Without, a send returns when MPI has
    /// finished with the caller's bytes, and nothing is copied.
    ///
    /// With `buffer_bytes` too, `isend` and `irecv` post real MPI requests on
    /// buffers of that size (see [`REQUESTS_IN_FLIGHT`]), allocated here and
    /// touched by their first use; without, they are the thread transports'
    /// stand-ins (a long send goes at its wait).
    pub fn new(
        world: &SimpleCommunicator,
        control: Arc<TeamControl>,
        buffer_bytes: Option<usize>,
    ) -> MpiEndpoint {
        let comm = world.duplicate();
        let rank = comm.rank() as usize;
        let size = comm.size() as usize;
        let blocking = control.wait_strategy(rank) == WaitStrategy::Spin && watchdog::running();
        let slot = |bytes: usize| Slot {
            buf: vec![0u8; bytes],
            request: null_request(),
        };
        // SAFETY: reading an immutable handle constant the MPI library exports.
        let raw = (comm.as_raw(), unsafe { ffi::RSMPI_UINT8_T });
        MpiEndpoint {
            raw,
            comm,
            rank,
            size,
            control,
            pending: PendingRequests::new(size),
            buffered: buffer_bytes
                .filter(|&b| b > EAGER_BYTES)
                .map(|b| (0..size).map(|_| [slot(b), slot(b)]).collect()),
            next_slot: vec![0; size],
            failed: std::cell::Cell::new(false),
            owner: std::thread::current().id(),
            blocking,
            posted: buffer_bytes.map(|b| {
                let ring = || std::array::from_fn(|_| slot(b));
                Posted {
                    sends: (0..size).map(|_| ring()).collect(),
                    recvs: (0..size).map(|_| ring()).collect(),
                }
            }),
        }
    }

    /// Whether `send` and `recv` block in `MPI_Send` and `MPI_Recv` under the
    /// process's [`Watchdog`] (a rank alone on its CPU, with the watchdog
    /// running) rather than poll `MPI_Test`.
    pub fn blocks(&self) -> bool {
        self.blocking
    }

    /// A buffered send of `data` to `to` (see [`MpiEndpoint::new`]): waits for
    /// the earlier send from the slot it takes, copies, posts, and returns.
    #[inline]
    fn send_buffered(&mut self, to: usize, data: &[u8]) -> Result<(), RankError> {
        let k = self.next_slot[to];
        self.next_slot[to] ^= 1;
        let mut request = match &mut self.buffered {
            Some(slots) => std::mem::replace(&mut slots[to][k].request, null_request()),
            None => null_request(),
        };
        if request != null_request() {
            self.complete(&mut request, to, false)?;
        }
        let comm = self.comm.as_raw();
        let Some(slots) = &mut self.buffered else {
            return Ok(());
        };
        slots[to][k].post_copy(comm, to, DATA_TAG, data)
    }

    /// Whether a buffered send to `to` would go without waiting: the slot it
    /// takes is free, or its earlier send has completed (one `MPI_Test`, which
    /// frees the request). Without buffered sends, never: a long send waits for
    /// its receiver.
    #[inline]
    fn slot_free(&mut self, to: usize) -> bool {
        let k = self.next_slot[to];
        let Some(slots) = &mut self.buffered else {
            return false;
        };
        let request = &mut slots[to][k].request;
        if *request == null_request() {
            return true;
        }
        let mut flag: c_int = 0;
        // SAFETY: `request` is an active send this endpoint posted (not null);
        // MPI_Test sets it to MPI_REQUEST_NULL when it completes; `flag` is
        // valid for writes and the status is ignored.
        unsafe { ffi::MPI_Test(request, &mut flag, ffi::RSMPI_STATUS_IGNORE) };
        flag != 0
    }

    /// Polls `request` until it completes, under the deadline; on failure the
    /// request is cancelled (a receive) and freed.
    #[inline]
    fn complete(
        &self,
        request: &mut ffi::MPI_Request,
        peer: usize,
        receive: bool,
    ) -> Result<ffi::MPI_Status, RankError> {
        debug_assert_eq!(
            std::thread::current().id(),
            self.owner,
            "MPI off its thread"
        );
        complete(
            &self.control,
            self.rank,
            peer,
            request,
            receive,
            &self.failed,
        )
    }

    /// `MPI_Send` of `data` to `to`, the watchdog armed: returns when MPI has
    /// finished with `data` (at once for a message sent eagerly).
    #[inline(always)]
    fn send_blocking(&self, to: usize, data: &[u8]) {
        debug_assert_eq!(
            std::thread::current().id(),
            self.owner,
            "MPI off its thread"
        );
        let seq = watchdog::WORD.arm(to);
        // SAFETY: `data` is valid for reads of `data.len()` bytes for the
        // call, which returns once MPI has finished with it; the communicator
        // is live. A call that never returns is ended, with the process, by
        // the watchdog.
        unsafe {
            ffi::MPI_Send(
                data.as_ptr().cast::<c_void>(),
                count(data.len()),
                self.raw.1,
                to as c_int,
                DATA_TAG,
                self.raw.0,
            )
        };
        watchdog::WORD.disarm(seq);
    }

    /// `MPI_Recv` of at most `buf.len()` bytes from `from`, the watchdog
    /// armed; the message's length.
    #[inline(always)]
    fn recv_blocking(&self, from: usize, buf: &mut [u8]) -> usize {
        debug_assert_eq!(
            std::thread::current().id(),
            self.owner,
            "MPI off its thread"
        );
        let mut status = empty_status();
        let seq = watchdog::WORD.arm(from);
        // SAFETY: `buf` is valid for writes of `buf.len()` bytes for the call,
        // which returns once the message is in it; `status` is valid for
        // writes; the communicator is live. A call that never returns is
        // ended, with the process, by the watchdog.
        unsafe {
            ffi::MPI_Recv(
                buf.as_mut_ptr().cast::<c_void>(),
                count(buf.len()),
                self.raw.1,
                from as c_int,
                DATA_TAG,
                self.raw.0,
                &mut status,
            )
        };
        watchdog::WORD.disarm(seq);
        received(&status)
    }

    /// Posts a receive of at most `buf.len()` bytes from `from` with `tag`.
    #[inline]
    fn post_recv(&self, from: usize, tag: c_int, buf: &mut [u8]) -> ffi::MPI_Request {
        let mut request = null_request();
        // SAFETY: `buf` is valid for writes of `buf.len()` bytes until the request
        // completes: the caller completes it (or cancels and frees it) before it
        // returns and before `buf`'s borrow ends. The communicator is live.
        unsafe {
            ffi::MPI_Irecv(
                buf.as_mut_ptr().cast::<c_void>(),
                count(buf.len()),
                ffi::RSMPI_UINT8_T,
                from as c_int,
                tag,
                self.comm.as_raw(),
                &mut request,
            )
        };
        request
    }

    /// Posts a send of `data` to `to` with `tag`.
    #[inline]
    fn post_send(&self, to: usize, tag: c_int, data: &[u8]) -> ffi::MPI_Request {
        let mut request = null_request();
        // SAFETY: `data` is valid for reads of `data.len()` bytes until the
        // request completes: the caller completes it before returning (or, on a
        // failed wait, the job ends; see the module's "Failed waits").
        unsafe {
            ffi::MPI_Isend(
                data.as_ptr().cast::<c_void>(),
                count(data.len()),
                ffi::RSMPI_UINT8_T,
                to as c_int,
                tag,
                self.comm.as_raw(),
                &mut request,
            )
        };
        request
    }

    /// Whether a message with `tag` from `from` is waiting.
    #[inline]
    fn probe_tag(&self, from: usize, tag: c_int) -> bool {
        let mut flag: c_int = 0;
        let mut status = empty_status();
        // SAFETY: the communicator is live; `flag` and `status` are valid for
        // writes.
        unsafe {
            ffi::MPI_Iprobe(
                from as c_int,
                tag,
                self.comm.as_raw(),
                &mut flag,
                &mut status,
            )
        };
        flag != 0
    }

    /// `reps` round trips of the plain MPI ping-pong with rank `peer` on this
    /// endpoint's communicator, 8 bytes each way: the rank that `leads`
    /// `MPI_Send`s then `MPI_Recv`s, the other the reverse; returns this rank's
    /// time. Only the first receive waits under the deadline (by `MPI_Iprobe`),
    /// so that a peer that never comes ends in an error; the rest are blocking
    /// `MPI_Recv`s, as in C.
    #[inline(never)]
    pub fn raw_round_trips(
        &mut self,
        peer: usize,
        leads: bool,
        reps: u64,
    ) -> Result<std::time::Duration, RankError> {
        check_peer(self.rank, peer, self.size)?;
        debug_assert_eq!(
            std::thread::current().id(),
            self.owner,
            "MPI off its thread"
        );
        let out = [7u8; 8];
        let mut inbuf = [0u8; 8];
        let comm = self.comm.as_raw();
        let send = |data: &[u8; 8]| {
            // SAFETY: `data` is 8 readable bytes; MPI_Send returns once it has
            // copied them out.
            unsafe {
                ffi::MPI_Send(
                    data.as_ptr().cast::<c_void>(),
                    8,
                    ffi::RSMPI_UINT8_T,
                    peer as c_int,
                    RAW_TAG,
                    comm,
                )
            };
        };
        let recv = |buf: &mut [u8; 8]| {
            // SAFETY: `buf` is 8 writable bytes; MPI_Recv returns once it has
            // written the message.
            unsafe {
                ffi::MPI_Recv(
                    buf.as_mut_ptr().cast::<c_void>(),
                    8,
                    ffi::RSMPI_UINT8_T,
                    peer as c_int,
                    RAW_TAG,
                    comm,
                    ffi::RSMPI_STATUS_IGNORE,
                )
            };
        };
        let first = |ep: &Self| {
            wait_for(&ep.control, ep.rank, peer, || {
                ep.probe_tag(peer, RAW_TAG).then_some(())
            })
        };
        let start = std::time::Instant::now();
        for i in 0..reps {
            if leads {
                send(&out);
                if i == 0 {
                    first(self)?;
                }
                recv(&mut inbuf);
            } else {
                if i == 0 {
                    first(self)?;
                }
                recv(&mut inbuf);
                send(&out);
            }
        }
        std::hint::black_box(&inbuf);
        Ok(start.elapsed())
    }
}

impl Drop for MpiEndpoint {
    /// Completes the sends still in flight and cancels the receives (under the
    /// deadline); if one cannot complete, or an earlier wait failed, every
    /// buffer is leaked rather than freed under MPI.
    fn drop(&mut self) {
        let mut buffered = self.buffered.take();
        let mut posted = self.posted.take();
        let mut ok = !self.failed.get();
        let mut settle = |slot: &mut Slot, peer: usize, receive: bool| {
            if slot.request == null_request() || !ok {
                return;
            }
            if receive {
                // SAFETY: the request is an active receive this endpoint
                // posted; cancelling it is valid, and it completes (cancelled
                // or received) at the next test.
                unsafe { ffi::MPI_Cancel(&mut slot.request) };
            }
            ok = self.complete(&mut slot.request, peer, receive).is_ok();
        };
        for (peer, pair) in buffered.iter_mut().flatten().enumerate() {
            pair.iter_mut().for_each(|slot| settle(slot, peer, false));
        }
        if let Some(p) = &mut posted {
            for (peer, ring) in p.sends.iter_mut().enumerate() {
                ring.iter_mut().for_each(|slot| settle(slot, peer, false));
            }
            for (peer, ring) in p.recvs.iter_mut().enumerate() {
                ring.iter_mut().for_each(|slot| settle(slot, peer, true));
            }
        }
        if !ok {
            std::mem::forget(buffered);
            std::mem::forget(posted);
        }
    }
}

/// MPI's own collectives on the endpoint's communicator, blocking as a program
/// calls them (`MPI_Bcast`, `MPI_Allreduce`, `MPI_Barrier`), for the kernels
/// that time them beside hand-written ones. A blocking collective cannot keep a
/// deadline, so callers first [`meet`](MpiEndpoint::meet) (untimed): after it
/// every rank is in the batch, and only a rank that dies can stop one, which
/// `mpirun` ends the job for.
impl MpiEndpoint {
    /// Every rank arrives, then all go: `MPI_Ibarrier` polled under the
    /// deadline.
    pub fn meet(&mut self) -> Result<(), RankError> {
        let mut request = null_request();
        // SAFETY: the communicator is live; `request` is valid for writes.
        unsafe { ffi::MPI_Ibarrier(self.comm.as_raw(), &mut request) };
        self.complete(&mut request, usize::MAX, false).map(|_| ())
    }

    /// `MPI_Bcast` of `buf` from rank 0.
    #[inline]
    pub fn bcast(&mut self, buf: &mut [u8]) {
        // SAFETY: `buf` is valid for reads and writes of its length for the
        // call; the communicator is live; every rank passes the same length.
        unsafe {
            ffi::MPI_Bcast(
                buf.as_mut_ptr().cast::<c_void>(),
                count(buf.len()),
                ffi::RSMPI_UINT8_T,
                0,
                self.comm.as_raw(),
            )
        };
    }

    /// `MPI_Allreduce` with `MPI_SUM` of `input` into `sum`, element-wise.
    #[inline]
    pub fn allreduce_sum(&mut self, input: &[f64], sum: &mut [f64]) {
        debug_assert_eq!(input.len(), sum.len());
        // SAFETY: `input` is readable and `sum` writable for `input.len()`
        // doubles (the lengths are equal), they do not overlap (one is shared,
        // one exclusive), and the communicator is live.
        unsafe {
            ffi::MPI_Allreduce(
                input.as_ptr().cast::<c_void>(),
                sum.as_mut_ptr().cast::<c_void>(),
                count(input.len()),
                ffi::RSMPI_DOUBLE,
                ffi::RSMPI_SUM,
                self.comm.as_raw(),
            )
        };
    }

    /// `MPI_Barrier`.
    #[inline]
    pub fn barrier(&mut self) {
        // SAFETY: the communicator is live.
        unsafe { ffi::MPI_Barrier(self.comm.as_raw()) };
    }
}

/// Polls `ready` as `rank` waits: spinning with the deadline (and the
/// team's abort) checked every 1024 polls, or yielding the CPU after every
/// poll when it shares it. A spinning poll has no spin-loop hint between
/// polls, as MPI's own blocking calls have none: a poll (`MPI_Test`, which
/// runs MPI's progress engine) is already a call of tens of nanoseconds,
/// and a hint (up to about 40 ns on recent x86) would only make the
/// waiter see its message later.
#[inline]
pub fn wait_for<T>(
    control: &TeamControl,
    rank: usize,
    peer: usize,
    mut ready: impl FnMut() -> Option<T>,
) -> Result<T, RankError> {
    match control.wait_strategy(rank) {
        WaitStrategy::Spin => {
            let mut started = None;
            let mut polls: u32 = 0;
            loop {
                if let Some(v) = ready() {
                    return Ok(v);
                }
                polls = polls.wrapping_add(1);
                if polls.is_multiple_of(1024) {
                    control.check(peer, &mut started)?;
                }
            }
        }
        WaitStrategy::Block => {
            let mut started = None;
            loop {
                if let Some(v) = ready() {
                    return Ok(v);
                }
                control.check(peer, &mut started)?;
                std::thread::yield_now();
            }
        }
    }
}

/// Polls `request` until it completes, under `control`'s deadline for `rank`
/// waiting on `peer`; on failure the request is cancelled (a receive) and
/// freed, and `failed` is set (the caller's buffers must then be leaked).
#[inline]
fn complete(
    control: &TeamControl,
    rank: usize,
    peer: usize,
    request: &mut ffi::MPI_Request,
    receive: bool,
    failed: &std::cell::Cell<bool>,
) -> Result<ffi::MPI_Status, RankError> {
    let mut status = empty_status();
    let waited = wait_for(control, rank, peer, || {
        let mut flag: c_int = 0;
        // SAFETY: `request` is a request the caller posted and has not
        // completed (MPI_Test sets it to MPI_REQUEST_NULL when it does, and
        // we stop polling then); `flag` and `status` are valid for writes.
        unsafe { ffi::MPI_Test(request, &mut flag, &mut status) };
        (flag != 0).then_some(())
    });
    if let Err(e) = waited {
        failed.set(true);
        // SAFETY: the request is still active; cancelling a receive and
        // freeing either kind are valid on an active request.
        unsafe {
            if receive {
                ffi::MPI_Cancel(request);
            }
            ffi::MPI_Request_free(request);
        }
        return Err(e);
    }
    Ok(status)
}

fn null_request() -> ffi::MPI_Request {
    // SAFETY: reading an immutable handle constant the MPI library exports.
    unsafe { ffi::RSMPI_REQUEST_NULL }
}

fn empty_status() -> ffi::MPI_Status {
    // SAFETY: MPI_Status is a C struct of integers, for which all zeroes is a
    // valid value.
    unsafe { std::mem::zeroed() }
}

/// A length as MPI's element count; messages are far below 2 GiB.
#[inline]
fn count(len: usize) -> c_int {
    debug_assert!(len <= c_int::MAX as usize);
    len as c_int
}

/// The length of a completed receive (or of a probed message) of bytes.
///
/// Open MPI keeps the byte count in its status struct (`_ucount`, what its
/// `MPI_Get_count` divides by the type's size, here 1); reading it there
/// saves a library call and a division on the path between a message's
/// arrival and the reply (about 2 ns a message in C, 1.5 % of an 8-byte
/// one-way time). Other libraries (`build.rs` finds which) go through
/// `MPI_Get_count`.
#[inline(always)]
fn received(status: &ffi::MPI_Status) -> usize {
    #[cfg(halfperf_open_mpi)]
    {
        status._ucount
    }
    #[cfg(not(halfperf_open_mpi))]
    {
        let mut n: c_int = 0;
        // SAFETY: `status` is the status of a completed receive of bytes.
        unsafe { ffi::MPI_Get_count(status, ffi::RSMPI_UINT8_T, &mut n) };
        n.max(0) as usize
    }
}

impl Endpoint for MpiEndpoint {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.size
    }

    #[inline]
    fn send(&mut self, to: usize, data: &[u8]) -> Result<(), RankError> {
        check_peer(self.rank, to, self.size)?;
        if self.buffered.is_some() && data.len() > EAGER_BYTES {
            return self.send_buffered(to, data);
        }
        if self.blocking {
            self.send_blocking(to, data);
            return Ok(());
        }
        let mut request = self.post_send(to, DATA_TAG, data);
        self.complete(&mut request, to, false).map(|_| ())
    }

    #[inline]
    fn recv(&mut self, from: usize, buf: &mut [u8]) -> Result<usize, RankError> {
        check_peer(self.rank, from, self.size)?;
        if self.blocking {
            return Ok(self.recv_blocking(from, buf));
        }
        let mut request = self.post_recv(from, DATA_TAG, buf);
        let status = self.complete(&mut request, from, true)?;
        Ok(received(&status))
    }

    fn try_send(&mut self, to: usize, data: &[u8]) -> Result<bool, RankError> {
        check_peer(self.rank, to, self.size)?;
        if data.len() > EAGER_BYTES && !self.slot_free(to) {
            return Ok(false);
        }
        self.send(to, data).map(|_| true)
    }

    fn try_recv(&mut self, from: usize, buf: &mut [u8]) -> Result<Option<usize>, RankError> {
        check_peer(self.rank, from, self.size)?;
        let mut flag: c_int = 0;
        let mut status = empty_status();
        // SAFETY: the communicator is live; `flag` and `status` are valid for
        // writes.
        unsafe {
            ffi::MPI_Iprobe(
                from as c_int,
                DATA_TAG,
                self.comm.as_raw(),
                &mut flag,
                &mut status,
            )
        };
        if flag == 0 {
            return Ok(None);
        }
        let len = received(&status);
        if len > buf.len() {
            return Err(too_long(len, buf.len()));
        }
        self.recv(from, buf).map(Some)
    }

    fn probe(&self, from: usize) -> bool {
        from < self.size && from != self.rank && self.probe_tag(from, DATA_TAG)
    }

    fn pending_mut(&mut self) -> &mut PendingRequests {
        &mut self.pending
    }

    /// Copies `data` into the next send buffer of `to` and `MPI_Isend`s it
    /// from there: MPI moves it while the caller works, as far as the library
    /// progresses without being called (OpenMPI, without a progress thread,
    /// moves an eager message at the post and a long one's rendezvous inside
    /// later MPI calls).
    fn isend<'b>(&mut self, to: usize, data: &'b [u8]) -> Result<SendRequest<'b>, RankError> {
        if self.posted.is_none() {
            return super::stand_in::isend(self, to, data);
        }
        let (ticket, comm, slot) = self.free_slot(false, to)?;
        slot.post_copy(comm, to, DATA_TAG, data)?;
        self.pending.sends_posted[to] += 1;
        Ok(SendRequest {
            to,
            data,
            ticket,
            done: false,
        })
    }

    /// Polls the send's request until MPI has finished with its buffer.
    fn wait_send(&mut self, req: SendRequest<'_>) -> Result<(), RankError> {
        if self.posted.is_none() {
            return super::stand_in::wait_send(self, req);
        }
        let to = req.to;
        in_order(self.pending.sends_done[to], req.ticket, "sends to", to)?;
        let mut request = self.take_posted(false, to, req.ticket);
        self.complete(&mut request, to, false)?;
        self.pending.sends_done[to] += 1;
        Ok(())
    }

    /// `MPI_Irecv`s the next message from `from` into the next receive buffer
    /// of `from` (at most `buf.len()` bytes).
    fn irecv<'b>(&mut self, from: usize, buf: &'b mut [u8]) -> Result<RecvRequest<'b>, RankError> {
        if self.posted.is_none() {
            return super::stand_in::irecv(self, from, buf);
        }
        let (ticket, comm, slot) = self.free_slot(true, from)?;
        let capacity = buf.len().min(slot.buf.len());
        // SAFETY: the slot's buffer is the endpoint's and stays valid for
        // writes of `capacity` bytes until the request completes (as in
        // `isend`); the slot was free.
        unsafe {
            ffi::MPI_Irecv(
                slot.buf.as_mut_ptr().cast::<c_void>(),
                count(capacity),
                ffi::RSMPI_UINT8_T,
                from as c_int,
                DATA_TAG,
                comm,
                &mut slot.request,
            )
        };
        self.pending.recvs_posted[from] += 1;
        Ok(RecvRequest {
            from,
            buf,
            ticket,
            done: None,
        })
    }

    /// One `MPI_Test` of the receive if it is the next from its peer; when it
    /// has completed, its message is copied into the caller's buffer.
    fn test_recv(&mut self, req: &mut RecvRequest<'_>) -> Result<bool, RankError> {
        if self.posted.is_none() {
            return super::stand_in::test_recv(self, req);
        }
        let from = req.from;
        if req.done.is_some() || self.pending.recvs_done[from] != req.ticket {
            return Ok(req.done.is_some());
        }
        let slot = self.posted_slot(true, from, req.ticket);
        let mut flag: c_int = 0;
        let mut status = empty_status();
        // SAFETY: the slot's request is the active receive of this ticket (it
        // is the next from `from`, so not yet completed); MPI_Test sets it to
        // MPI_REQUEST_NULL when it completes; `flag` and `status` are valid
        // for writes.
        unsafe { ffi::MPI_Test(&mut slot.request, &mut flag, &mut status) };
        if flag != 0 {
            req.done = Some(self.deliver(from, req.ticket, &status, req.buf));
        }
        Ok(req.done.is_some())
    }

    /// Polls the receive's request until its message is in, then copies it
    /// into the caller's buffer.
    fn wait_recv(&mut self, req: RecvRequest<'_>) -> Result<usize, RankError> {
        if self.posted.is_none() || req.done.is_some() {
            return super::stand_in::wait_recv(self, req);
        }
        let from = req.from;
        in_order(
            self.pending.recvs_done[from],
            req.ticket,
            "receives from",
            from,
        )?;
        let mut request = self.take_posted(true, from, req.ticket);
        let status = self.complete(&mut request, from, true)?;
        Ok(self.deliver(from, req.ticket, &status, req.buf))
    }
}

impl MpiEndpoint {
    /// The request of posted send or receive `ticket` with `peer`, taken out
    /// of its slot to be completed (the slot's buffer stays, and is free once
    /// the request completes).
    fn take_posted(&mut self, receive: bool, peer: usize, ticket: u64) -> ffi::MPI_Request {
        std::mem::replace(
            &mut self.posted_slot(receive, peer, ticket).request,
            null_request(),
        )
    }

    /// The slot of posted send (or receive) `ticket` with `peer`; called only
    /// on an endpoint with posted requests.
    fn posted_slot(&mut self, receive: bool, peer: usize, ticket: u64) -> &mut Slot {
        let posted = self
            .posted
            .as_mut()
            .expect("an endpoint with posted requests");
        let ring = if receive {
            &mut posted.recvs[peer]
        } else {
            &mut posted.sends[peer]
        };
        &mut ring[ticket as usize % REQUESTS_IN_FLIGHT]
    }

    /// Hands over the completed posted receive `ticket` from `from`: copies
    /// its message from the slot into `buf`, counts it done, and returns its
    /// length.
    fn deliver(
        &mut self,
        from: usize,
        ticket: u64,
        status: &ffi::MPI_Status,
        buf: &mut [u8],
    ) -> usize {
        let len = received(status);
        buf[..len].copy_from_slice(&self.posted_slot(true, from, ticket).buf[..len]);
        self.pending.recvs_done[from] += 1;
        len
    }

    /// The slot the next posted send to (or receive from) `peer` takes, with
    /// its ticket and the communicator's handle; an error for a bad peer or a
    /// full ring.
    fn free_slot(
        &mut self,
        receive: bool,
        peer: usize,
    ) -> Result<(u64, ffi::MPI_Comm, &mut Slot), RankError> {
        check_peer(self.rank, peer, self.size)?;
        let p = &self.pending;
        let (ticket, done) = if receive {
            (p.recvs_posted[peer], p.recvs_done[peer])
        } else {
            (p.sends_posted[peer], p.sends_done[peer])
        };
        in_flight(ticket, done, peer)?;
        let comm = self.comm.as_raw();
        Ok((ticket, comm, self.posted_slot(receive, peer, ticket)))
    }
}

/// An error when `posted - done` requests with `peer` are already in flight,
/// every slot of its ring.
#[inline]
fn in_flight(posted: u64, done: u64, peer: usize) -> Result<(), RankError> {
    if posted - done >= REQUESTS_IN_FLIGHT as u64 {
        return Err(RankError::Failed(format!(
            "more than {REQUESTS_IN_FLIGHT} requests with rank {peer} in flight: wait for one first"
        )));
    }
    Ok(())
}

mod multiplexed;
pub use multiplexed::{MULTIPLEXED_RANKS, Multiplexed};
mod watchdog;
pub use watchdog::Watchdog;
