//! The engine's future-event list, shared by both front ends: a binary min-heap
//! of `(time, order, payload)` that pops the earliest time first and, among equal
//! times, the smallest order: runs are reproducible, and a front end chooses what
//! "order" means (Lamanna's: insertion order; LogGOPSim's: the op's first insertion,
//! kept when an event is put back).
//!
//! Times are stored as the bit pattern of the time: simulated times are never
//! negative, and `-0.0` is folded into `+0.0`, so the bits order like the time.
//! Lamanna's front end packs its node and event kind into the order word beside the
//! insertion number, so its entries are two integers, 16 bytes, and keeps those
//! scheduled a fixed delay after the present in FIFO lanes, sorted by construction,
//! beside a heap for the rest ([`EventQueue`]): same order, O(1) for most events.
//!
//! A node's transmit queue ([`ChannelQueue`]) orders by a small rank (a hop's
//! dimension, below 32) and then by arrival: one FIFO lane per rank and a bit mask
//! of the lanes in use pop exactly what a heap of `(rank, arrival)` would, in O(1)
//! (a heap there made the engine's event rate fall as the queues grew with N).
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use super::MAX_NODES;
use crate::platform::{HugeBuf, prefetch};

/// Bits of an entry's second word taken by the event kind.
const KIND_BITS: u32 = 2;
/// Bits taken by the node number.
const NODE_BITS: u32 = 14;
const _: () = assert!(MAX_NODES <= 1 << NODE_BITS);

/// What happens at an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum EventKind {
    /// The node's task may have finished its current activity (a burst or a send
    /// start-up); if the activity was pre-empted since, it is due later.
    TaskStep,
    /// The node's channel finished transmitting the message at the head of its queue.
    ChannelDone,
    /// The node's processor finished the message at the head of its forward queue:
    /// intermediate-node work, or the receive at the destination.
    ForwardDone,
}

const KINDS: [EventKind; 3] = [
    EventKind::TaskStep,
    EventKind::ChannelDone,
    EventKind::ForwardDone,
];

/// One event taken from the queue.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Event {
    /// Simulated time, ms.
    pub(super) time_ms: f64,
    /// Node at which the event happens.
    pub(super) node: u32,
    /// What happens.
    pub(super) kind: EventKind,
}

/// The future-event list: earliest time first, then smallest order.
#[derive(Debug)]
pub(super) struct TimedQueue<P> {
    heap: BinaryHeap<Reverse<(u64, u64, P)>>,
}

impl<P: Ord + Copy> Default for TimedQueue<P> {
    fn default() -> Self {
        Self {
            heap: BinaryHeap::new(),
        }
    }
}

impl<P: Ord + Copy> TimedQueue<P> {
    /// Schedules `payload` at `time` (finite, `>= 0`) with tie-break `order`.
    #[inline]
    pub(super) fn push(&mut self, time: f64, order: u64, payload: P) {
        debug_assert!(time >= 0.0 && time.is_finite());
        self.heap
            .push(Reverse(((time + 0.0).to_bits(), order, payload)));
    }

    /// Removes and returns the earliest entry as `(time, order, payload)`.
    #[inline]
    pub(super) fn pop(&mut self) -> Option<(f64, u64, P)> {
        self.heap
            .pop()
            .map(|Reverse((bits, order, payload))| (f64::from_bits(bits), order, payload))
    }
}

/// Lamanna's front end's queue: the order word holds the insertion number above
/// the node and the event kind, so a key `(time, order)` is one `u128` and keys
/// are distinct.
///
/// Its events are never scheduled before the present (the last event taken), and
/// most are scheduled a fixed delay after it: a transmission a link time `L t_c`,
/// a forward `t_i`, a receive, a start-up. Since the present never goes back and
/// rounding is monotone, the times `now + d` of one delay `d` are scheduled in
/// order: one FIFO lane per such delay holds them sorted, and only the other events
/// (bursts, resumed remainders of pre-empted activities) go to a binary heap. A pop
/// takes the least key among the lanes' heads and the heap's top, so the order is
/// exactly that of one heap of every key, ties (equal times) by insertion.
#[derive(Debug, Default)]
pub(super) struct EventQueue {
    /// Bit patterns of the lanes' delays (at most [`LANES`]).
    delays: Vec<u64>,
    lanes: [VecDeque<u128>; LANES],
    heap: BinaryHeap<Reverse<u128>>,
    next_seq: u64,
    /// The lane the last pop took from ([`LANES`]: the heap).
    last_lane: usize,
    /// Key of the last event taken (debug check that time never goes back).
    #[cfg(debug_assertions)]
    last: u128,
}

