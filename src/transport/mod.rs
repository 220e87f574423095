//! Message passing between the ranks of a team: the [`Endpoint`] trait and its two
//! flavours.
//!
//! - [`mailbox`]: scibench's remote-write / local-read flag polling. Each ordered
//!   pair of ranks has a ring of slots in the receiver's polled memory; the sender
//!   copies the payload straight in and publishes a sequence number with Release;
//!   the receiver polls its own slot and reads with Acquire. Messages of at most
//!   8 bytes travel in the slot's header line, next to the flag, with no copy.
//! - [`channel`]: crossbeam-channel, one bounded channel per ordered pair, with
//!   buffers recycled through a return channel so the timed path does not allocate.
//!
//! With `--features mpi`, `mpi` carries the same operations between the
//! processes of `mpirun` over MPI point-to-point.
//!
//! Above an endpoint of either flavour, [`mailroom`] is a node's message system
//! (system buffers, store and forward), as a node operating system's. Beside
//! them, [`fabric`] moves one packet at a time over emulated SCI rings and tori,
//! with doorbells and ring buffers, for the `sci-topology` kernel.
//!
//! Both give blocking `send`/`recv`, non-blocking `try_send`/`try_recv` with
//! request objects (`isend`/`irecv` then `wait_*`, for CoMet's overlap kernels),
//! and `probe` (for Lamanna's message-checking loop). Messages between one pair of
//! ranks arrive in order. Kernels are generic over `E: Endpoint`; the flavour is
//! chosen once, outside the timed code ([`TransportKind`]).

pub mod channel;
pub mod fabric;
pub mod mailbox;
pub mod mailroom;
#[cfg(feature = "mpi")]
pub mod mpi;
mod parking;
mod slot;
pub mod watch;

use crate::control::{RankError, TeamControl};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The transport flavours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TransportKind {
    /// Remote-write / local-read flag polling (scibench).
    Mailbox,
    /// crossbeam-channel.
    Channel,
}

impl TransportKind {
    /// Every flavour.
    pub const ALL: [TransportKind; 2] = [TransportKind::Mailbox, TransportKind::Channel];

    /// The flavour's name as the CLI and the JSON spell it.
    pub fn name(self) -> &'static str {
        match self {
            TransportKind::Mailbox => "mailbox",
            TransportKind::Channel => "channel",
        }
    }
}

/// Calls a function generic over `T: Transport` with the transport of a
/// [`TransportKind`] chosen at run time: `with_transport!(kind, run_on(&team, &plan))`
/// is `run_on::<Mailbox>(&team, &plan)` or `run_on::<Channel>(&team, &plan)`. The
/// kind is matched once, outside the timed code, which stays monomorphic; a new
/// flavour is added here only.
#[macro_export]
macro_rules! with_transport {
    ($kind:expr, $($f:ident)::+ ( $($arg:expr),* $(,)? )) => {
        match $kind {
            $crate::transport::TransportKind::Mailbox => {
                $($f)::+::<$crate::transport::mailbox::Mailbox>($($arg),*)
            }
            $crate::transport::TransportKind::Channel => {
                $($f)::+::<$crate::transport::channel::Channel>($($arg),*)
            }
        }
    };
}

impl std::fmt::Display for TransportKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for TransportKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "mailbox" => Ok(TransportKind::Mailbox),
            "channel" => Ok(TransportKind::Channel),
            _ => Err(format!(
                "unknown transport {s:?}: expected mailbox or channel"
            )),
        }
    }
}

/// Sizes of a transport's buffers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TransportConfig {
    /// Largest message a kernel will send, in bytes (channel buffers are this big).
    pub max_message_bytes: usize,
    /// Slots per ordered pair (mailbox ring), and so the credit in chunks of
    /// `slot_bytes` of both transports (the channel's buffers: this many, at
    /// most 64); a power of two, at least 2. The default 64 lets the mailbox publish credit
    /// every 32 messages, so a ping-pong moves the credit line rarely (16 slots
    /// cost about 5% at 8 bytes on the machine this was tuned on).
    pub slots: usize,
    /// Payload bytes per mailbox slot, a multiple of 128; longer messages stream
    /// through several slots (the default ring of 64 x 2 KiB holds 128 KiB per
    /// ordered pair of ranks). The channel charges a message its chunks of
    /// this size against the same credit.
    pub slot_bytes: usize,
}

impl Default for TransportConfig {
    fn default() -> Self {
        TransportConfig {
            max_message_bytes: 64 * 1024,
            slots: 64,
            slot_bytes: 2048,
        }
    }
}

