//! The channel transport: crossbeam-channel between every ordered pair of ranks.
//!
//! Each ordered pair (s, r) has a bounded data channel s -> r and a return channel
//! r -> s that carries the emptied buffers back. The sender starts with up to 64
//! buffers of `max_message_bytes` capacity (`slots` of them, at most 64), so a
//! send takes a buffer that is already allocated, copies into it and sends it;
//! the receiver copies out and returns it. Nothing allocates on the timed path.
//!
//! The credit is the mailbox ring's, in bytes: `slots` chunks of `slot_bytes`
//! (128 KiB by default) may be in flight per pair, a message taking
//! `ceil(len / slot_bytes)` of them (at least one). The sender takes back
//! returned buffers, and their credit, only when it runs short, and reuses the
//! one returned last: the buffers a stream touches are the ones in flight, as
//! the mailbox's ring is. With a credit of 64 messages whatever their size and
//! the buffers taken in turn, a 64 KiB stream cycled through 4 MiB of buffers,
//! beyond the L2, and its time took one of two modes from run to run (a 32 KiB
//! message 1.1 or 3.2 us one way on a 2-vCPU EPYC VM, the mailbox 4 to 5 us).
//!
//! A rank alone on its CPU polls with `try_recv` and the spin-loop hint (the same
//! wait as the mailbox, so the comparison is of transports, not of wait
//! strategies); a rank sharing its CPU blocks in crossbeam's `recv_timeout`.

use super::{Endpoint, PendingRequests, Transport, TransportConfig, check_peer, too_long};
use crate::control::{RankError, TeamControl, WaitStrategy};
use crate::platform::LineAligned;
use crossbeam_channel::{Receiver, RecvTimeoutError, Sender, TryRecvError, bounded};
use std::sync::Arc;
use std::time::Duration;

/// Both ends of one crossbeam channel.
type Pair = (Sender<Message>, Receiver<Message>);

/// One message buffer: bytes for the longest message, starting on a cache line
/// (as the mailbox's slots, so that the two transports' copies run at the same
/// speed: see [`crate::platform::LineAligned`]), and the length in use.
#[derive(Debug)]
struct Message {
    bytes: LineAligned<u8>,
    len: usize,
}

/// The most buffers one ordered pair gets, whatever `slots` says (the
/// mailbox's ring may have thousands of slots for long messages; a buffer
/// here holds a whole message).
const MAX_BUFFERS: usize = 64;

/// The channel flavour.
#[derive(Debug, Clone, Copy)]
pub struct Channel;

/// The four channel ends a rank holds for one peer.
#[derive(Debug)]
struct Link {
    /// Data to the peer.
    to_peer: Sender<Message>,
    /// Emptied buffers back from the peer, for our next sends.
    free_from_peer: Receiver<Message>,
    /// Data from the peer.
    from_peer: Receiver<Message>,
    /// Emptied buffers back to the peer.
    free_to_peer: Sender<Message>,
    /// Buffers to send in, taken back from the peer or never used; the last
    /// is the one returned last.
    spare: Vec<Message>,
    /// Chunks of credit not charged to a buffer in flight.
    credit: usize,
}

/// One rank's end of the channel transport.
#[derive(Debug)]
pub struct ChannelEndpoint {
    rank: usize,
    size: usize,
    links: Vec<Option<Link>>,
    control: Arc<TeamControl>,
    pending: PendingRequests,
    max_message_bytes: usize,
    /// The credit's unit: `slot_bytes`.
    chunk_bytes: usize,
    /// The credit per peer, in chunks: `slots`.
    credit_cap: usize,
}

impl Transport for Channel {
    type Endpoint = ChannelEndpoint;

    fn endpoints(control: &Arc<TeamControl>, config: &TransportConfig) -> Vec<ChannelEndpoint> {
        let size = control.ranks();
        // data[s][r]: s -> r; free[s][r]: buffers of s's sends to r, returned by r.
        let mut ends: Vec<Vec<Option<Pair>>> = (0..size)
            .map(|_| (0..size).map(|_| None).collect())
            .collect();
        let mut frees = ends.clone();
        let buffers = config.slots.clamp(1, MAX_BUFFERS);
        for s in 0..size {
            for r in (0..size).filter(|&r| r != s) {
                ends[s][r] = Some(bounded(buffers));
                frees[s][r] = Some(bounded(buffers));
            }
        }
        (0..size)
            .map(|rank| ChannelEndpoint {
                rank,
                size,
                links: (0..size)
                    .map(|peer| {
                        (peer != rank).then(|| {
                            let (to_peer, _) = ends[rank][peer].clone().expect("pair");
                            let (_, from_peer) = ends[peer][rank].clone().expect("pair");
                            let (_, free_from_peer) = frees[rank][peer].clone().expect("pair");
                            let (free_to_peer, _) = frees[peer][rank].clone().expect("pair");
                            Link {
                                to_peer,
                                free_from_peer,
                                from_peer,
                                free_to_peer,
                                spare: (0..buffers)
                                    .map(|_| Message {
                                        bytes: LineAligned::filled(config.max_message_bytes, 0),
                                        len: 0,
                                    })
                                    .collect(),
                                credit: config.slots.max(1),
                            }
                        })
                    })
                    .collect(),
                control: Arc::clone(control),
                pending: PendingRequests::new(size),
                max_message_bytes: config.max_message_bytes,
                chunk_bytes: config.slot_bytes.max(1),
                credit_cap: config.slots.max(1),
            })
            .collect()
    }
}

