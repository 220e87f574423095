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
use std::cmp::Reverse;
use std::collections::BinaryHeap;

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
/// the node and the event kind.
#[derive(Debug, Default)]
pub(super) struct EventQueue {
    heap: TimedQueue<()>,
    next_seq: u64,
}

impl EventQueue {
    /// Schedules `kind` at `node` (`< MAX_NODES`) for time `time_ms` (finite, `>= 0`).
    pub(super) fn push(&mut self, time_ms: f64, node: u32, kind: EventKind) {
        debug_assert!(time_ms >= 0.0 && time_ms.is_finite() && node < MAX_NODES);
        let word =
            self.next_seq << (NODE_BITS + KIND_BITS) | u64::from(node) << KIND_BITS | kind as u64;
        self.heap.push(time_ms, word, ());
        self.next_seq += 1;
    }

    /// Removes and returns the earliest event.
    pub(super) fn pop(&mut self) -> Option<Event> {
        self.heap.pop().map(|(time_ms, word, ())| Event {
            time_ms,
            node: (word >> KIND_BITS) as u32 & ((1 << NODE_BITS) - 1),
            kind: KINDS[(word & ((1 << KIND_BITS) - 1)) as usize],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