impl TransportConfig {
    /// The defaults, for messages up to `max_message_bytes`.
    pub fn for_messages(max_message_bytes: usize) -> TransportConfig {
        TransportConfig {
            max_message_bytes,
            ..TransportConfig::default()
        }
    }

    /// A configuration for messages up to `max_bytes` that gives every rank
    /// buffered sends of two whole messages per peer (what CoMet's pairwise
    /// exchange, shift and transpose assume, section 2.2.1, and what a
    /// `try_send` of a whole block needs), with either transport: ring slots,
    /// and so credit, for every chunk of four messages, since the mailbox's
    /// receiver returns credit in halves. The channel's credit is the same
    /// (its buffers hold a whole message each, at most 64 of them).
    pub fn buffered(max_bytes: usize) -> TransportConfig {
        let base = TransportConfig::default();
        let chunks = max_bytes.div_ceil(base.slot_bytes).max(1);
        TransportConfig {
            max_message_bytes: max_bytes.max(64),
            slots: (4 * chunks).next_power_of_two().max(base.slots),
            slot_bytes: base.slot_bytes,
        }
    }
}

/// Builds the endpoints of one flavour for a team.
pub trait Transport {
    /// The endpoint type, one per rank.
    type Endpoint: Endpoint;
    /// One endpoint per rank, rank order.
    fn endpoints(control: &Arc<TeamControl>, config: &TransportConfig) -> Vec<Self::Endpoint>;
}

/// Counters that keep non-blocking requests to one peer in order.
#[derive(Debug, Clone, Default)]
pub struct PendingRequests {
    sends_posted: Vec<u64>,
    sends_done: Vec<u64>,
    recvs_posted: Vec<u64>,
    recvs_done: Vec<u64>,
}

impl PendingRequests {
    /// Counters for `size` peers.
    pub fn new(size: usize) -> PendingRequests {
        PendingRequests {
            sends_posted: vec![0; size],
            sends_done: vec![0; size],
            recvs_posted: vec![0; size],
            recvs_done: vec![0; size],
        }
    }
}

/// A posted non-blocking send; complete it with [`Endpoint::wait_send`].
#[derive(Debug)]
#[must_use = "a posted send must be waited for"]
pub struct SendRequest<'b> {
    to: usize,
    data: &'b [u8],
    ticket: u64,
    done: bool,
}

/// A posted non-blocking receive; complete it with [`Endpoint::wait_recv`].
#[derive(Debug)]
#[must_use = "a posted receive must be waited for"]
pub struct RecvRequest<'b> {
    from: usize,
    buf: &'b mut [u8],
    ticket: u64,
    done: Option<usize>,
}

/// One rank's end of a transport.
///
/// Requests to or from one peer complete in the order they were posted; waiting for
/// a later one first is an error.
pub trait Endpoint: Send {
    /// This rank.
    fn rank(&self) -> usize;
    /// Number of ranks.
    fn size(&self) -> usize;
    /// Sends `data` to rank `to`; returns once the data is copied out of `data`.
    fn send(&mut self, to: usize, data: &[u8]) -> Result<(), RankError>;
    /// Receives the next message from rank `from` into `buf`; returns its length.
    fn recv(&mut self, from: usize, buf: &mut [u8]) -> Result<usize, RankError>;
    /// Sends `data` if it can go without waiting; `false` if it would wait.
    fn try_send(&mut self, to: usize, data: &[u8]) -> Result<bool, RankError>;
    /// Receives the next message from `from` if it has begun to arrive.
    fn try_recv(&mut self, from: usize, buf: &mut [u8]) -> Result<Option<usize>, RankError>;
    /// Whether a message from `from` is waiting to be received.
    fn probe(&self, from: usize) -> bool;
    /// The request-ordering counters.
    fn pending_mut(&mut self) -> &mut PendingRequests;

    /// Posts a send; it goes at once if it can.
    fn isend<'b>(&mut self, to: usize, data: &'b [u8]) -> Result<SendRequest<'b>, RankError> {
        stand_in::isend(self, to, data)
    }

    /// Completes a posted send.
    fn wait_send(&mut self, req: SendRequest<'_>) -> Result<(), RankError> {
        stand_in::wait_send(self, req)
    }

    /// Posts a receive; it completes at once if the message has arrived.
    fn irecv<'b>(&mut self, from: usize, buf: &'b mut [u8]) -> Result<RecvRequest<'b>, RankError> {
        stand_in::irecv(self, from, buf)
    }

    /// Whether a posted receive has completed (completing it if it can).
    fn test_recv(&mut self, req: &mut RecvRequest<'_>) -> Result<bool, RankError> {
        stand_in::test_recv(self, req)
    }

    /// Completes a posted receive; returns the message length.
    fn wait_recv(&mut self, req: RecvRequest<'_>) -> Result<usize, RankError> {
        stand_in::wait_recv(self, req)
    }
}

