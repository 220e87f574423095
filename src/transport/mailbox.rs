//! The mailbox transport: scibench's remote write, local read.
//!
//! Gonzalez's scibench (section 5.1) polls local memory for changes and writes
//! remote memory, because remote polling costs an order of magnitude more. Here
//! every ordered pair of ranks (sender s, receiver r) owns a *lane* in memory that
//! r polls:
//!
//! - a ring of `slots` slot headers of 16 bytes, eight to a 128-byte block (x86
//!   prefetches lines in adjacent pairs): a sequence flag `seq`, whose low four
//!   bits carry an inline message's length, and a word `word` with an inline
//!   message's payload or a longer message's length;
//! - a payload buffer per slot (`slot_bytes`, 128-byte aligned);
//! - a credit counter `consumed`, written by r, read by s.
//!
//! The protocol, its state table and its happens-before edges are in
//! `src/transport/README.md`. In short: chunk `c` (numbered from 1) of the lane's
//! stream goes to slot `(c - 1) % slots`. The sender may write chunk `c` once the
//! receiver has consumed chunk `c - slots`; it writes the payload, then `word`
//! (the inline payload, or the length), then stores `seq = c << 4 | code` with
//! **Release**: the header's stores come last and together, so that the line the
//! receiver polls crosses to the sender once a chunk, not twice. The receiver
//! polls `seq` with **Acquire** until `seq >> 4` equals `c`, reads, and every
//! `slots / 2` chunks publishes `consumed`
//! with **Release**, which the sender loads with **Acquire** before reusing a slot.
//! Messages of at most 8 bytes are one chunk whose payload is the header's `word`:
//! one cache-line transfer, like scibench's direct atomic stores. Longer messages
//! are `ceil(len / slot_bytes)` chunks that stream through the ring, so a 64 KiB
//! message pipelines the sender's copy-in with the receiver's copy-out.
//!
//! A rank that shares its CPU waits by parking (`parking_lot_core`) instead of
//! spinning; its peers then wake it after each publish (see the README for why no
//! wake-up can be lost).

use super::parking::{block_until, notify, park_once};
use super::slot::{
    CODE_BITS, HEADERS_PER_BLOCK, Header, HeaderBlock, LONG, first_len, published, put_inline,
    seq_word, unpack_short, unpack_word,
};
use super::{Endpoint, PendingRequests, Transport, TransportConfig, check_peer, too_long};
use crate::control::{RankError, TeamControl, WaitStrategy};
use crate::primitive::{AtomicU32, AtomicU64, Ordering, UnsafeCell};
use crossbeam_utils::CachePadded;
use std::collections::VecDeque;
use std::sync::Arc;

pub use super::slot::INLINE_BYTES;

/// Slots of a rank's lane to itself, which no message uses.
const SELF_SLOTS: u64 = 2;

/// One 128-byte line of payload; the alignment keeps slots on line boundaries.
#[derive(Clone, Copy)]
#[repr(C, align(128))]
struct Line([u8; 128]);

/// The memory of one ordered pair (sender, receiver).
struct Lane {
    /// The slot headers, `slots` of them from the first block on (contiguous:
    /// a block is exactly its headers).
    headers: Box<[HeaderBlock]>,
    payload: Box<[UnsafeCell<Box<[Line]>>]>,
    /// Chunks the receiver has finished with (published in batches).
    consumed: CachePadded<AtomicU64>,
    /// Non-zero while the receiver is parked or about to park on this lane.
    receiver_parked: CachePadded<AtomicU32>,
    /// Non-zero while the sender is parked or about to park waiting for credit.
    sender_parked: CachePadded<AtomicU32>,
}

// SAFETY: the payload cells are the only non-Sync fields. A slot's payload is
// written only by the lane's single sender, between its Acquire load of
// `consumed` (which shows the receiver is done with the slot's previous chunk) and
// its Release store of the slot's `seq`; it is read only by the lane's single
// receiver after its Acquire load of that `seq`, and before its Release store of
// `consumed` that frees the slot. So a write and a read of one slot are always
// ordered by happens-before; the loom tests check this.
unsafe impl Sync for Lane {}

impl Lane {
    /// The header of slot `slot`.
    #[inline(always)]
    fn header(&self, slot: usize) -> &Header {
        &self.headers[slot / HEADERS_PER_BLOCK].0[slot % HEADERS_PER_BLOCK]
    }

    /// The first slot header, for [`header_at`].
    fn first_header(&self) -> *const Header {
        self.headers.as_ptr().cast::<Header>()
    }

