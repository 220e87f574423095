//! Virtual ranks multiplexed over the processes of an [`MpiEndpoint`]'s
//! communicator by message tags ([`Multiplexed`]), for kernels whose ranks are
//! polled virtual nodes and which run them over MPI.

use super::*;

/// The first tag of [`Multiplexed`] messages, above the transport's and the
/// raw baseline's.
const MUX_TAG: c_int = 2;

/// The most virtual ranks one [`Multiplexed`] world may have: its tags, one
/// per ordered pair, then stay below 32767, the least `MPI_TAG_UB` the
/// standard allows.
pub const MULTIPLEXED_RANKS: usize = 181;

/// One virtual rank's end of a world of virtual ranks multiplexed over the
/// processes of an [`MpiEndpoint`]'s communicator, for kernels whose ranks
/// are polled virtual nodes ([`crate::team::hosted`]) and which run them over
/// MPI: virtual rank `v` lives on process `hosts[v]`, and a message from `a`
/// to `b` is an MPI message from process `hosts[a]` to `hosts[b]` with a tag
/// of that ordered pair alone, so that MPI's non-overtaking rule keeps every
/// pair's messages in order whichever process hosts which ranks.
///
/// Nothing blocks unless asked to: [`Endpoint::try_send`] copies the message
/// into the next of the lane's `slots` buffers ([`TransportConfig`]: the
/// transport's own memory, as the thread transports' slots) and
/// `MPI_Isend`s it from there, or says `false` while that buffer's earlier
/// send is still in flight (one `MPI_Test`); [`Endpoint::probe`] is one
/// `MPI_Iprobe` of the pair's tag, and [`Endpoint::try_recv`] receives the
/// probed message into the caller's buffer (`MPI_Irecv` completed under the
/// deadline, at once for a message MPI sent eagerly). A long message's
/// rendezvous so completes inside later MPI calls of both processes, as
/// Open MPI progresses without a thread of its own. Waits
/// ([`Endpoint::send`], [`Endpoint::recv`]) poll these under the team's
/// deadline.
///
/// It borrows the [`MpiEndpoint`] it was made from: the communicator is that
/// endpoint's, and outlives it. It is dropped before the endpoint, completing
/// its sends in flight first (see the module doc's "Failed waits").
pub struct Multiplexed<'c> {
    comm: ffi::MPI_Comm,
    rank: usize,
    /// The process of every virtual rank.
    hosts: Vec<usize>,
    /// This process's rank in the communicator.
    process: usize,
    control: Arc<TeamControl>,
    /// Per destination, its send buffers (none to itself).
    lanes: Vec<Vec<Slot>>,
    /// Per destination, the buffer its next send takes.
    next: Vec<usize>,
    pending: PendingRequests,
    failed: std::cell::Cell<bool>,
    owner: std::thread::ThreadId,
    _comm: std::marker::PhantomData<&'c MpiEndpoint>,
}

impl std::fmt::Debug for Multiplexed<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Multiplexed")
            .field("rank", &self.rank)
            .field("hosts", &self.hosts)
            .finish_non_exhaustive()
    }
}

// SAFETY: as for `MpiEndpoint`: the communicator handle is used only on the
// thread that initialised MPI at MPI_THREAD_SINGLE (the endpoint is made from
// an `MpiEndpoint` inside `Processes::run`'s body, on that thread, and no
// kernel hands it to another; debug builds assert the thread at every wait).
unsafe impl Send for Multiplexed<'_> {}

impl MpiEndpoint {
    /// Virtual rank `rank` of the world of virtual ranks whose processes are
    /// `hosts` (ranks of this endpoint's communicator), with `config`'s
    /// slots a lane and messages of up to its `max_message_bytes`. Not
    /// collective: each process makes the ranks it hosts. Panics when `rank`
    /// is not hosted by this process, a host is not a process of the
    /// communicator, or the world has more than [`MULTIPLEXED_RANKS`] ranks.
    pub fn multiplexed(
        &self,
        rank: usize,
        hosts: &[usize],
        config: &TransportConfig,
    ) -> Multiplexed<'_> {
        let size = hosts.len();
        assert!(
            size <= MULTIPLEXED_RANKS && hosts.iter().all(|&h| h < self.size),
            "a multiplexed world of {size} ranks on processes {hosts:?} of {}",
            self.size
        );
        assert_eq!(
            hosts.get(rank),
            Some(&self.rank),
            "rank {rank} is hosted here"
        );
        let bytes = config.slot_bytes.max(config.max_message_bytes);
        let lane = |to: usize| -> Vec<Slot> {
            if to == rank {
                return Vec::new();
            }
            (0..config.slots.max(1))
                .map(|_| Slot {
                    buf: vec![0u8; bytes],
                    request: null_request(),
                })
                .collect()
        };
        Multiplexed {
            comm: self.comm.as_raw(),
            rank,
            hosts: hosts.to_vec(),
            process: self.rank,
            control: Arc::clone(&self.control),
            lanes: (0..size).map(lane).collect(),
            next: vec![0; size],
            pending: PendingRequests::new(size),
            failed: std::cell::Cell::new(false),
            owner: std::thread::current().id(),
            _comm: std::marker::PhantomData,
        }
    }
}