/// Waits on a crossbeam receiver as `rank` should: spinning or blocking, with the
/// team's abort flag and deadline.
fn wait_recv(
    control: &TeamControl,
    rank: usize,
    peer: usize,
    rx: &Receiver<Message>,
) -> Result<Message, RankError> {
    let gone = || {
        RankError::Failed(format!(
            "rank {peer} ended while rank {rank} was waiting for it"
        ))
    };
    match control.wait_strategy(rank) {
        WaitStrategy::Spin => {
            let mut disconnected = false;
            let v = control.spin_until(peer, || match rx.try_recv() {
                Ok(v) => Some(Some(v)),
                Err(TryRecvError::Empty) => None,
                Err(TryRecvError::Disconnected) => {
                    disconnected = true;
                    Some(None)
                }
            })?;
            v.ok_or_else(|| {
                debug_assert!(disconnected);
                gone()
            })
        }
        WaitStrategy::Block => {
            let mut started = None;
            loop {
                match rx.recv_timeout(Duration::from_millis(10)) {
                    Ok(v) => return Ok(v),
                    Err(RecvTimeoutError::Timeout) => control.check(peer, &mut started)?,
                    Err(RecvTimeoutError::Disconnected) => return Err(gone()),
                }
            }
        }
    }
}

impl ChannelEndpoint {
    fn link(&self, peer: usize) -> Result<&Link, RankError> {
        check_peer(self.rank, peer, self.size)?;
        Ok(self.links[peer]
            .as_ref()
            .expect("every other rank has a link"))
    }

    /// The credit a send of `len` bytes to `peer` takes, once the peer and
    /// the length are checked.
    fn need(&self, peer: usize, len: usize) -> Result<usize, RankError> {
        check_peer(self.rank, peer, self.size)?;
        if len > self.max_message_bytes {
            return Err(too_long(len, self.max_message_bytes));
        }
        Ok(self.credit_of(len))
    }

    /// The credit a message of `len` bytes takes: its chunks, at least one,
    /// at most the whole credit. A returned buffer still holds its length, so
    /// its credit comes back with it without a field of its own.
    fn credit_of(&self, len: usize) -> usize {
        len.div_ceil(self.chunk_bytes).clamp(1, self.credit_cap)
    }

    /// Waits until the link to `to` has `need` chunks of credit and a spare
    /// buffer, taking back what the peer returned (with `block`, waiting for
    /// it; without, giving up when nothing came back: `false`).
    #[inline]
    fn make_room(&mut self, to: usize, need: usize, block: bool) -> Result<bool, RankError> {
        loop {
            let link = self.links[to].as_ref().expect("checked by `need`");
            if link.credit >= need && !link.spare.is_empty() {
                return Ok(true);
            }
            let back = if block {
                wait_recv(&self.control, self.rank, to, &link.free_from_peer)?
            } else {
                match link.free_from_peer.try_recv() {
                    Ok(back) => back,
                    Err(_) => return Ok(false),
                }
            };
            let credit = self.credit_of(back.len);
            let link = self.links[to].as_mut().expect("checked by `need`");
            link.credit += credit;
            link.spare.push(back);
        }
    }

    /// Copies `data` into the spare buffer returned last, takes `need`
    /// chunks of credit and sends it (the caller made sure of both).
    fn fill_and_send(
        link: &mut Link,
        link_peer: usize,
        need: usize,
        data: &[u8],
    ) -> Result<(), RankError> {
        let mut buf = link
            .spare
            .pop()
            .expect("a spare buffer, checked by the caller");
        buf.bytes[..data.len()].copy_from_slice(data); // checked by the caller
        buf.len = data.len();
        link.credit -= need;
        link.to_peer
            .send(buf)
            .map_err(|_| RankError::PeerEnded(link_peer))
    }

    fn drain_into(&self, link: &Link, msg: Message, buf: &mut [u8]) -> Result<usize, RankError> {
        let len = msg.len;
        if len > buf.len() {
            return Err(too_long(len, buf.len()));
        }
        buf[..len].copy_from_slice(&msg.bytes[..len]);
        // Never blocks: the return channel holds every buffer of this pair.
        let _ = link.free_to_peer.try_send(msg);
        Ok(len)
    }
}