    fn new(slots: usize, slot_bytes: usize) -> Lane {
        let lines = slot_bytes / 128;
        Lane {
            headers: (0..slots.div_ceil(HEADERS_PER_BLOCK))
                .map(|_| HeaderBlock::default())
                .collect(),
            payload: (0..slots)
                .map(|_| UnsafeCell::new(vec![Line([0; 128]); lines].into_boxed_slice()))
                .collect(),
            consumed: CachePadded::new(AtomicU64::new(0)),
            receiver_parked: CachePadded::new(AtomicU32::new(0)),
            sender_parked: CachePadded::new(AtomicU32::new(0)),
        }
    }
}

struct Shared {
    lanes: Box<[Lane]>,
    size: usize,
    mask: u64,
    slots: u64,
    slot_bytes: usize,
    control: Arc<TeamControl>,
}

impl Shared {
    #[inline(always)]
    fn lane(&self, from: usize, to: usize) -> &Lane {
        &self.lanes[from * self.size + to]
    }

    /// What an endpoint caches of a lane: the lane, its first slot header and
    /// its slot count minus one.
    fn lane_view(&self, from: usize, to: usize) -> (*const Lane, *const Header, u64) {
        let lane = self.lane(from, to);
        let slots = if from == to { SELF_SLOTS } else { self.slots };
        (lane, lane.first_header(), slots - 1)
    }
}

/// This endpoint's private view of a lane it sends on: everything the inline
/// path reads, on one line of its own (see `MailboxEndpoint`).
#[derive(Debug, Clone, Copy)]
struct SendState {
    /// The lane, in the endpoint's `shared` (cached so that the hot path does not
    /// index the lane table; see `MailboxEndpoint`'s Send impl).
    lane: *const Lane,
    /// The lane's first slot header (cached as `lane`, so that the inline path
    /// reaches the slot without loading the lane's header table).
    headers: *const Header,
    /// The lane's slot count minus one, shifted left by `CODE_BITS`: masks a
    /// chunk's `seq` word (code left out) to its header's byte offset.
    offsets: u64,
    /// The `seq` word of the last chunk sent, its code left out: the chunks
    /// sent so far, shifted left by `CODE_BITS` (the inline path masks it to
    /// the header and adds the length to it, with no shift; `sent()`).
    sent_seq: u64,
    /// The last `consumed` value read from the receiver plus the ring's slots:
    /// chunks up to this number may be written.
    credit_limit: u64,
    /// `credit_limit` shifted as `sent_seq` if the inline path may take this
    /// lane, else zero: the inline path's one compare stands for the credit,
    /// the length limit and the wake-up, so that a lane it must not take never
    /// passes it.
    inline_limit: u64,
    /// Whether the inline path may take this lane: another rank's, which spins
    /// (nobody to wake), with `max_message_bytes` of at least `INLINE_BYTES`.
    inline_open: bool,
    /// Whether the receiver parks while it waits (and so must be woken): kept
    /// here so the send path does not chase the team's control block.
    wake_receiver: bool,
}

/// This endpoint's private view of a lane it receives on (as `SendState`).
#[derive(Debug, Clone, Copy)]
struct RecvState {
    /// The lane, in the endpoint's `shared` (as in `SendState`).
    lane: *const Lane,
    /// The lane's first slot header (as in `SendState`).
    headers: *const Header,
    /// As in `SendState`.
    offsets: u64,
    /// The `seq` word of the last chunk received, its code left out (as
    /// `SendState::sent_seq`; `received()`).
    received_seq: u64,
    /// The `seq` word (code left out) of the chunk at which `consumed` is next
    /// published: the last value stored plus half the ring.
    publish_at: u64,
    /// Whether `recv` may take the inline path: this rank spins, the peer is
    /// another rank, and nothing from it waits among the messages taken in while
    /// blocked (`MailboxEndpoint::unexpected`).
    straight: bool,
}

impl SendState {
    /// Chunks sent so far.
    #[inline(always)]
    fn sent(&self) -> u64 {
        self.sent_seq >> CODE_BITS
    }
}

impl RecvState {
    /// Chunks received so far.
    #[inline(always)]
    fn received(&self) -> u64 {
        self.received_seq >> CODE_BITS
    }
}

// A header is as many bytes as a chunk number's step in the `seq` word, so
// that the inline paths reach a slot's header from the `seq` word with one mask.
const _: () = assert!(std::mem::size_of::<Header>() == 1 << CODE_BITS);

