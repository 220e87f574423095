//! A fabric of unidirectional rings in shared memory, as an SCI ring or torus
//! moves a packet: the worker holding the packet copies its payload into the ring
//! buffer of the next hop (remote write) and rings the doorbell of the worker that
//! hosts the next node, which polls it (local read). Agents between the rings of
//! two dimensions move the payload from one ring's buffer to the next (switching).
//! Exactly one packet is in flight at a time. The routing tables come from the
//! caller ([`Geometry`]); the `sci-topology` kernel builds them from its tori.

use crate::control::{RankError, TeamControl};
use crossbeam_utils::CachePadded;
use std::cell::UnsafeCell;
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The routing tables of a fabric.
#[derive(Debug, Clone)]
pub struct Geometry {
    /// Number of nodes.
    pub nodes: usize,
    /// Number of dimensions (ring directions through a node).
    pub dims: usize,
    /// The node that answers node 0's ping.
    pub client: usize,
    /// `next[at * nodes + to]` = (next node, dimension); `(usize::MAX, 0)` if `at == to`.
    pub next: Vec<(usize, usize)>,
    /// `worker_of[node]`: the worker that hosts the node.
    pub worker_of: Vec<usize>,
    /// `ring_of[node * dims + dim]`: the ring of dimension `dim` through `node`.
    pub ring_of: Vec<usize>,
    /// Number of rings (ring buffers).
    pub rings: usize,
}

/// Doorbell route word: bits 0-15 the node the hop arrives at, 16-31 the packet's
/// destination, 32-39 the dimension of the ring travelled, 40-47 the kind.
const KIND_DATA: u64 = 0;
const KIND_STOP: u64 = 1;

fn pack(at: usize, dest: usize, dim: usize, kind: u64) -> u64 {
    at as u64 | (dest as u64) << 16 | (dim as u64) << 32 | kind << 40
}

fn unpack(word: u64) -> (usize, usize, usize, u64) {
    (
        (word & 0xffff) as usize,
        ((word >> 16) & 0xffff) as usize,
        ((word >> 32) & 0xff) as usize,
        (word >> 40) & 0xff,
    )
}

/// A worker's doorbell line: written by the worker holding the packet (remote
/// write), polled by its owner (local read).
///
/// # Memory ordering
/// The writer stores `route` and `len` (Relaxed), then `seq` (Release); the owner
/// loads `seq` (Acquire) and, seeing a new value, reads `route` and `len`. The
/// Release/Acquire pair on `seq` also orders the writer's payload copy into a ring
/// buffer before the owner's read of it. `seq` values are a global hop count carried
/// by the single packet, so each doorbell sees strictly increasing values.
#[derive(Debug, Default)]
struct Doorbell {
    seq: AtomicU64,
    route: AtomicU64,
    len: AtomicU64,
}

/// One 128-byte line of ring buffer (128: x86 prefetches lines in adjacent pairs).
#[derive(Clone, Copy)]
#[repr(C, align(128))]
struct Line([u8; 128]);

/// The fabric of one experiment: geometry tables, doorbells, ring buffers.
pub struct Fabric {
    nodes: usize,
    dims: usize,
    workers: usize,
    client: usize,
    /// `next[at * nodes + to]` = (next node, dimension); `(usize::MAX, 0)` if `at == to`.
    next: Vec<(usize, usize)>,
    /// `worker_of[node]`.
    worker_of: Vec<usize>,
    /// `ring_of[node * dims + dim]`: the ring of dimension `dim` through `node`.
    ring_of: Vec<usize>,
    bells: Box<[CachePadded<Doorbell>]>,
    /// Payload buffers, one per ring, each `capacity` bytes.
    buffers: Box<[Box<[UnsafeCell<Line>]>]>,
    capacity: usize,
}

// SAFETY: the ring buffers (`UnsafeCell`) are the only non-Sync fields. Exactly one
// packet exists at a time and only the worker that holds it touches a ring buffer:
// it received the packet by an Acquire load of its doorbell's `seq` that read the
// Release store of the previous holder, which made that holder's buffer writes
// happen-before this worker's accesses; it hands the packet on by a Release store
// after its own accesses. So all buffer accesses are totally ordered by
// happens-before and never race.
unsafe impl Sync for Fabric {}

