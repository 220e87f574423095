//! A node's message system, as a node operating system's: a fixed pool of system
//! buffers between a rank's program and its transport endpoint, with store and
//! forward. Used by the kernels whose ranks are nodes with an operating system
//! (Krumme & Greenfield's decomposition, Lamanna's message latency), on hosted
//! teams or not.

use crate::control::RankError;
use crate::platform::LineAligned;
use crate::transport::Endpoint;
use std::collections::VecDeque;

/// One system buffer: a message for or from `peer`.
#[derive(Debug)]
struct SysBuf {
    peer: usize,
    len: usize,
    /// Line-aligned, as every buffer a message is copied between
    /// ([`crate::platform::LineAligned`]).
    data: LineAligned<u8>,
}

/// A forwarding rule: the next `left` messages from a source go to `to`.
#[derive(Debug, Clone, Copy)]
struct Route {
    to: usize,
    left: u64,
}

/// A node's message system, as a node operating system's: a fixed pool of system
/// buffers between the user program and the transport.
///
/// - [`Mailroom::post`] is the write call: it copies the user's message into a
///   free system buffer and queues it (`F` in Krumme & Greenfield's terms);
/// - [`Mailroom::pump`] is the system's own work, done whenever the node is polled:
///   it takes every arrived message into a system buffer (one per source per call),
///   hands it on at once if a route says so (store and forward), and hands queued
///   buffers to the transport while the transport takes them (`R` and `S`);
/// - [`Mailroom::take`] is the rest of the read call: it copies the oldest
///   delivered message from a source out to the user (`U`).
///
/// Nothing allocates after [`Mailroom::new`]. Messages from one source are
/// delivered, and messages to one destination sent, in order.
#[derive(Debug)]
pub struct Mailroom {
    rank: usize,
    size: usize,
    free: Vec<SysBuf>,
    outbox: VecDeque<SysBuf>,
    inbox: Vec<VecDeque<SysBuf>>,
    routes: Vec<Option<Route>>,
    max_message_bytes: usize,
    forwarded: u64,
    received: u64,
    transmitted: u64,
}

impl Mailroom {
    /// A mailroom for `rank` of `size` with `buffers` system buffers of
    /// `max_message_bytes` each (at least 1 buffer).
    pub fn new(rank: usize, size: usize, buffers: usize, max_message_bytes: usize) -> Mailroom {
        Mailroom {
            rank,
            size,
            free: (0..buffers.max(1))
                .map(|_| SysBuf {
                    peer: 0,
                    len: 0,
                    data: LineAligned::filled(max_message_bytes, 0u8),
                })
                .collect(),
            outbox: VecDeque::with_capacity(buffers.max(1)),
            inbox: (0..size)
                .map(|_| VecDeque::with_capacity(buffers.max(1)))
                .collect(),
            routes: vec![None; size],
            max_message_bytes,
            forwarded: 0,
            received: 0,
            transmitted: 0,
        }
    }

    /// The rank this mailroom serves.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// Forwards the next `count` messages from `from` to `to` without the program
    /// (messages from `from` already delivered and not taken are forwarded first).
    pub fn route(&mut self, from: usize, to: usize, count: u64) -> Result<(), RankError> {
        if from >= self.size || to >= self.size || from == self.rank || to == self.rank {
            return Err(RankError::Failed(format!(
                "rank {} cannot route from rank {from} to rank {to} in a team of {}",
                self.rank, self.size
            )));
        }
        let mut left = count;
        while left > 0 {
            let Some(mut b) = self.inbox[from].pop_front() else {
                break;
            };
            b.peer = to;
            self.outbox.push_back(b);
            self.forwarded += 1;
            left -= 1;
        }
        self.routes[from] = (left > 0).then_some(Route { to, left });
        Ok(())
    }

    /// Ends the route from `from`, however many messages it had left.
    pub fn unroute(&mut self, from: usize) {
        if let Some(r) = self.routes.get_mut(from) {
            *r = None;
        }
    }

    /// Whether a route still has messages to forward.
    pub fn routing(&self) -> bool {
        self.routes.iter().any(Option::is_some)
    }