impl Multiplexed<'_> {
    /// The tag of messages from virtual rank `from` to `to`.
    #[inline(always)]
    fn tag(&self, from: usize, to: usize) -> c_int {
        MUX_TAG + (from * self.hosts.len() + to) as c_int
    }

    /// The length of the next message from `from` if it has arrived (one
    /// `MPI_Iprobe`).
    #[inline]
    fn arrived(&self, from: usize) -> Option<usize> {
        let mut flag: c_int = 0;
        let mut status = empty_status();
        // SAFETY: the communicator is the live endpoint's this borrows;
        // `flag` and `status` are valid for writes.
        unsafe {
            ffi::MPI_Iprobe(
                self.hosts[from] as c_int,
                self.tag(from, self.rank),
                self.comm,
                &mut flag,
                &mut status,
            )
        };
        (flag != 0).then(|| received(&status))
    }

    /// Polls `step` until it gives a value, under the deadline (the error
    /// names virtual rank `peer`).
    fn wait<T>(
        &mut self,
        peer: usize,
        mut step: impl FnMut(&mut Self) -> Result<Option<T>, RankError>,
    ) -> Result<T, RankError> {
        debug_assert_eq!(
            std::thread::current().id(),
            self.owner,
            "MPI off its thread"
        );
        let control = Arc::clone(&self.control);
        wait_for(&control, self.process, peer, || {
            step(&mut *self).transpose()
        })?
    }
}

impl Endpoint for Multiplexed<'_> {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.hosts.len()
    }

    fn send(&mut self, to: usize, data: &[u8]) -> Result<(), RankError> {
        if self.try_send(to, data)? {
            return Ok(());
        }
        self.wait(to, |me| Ok(me.try_send(to, data)?.then_some(())))
    }

    fn recv(&mut self, from: usize, buf: &mut [u8]) -> Result<usize, RankError> {
        self.wait(from, |me| me.try_recv(from, &mut *buf))
    }

    #[inline]
    fn try_send(&mut self, to: usize, data: &[u8]) -> Result<bool, RankError> {
        check_peer(self.rank, to, self.size())?;
        let (tag, host, comm) = (self.tag(self.rank, to), self.hosts[to], self.comm);
        let k = self.next[to];
        let lane = &mut self.lanes[to];
        let slot = &mut lane[k];
        if slot.request != null_request() {
            let mut flag: c_int = 0;
            // SAFETY: the slot's request is an active send this endpoint
            // posted; MPI_Test sets it to MPI_REQUEST_NULL when it completes;
            // `flag` is valid for writes and the status is ignored.
            unsafe { ffi::MPI_Test(&mut slot.request, &mut flag, ffi::RSMPI_STATUS_IGNORE) };
            if flag == 0 {
                return Ok(false);
            }
        }
        slot.post_copy(comm, host, tag, data)?;
        self.next[to] = if k + 1 == lane.len() { 0 } else { k + 1 };
        Ok(true)
    }

    #[inline]
    fn try_recv(&mut self, from: usize, buf: &mut [u8]) -> Result<Option<usize>, RankError> {
        check_peer(self.rank, from, self.size())?;
        let Some(len) = self.arrived(from) else {
            return Ok(None);
        };
        if len > buf.len() {
            return Err(too_long(len, buf.len()));
        }
        let mut request = null_request();
        // SAFETY: `buf` is valid for writes of `len` bytes until the request
        // completes, which `complete` waits for (or cancels and frees it)
        // before this returns; the communicator is live. The receive matches
        // the message just probed: the first from that process with the
        // pair's tag (non-overtaking), and no other receive comes between.
        unsafe {
            ffi::MPI_Irecv(
                buf.as_mut_ptr().cast::<c_void>(),
                count(len),
                ffi::RSMPI_UINT8_T,
                self.hosts[from] as c_int,
                self.tag(from, self.rank),
                self.comm,
                &mut request,
            )
        };
        complete(
            &self.control,
            self.process,
            from,
            &mut request,
            true,
            &self.failed,
        )?;
        Ok(Some(len))
    }

    #[inline]
    fn probe(&self, from: usize) -> bool {
        from < self.size() && from != self.rank && self.arrived(from).is_some()
    }

    fn pending_mut(&mut self) -> &mut PendingRequests {
        &mut self.pending
    }
}

impl Drop for Multiplexed<'_> {
    /// Completes the sends still in flight (under the deadline); if one
    /// cannot complete, or an earlier wait failed, every buffer is leaked
    /// rather than freed under MPI.
    fn drop(&mut self) {
        let mut ok = !self.failed.get();
        for (peer, lane) in self.lanes.iter_mut().enumerate() {
            for slot in lane.iter_mut() {
                if ok && slot.request != null_request() {
                    ok = complete(
                        &self.control,
                        self.process,
                        peer,
                        &mut slot.request,
                        false,
                        &self.failed,
                    )
                    .is_ok();
                }
            }
        }
        if !ok {
            std::mem::forget(std::mem::take(&mut self.lanes));
        }
    }
}