/// The header of the slot of the chunk after the one whose `seq` word (code
/// left out) is `seq`, given the lane's cached `headers` and `offsets`.
#[inline(always)]
fn header_at(headers: *const Header, offsets: u64, seq: u64, _owner: &Shared) -> &Header {
    // SAFETY: `headers` and `offsets` were taken from one lane of
    // `_owner.lanes` (see `Transport::endpoints`): the lane's boxed header
    // blocks hold `slots` contiguous headers of `1 << CODE_BITS` bytes (a
    // `HeaderBlock` is `repr(C)` and exactly its array of headers), and
    // `offsets` is `(slots - 1) << CODE_BITS`, so `seq & offsets` is the byte
    // offset of header `(seq >> CODE_BITS) % slots`, in bounds; they live
    // (never resized) as long as `_owner`, to which the returned borrow is tied.
    unsafe { &*headers.byte_add((seq & offsets) as usize) }
}

/// A message being taken in chunk by chunk while this rank was blocked sending.
#[derive(Debug)]
struct Partial {
    msg: Vec<u8>,
    /// The lane chunk number of its first chunk.
    first: u64,
    /// Chunks taken so far.
    taken: usize,
}

/// Messages from one source taken in while this rank was blocked sending.
#[derive(Debug, Default)]
struct Unexpected {
    complete: VecDeque<Vec<u8>>,
    partial: Option<Partial>,
}

impl Unexpected {
    fn is_empty(&self) -> bool {
        self.complete.is_empty() && self.partial.is_none()
    }
}

/// The mailbox flavour.
#[derive(Debug, Clone, Copy)]
pub struct Mailbox;

impl Transport for Mailbox {
    type Endpoint = MailboxEndpoint;

    fn endpoints(control: &Arc<TeamControl>, config: &TransportConfig) -> Vec<MailboxEndpoint> {
        assert!(
            config.slots.is_power_of_two() && config.slots >= 2,
            "mailbox slots must be a power of two, at least 2"
        );
        assert!(
            config.slot_bytes >= 128 && config.slot_bytes.is_multiple_of(128),
            "mailbox slot_bytes must be a positive multiple of 128"
        );
        let size = control.ranks();
        let shared = Arc::new(Shared {
            lanes: (0..size * size)
                .map(|i| {
                    // A rank does not message itself: its lane stays minimal.
                    let (slots, bytes) = if i / size == i % size {
                        (SELF_SLOTS as usize, 128)
                    } else {
                        (config.slots, config.slot_bytes)
                    };
                    Lane::new(slots, bytes)
                })
                .collect(),
            size,
            mask: config.slots as u64 - 1,
            slots: config.slots as u64,
            slot_bytes: config.slot_bytes,
            control: Arc::clone(control),
        });
        let spins = |rank| control.wait_strategy(rank) == WaitStrategy::Spin;
        (0..size)
            .map(|rank| MailboxEndpoint {
                rank,
                spins: spins(rank),
                send: (0..size)
                    .map(|to| {
                        let (lane, headers, mask) = shared.lane_view(rank, to);
                        let inline_open =
                            to != rank && spins(to) && config.max_message_bytes >= INLINE_BYTES;
                        CachePadded::new(SendState {
                            lane,
                            headers,
                            offsets: mask << CODE_BITS,
                            sent_seq: 0,
                            // Zero on a rank's lane to itself, which no
                            // message uses (the general path refuses it).
                            credit_limit: if to == rank { 0 } else { shared.slots },
                            inline_limit: if inline_open {
                                seq_word(shared.slots, 0)
                            } else {
                                0
                            },
                            inline_open,
                            wake_receiver: !spins(to),
                        })
                    })
                    .collect(),
                recv: (0..size)
                    .map(|from| {
                        let (lane, headers, mask) = shared.lane_view(from, rank);
                        CachePadded::new(RecvState {
                            lane,
                            headers,
                            offsets: mask << CODE_BITS,
                            received_seq: 0,
                            publish_at: seq_word(shared.slots / 2, 0),
                            straight: spins(rank) && from != rank,
                        })
                    })
                    .collect(),
                shared: Arc::clone(&shared),
                pending: PendingRequests::new(size),
                unexpected: (0..size).map(|_| Unexpected::default()).collect(),
                max_message_bytes: config.max_message_bytes,
            })
            .collect()
    }
}

/// One rank's end of the mailbox transport.
pub struct MailboxEndpoint {
    rank: usize,
    /// Whether this rank spins (else parks) while it waits.
    spins: bool,
    shared: Arc<Shared>,
    /// Per peer, the state of the lane this rank sends on and of the one it
    /// receives on, each on its own line: written by this rank only, so that no
    /// line the inline paths write is shared with another rank's (the endpoints
    /// are allocated together, and adjacent vectors could share a line).
    send: Box<[CachePadded<SendState>]>,
    recv: Box<[CachePadded<RecvState>]>,
    pending: PendingRequests,
    /// Messages taken in, per source, while this rank was blocked sending (so that
    /// ranks sending each other more than a ring holds cannot deadlock, as an MPI
    /// library's unexpected-message queue); `recv` takes from here first.
    unexpected: Vec<Unexpected>,
    max_message_bytes: usize,
}