    /// The write call: copies `data` into a free system buffer and queues it for
    /// `to`. Fails when no buffer is free or the message is too long.
    #[inline]
    pub fn post(&mut self, to: usize, data: &[u8]) -> Result<(), RankError> {
        if to >= self.size || to == self.rank {
            return Err(RankError::Failed(format!(
                "rank {} cannot message rank {to} in a team of {}",
                self.rank, self.size
            )));
        }
        if data.len() > self.max_message_bytes {
            return Err(RankError::Failed(format!(
                "message of {} bytes exceeds the system buffers of {} bytes",
                data.len(),
                self.max_message_bytes
            )));
        }
        let Some(mut b) = self.free.pop() else {
            return Err(RankError::Failed(format!(
                "rank {}: every system buffer is in use",
                self.rank
            )));
        };
        b.data[..data.len()].copy_from_slice(data);
        b.len = data.len();
        b.peer = to;
        self.outbox.push_back(b);
        Ok(())
    }

    /// The system's work: takes in what has arrived (at most one message per
    /// source), forwards what a route says, and hands queued buffers to the
    /// transport while it takes them. Returns whether anything moved.
    ///
    /// Every node looks at its sources in the same order relative to itself:
    /// `rank + 1`, `rank + 2`, … up to `rank - 1` (wrapping), and a message a route
    /// forwards goes to the transport as soon as it is taken in, before the looks
    /// at the sources after it. What a message waits for at a node is then the
    /// same at every node of a chain `0, 1, 2, …`: a forwarding node hands it on at
    /// once, and the node at the chain's end finds it from `rank - 1` at its last
    /// look. Scanning `0..size` with the forwards at the end, as this did before,
    /// made a node's hop cost one look (a line another CPU may have written) for
    /// every source numbered above the one the message came from. Links between
    /// low ranks were dearer than links between high ones, and the echo of Krumme &
    /// Greenfield was no longer a line in the distance: on a Xeon, the 20
    /// half-increments of five orders of its chain fitted `242 + 18 k` ns (rms
    /// 9 ns), `k` the looks that order put on them, half of the looks added.
    #[inline]
    pub fn pump<E: Endpoint>(&mut self, ep: &mut E) -> Result<bool, RankError> {
        let mut work = false;
        for step in 1..self.size {
            // The wrap without a division: this runs at every look of every poll.
            let from = match self.rank + step {
                f if f >= self.size => f - self.size,
                f => f,
            };
            if self.free.is_empty() {
                break;
            }
            if !ep.probe(from) {
                continue;
            }
            let mut b = self.free.pop().expect("checked non-empty");
            match ep.try_recv(from, &mut b.data)? {
                Some(len) => {
                    work = true;
                    self.received += 1;
                    b.len = len;
                    match &mut self.routes[from] {
                        Some(route) => {
                            b.peer = route.to;
                            route.left -= 1;
                            if route.left == 0 {
                                self.routes[from] = None;
                            }
                            self.forwarded += 1;
                            self.outbox.push_back(b);
                            self.flush(ep)?;
                        }
                        None => {
                            b.peer = from;
                            self.inbox[from].push_back(b);
                        }
                    }
                }
                None => self.free.push(b),
            }
        }
        work |= self.flush(ep)?;
        Ok(work)
    }

    /// Hands queued buffers to the transport, in order, while it takes them.
    #[inline]
    pub fn flush<E: Endpoint>(&mut self, ep: &mut E) -> Result<bool, RankError> {
        let mut work = false;
        while let Some(b) = self.outbox.front() {
            if !ep.try_send(b.peer, &b.data[..b.len])? {
                break;
            }
            let b = self.outbox.pop_front().expect("front exists");
            self.free.push(b);
            self.transmitted += 1;
            work = true;
        }
        Ok(work)
    }

    /// Whether a delivered message from `from` waits to be taken.
    #[inline]
    pub fn arrived(&self, from: usize) -> bool {
        self.inbox.get(from).is_some_and(|q| !q.is_empty())
    }