impl Endpoint for ChannelEndpoint {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.size
    }

    #[inline]
    fn send(&mut self, to: usize, data: &[u8]) -> Result<(), RankError> {
        let need = self.need(to, data.len())?;
        // Short of credit or of a buffer: wait for the peer to return one.
        self.make_room(to, need, true)?;
        let link = self.links[to].as_mut().expect("checked by `need`");
        Self::fill_and_send(link, to, need, data)
    }

    #[inline]
    fn recv(&mut self, from: usize, buf: &mut [u8]) -> Result<usize, RankError> {
        let link = self.link(from)?;
        let msg = wait_recv(&self.control, self.rank, from, &link.from_peer)?;
        self.drain_into(link, msg, buf)
    }

    fn try_send(&mut self, to: usize, data: &[u8]) -> Result<bool, RankError> {
        let need = self.need(to, data.len())?;
        if !self.make_room(to, need, false)? {
            return Ok(false);
        }
        let link = self.links[to].as_mut().expect("checked by `need`");
        Self::fill_and_send(link, to, need, data).map(|_| true)
    }

    fn try_recv(&mut self, from: usize, buf: &mut [u8]) -> Result<Option<usize>, RankError> {
        let link = self.link(from)?;
        match link.from_peer.try_recv() {
            Ok(msg) => self.drain_into(link, msg, buf).map(Some),
            Err(_) => Ok(None),
        }
    }

    fn probe(&self, from: usize) -> bool {
        self.link(from).is_ok_and(|l| !l.from_peer.is_empty())
    }

    fn pending_mut(&mut self) -> &mut PendingRequests {
        &mut self.pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::team::{Team, TeamSpec};

    /// The credit is the mailbox ring's in bytes: with 4 slots of 128 bytes,
    /// one 512-byte message (4 chunks) takes all of it, and the next waits for
    /// the receiver; four 8-byte messages (a chunk each) go, a fifth does not.
    #[test]
    fn the_credit_counts_chunks_of_slot_bytes() {
        let team = Team::new(&TeamSpec {
            cpus: crate::platform::allowed_cpus()
                .into_iter()
                .take(1)
                .collect(),
            ranks: 2,
            virtual_ok: true,
            oversubscribe: true,
            wait_timeout: Duration::from_secs(10),
        })
        .unwrap();
        let config = TransportConfig {
            max_message_bytes: 512,
            slots: 4,
            slot_bytes: 128,
        };
        let mut eps = Channel::endpoints(team.control(), &config);
        let (a, b) = eps.split_at_mut(1);
        let (a, b) = (&mut a[0], &mut b[0]);
        let mut buf = [0u8; 512];
        assert!(a.try_send(1, &[1; 512]).unwrap());
        assert!(!a.try_send(1, &[2; 8]).unwrap(), "no credit left");
        assert_eq!(b.try_recv(0, &mut buf).unwrap(), Some(512));
        for k in 0..4 {
            assert!(a.try_send(1, &[k; 8]).unwrap(), "message {k}");
        }
        assert!(!a.try_send(1, &[9; 8]).unwrap(), "four chunks in flight");
        for k in 0..4 {
            assert_eq!(b.try_recv(0, &mut buf).unwrap(), Some(8));
            assert_eq!(buf[0], k, "in order");
        }
        assert!(a.try_send(1, &[5; 300]).unwrap(), "credit back");
        assert!(
            !a.try_send(1, &[6; 200]).unwrap(),
            "three chunks, then two more"
        );
    }

    #[test]
    fn channel_ring_of_virtual_ranks_carries_messages_in_order() {
        let cpus: Vec<usize> = crate::platform::allowed_cpus()
            .into_iter()
            .take(2)
            .collect();
        let team = Team::new(&TeamSpec {
            cpus,
            ranks: 4,
            virtual_ok: true,
            oversubscribe: false,
            wait_timeout: Duration::from_secs(10),
        })
        .unwrap();
        let eps = Channel::endpoints(team.control(), &TransportConfig::for_messages(5000));
        team.run("channel-test", eps, |ctx, ep| {
            let next = (ctx.rank + 1) % ctx.size;
            let prev = (ctx.rank + ctx.size - 1) % ctx.size;
            let mut buf = vec![0u8; 5000];
            for round in 0..50u32 {
                let msg = vec![(round % 251) as u8; (round as usize * 97) % 5000];
                if ctx.rank == 0 {
                    ep.send(next, &msg)?;
                    assert_eq!(ep.recv(prev, &mut buf)?, msg.len());
                } else {
                    assert_eq!(ep.recv(prev, &mut buf)?, msg.len());
                    assert!(buf[..msg.len()].iter().all(|&b| b == (round % 251) as u8));
                    ep.send(next, &msg)?;
                }
            }
            Ok(())
        })
        .unwrap();
    }
}