// SAFETY: the only fields that are not Send are the `lane` pointers of the send
// and receive states. They point into `shared.lanes`, a boxed slice that is never
// resized and lives as long as the `Arc<Shared>` this endpoint holds; `Lane` is
// Sync, so dereferencing them on another thread is what `&Lane` through the Arc
// would allow.
unsafe impl Send for MailboxEndpoint {}

/// The lane behind a cached pointer.
#[inline(always)]
fn lane_at(ptr: *const Lane, _owner: &Shared) -> &Lane {
    // SAFETY: `ptr` was taken from `_owner.lanes` (see `Transport::endpoints`),
    // which lives as long as `_owner`; the returned borrow is tied to it.
    unsafe { &*ptr }
}

impl std::fmt::Debug for MailboxEndpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MailboxEndpoint")
            .field("rank", &self.rank)
            .finish_non_exhaustive()
    }
}

impl Shared {
    #[inline(always)]
    fn chunks(&self, len: usize) -> u64 {
        if len <= INLINE_BYTES {
            1
        } else {
            len.div_ceil(self.slot_bytes) as u64
        }
    }

    /// Whether chunk `c` may be written now, reloading the receiver's credit once.
    #[inline(always)]
    fn has_credit(&self, lane: &Lane, st: &mut SendState, c: u64) -> bool {
        if c <= st.credit_limit {
            return true;
        }
        // Acquire: pairs with the receiver's Release store of `consumed`, so its
        // reads of the slot we are about to overwrite happen before our writes.
        st.credit_limit = lane.consumed.load(Ordering::Acquire) + self.slots;
        if st.inline_open {
            st.inline_limit = seq_word(st.credit_limit, 0);
        }
        c <= st.credit_limit
    }

    /// Writes chunk `c` (the `index`-th chunk of a message of `data.len()` bytes)
    /// and publishes it. The caller has checked the credit.
    #[inline(always)]
    fn put_chunk(&self, lane: &Lane, c: u64, index: usize, data: &[u8]) {
        let slot = ((c - 1) & self.mask) as usize;
        let header = lane.header(slot);
        if data.len() <= INLINE_BYTES {
            return put_inline(header, seq_word(c, 0), data);
        }
        let start = index * self.slot_bytes;
        let chunk = &data[start..data.len().min(start + self.slot_bytes)];
        lane.payload[slot].with_mut(|p| {
            // SAFETY: (1) the credit check showed the receiver has consumed this
            // slot's previous chunk, and the Acquire load of `consumed` orders its
            // reads before this write (see `Lane`'s Sync impl); (2) only this
            // endpoint sends on this lane, so nobody else writes; (3)
            // `chunk.len() <= slot_bytes`, the slot's capacity, and the source is
            // a distinct allocation.
            unsafe {
                let dst = (*p).as_mut_ptr().cast::<u8>();
                std::ptr::copy_nonoverlapping(chunk.as_ptr(), dst, chunk.len());
            }
        });
        if index == 0 {
            // Relaxed: published by the Release store of `seq` below.
            header.word.store(data.len() as u64, Ordering::Relaxed);
        }
        // Release: makes the payload and the length written above visible to
        // the receiver's Acquire load of `seq` (remote write, local read).
        header.seq.store(seq_word(c, LONG), Ordering::Release);
    }

    /// Copies chunk `c` out; the caller has seen `seq == c` with Acquire.
    #[inline(always)]
    fn take_chunk(&self, lane: &Lane, c: u64, index: usize, len: usize, buf: &mut [u8]) {
        let slot = ((c - 1) & self.mask) as usize;
        if len <= INLINE_BYTES {
            // Relaxed: ordered after the Acquire load of `seq` that saw chunk `c`.
            let word = lane.header(slot).word.load(Ordering::Relaxed);
            unpack_word(word, len, buf);
        } else {
            let start = index * self.slot_bytes;
            let n = len.min(start + self.slot_bytes) - start;
            lane.payload[slot].with(|p| {
                // SAFETY: the Acquire load of `seq == c` synchronises with the
                // sender's Release store after it wrote this chunk, and the sender
                // cannot write the slot again until we publish `consumed >= c`.
                // `n <= slot_bytes` and `start + n <= len <= buf.len()`.
                unsafe {
                    let src = (*p).as_ptr().cast::<u8>();
                    std::ptr::copy_nonoverlapping(src, buf.as_mut_ptr().add(start), n);
                }
            });
        }
    }