    /// The rest of the read call: copies the oldest delivered message from `from`
    /// into `buf` and frees its system buffer; `None` if none has arrived.
    #[inline]
    pub fn take(&mut self, from: usize, buf: &mut [u8]) -> Result<Option<usize>, RankError> {
        let Some(b) = self.inbox.get_mut(from).and_then(VecDeque::pop_front) else {
            return Ok(None);
        };
        if b.len > buf.len() {
            let len = b.len;
            self.inbox[from].push_front(b);
            return Err(RankError::Failed(format!(
                "message of {len} bytes exceeds the buffer of {} bytes",
                buf.len()
            )));
        }
        buf[..b.len].copy_from_slice(&b.data[..b.len]);
        let len = b.len;
        self.free.push(b);
        Ok(Some(len))
    }

    /// Whether every posted or forwarded message has gone to the transport.
    pub fn sent_all(&self) -> bool {
        self.outbox.is_empty()
    }

    /// Messages forwarded by routes so far.
    pub fn forwarded(&self) -> u64 {
        self.forwarded
    }

    /// Messages taken in from the transport so far.
    pub fn received(&self) -> u64 {
        self.received
    }

    /// Messages handed to the transport so far.
    pub fn transmitted(&self) -> u64 {
        self.transmitted
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RANKS: usize = 6;
    const MAX: usize = 3000;

    /// An endpoint that logs what a mailroom asks of it, in order: `('p', from)` a
    /// look, `('r', from)` a message taken, `('s', to)` a message sent. Messages
    /// wait in `waiting[from]`; sends always go.
    struct Recorder {
        rank: usize,
        waiting: Vec<VecDeque<Vec<u8>>>,
        log: std::cell::RefCell<Vec<(char, usize)>>,
        pending: crate::transport::PendingRequests,
    }

    impl Endpoint for Recorder {
        fn rank(&self) -> usize {
            self.rank
        }
        fn size(&self) -> usize {
            self.waiting.len()
        }
        fn send(&mut self, _: usize, _: &[u8]) -> Result<(), RankError> {
            Err(RankError::Failed("a mailroom never blocks".into()))
        }
        fn recv(&mut self, _: usize, _: &mut [u8]) -> Result<usize, RankError> {
            Err(RankError::Failed("a mailroom never blocks".into()))
        }
        fn try_send(&mut self, to: usize, _: &[u8]) -> Result<bool, RankError> {
            self.log.borrow_mut().push(('s', to));
            Ok(true)
        }
        fn try_recv(&mut self, from: usize, buf: &mut [u8]) -> Result<Option<usize>, RankError> {
            let Some(m) = self.waiting[from].pop_front() else {
                return Ok(None);
            };
            self.log.borrow_mut().push(('r', from));
            buf[..m.len()].copy_from_slice(&m);
            Ok(Some(m.len()))
        }
        fn probe(&self, from: usize) -> bool {
            self.log.borrow_mut().push(('p', from));
            !self.waiting[from].is_empty()
        }
        fn pending_mut(&mut self) -> &mut crate::transport::PendingRequests {
            &mut self.pending
        }
    }

    /// A node looks at its sources from the one above it round to the one below
    /// it, and hands a forwarded message on before its next look: rank 2 of 6,
    /// forwarding from 3 to 1, with messages from 3, 5 and 1 waiting. Scanning
    /// `0..size` and forwarding at the end made every hop pay a look for each
    /// source numbered above the one it came from.
    #[test]
    fn a_mailroom_looks_from_its_successor_round_and_forwards_at_once() {
        let mut waiting = vec![VecDeque::new(); RANKS];
        for from in [3, 5, 1] {
            waiting[from].push_back(vec![from as u8; 16]);
        }
        let mut ep = Recorder {
            rank: 2,
            waiting,
            log: std::cell::RefCell::new(Vec::new()),
            pending: crate::transport::PendingRequests::new(RANKS),
        };
        let mut room = Mailroom::new(2, RANKS, 8, MAX);
        room.route(3, 1, 1).unwrap();
        assert!(room.pump(&mut ep).unwrap());
        assert_eq!(
            ep.log.into_inner(),
            vec![
                ('p', 3),
                ('r', 3),
                ('s', 1),
                ('p', 4),
                ('p', 5),
                ('r', 5),
                ('p', 0),
                ('p', 1),
                ('r', 1),
            ]
        );
        assert_eq!(
            (room.forwarded(), room.received(), room.transmitted()),
            (1, 3, 1)
        );
        assert!(room.arrived(5) && room.arrived(1) && !room.arrived(3));
        assert!(!room.routing());
    }
}