/// Delays a queue gives lanes of their own: the link, forward, receive and
/// start-up times.
pub(super) const LANES: usize = 4;

impl EventQueue {
    /// A queue with a lane for each distinct one of `delays` (ms, finite, `>= 0`;
    /// at most [`LANES`] distinct ones, the rest go to the heap).
    pub(super) fn with_lanes(delays: &[f64]) -> Self {
        let mut q = Self::default();
        for &d in delays {
            let bits = (d + 0.0).to_bits();
            if d.is_finite() && d >= 0.0 && q.delays.len() < LANES && !q.delays.contains(&bits) {
                q.delays.push(bits);
            }
        }
        q
    }

    fn key(&mut self, time_ms: f64, node: u32, kind: EventKind) -> u128 {
        debug_assert!(time_ms >= 0.0 && time_ms.is_finite() && node < MAX_NODES);
        let word =
            self.next_seq << (NODE_BITS + KIND_BITS) | u64::from(node) << KIND_BITS | kind as u64;
        self.next_seq += 1;
        u128::from((time_ms + 0.0).to_bits()) << 64 | u128::from(word)
    }

    /// Schedules `kind` at `node` (`< MAX_NODES`) `delay_ms` after `now_ms`, the
    /// time of the last event taken (0 before the first).
    #[inline]
    pub(super) fn push_after(&mut self, now_ms: f64, delay_ms: f64, node: u32, kind: EventKind) {
        let key = self.key(now_ms + delay_ms, node, kind);
        let bits = (delay_ms + 0.0).to_bits();
        match self.delays.iter().position(|&d| d == bits) {
            Some(i) => {
                let lane = &mut self.lanes[i];
                debug_assert!(lane.back().is_none_or(|&b| b < key), "a lane went back");
                lane.push_back(key);
            }
            None => self.heap.push(Reverse(key)),
        }
    }

    /// Schedules `kind` at `node` for time `time_ms` (finite, not before the last
    /// event taken).
    #[inline]
    pub(super) fn push(&mut self, time_ms: f64, node: u32, kind: EventKind) {
        let key = self.key(time_ms, node, kind);
        self.heap.push(Reverse(key));
    }

    /// Removes and returns the earliest event.
    #[inline(always)]
    pub(super) fn pop(&mut self) -> Option<Event> {
        let mut best = self.heap.peek().map(|r| r.0);
        let mut from = LANES;
        for (i, lane) in self.lanes.iter().enumerate().take(self.delays.len()) {
            if let Some(&k) = lane.front()
                && best.is_none_or(|b| k < b)
            {
                best = Some(k);
                from = i;
            }
        }
        let key = best?;
        self.last_lane = from;
        if from < LANES {
            self.lanes[from].pop_front();
        } else {
            self.heap.pop();
        }
        #[cfg(debug_assertions)]
        {
            assert!(
                key >= self.last,
                "an event was scheduled before the present"
            );
            self.last = key;
        }
        Some(Self::event(key))
    }

    /// The event `k` places behind the head of the lane the last pop took from
    /// (none if that was the heap or the lane is shorter): an event at least `k`
    /// pops ahead, whose lines the engine fetches while it handles the ones
    /// before (the lanes hold nearly every event, in time order).
    #[inline]
    pub(super) fn ahead(&self, k: usize) -> Option<Event> {
        let lane = self.lanes.get(self.last_lane)?;
        lane.get(k).map(|&key| Self::event(key))
    }

    fn event(key: u128) -> Event {
        let word = key as u64;
        Event {
            time_ms: f64::from_bits((key >> 64) as u64),
            node: (word >> KIND_BITS) as u32 & ((1 << NODE_BITS) - 1),
            kind: KINDS[(word & ((1 << KIND_BITS) - 1)) as usize],
        }
    }
}

/// A FIFO of destinations, two bytes each, in a power-of-two ring buffer: 24 bytes
/// beside the node's other state, against `VecDeque`'s 32.
#[derive(Debug, Default)]
pub(super) struct Ring {
    buf: Box<[u16]>,
    head: u32,
    len: u32,
}

impl Ring {
    /// Appends `destination`.
    #[inline]
    pub(super) fn push(&mut self, destination: u16) {
        if self.len as usize == self.buf.len() {
            self.grow();
        }
        let i = (self.head + self.len) as usize & (self.buf.len() - 1);
        self.buf[i] = destination;
        self.len += 1;
    }