    /// Records chunk `c` from `from` as consumed, and publishes credit every
    /// `slots / 2` chunks.
    #[inline(always)]
    fn release_chunk(&self, st: &mut RecvState, from: usize, c: u64) {
        self.release_seq(st, from, seq_word(c, 0));
    }

    /// `release_chunk` of the chunk whose `seq` word (code left out) is `seq`.
    #[inline(always)]
    fn release_seq(&self, st: &mut RecvState, from: usize, seq: u64) {
        st.received_seq = seq;
        if seq >= st.publish_at {
            self.publish_credit(st, from, seq >> CODE_BITS);
        }
    }

    /// Publishes that the chunks up to `c` are consumed; out of line and cold,
    /// so that the receive path carries one compare of the credit.
    #[cold]
    #[inline(never)]
    fn publish_credit(&self, st: &mut RecvState, from: usize, c: u64) {
        let lane = lane_at(st.lane, self);
        st.publish_at = seq_word(c + self.slots / 2, 0);
        // Release: our reads of the freed slots happen before the sender's
        // Acquire load of `consumed` and its next writes to them.
        lane.consumed.store(c, Ordering::Release);
        if self.control.wait_strategy(from) == WaitStrategy::Block {
            notify(&lane.sender_parked);
        }
    }

    /// Waits until `from` has published chunk `c` on `lane` (spinning if `spins`,
    /// else parking); returns the slot's `seq` word.
    #[inline(always)]
    fn wait_chunk(&self, lane: &Lane, from: usize, spins: bool, c: u64) -> Result<u64, RankError> {
        let seq = &lane.header(((c - 1) & self.mask) as usize).seq;
        // Acquire: pairs with the sender's Release store of `seq`.
        let ready = || {
            let s = seq.load(Ordering::Acquire);
            published(s, c).then_some(s)
        };
        if spins {
            self.control.spin_until(from, ready)
        } else {
            block_until(&self.control, from, &lane.receiver_parked, ready)
        }
    }

    /// The length of the next message from `from` to `rank`, if its first chunk
    /// is published.
    #[inline(always)]
    fn next_len(&self, st: &RecvState) -> Option<usize> {
        let c = st.received() + 1;
        let header = lane_at(st.lane, self).header(((c - 1) & self.mask) as usize);
        // Acquire: pairs with the sender's Release store of `seq`; the Relaxed
        // load of the length after it sees the value published with it.
        let seq = header.seq.load(Ordering::Acquire);
        published(seq, c).then(|| first_len(header, seq))
    }

    /// Receives the next message from `from` into `buf`.
    #[inline(always)]
    fn recv_message(
        &self,
        from: usize,
        spins: bool,
        st: &mut RecvState,
        buf: &mut [u8],
    ) -> Result<usize, RankError> {
        let lane = lane_at(st.lane, self);
        let first = st.received() + 1;
        let seq = self.wait_chunk(lane, from, spins, first)?;
        let len = first_len(lane.header(((first - 1) & self.mask) as usize), seq);
        if len > buf.len() {
            return Err(too_long(len, buf.len()));
        }
        for index in 0..self.chunks(len) as usize {
            let c = first + index as u64;
            if index > 0 {
                self.wait_chunk(lane, from, spins, c)?;
            }
            self.take_chunk(lane, c, index, len, buf);
            self.release_chunk(st, from, c);
        }
        Ok(len)
    }

    /// Takes in, as `rank`, the chunks already published to it, without waiting:
    /// complete messages are queued, a message whose later chunks have not come yet
    /// stays partial. At most a ring's worth of chunks per source.
    #[cold]
    fn drain_incoming(
        &self,
        rank: usize,
        recv: &mut [CachePadded<RecvState>],
        unexpected: &mut [Unexpected],
    ) {
        for from in (0..self.size).filter(|&p| p != rank) {
            let (st, queue) = (&mut recv[from], &mut unexpected[from]);
            let lane = self.lane(from, rank);
            for _ in 0..self.slots {
                if queue.partial.is_none() {
                    let Some(len) = self.next_len(st) else {
                        break;
                    };
                    queue.partial = Some(Partial {
                        msg: vec![0u8; len],
                        first: st.received() + 1,
                        taken: 0,
                    });
                    st.straight = false;
                }
                let p = queue.partial.as_mut().expect("set above");
                let c = p.first + p.taken as u64;
                let slot = ((c - 1) & self.mask) as usize;
                // Acquire: pairs with the sender's Release store of `seq`.
                if !published(lane.header(slot).seq.load(Ordering::Acquire), c) {
                    break;
                }
                let len = p.msg.len();
                self.take_chunk(lane, c, p.taken, len, &mut p.msg);
                self.release_chunk(st, from, c);
                p.taken += 1;
                if p.taken as u64 == self.chunks(len) {
                    let done = queue.partial.take().expect("set above");
                    queue.complete.push_back(done.msg);
                }
            }
        }
    }
}