/// The requests of a transport with no engine of its own to move data in the
/// background (the thread transports): a posted send goes at the post if it
/// can go without waiting, else at its wait; a posted receive completes at the
/// post (or a test) if its message has begun to arrive, else at its wait. The
/// ordering counters ([`PendingRequests`]) keep them in order per peer.
mod stand_in {
    use super::{Endpoint, RecvRequest, SendRequest};
    use crate::control::RankError;

    pub(super) fn isend<'b, E: Endpoint + ?Sized>(
        ep: &mut E,
        to: usize,
        data: &'b [u8],
    ) -> Result<SendRequest<'b>, RankError> {
        let p = ep.pending_mut();
        let ticket = p.sends_posted[to];
        p.sends_posted[to] += 1;
        let first_in_line = p.sends_done[to] == ticket;
        let done = first_in_line && ep.try_send(to, data)?;
        if done {
            ep.pending_mut().sends_done[to] += 1;
        }
        Ok(SendRequest {
            to,
            data,
            ticket,
            done,
        })
    }

    pub(super) fn wait_send<E: Endpoint + ?Sized>(
        ep: &mut E,
        req: SendRequest<'_>,
    ) -> Result<(), RankError> {
        if req.done {
            return Ok(());
        }
        super::in_order(
            ep.pending_mut().sends_done[req.to],
            req.ticket,
            "sends to",
            req.to,
        )?;
        ep.send(req.to, req.data)?;
        ep.pending_mut().sends_done[req.to] += 1;
        Ok(())
    }

    pub(super) fn irecv<'b, E: Endpoint + ?Sized>(
        ep: &mut E,
        from: usize,
        buf: &'b mut [u8],
    ) -> Result<RecvRequest<'b>, RankError> {
        let p = ep.pending_mut();
        let ticket = p.recvs_posted[from];
        p.recvs_posted[from] += 1;
        let first_in_line = p.recvs_done[from] == ticket;
        let done = if first_in_line {
            ep.try_recv(from, buf)?
        } else {
            None
        };
        if done.is_some() {
            ep.pending_mut().recvs_done[from] += 1;
        }
        Ok(RecvRequest {
            from,
            buf,
            ticket,
            done,
        })
    }

    pub(super) fn test_recv<E: Endpoint + ?Sized>(
        ep: &mut E,
        req: &mut RecvRequest<'_>,
    ) -> Result<bool, RankError> {
        if req.done.is_none() && ep.pending_mut().recvs_done[req.from] == req.ticket {
            req.done = ep.try_recv(req.from, req.buf)?;
            if req.done.is_some() {
                ep.pending_mut().recvs_done[req.from] += 1;
            }
        }
        Ok(req.done.is_some())
    }

    pub(super) fn wait_recv<E: Endpoint + ?Sized>(
        ep: &mut E,
        req: RecvRequest<'_>,
    ) -> Result<usize, RankError> {
        if let Some(len) = req.done {
            return Ok(len);
        }
        super::in_order(
            ep.pending_mut().recvs_done[req.from],
            req.ticket,
            "receives from",
            req.from,
        )?;
        let len = ep.recv(req.from, req.buf)?;
        ep.pending_mut().recvs_done[req.from] += 1;
        Ok(len)
    }
}

/// An error unless the request with `ticket` is the next to complete of its
/// kind and peer (`done` of them have).
#[inline]
fn in_order(done: u64, ticket: u64, what: &str, peer: usize) -> Result<(), RankError> {
    if done != ticket {
        return Err(out_of_order(what, peer));
    }
    Ok(())
}

#[cold]
#[inline(never)]
fn out_of_order(what: &str, peer: usize) -> RankError {
    RankError::Failed(format!(
        "{what} rank {peer} must be waited for in the order they were posted"
    ))
}

#[inline(always)]
fn check_peer(rank: usize, peer: usize, size: usize) -> Result<(), RankError> {
    if peer >= size || peer == rank {
        return Err(bad_peer(rank, peer, size));
    }
    Ok(())
}

/// The error of `check_peer`, kept off the hot path.
#[cold]
#[inline(never)]
fn bad_peer(rank: usize, peer: usize, size: usize) -> RankError {
    RankError::Failed(format!(
        "rank {rank} cannot message rank {peer} in a team of {size}"
    ))
}

#[cold]
#[inline(never)]
fn too_long(len: usize, max: usize) -> RankError {
    RankError::Failed(format!(
        "message of {len} bytes exceeds the buffer of {max} bytes"
    ))
}