impl Fabric {
    /// A fabric with `geometry`'s rings, one doorbell per worker, and ring buffers
    /// of `capacity` bytes (rounded up to whole lines).
    pub fn new(geometry: Geometry, workers: usize, capacity: usize) -> Fabric {
        let lines = capacity.div_ceil(128).max(1);
        Fabric {
            nodes: geometry.nodes,
            dims: geometry.dims,
            workers,
            client: geometry.client,
            next: geometry.next,
            worker_of: geometry.worker_of,
            ring_of: geometry.ring_of,
            bells: (0..workers)
                .map(|_| CachePadded::new(Doorbell::default()))
                .collect(),
            buffers: (0..geometry.rings)
                .map(|_| {
                    (0..lines)
                        .map(|_| UnsafeCell::new(Line([0; 128])))
                        .collect()
                })
                .collect(),
            capacity: lines * 128,
        }
    }

    #[inline(always)]
    fn buffer(&self, node: usize, dim: usize) -> *mut u8 {
        let ring = self.ring_of[node * self.dims + dim];
        UnsafeCell::raw_get(self.buffers[ring].as_ptr()).cast::<u8>()
    }

    #[inline(always)]
    fn hop(&self, at: usize, to: usize) -> (usize, usize) {
        self.next[at * self.nodes + to]
    }
}

/// Evicts the lines of `len` bytes at `ptr` from every cache, so that the next
/// reader fetches them from memory whichever CPU it runs on.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn flush_lines(ptr: *const u8, len: usize) {
    let mut offset = 0;
    while offset < len {
        // SAFETY: `ptr .. ptr + len` lies inside one live ring buffer (callers pass a
        // buffer pointer and a length checked against its capacity); clflush only
        // writes the line back and evicts it, and needs SSE2, part of the x86-64
        // baseline.
        unsafe { std::arch::x86_64::_mm_clflush(ptr.add(offset)) };
        offset += 64;
    }
    // mfence: waits until the write-backs are done before the header leaves, so that
    // the hops that follow do not overlap the payload's write-back (the model has the
    // overhead and the hops in sequence; with the overlap, the hops of a 4 KiB message
    // were measured a few hundred ns slower each).
    // SAFETY: mfence has no operands and needs SSE2, part of the x86-64 baseline.
    unsafe { std::arch::x86_64::_mm_mfence() };
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn flush_lines(_ptr: *const u8, _len: usize) {}

/// Whether payload lines are flushed to memory on this architecture.
pub const FLUSHES_PAYLOAD: bool = cfg!(target_arch = "x86_64");

/// What a worker saw at its doorbell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Arrival {
    /// The packet was handled and passed on (forwarded, switched, or answered).
    Passed,
    /// The pong reached the source.
    Delivered,
    /// The experiment ended.
    Stop,
}

/// One worker's private state.
pub struct Worker<'f> {
    fabric: &'f Fabric,
    rank: usize,
    /// The last `seq` read from this worker's doorbell.
    seen: u64,
    out: Vec<u8>,
    inbuf: Vec<u8>,
}