impl MailboxEndpoint {
    /// Waits for credit to write chunk `c` to `to`.
    #[inline(always)]
    fn wait_credit(&mut self, to: usize, c: u64) -> Result<(), RankError> {
        let shared = &*self.shared;
        let st = &mut self.send[to];
        if shared.has_credit(lane_at(st.lane, shared), st, c) {
            return Ok(());
        }
        self.wait_credit_slow(to, c)
    }

    /// Waits for credit in spells; between spells takes in what others have sent
    /// this rank, so that a peer blocked sending to us can go on.
    #[cold]
    #[inline(never)]
    fn wait_credit_slow(&mut self, to: usize, c: u64) -> Result<(), RankError> {
        const SPELL: u32 = if cfg!(loom) { 1 } else { 4096 };
        let shared = &*self.shared;
        let lane = shared.lane(self.rank, to);
        let mut started = None;
        loop {
            let st = &mut self.send[to];
            let got = match shared.control.wait_strategy(self.rank) {
                WaitStrategy::Spin => (0..SPELL).any(|_| {
                    let ok = shared.has_credit(lane, st, c);
                    if !ok {
                        crate::primitive::spin_hint();
                    }
                    ok
                }),
                WaitStrategy::Block => {
                    park_once(&lane.sender_parked, || shared.has_credit(lane, st, c))
                }
            };
            if got {
                return Ok(());
            }
            shared.drain_incoming(self.rank, &mut self.recv, &mut self.unexpected);
            shared.control.check(to, &mut started)?;
        }
    }

    /// Receives from what was taken in while blocked: the oldest complete
    /// message, else the partial one, waiting for its remaining chunks.
    #[cold]
    fn recv_unexpected(&mut self, from: usize, buf: &mut [u8]) -> Result<usize, RankError> {
        let shared = &*self.shared;
        let queue = &mut self.unexpected[from];
        let msg = match queue.complete.pop_front() {
            Some(msg) => msg,
            None => {
                let mut p = queue.partial.take().expect("checked non-empty");
                let st = &mut self.recv[from];
                let lane = lane_at(st.lane, shared);
                let len = p.msg.len();
                for index in p.taken..shared.chunks(len) as usize {
                    let c = p.first + index as u64;
                    shared.wait_chunk(lane, from, self.spins, c)?;
                    shared.take_chunk(lane, c, index, len, &mut p.msg);
                    shared.release_chunk(st, from, c);
                }
                p.msg
            }
        };
        if msg.len() > buf.len() {
            let len = msg.len();
            self.unexpected[from].complete.push_front(msg);
            return Err(too_long(len, buf.len()));
        }
        self.recv[from].straight = self.spins && self.unexpected[from].is_empty();
        buf[..msg.len()].copy_from_slice(&msg);
        Ok(msg.len())
    }

    /// Sends a message chunk by chunk, waiting for credit as needed.
    #[inline(always)]
    fn send_chunks(&mut self, to: usize, data: &[u8]) -> Result<(), RankError> {
        let wake = self.send[to].wake_receiver;
        for index in 0..self.shared.chunks(data.len()) as usize {
            let c = self.send[to].sent() + 1;
            self.wait_credit(to, c)?;
            let lane = lane_at(self.send[to].lane, &self.shared);
            self.shared.put_chunk(lane, c, index, data);
            self.send[to].sent_seq = seq_word(c, 0);
            if wake {
                notify(&lane.receiver_parked);
            }
        }
        Ok(())
    }

    /// `send` off the inline path: checks the peer and the length, then sends
    /// chunk by chunk.
    #[inline(never)]
    fn send_general(&mut self, to: usize, data: &[u8]) -> Result<(), RankError> {
        self.check_send(to, data.len())?;
        self.send_chunks(to, data)
    }

    /// `recv` off the inline path: checks the peer, then receives from what was
    /// taken in while blocked, else chunk by chunk.
    #[inline(never)]
    fn recv_general(&mut self, from: usize, buf: &mut [u8]) -> Result<usize, RankError> {
        check_peer(self.rank, from, self.shared.size)?;
        if !self.unexpected[from].is_empty() {
            return self.recv_unexpected(from, buf);
        }
        self.shared
            .recv_message(from, self.spins, &mut self.recv[from], buf)
    }

    #[inline(always)]
    fn check_send(&self, to: usize, len: usize) -> Result<(), RankError> {
        check_peer(self.rank, to, self.shared.size)?;
        if len > self.max_message_bytes {
            return Err(too_long(len, self.max_message_bytes));
        }
        Ok(())
    }
}

