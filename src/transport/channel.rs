//! The channel transport: crossbeam-channel between every ordered pair of ranks.
//!
//! Each ordered pair (s, r) has a bounded data channel s -> r and a return channel
//! r -> s that carries the emptied buffers back. The return channel starts with
//! `slots` buffers of `max_message_bytes` capacity, so a send takes a buffer that
//! is already allocated, copies into it and sends it; the receiver copies out and
//! returns it. Nothing allocates on the timed path, and at most `slots` messages
//! are in flight per pair (the same credit as the mailbox ring).
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
        for s in 0..size {
            for r in (0..size).filter(|&r| r != s) {
                ends[s][r] = Some(bounded(config.slots));
                let (tx, rx) = bounded(config.slots);
                for _ in 0..config.slots {
                    tx.send(Message {
                        bytes: LineAligned::filled(config.max_message_bytes, 0),
                        len: 0,
                    })
                    .expect("fresh channel");
                }
                frees[s][r] = Some((tx, rx));
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
                            }
                        })
                    })
                    .collect(),
                control: Arc::clone(control),
                pending: PendingRequests::new(size),
                max_message_bytes: config.max_message_bytes,
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

    fn fill_and_send(
        &self,
        link: &Link,
        link_peer: usize,
        mut buf: Message,
        data: &[u8],
    ) -> Result<(), RankError> {
        buf.bytes[..data.len()].copy_from_slice(data); // checked by the caller
        buf.len = data.len();
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
        // Never blocks: at most `slots` buffers exist for this pair.
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
        let link = self.link(to)?;
        if data.len() > self.max_message_bytes {
            return Err(too_long(data.len(), self.max_message_bytes));
        }
        let buf = wait_recv(&self.control, self.rank, to, &link.free_from_peer)?;
        self.fill_and_send(link, to, buf, data)
    }

    #[inline]
    fn recv(&mut self, from: usize, buf: &mut [u8]) -> Result<usize, RankError> {
        let link = self.link(from)?;
        let msg = wait_recv(&self.control, self.rank, from, &link.from_peer)?;
        self.drain_into(link, msg, buf)
    }

    fn try_send(&mut self, to: usize, data: &[u8]) -> Result<bool, RankError> {
        let link = self.link(to)?;
        if data.len() > self.max_message_bytes {
            return Err(too_long(data.len(), self.max_message_bytes));
        }
        match link.free_from_peer.try_recv() {
            Ok(buf) => self.fill_and_send(link, to, buf, data).map(|_| true),
            Err(_) => Ok(false),
        }
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
