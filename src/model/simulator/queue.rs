//! The engine's future-event list, shared by both front ends: a binary min-heap
//! of `(time, order, payload)` that pops the earliest time first and, among equal
//! times, the smallest order: runs are reproducible, and a front end chooses what
//! "order" means (Lamanna's: insertion order; LogGOPSim's: the op's first insertion,
//! kept when an event is put back).
//!
//! Times are stored as the bit pattern of the time: simulated times are never
//! negative, and `-0.0` is folded into `+0.0`, so the bits order like the time.
//! Lamanna's front end packs its node and event kind into the order word beside the
//! insertion number, so its entries are two integers, 16 bytes.
//!
//! A node's transmit queue ([`ChannelQueue`]) orders by a small rank (a hop's
//! dimension, below 32) and then by arrival: one FIFO lane per rank and a bit mask
//! of the lanes in use pop exactly what a heap of `(rank, arrival)` would, in O(1)
//! (a heap there made the engine's event rate fall as the queues grew with N).
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use super::MAX_NODES;

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
/// the node and the event kind. Its events are never scheduled before the last
/// one taken (every delay is `>= 0`), so the key `(time, order)` only grows and a
/// radix heap keeps them: O(1) amortised against a binary heap's O(log n).
#[derive(Debug, Default)]
pub(super) struct EventQueue {
    heap: RadixHeap,
    next_seq: u64,
}

impl EventQueue {
    /// Schedules `kind` at `node` (`< MAX_NODES`) for time `time_ms` (finite, `>= 0`,
    /// not before the last event taken).
    pub(super) fn push(&mut self, time_ms: f64, node: u32, kind: EventKind) {
        debug_assert!(time_ms >= 0.0 && time_ms.is_finite() && node < MAX_NODES);
        let word =
            self.next_seq << (NODE_BITS + KIND_BITS) | u64::from(node) << KIND_BITS | kind as u64;
        self.heap
            .push(u128::from((time_ms + 0.0).to_bits()) << 64 | u128::from(word));
        self.next_seq += 1;
    }

    /// Removes and returns the earliest event.
    pub(super) fn pop(&mut self) -> Option<Event> {
        self.heap.pop().map(|key| {
            let word = key as u64;
            Event {
                time_ms: f64::from_bits((key >> 64) as u64),
                node: (word >> KIND_BITS) as u32 & ((1 << NODE_BITS) - 1),
                kind: KINDS[(word & ((1 << KIND_BITS) - 1)) as usize],
            }
        })
    }
}

/// A monotone priority queue of distinct `u128` keys (Ahuja, Mehlhorn, Orlin and
/// Tarjan's radix heap): bucket `i > 0` holds the keys whose highest bit differing
/// from the last key taken is bit `i - 1`; bucket 0 the last key itself. A pop
/// from an empty bucket 0 takes the least key of the lowest bucket in use and
/// spreads that bucket over lower ones: each key moves at most 128 times.
#[derive(Debug)]
struct RadixHeap {
    last: u128,
    buckets: Vec<Vec<u128>>,
    /// Bit `i - 1` set: bucket `i` (`1..=128`) holds keys.
    in_use: u128,
}

impl Default for RadixHeap {
    fn default() -> Self {
        Self {
            last: 0,
            buckets: (0..=u128::BITS).map(|_| Vec::new()).collect(),
            in_use: 0,
        }
    }
}

impl RadixHeap {
    #[inline]
    fn bucket(&self, key: u128) -> usize {
        (u128::BITS - (key ^ self.last).leading_zeros()) as usize
    }

    #[inline]
    fn push(&mut self, key: u128) {
        assert!(
            key >= self.last,
            "an event was scheduled before the present"
        );
        let i = self.bucket(key);
        self.buckets[i].push(key);
        if i > 0 {
            self.in_use |= 1 << (i - 1);
        }
    }