impl MailboxEndpoint {
    /// The first byte of the lane this endpoint receives on from `from`: the
    /// line its flag polls, for reading back the NUMA node its memory was
    /// homed on ([`crate::platform::node_of_address`]).
    pub fn lane_line(&self, from: usize) -> *const u8 {
        self.recv[from].headers.cast()
    }
}

impl Endpoint for MailboxEndpoint {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.shared.size
    }

    #[inline(always)]
    fn send(&mut self, to: usize, data: &[u8]) -> Result<(), RankError> {
        // The ping-pong case, one inline chunk with credit at hand to a spinning
        // rank, straight through: on the critical path between two ranks are
        // the peer's bounds check, one compare of the length and one of the
        // credit, and the two stores to the slot's header line. A peer out of
        // range fails `get_mut`; this rank's own lane, a receiver that parks
        // (and must be woken) and a `max_message_bytes` below `INLINE_BYTES`
        // have no inline credit; all reach the general path.
        if let Some(st) = self.send.get_mut(to)
            && data.len() <= INLINE_BYTES
            && st.sent_seq < st.inline_limit
        {
            let header = header_at(st.headers, st.offsets, st.sent_seq, &self.shared);
            st.sent_seq += seq_word(1, 0);
            put_inline(header, st.sent_seq, data);
            return Ok(());
        }
        self.send_general(to, data)
    }

    #[inline(always)]
    fn recv(&mut self, from: usize, buf: &mut [u8]) -> Result<usize, RankError> {
        // The ping-pong case, an inline message to a spinning rank, straight
        // through (as `send`). The wait checks the team's abort flag and the
        // deadline in its slow branch only, every 1024 polls (`spin_until`):
        // between the poll that sees the flag and the return are the load of
        // the word (header line, already held), one compare of the length (the
        // flag's code), the store of the word and the credit's compare.
        if let Some(st) = self.recv.get_mut(from)
            && st.straight
        {
            let shared = &*self.shared;
            let header = header_at(st.headers, st.offsets, st.received_seq, shared);
            // The next chunk's `seq` word, code left out.
            let next = st.received_seq + seq_word(1, 0);
            let ready = || {
                // Acquire: pairs with the sender's Release store of `seq`.
                let s = header.seq.load(Ordering::Acquire);
                (s >= next).then_some(s)
            };
            let seq = shared.control.spin_until(from, ready)?;
            // Relaxed: ordered after the Acquire load that returned `seq`.
            let word = header.word.load(Ordering::Relaxed);
            // The chunk is `next`'s (the slot holds no later one before our
            // credit for it), so the code is the rest of the word.
            let len = (seq & LONG) as usize;
            let taken = match buf.first_chunk_mut::<INLINE_BYTES>() {
                Some(head) if len == INLINE_BYTES => {
                    *head = word.to_le_bytes();
                    Some(INLINE_BYTES)
                }
                _ => unpack_short(word, len, buf),
            };
            if let Some(len) = taken {
                shared.release_seq(st, from, next);
                return Ok(len);
            }
            // A longer message (or too long for `buf`): its first chunk is
            // published, and the general path takes it from there.
        }
        self.recv_general(from, buf)
    }

    fn try_send(&mut self, to: usize, data: &[u8]) -> Result<bool, RankError> {
        self.check_send(to, data.len())?;
        let shared = &*self.shared;
        let st = &mut self.send[to];
        let lane = lane_at(st.lane, shared);
        let last = st.sent() + shared.chunks(data.len());
        if !shared.has_credit(lane, st, last) {
            return Ok(false);
        }
        for index in 0..shared.chunks(data.len()) as usize {
            let c = st.sent() + 1;
            shared.put_chunk(lane, c, index, data);
            st.sent_seq = seq_word(c, 0);
        }
        if st.wake_receiver {
            notify(&lane.receiver_parked);
        }
        Ok(true)
    }

    fn try_recv(&mut self, from: usize, buf: &mut [u8]) -> Result<Option<usize>, RankError> {
        check_peer(self.rank, from, self.shared.size)?;
        if !self.probe(from) {
            return Ok(None);
        }
        self.recv(from, buf).map(Some)
    }

    fn probe(&self, from: usize) -> bool {
        if from >= self.shared.size || from == self.rank {
            return false;
        }
        !self.unexpected[from].is_empty() || self.shared.next_len(&self.recv[from]).is_some()
    }

    fn pending_mut(&mut self) -> &mut PendingRequests {
        &mut self.pending
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::team::{Team, TeamSpec};
    use std::time::Duration;

    /// A team of `ranks` on at most two allowed CPUs (virtual beyond), with
    /// mailbox endpoints of `slots` x `slot_bytes`.
    fn team_with_mailbox(
        ranks: usize,
        max_message_bytes: usize,
        slots: usize,
        slot_bytes: usize,
    ) -> (Team, Vec<MailboxEndpoint>) {
        let team = Team::new(&TeamSpec {
            cpus: crate::platform::allowed_cpus()
                .into_iter()
                .take(2)
                .collect(),
            ranks,
            virtual_ok: true,
            oversubscribe: false,
            wait_timeout: Duration::from_secs(20),
        })
        .unwrap();
        let config = TransportConfig {
            max_message_bytes,
            slots,
            slot_bytes,
        };
        let eps = Mailbox::endpoints(team.control(), &config);
        (team, eps)
    }

    fn run_pair(ranks: usize, sizes: &'static [usize], rounds: usize) {
        let (team, eps) = team_with_mailbox(ranks, 70_000, 4, 256);
        team.run("mailbox-test", eps, |ctx, ep| {
            let mut buf = vec![0u8; 70_000];
            let next = (ctx.rank + 1) % ctx.size;
            let prev = (ctx.rank + ctx.size - 1) % ctx.size;
            for round in 0..rounds {
                for &n in sizes {
                    let msg: Vec<u8> = (0..n).map(|i| (i * 31 + round + ctx.rank) as u8).collect();
                    if ctx.rank == 0 {
                        ep.send(next, &msg)?;
                        let got = ep.recv(prev, &mut buf)?;
                        let want: Vec<u8> = (0..n).map(|i| (i * 31 + round + prev) as u8).collect();
                        assert_eq!(&buf[..got], &want[..], "size {n}");
                    } else {
                        let got = ep.recv(prev, &mut buf)?;
                        let want: Vec<u8> = (0..n).map(|i| (i * 31 + round + prev) as u8).collect();
                        assert_eq!(&buf[..got], &want[..], "size {n}");
                        ep.send(next, &msg)?;
                    }
                }
            }
            Ok(())
        })
        .unwrap();
    }

    const SIZES: &[usize] = &[0, 1, 7, 8, 9, 200, 256, 257, 1024, 1025, 4096, 65_536];

    #[test]
    fn messages_of_every_size_class_arrive_intact_between_two_cpus() {
        run_pair(2, SIZES, 20);
    }

    #[test]
    fn a_ring_of_virtual_ranks_passes_messages_with_blocking_waits() {
        run_pair(5, SIZES, 5);
    }

    /// Every rank sends its right neighbour a message 4 times the ring's capacity,
    /// then receives from its left: without taking in while blocked, every rank
    /// would wait for credit forever.
    fn shift_larger_than_the_ring(ranks: usize) {
        let (team, eps) = team_with_mailbox(ranks, 4096, 4, 256);
        team.run("shift-test", eps, |ctx, ep| {
            let right = (ctx.rank + 1) % ctx.size;
            let left = (ctx.rank + ctx.size - 1) % ctx.size;
            let mut buf = vec![0u8; 4096];
            for round in 0..30u8 {
                let out = vec![ctx.rank as u8 ^ round; 4096];
                ep.send(right, &out)?;
                assert_eq!(ep.recv(left, &mut buf)?, 4096);
                assert!(
                    buf.iter().all(|&b| b == left as u8 ^ round),
                    "round {round}"
                );
            }
            Ok(())
        })
        .unwrap();
    }

    #[test]
    fn a_pair_exchanging_more_than_the_ring_does_not_deadlock() {
        shift_larger_than_the_ring(2);
    }

    #[test]
    fn a_virtual_ring_shifting_more_than_the_ring_does_not_deadlock() {
        shift_larger_than_the_ring(5);
    }

    #[test]
    fn non_blocking_requests_and_probe_work() {
        let (team, eps) = team_with_mailbox(2, 4096, 2, 128);
        team.run("nb-test", eps, |ctx, ep| {
            let other = 1 - ctx.rank;
            let out = vec![ctx.rank as u8 + 1; 1000]; // 8 chunks: more than the ring
            let mut inn = vec![0u8; 1000];
            let r = ep.irecv(other, &mut inn)?;
            let s = ep.isend(other, &out)?;
            ep.wait_send(s)?;
            let n = ep.wait_recv(r)?;
            assert_eq!(n, 1000);
            assert!(inn.iter().all(|&b| b == other as u8 + 1));
            // Probe sees a message before it is received.
            if ctx.rank == 0 {
                ep.send(1, b"x")?;
            } else {
                ctx.control.spin_until(0, || ep.probe(0).then_some(()))?;
                let mut b = [0u8; 1];
                assert_eq!(ep.try_recv(0, &mut b)?, Some(1));
                assert!(!ep.probe(0));
            }
            Ok(())
        })
        .unwrap();
    }
}