    /// Doubles the buffer (at least 8 entries), the queue's order kept and
    /// moved to the front.
    #[cold]
    fn grow(&mut self) {
        let cap = (2 * self.buf.len()).max(8);
        let mut buf = vec![0u16; cap].into_boxed_slice();
        let old = self.buf.len();
        for (i, slot) in buf.iter_mut().take(self.len as usize).enumerate() {
            *slot = self.buf[(self.head as usize + i) & (old - 1)];
        }
        self.buf = buf;
        self.head = 0;
    }

    /// The first destination, if any.
    #[inline]
    pub(super) fn front(&self) -> Option<u16> {
        (self.len > 0).then(|| self.buf[self.head as usize])
    }

    /// Removes the first destination.
    #[inline]
    pub(super) fn pop(&mut self) -> Option<u16> {
        let d = self.front()?;
        self.head = (self.head + 1) & (self.buf.len() as u32 - 1);
        self.len -= 1;
        Some(d)
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// The middles of the channels' queues ([`Middle`]), cut from one buffer on huge
/// pages ([`HugeBuf`]): a 4096-node all-to-all keeps some 30 MB of destinations
/// waiting, and on 4 KiB pages the scattered reads and writes of 4096 rings
/// missed the TLB nearly every time. Blocks are powers of two entries; one a
/// ring leaves when it grows goes to the next ring that needs that size.
#[derive(Debug)]
pub(super) struct RingArena {
    buf: HugeBuf<u16>,
    /// Entries handed out from the start of `buf`.
    top: usize,
    /// Free blocks by the base-2 logarithm of their size: their offsets.
    free: Vec<Vec<u32>>,
}

impl Default for RingArena {
    fn default() -> Self {
        Self {
            buf: HugeBuf::zeroed(0),
            top: 0,
            free: Vec::new(),
        }
    }
}

impl RingArena {
    /// Offset of a free block of `cap` entries (a power of two).
    #[cold]
    fn take(&mut self, cap: usize) -> usize {
        let k = cap.trailing_zeros() as usize;
        if let Some(off) = self.free.get_mut(k).and_then(Vec::pop) {
            return off as usize;
        }
        let off = self.top;
        self.top += cap;
        assert!(
            self.top <= 1 << u32::BITS,
            "the channels' queues outgrow 8 GiB"
        );
        if self.top > self.buf.len() {
            self.buf.grow(self.top.next_power_of_two().max(1 << 16));
        }
        off
    }

    /// Returns the block of `cap` entries at `off`.
    fn give(&mut self, off: usize, cap: usize) {
        let k = cap.trailing_zeros() as usize;
        if self.free.len() <= k {
            self.free.resize_with(k + 1, Vec::new);
        }
        self.free[k].push(off as u32);
    }
}

/// A FIFO of destinations in a power-of-two block of a [`RingArena`], filled and
/// emptied by slices: the middle of a [`Fifo`].
#[derive(Debug, Default)]
pub(super) struct Middle {
    off: u32,
    cap: u32,
    head: u32,
    len: u32,
}

impl Middle {
    /// Appends every entry of `src` in order.
    #[inline]
    fn push_slice(&mut self, src: &[u16], arena: &mut RingArena) {
        let need = self.len as usize + src.len();
        if need > self.cap as usize {
            self.grow_to(need, arena);
        }
        let cap = self.cap as usize;
        let block = &mut arena.buf[self.off as usize..][..cap];
        let start = (self.head as usize + self.len as usize) & (cap - 1);
        let first = src.len().min(cap - start);
        block[start..start + first].copy_from_slice(&src[..first]);
        block[..src.len() - first].copy_from_slice(&src[first..]);
        self.len += src.len() as u32;
    }

    /// Moves to a block of the least power of two (at least `2 TAIL`) holding
    /// `need` entries, the queue's order kept and moved to the front.
    #[cold]
    fn grow_to(&mut self, need: usize, arena: &mut RingArena) {
        let cap = need.next_power_of_two().max(2 * TAIL);
        let off = arena.take(cap);
        let (old_off, old_cap) = (self.off as usize, self.cap as usize);
        if old_cap > 0 {
            let (head, n) = (self.head as usize, self.len as usize);
            let first = n.min(old_cap - head);
            arena
                .buf
                .copy_within(old_off + head..old_off + head + first, off);
            arena
                .buf
                .copy_within(old_off..old_off + n - first, off + first);
            arena.give(old_off, old_cap);
        }
        self.off = off as u32;
        self.cap = cap as u32;
        self.head = 0;
    }

    /// Moves the first `min(len, dst.len())` entries into `dst` in order and
    /// returns how many.
    #[inline]
    fn pop_into(&mut self, dst: &mut [u16], arena: &RingArena) -> usize {
        let n = dst.len().min(self.len as usize);
        if n == 0 {
            return 0;
        }
        let cap = self.cap as usize;
        let block = &arena.buf[self.off as usize..][..cap];
        let start = self.head as usize;
        let first = n.min(cap - start);
        dst[..first].copy_from_slice(&block[start..start + first]);
        dst[first..n].copy_from_slice(&block[..n - first]);
        self.head = ((start + n) & (cap - 1)) as u32;
        self.len -= n as u32;
        n
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Fetches the lines of the `n` entries (`n >= 1`) from the `from`-th on.
    #[inline]
    fn prefetch_entries(&self, from: usize, n: usize, arena: &RingArena) {
        let mask = (self.cap as usize).wrapping_sub(1);
        let at = |i: usize| arena.buf.get(self.off as usize + (i & mask));
        if let (Some(first), Some(last)) = (
            at(self.head as usize + from),
            at(self.head as usize + from + n - 1),
        ) && self.cap > 0
        {
            prefetch(first);
            prefetch(last);
        }
    }
}

/// Entries a [`ShortFifo`] keeps in place.
const SHORT: usize = 6;

/// A FIFO of destinations that is nearly always short (a node's messages waiting
/// for its processor: 1 to 3 in a 4096-node all-to-all, 8 in a thousand), kept
/// in the node's own cache line up to [`SHORT`] entries, the rest in a [`Ring`]
/// allocated when first needed. 24 bytes.
///
/// Invariant: `buf` from `head` (wrapping), `len` entries, then the spill ring,
/// is the queue in order; the spill ring is empty while `len < SHORT`, and
/// `spilling` says whether it holds entries (so that a pop of a short queue
/// does not touch it).
#[derive(Debug, Default)]
pub(super) struct ShortFifo {
    buf: [u16; SHORT],
    head: u8,
    len: u8,
    spilling: bool,
    spill: Option<Box<Ring>>,
}
const _: () = assert!(std::mem::size_of::<ShortFifo>() == 24);

impl ShortFifo {
    /// Appends `destination`.
    #[inline]
    pub(super) fn push(&mut self, destination: u16) {
        if usize::from(self.len) < SHORT {
            let i = usize::from(self.head) + usize::from(self.len);
            self.buf[if i >= SHORT { i - SHORT } else { i }] = destination;
            self.len += 1;
        } else {
            self.spill
                .get_or_insert_with(Box::default)
                .push(destination);
            self.spilling = true;
        }
    }

    /// The first destination, if any.
    #[inline]
    pub(super) fn front(&self) -> Option<u16> {
        (self.len > 0).then(|| self.buf[usize::from(self.head)])
    }

    /// Removes the first destination; the spill ring's first, if any, takes
    /// the place freed.
    #[inline]
    pub(super) fn pop(&mut self) -> Option<u16> {
        let d = self.front()?;
        let head = usize::from(self.head);
        self.head = if head + 1 == SHORT { 0 } else { head as u8 + 1 };
        self.len -= 1;
        if self.spilling {
            self.take_from_spill(head);
        }
        Some(d)
    }

    /// Moves the spill ring's first entry into the place `i` a pop of the full
    /// queue freed (the old head's).
    #[cold]
    fn take_from_spill(&mut self, i: usize) {
        let spill = self.spill.as_mut().expect("a spilling queue has its ring");
        if let Some(next) = spill.pop() {
            self.buf[i] = next;
            self.len += 1;
        }
        self.spilling = !spill.is_empty();
    }
}

/// Entries of a [`Fifo`] kept at its head: what fits in the node's cache line
/// beside the channel's state.
const HEAD: usize = 26;
/// Entries of a [`Fifo`] kept at its tail: a cache line.
const TAIL: usize = 32;

/// A FIFO of destinations whose first [`HEAD`] and last [`TAIL`] entries sit in
/// the node's own cache lines, before and after a [`Middle`] kept apart (in the
/// channel's [`ChannelSpill`], its entries in the [`RingArena`]) that holds the
/// middle: the ring is touched once
/// in [`TAIL`] pushes (a line written whole) and once in [`HEAD`] pops, not at
/// every one. A 4096-node all-to-all keeps thousands of messages a channel
/// waiting, its rings take tens of MB, and each touch of one misses the cache
/// (the engine fetches those lines ahead).
///
/// Invariant: `head[head_pos..head_len]`, then the ring, then `tail[..tail_len]`
/// is the queue in order; a push goes to the head only while the ring and the
/// tail are empty; `ringed` says whether the ring holds entries.
#[derive(Debug, Default)]
#[repr(C)]
pub(super) struct Fifo {
    head_pos: u8,
    head_len: u8,
    tail_len: u8,
    ringed: bool,
    head: [u16; HEAD],
    tail: [u16; TAIL],
}

impl Fifo {
    /// Appends `destination`; `ring` is this queue's.
    #[inline]
    pub(super) fn push(&mut self, destination: u16, ring: &mut Middle, arena: &mut RingArena) {
        if !self.ringed && self.tail_len == 0 && usize::from(self.head_len) < HEAD {
            self.head[usize::from(self.head_len)] = destination;
            self.head_len += 1;
            return;
        }
        if usize::from(self.tail_len) == TAIL {
            self.spill(ring, arena);
        }
        self.tail[usize::from(self.tail_len)] = destination;
        self.tail_len += 1;
    }

    /// Moves the full tail into the ring.
    #[cold]
    fn spill(&mut self, ring: &mut Middle, arena: &mut RingArena) {
        ring.push_slice(&self.tail, arena);
        self.tail_len = 0;
        self.ringed = true;
    }

    /// Removes the first destination; `ring` is this queue's.
    #[inline]
    pub(super) fn pop(&mut self, ring: &mut Middle, arena: &RingArena) -> Option<u16> {
        if self.head_pos == self.head_len {
            self.refill(ring, arena)?;
        }
        let d = self.head[usize::from(self.head_pos)];
        self.head_pos += 1;
        Some(d)
    }

    /// Moves the next entries into the empty head: from the ring, or else the tail.
    #[cold]
    fn refill(&mut self, ring: &mut Middle, arena: &RingArena) -> Option<()> {
        self.head_pos = 0;
        self.head_len = 0;
        if self.ringed {
            self.head_len = ring.pop_into(&mut self.head, arena) as u8;
            self.ringed = !ring.is_empty();
        } else if self.tail_len > 0 {
            let n = usize::from(self.tail_len).min(HEAD);
            self.head[..n].copy_from_slice(&self.tail[..n]);
            self.tail.copy_within(n..usize::from(self.tail_len), 0);
            self.head_len = n as u8;
            self.tail_len -= n as u8;
        } else {
            return None;
        }
        Some(())
    }

    fn is_empty(&self) -> bool {
        self.head_pos == self.head_len && !self.ringed && self.tail_len == 0
    }
}

/// What a node's channel queue touches only now and then, kept apart from the
/// nodes so that a node stays three cache lines: the middle of rank 0's lane and
/// the lanes of ranks 1, 2, ... (allocated when first used).
#[derive(Debug, Default)]
pub(super) struct ChannelSpill {
    ring: Middle,
    rest: Option<Box<[Ring; 31]>>,
}

/// A node's channel: the message on it and its transmit queue, destinations by
/// rank (`< 32`), lowest rank first, each rank first come first served. Rank 0's
/// lane (every message under FIFO order) is a [`Fifo`] kept inline, its middle
/// and the other ranks' lanes in the channel's [`ChannelSpill`]. The channel's
/// state and the head of the queue fill one cache line, the tail another: a pop
/// touches the first, a push both.
#[derive(Debug)]
#[repr(C, align(64))]
pub(super) struct ChannelQueue {
    /// Destination of the message on the channel, [`IDLE`] when none.
    pub(super) transmitting: u16,
    /// Bit `k` set: lane `k` holds a message.
    in_use: u32,
    first: Fifo,
}

/// `transmitting` of an idle channel.
pub(super) const IDLE: u16 = u16::MAX;
const _: () = assert!(MAX_NODES < IDLE as u32);
const _: () = assert!(std::mem::size_of::<ChannelQueue>() == 128);
const _: () =
    assert!(std::mem::offset_of!(ChannelQueue, first) + std::mem::offset_of!(Fifo, tail) == 64);

impl Default for ChannelQueue {
    fn default() -> Self {
        Self {
            first: Fifo::default(),
            in_use: 0,
            transmitting: IDLE,
        }
    }
}

impl ChannelQueue {
    /// Fetches the channel's two lines ahead of an event that pushes to or pops
    /// from it.
    #[inline]
    pub(super) fn prefetch(&self) {
        prefetch(self);
        prefetch(&self.first.tail);
    }

    /// Fetches what the next pop reads besides the channel's lines: the ring's
    /// next entries, when the head is empty and the ring holds some.
    #[inline]
    pub(super) fn prefetch_pop(&self, spill: &ChannelSpill, arena: &RingArena) {
        let fifo = &self.first;
        if fifo.head_pos == fifo.head_len && fifo.ringed {
            spill.ring.prefetch_entries(0, HEAD, arena);
        }
    }

    /// Fetches what the next push writes besides the channel's lines: the
    /// ring's place for the tail, when the tail is full and the ring has room.
    #[inline]
    pub(super) fn prefetch_push(&self, spill: &ChannelSpill, arena: &RingArena) {
        let ring = &spill.ring;
        if usize::from(self.first.tail_len) == TAIL && (ring.cap - ring.len) as usize >= TAIL {
            ring.prefetch_entries(ring.len as usize, TAIL, arena);
        }
    }

    /// Queues `destination` (`< MAX_NODES`) behind the messages of its `rank`
    /// (`< 32`); `spill` is this channel's.
    #[inline]
    pub(super) fn push(
        &mut self,
        rank: u32,
        destination: u32,
        spill: &mut ChannelSpill,
        arena: &mut RingArena,
    ) {
        assert!(rank < u32::BITS, "channel rank {rank} out of range");
        debug_assert!(destination < MAX_NODES);
        let d = destination as u16;
        match rank {
            0 => self.first.push(d, &mut spill.ring, arena),
            k => spill.rest.get_or_insert_with(Box::default)[k as usize - 1].push(d),
        }
        self.in_use |= 1 << rank;
    }

    /// Removes the first message of the lowest rank in use; `spill` is this
    /// channel's.
    #[inline]
    pub(super) fn pop(&mut self, spill: &mut ChannelSpill, arena: &RingArena) -> Option<u32> {
        if self.in_use == 0 {
            return None;
        }
        let k = self.in_use.trailing_zeros();
        let (destination, empty) = match k {
            0 => (
                self.first.pop(&mut spill.ring, arena),
                self.first.is_empty(),
            ),
            k => {
                let lane = &mut spill.rest.as_mut().expect("a lane in use exists")[k as usize - 1];
                (lane.pop(), lane.is_empty())
            }
        };
        if empty {
            self.in_use &= !(1 << k);
        }
        destination.map(u32::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn channel_queue_pops_as_a_heap_of_rank_then_arrival() {
        // The order the engine had with a heap of (rank, arrival, destination).
        let pushes = [
            (3, 10),
            (0, 11),
            (3, 12),
            (1, 13),
            (0, 14),
            (31, 15),
            (1, 16),
        ];
        let mut q = ChannelQueue::default();
        let mut spill = ChannelSpill::default();
        let mut arena = RingArena::default();
        let mut heap = BinaryHeap::new();
        for (arrival, &(rank, d)) in pushes.iter().enumerate() {
            q.push(rank, d, &mut spill, &mut arena);
            heap.push(Reverse((rank, arrival, d)));
        }
        // A push after two pops, as the engine interleaves them.
        let mut got = vec![q.pop(&mut spill, &arena), q.pop(&mut spill, &arena)];
        let mut want: Vec<Option<u32>> = (0..2)
            .map(|_| heap.pop().map(|Reverse((_, _, d))| d))
            .collect();
        q.push(0, 17, &mut spill, &mut arena);
        heap.push(Reverse((0, pushes.len(), 17)));
        got.extend(std::iter::from_fn(|| q.pop(&mut spill, &arena)).map(Some));
        want.extend(std::iter::from_fn(|| heap.pop()).map(|Reverse((_, _, d))| Some(d)));
        assert_eq!(got, want);
        let got: Vec<u32> = got.into_iter().flatten().collect();
        assert_eq!(got, vec![11, 14, 17, 13, 16, 10, 12, 15]);
        assert_eq!(q.pop(&mut spill, &arena), None);
    }

    /// What the engine does to its queue, as a sequence of steps: pop the
    /// earliest event, or schedule one a delay after the present, the delay one of
    /// the lanes' (`0..LANES`) or any other (times on a coarse grid, so that equal
    /// times are common across lanes and the heap).
    #[derive(Debug, Clone)]
    enum Step {
        Pop,
        After { lane: usize, node: u32 },
        Other { quarters: u32, node: u32 },
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            3 => Just(Step::Pop),
            4 => (0..LANES + 1, 0..MAX_NODES).prop_map(|(lane, node)| Step::After { lane, node }),
            1 => (0u32..12, 0..MAX_NODES).prop_map(|(quarters, node)| Step::Other { quarters, node }),
        ]
    }

    /// Pops the queue and the reference heap of `(time bits, insertion, node)`,
    /// checks that they agree, and moves the present to the time taken.
    fn pop_both(
        q: &mut EventQueue,
        reference: &mut BinaryHeap<Reverse<(u64, u64, u32)>>,
        now: &mut f64,
    ) {
        let got = q.pop().map(|e| (e.time_ms.to_bits(), e.node, e.kind));
        let want = reference
            .pop()
            .map(|Reverse((t, _, n))| (t, n, KINDS[n as usize % 3]));
        assert_eq!(got, want);
        if let Some((t, _, _)) = got {
            *now = f64::from_bits(t);
        }
    }

    proptest! {
        /// The lanes and the heap pop exactly what one `BinaryHeap` of every
        /// `(time, insertion number)` pops, equal times by insertion.
        #[test]
        fn pops_as_one_binary_heap_ties_included(steps in prop::collection::vec(step(), 1..400)) {
            // Lane delays 0.5, 1, 0.25 and 0 ms; `lane == LANES` asks for 0.75.
            let delays = [0.5, 1.0, 0.25, 0.0, 0.75];
            let mut q = EventQueue::with_lanes(&delays[..LANES]);
            let mut reference = BinaryHeap::new();
            let (mut now, mut seq) = (0.0f64, 0u64);
            let kind = |node: u32| KINDS[node as usize % 3];
            for s in steps {
                match s {
                    Step::Pop => pop_both(&mut q, &mut reference, &mut now),
                    Step::After { lane, node } => {
                        q.push_after(now, delays[lane], node, kind(node));
                        reference.push(Reverse(((now + delays[lane]).to_bits(), seq, node)));
                        seq += 1;
                    }
                    Step::Other { quarters, node } => {
                        let t = now + 0.25 * f64::from(quarters);
                        q.push(t, node, kind(node));
                        reference.push(Reverse((t.to_bits(), seq, node)));
                        seq += 1;
                    }
                }
            }
            while !reference.is_empty() {
                pop_both(&mut q, &mut reference, &mut now);
            }
            prop_assert!(q.pop().is_none());
        }
    }

    /// The chunked FIFO keeps order whatever the mix of pushes and pops: its head,
    /// ring and tail hand entries over in order.
    #[test]
    fn fifo_keeps_order_across_its_head_ring_and_tail() {
        let mut fifo = Fifo::default();
        let mut ring = Middle::default();
        let mut arena = RingArena::default();
        let mut reference = VecDeque::new();
        let mut x: u32 = 12345;
        for k in 0..20_000u32 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            // Bursts of pushes and of pops, so that the queue grows to hundreds
            // and drains to empty several times.
            let rare = x.is_multiple_of(4);
            let push = if (k / 500).is_multiple_of(2) {
                !rare
            } else {
                rare
            };
            if push {
                fifo.push(k as u16, &mut ring, &mut arena);
                reference.push_back(k as u16);
            } else {
                assert_eq!(
                    fifo.pop(&mut ring, &arena),
                    reference.pop_front(),
                    "step {k}"
                );
            }
            assert_eq!(fifo.is_empty(), reference.is_empty());
        }
        while let Some(d) = reference.pop_front() {
            assert_eq!(fifo.pop(&mut ring, &arena), Some(d));
        }
        assert!(fifo.is_empty() && fifo.pop(&mut ring, &arena).is_none());
    }

    /// The short FIFO keeps order while short, and through its spill ring when
    /// long, draining to empty and refilling several times.
    #[test]
    fn short_fifo_keeps_order_in_place_and_through_its_spill() {
        let mut q = ShortFifo::default();
        let mut reference = VecDeque::new();
        let mut next = 0u16;
        // Lengths around SHORT, then far beyond, then back to empty.
        for (round, &(pushes, pops)) in [(3, 2), (5, 6), (7, 0), (1, 3), (20, 4), (2, 30), (9, 9)]
            .iter()
            .cycle()
            .take(70)
            .enumerate()
        {
            for _ in 0..pushes {
                q.push(next);
                reference.push_back(next);
                next += 1;
                assert_eq!(q.front(), reference.front().copied(), "round {round}");
            }
            for _ in 0..pops {
                assert_eq!(q.pop(), reference.pop_front(), "round {round}");
                assert_eq!(q.front(), reference.front().copied(), "round {round}");
            }
        }
        while let Some(d) = reference.pop_front() {
            assert_eq!(q.pop(), Some(d));
        }
        assert_eq!((q.front(), q.pop()), (None, None));
    }

    /// The ring keeps FIFO order across its growth and its wrap-around.
    #[test]
    fn ring_is_a_fifo_through_growth_and_wrap() {
        let mut ring = Ring::default();
        let mut reference = VecDeque::new();
        assert_eq!((ring.front(), ring.pop()), (None, None));
        for k in 0..1000u16 {
            ring.push(k);
            reference.push_back(k);
            if k % 3 == 0 {
                assert_eq!(ring.pop(), reference.pop_front());
            }
            assert_eq!(ring.front(), reference.front().copied());
        }
        while let Some(d) = reference.pop_front() {
            assert_eq!(ring.pop(), Some(d));
        }
        assert!(ring.is_empty() && ring.pop().is_none());
    }

    /// Slices in and out of the middles keep FIFO order across growth and
    /// wrap-around, three middles sharing one arena and its freed blocks.
    #[test]
    fn middles_keep_order_through_growth_wrap_and_reuse() {
        let mut arena = RingArena::default();
        let mut rings: [Middle; 3] = Default::default();
        let mut references: [VecDeque<u16>; 3] = Default::default();
        let mut next = 0u16;
        let mut out = [0u16; 32];
        for round in 0..1200usize {
            let r = round % 3;
            let (ring, reference) = (&mut rings[r], &mut references[r]);
            let chunk: Vec<u16> = (0..round % 33)
                .map(|k| next.wrapping_add(k as u16))
                .collect();
            next = next.wrapping_add(chunk.len() as u16);
            ring.push_slice(&chunk, &mut arena);
            reference.extend(chunk.iter().copied());
            // Every third of a ring's rounds takes more than it gives.
            let want = if round % 9 < 3 {
                32
            } else {
                (round * 7) % 24 + 1
            };
            let available = reference.len();
            let n = ring.pop_into(&mut out[..want], &arena);
            assert_eq!(n, want.min(available));
            let expect: Vec<u16> = reference.drain(..n).collect();
            assert_eq!(&out[..n], &expect[..], "round {round}");
            assert_eq!(ring.is_empty(), reference.is_empty());
        }
        // The blocks left behind by growth were handed out again.
        assert!(arena.top < 3 * 2 * 1024, "arena top {}", arena.top);
        for (ring, reference) in rings.iter_mut().zip(&references) {
            let mut rest = vec![0u16; reference.len() + 5];
            let n = ring.pop_into(&mut rest, &arena);
            assert_eq!(n, reference.len());
            assert!(rest[..n].iter().copied().eq(reference.iter().copied()));
            assert!(ring.is_empty() && ring.pop_into(&mut out, &arena) == 0);
        }
    }

    /// Same-time events of several lanes and the heap come out by insertion.
    #[test]
    fn equal_times_across_lanes_go_by_insertion() {
        let mut q = EventQueue::with_lanes(&[1.0, 0.5]);
        q.push_after(0.0, 1.0, 7, EventKind::ChannelDone); // 1.0, lane 0
        q.push(1.0, 8, EventKind::TaskStep); // 1.0, heap
        q.push_after(0.0, 0.5, 9, EventKind::ForwardDone); // 0.5, lane 1
        let e = q.pop().unwrap();
        assert_eq!((e.time_ms, e.node), (0.5, 9));
        q.push_after(0.5, 0.5, 10, EventKind::ForwardDone); // 1.0, lane 1, last
        q.push_after(0.5, 0.25, 11, EventKind::TaskStep); // 0.75, heap
        let order: Vec<(f64, u32)> = std::iter::from_fn(|| q.pop())
            .map(|e| (e.time_ms, e.node))
            .collect();
        assert_eq!(order, vec![(0.75, 11), (1.0, 7), (1.0, 8), (1.0, 10)]);
    }

    #[test]
    fn pops_in_time_order_then_insertion_order() {
        let mut q = EventQueue::default();
        q.push(2.0, 0, EventKind::ChannelDone);
        q.push(1.0, 1, EventKind::ForwardDone);
        q.push(2.0, 4095, EventKind::TaskStep);
        q.push(0.5, 3, EventKind::ChannelDone);
        q.push(0.0, 2, EventKind::TaskStep);
        let popped: Vec<(f64, u32, EventKind)> = std::iter::from_fn(|| q.pop())
            .map(|e| (e.time_ms, e.node, e.kind))
            .collect();
        assert_eq!(
            popped,
            vec![
                (0.0, 2, EventKind::TaskStep),
                (0.5, 3, EventKind::ChannelDone),
                (1.0, 1, EventKind::ForwardDone),
                (2.0, 0, EventKind::ChannelDone),
                (2.0, 4095, EventKind::TaskStep),
            ]
        );
    }
}