impl<'f> Worker<'f> {
    /// Worker `rank`'s state on `fabric`.
    pub fn new(fabric: &'f Fabric, rank: usize) -> Worker<'f> {
        Worker {
            fabric,
            rank,
            seen: 0,
            out: (0..fabric.capacity).map(|i| (i % 251) as u8).collect(),
            inbuf: vec![0; fabric.capacity],
        }
    }

    /// Writes the header of a packet arriving at `at` into its worker's doorbell.
    #[inline(always)]
    fn ring_doorbell(&self, at: usize, dest: usize, dim: usize, len: usize) {
        let bell = &self.fabric.bells[self.fabric.worker_of[at]];
        // Relaxed: published by the Release store of `seq` below.
        bell.route
            .store(pack(at, dest, dim, KIND_DATA), Ordering::Relaxed);
        bell.len.store(len as u64, Ordering::Relaxed);
        // Release: orders the header words and this worker's payload writes before
        // the owner's Acquire load of `seq`.
        bell.seq.store(self.seen + 1, Ordering::Release);
    }

    /// Sender overhead: copies `len` bytes of the user buffer into the ring buffer of
    /// the first hop, flushes them, and sends the header.
    #[inline(always)]
    fn send(&self, from: usize, to: usize, len: usize) {
        let (next, dim) = self.fabric.hop(from, to);
        let buffer = self.fabric.buffer(from, dim);
        debug_assert!(len <= self.fabric.capacity && len <= self.out.len());
        // SAFETY: `len` is at most the capacity of the ring buffer and of `out` (the
        // kernel checks sizes against the capacity), and this worker holds the only
        // packet, so no other thread touches the buffer (see `Fabric`'s Sync).
        unsafe { std::ptr::copy_nonoverlapping(self.out.as_ptr(), buffer, len) };
        flush_lines(buffer, len);
        self.ring_doorbell(next, to, dim, len);
    }

    /// Waits for the next arrival at this worker and handles it.
    #[inline(always)]
    fn step(&mut self, control: &TeamControl) -> Result<Arrival, RankError> {
        let fabric = self.fabric;
        let bell = &fabric.bells[self.rank];
        let last = self.seen;
        let peer = (self.rank + 1) % fabric.workers;
        let seq = control.spin_until(peer, || {
            // Acquire: pairs with the writer's Release store (see `Doorbell`).
            let s = bell.seq.load(Ordering::Acquire);
            (s != last).then_some(s)
        })?;
        self.seen = seq;
        // Relaxed: ordered after the Acquire load of `seq` above.
        let (at, dest, dim, kind) = unpack(bell.route.load(Ordering::Relaxed));
        let len = bell.len.load(Ordering::Relaxed) as usize;
        if kind == KIND_STOP {
            return Ok(Arrival::Stop);
        }
        if at == dest {
            // Receiver overhead: copy the payload out of the ring buffer.
            let buffer = fabric.buffer(at, dim);
            debug_assert!(len <= fabric.capacity && len <= self.inbuf.len());
            // SAFETY: as in `send`: `len` fits both buffers and this worker holds the
            // only packet.
            unsafe { std::ptr::copy_nonoverlapping(buffer, self.inbuf.as_mut_ptr(), len) };
            black_box(&mut self.inbuf);
            if at == fabric.client {
                self.send(at, 0, len);
                return Ok(Arrival::Passed);
            }
            return Ok(Arrival::Delivered);
        }
        let (next, next_dim) = fabric.hop(at, dest);
        if next_dim != dim {
            // Switching: the agent moves the payload to the next ring's buffer.
            let (from, to) = (fabric.buffer(at, dim), fabric.buffer(at, next_dim));
            // SAFETY: two distinct ring buffers (different dimensions), `len` within
            // their capacity, and this worker holds the only packet.
            unsafe { std::ptr::copy_nonoverlapping(from, to, len) };
            flush_lines(to, len);
        }
        self.ring_doorbell(next, dest, next_dim, len);
        Ok(Arrival::Passed)
    }

    /// Times `reps` ping-pongs of `len` bytes from node 0 (on this worker) to the
    /// client and back.
    #[inline(never)]
    pub fn ping_pong_batch(
        &mut self,
        control: &TeamControl,
        reps: u64,
        len: usize,
    ) -> Result<Duration, RankError> {
        let client = self.fabric.client;
        let start = Instant::now();
        for _ in 0..reps {
            self.send(0, client, len);
            loop {
                match self.step(control)? {
                    Arrival::Passed => {}
                    Arrival::Delivered => break,
                    Arrival::Stop => {
                        return Err(RankError::Failed(
                            "the fabric stopped during a ping-pong".into(),
                        ));
                    }
                }
            }
        }
        Ok(start.elapsed())
    }

    /// Tells every other worker to stop (no packet is in flight).
    pub fn stop_all(&mut self) {
        let mut seq = self.seen;
        for (w, bell) in self.fabric.bells.iter().enumerate() {
            if w == self.rank {
                continue;
            }
            seq += 1;
            // Relaxed, then Release on `seq`: as in `ring_doorbell`.
            bell.route
                .store(pack(0, 0, 0, KIND_STOP), Ordering::Relaxed);
            bell.len.store(0, Ordering::Relaxed);
            bell.seq.store(seq, Ordering::Release);
        }
    }

    /// The other workers' loop: handle arrivals until told to stop.
    pub fn serve(&mut self, control: &TeamControl) -> Result<(), RankError> {
        loop {
            match self.step(control)? {
                Arrival::Stop => return Ok(()),
                Arrival::Passed => {}
                Arrival::Delivered => {
                    return Err(RankError::Failed(format!(
                        "worker {} received the pong meant for worker 0",
                        self.rank
                    )));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn route_words_round_trip() {
        let w = pack(1023, 7, 3, KIND_STOP);
        assert_eq!(unpack(w), (1023, 7, 3, KIND_STOP));
    }
}