    #[inline]
    fn pop(&mut self) -> Option<u128> {
        if self.buckets[0].is_empty() {
            if self.in_use == 0 {
                return None;
            }
            let i = self.in_use.trailing_zeros() as usize + 1;
            let mut keys = std::mem::take(&mut self.buckets[i]);
            self.in_use &= !(1 << (i - 1));
            self.last = keys
                .iter()
                .copied()
                .min()
                .expect("a bucket in use holds keys");
            for key in keys.drain(..) {
                let j = self.bucket(key);
                self.buckets[j].push(key);
                if j > 0 {
                    self.in_use |= 1 << (j - 1);
                }
            }
            self.buckets[i] = keys;
        }
        self.buckets[0].pop()
    }
}

/// A node's transmit queue: destinations by rank (`< 32`), lowest rank first, each
/// rank first come first served. Rank 0's lane (every message under FIFO order) is
/// kept inline, destinations in two bytes: one cache miss less per message.
#[derive(Debug, Default)]
pub(super) struct ChannelQueue {
    first: VecDeque<u16>,
    /// Lanes of ranks 1, 2, ...
    rest: Vec<VecDeque<u16>>,
    /// Bit `k` set: lane `k` holds a message.
    in_use: u32,
}

const _: () = assert!(MAX_NODES <= 1 << u16::BITS);

impl ChannelQueue {
    fn lane(&mut self, k: u32) -> &mut VecDeque<u16> {
        match k {
            0 => &mut self.first,
            k => &mut self.rest[k as usize - 1],
        }
    }

    /// Queues `destination` (`< MAX_NODES`) behind the messages of its `rank` (`< 32`).
    #[inline]
    pub(super) fn push(&mut self, rank: u32, destination: u32) {
        assert!(rank < u32::BITS, "channel rank {rank} out of range");
        debug_assert!(destination < MAX_NODES);
        if rank as usize > self.rest.len() {
            self.rest.resize_with(rank as usize, VecDeque::new);
        }
        self.lane(rank).push_back(destination as u16);
        self.in_use |= 1 << rank;
    }

    /// Removes the first message of the lowest rank in use.
    #[inline]
    pub(super) fn pop(&mut self) -> Option<u32> {
        if self.in_use == 0 {
            return None;
        }
        let k = self.in_use.trailing_zeros();
        let lane = self.lane(k);
        let destination = lane.pop_front();
        if lane.is_empty() {
            self.in_use &= !(1 << k);
        }
        destination.map(u32::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let mut heap = BinaryHeap::new();
        for (arrival, &(rank, d)) in pushes.iter().enumerate() {
            q.push(rank, d);
            heap.push(Reverse((rank, arrival, d)));
        }
        // A push after two pops, as the engine interleaves them.
        let mut got = vec![q.pop(), q.pop()];
        let mut want: Vec<Option<u32>> = (0..2)
            .map(|_| heap.pop().map(|Reverse((_, _, d))| d))
            .collect();
        q.push(0, 17);
        heap.push(Reverse((0, pushes.len(), 17)));
        got.extend(std::iter::from_fn(|| q.pop()).map(Some));
        want.extend(std::iter::from_fn(|| heap.pop()).map(|Reverse((_, _, d))| Some(d)));
        assert_eq!(got, want);
        let got: Vec<u32> = got.into_iter().flatten().collect();
        assert_eq!(got, vec![11, 14, 17, 13, 16, 10, 12, 15]);
        assert_eq!(q.pop(), None);
    }

    #[test]
    fn radix_heap_pops_as_a_sorted_list_while_keys_grow() {
        // Pseudo-random pushes never below the last key taken, interleaved with pops.
        let mut q = RadixHeap::default();
        let mut reference = BinaryHeap::new();
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut seq = 0u128;
        let mut popped = Vec::new();
        for step in 0..20_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if !x.is_multiple_of(3) || step < 50 {
                let ahead = u128::from(x % 1000) << 64;
                let key = (q.last & !((1u128 << 64) - 1)) + ahead + (seq << 8);
                seq += 1;
                q.push(key);
                reference.push(Reverse(key));
            } else {
                let got = q.pop();
                assert_eq!(got, reference.pop().map(|Reverse(k)| k));
                popped.extend(got);
            }
        }
        while let Some(k) = q.pop() {
            assert_eq!(Some(Reverse(k)), reference.pop());
            popped.push(k);
        }
        assert!(reference.is_empty());
        assert!(popped.windows(2).all(|w| w[0] < w[1]));
        assert!(popped.len() > 10_000);
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
