//! What every layer above the machine shares about a running team: where its ranks
//! sit ([`Placement`]), how each waits ([`WaitStrategy`]), what can go wrong on a
//! rank ([`RankError`]), and the control block that carries the abort flag and the
//! deadline of every wait ([`TeamControl`]).
//!
//! It sits below the transports, the synchronisation methods and the team, so that
//! they can all wait the same way without importing one another.

use crate::platform::PinError;
use crate::primitive::{AtomicBool, Ordering};
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How ranks are placed on CPUs; recorded with every result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Placement {
    /// One rank per CPU; waits spin.
    Pinned,
    /// More ranks than CPUs by the kernel's design; co-hosted ranks block.
    Virtual,
    /// More ranks than CPUs because the user asked for it; co-hosted ranks block.
    Oversubscribed,
    /// Virtual ranks hosted as polled nodes on pinned, spinning workers, one per
    /// CPU ([`hosted`]); no rank parks.
    // The doc is also the variant's description in the JSON Schema, which keeps its
    // words; `hosted` is `crate::team::hosted`, above this module.
    #[allow(rustdoc::broken_intra_doc_links)]
    Hosted,
}

impl std::fmt::Display for Placement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Placement::Pinned => "pinned",
            Placement::Virtual => "virtual",
            Placement::Oversubscribed => "oversubscribed",
            Placement::Hosted => "hosted",
        })
    }
}

/// How a rank waits for a peer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WaitStrategy {
    /// Poll with the spin-loop hint (a rank alone on its CPU).
    Spin,
    /// Park the thread until the peer wakes it (a rank sharing its CPU).
    Block,
}

/// What can go wrong on one rank.
#[derive(Debug, thiserror::Error)]
pub enum RankError {
    /// Pinning failed.
    #[error(transparent)]
    Pin(#[from] PinError),
    /// A wait passed its deadline.
    #[error(
        "no answer from rank {peer} within {waited_ms} ms (deadline); the peer is lost or stalled"
    )]
    Deadline {
        /// The peer waited for (or the rank itself for a start gate).
        peer: usize,
        /// How long the wait lasted.
        waited_ms: u64,
    },
    /// Another rank failed first and the team was stopped.
    #[error("stopped because another rank failed")]
    Aborted,
    /// The peer's endpoint is gone: it ended (failed or returned) while this rank
    /// still needed it.
    #[error("rank {0} ended while this rank was waiting for it")]
    PeerEnded(usize),
    /// The kernel's own check failed (a verification, a bad argument).
    #[error("{0}")]
    Failed(String),
    /// The rank panicked.
    #[error("panicked: {0}")]
    Panicked(String),
}

impl RankError {
    /// How likely this error is the root cause of a team's failure rather than a
    /// consequence of another rank's: a panic, then a rank's own failure, then a
    /// vanished peer, then an abort.
    pub(crate) fn cause_rank(&self) -> u8 {
        match self {
            RankError::Panicked(_) => 3,
            RankError::Pin(_) | RankError::Deadline { .. } | RankError::Failed(_) => 2,
            RankError::PeerEnded(_) => 1,
            RankError::Aborted => 0,
        }
    }
}

/// State shared by every rank of a running team and the transports it uses.
#[derive(Debug)]
pub struct TeamControl {
    abort: AtomicBool,
    wait_timeout: Duration,
    waits: Vec<WaitStrategy>,
}

impl TeamControl {
    /// A control block for `waits.len()` ranks.
    pub fn new(waits: Vec<WaitStrategy>, wait_timeout: Duration) -> Arc<TeamControl> {
        Arc::new(TeamControl {
            abort: AtomicBool::new(false),
            wait_timeout,
            waits,
        })
    }

    /// Number of ranks.
    pub fn ranks(&self) -> usize {
        self.waits.len()
    }

    /// How `rank` waits.
    #[inline]
    pub fn wait_strategy(&self, rank: usize) -> WaitStrategy {
        self.waits[rank]
    }

    /// The deadline of every single wait.
    pub fn wait_timeout(&self) -> Duration {
        self.wait_timeout
    }

    /// Stops every rank at its next wait.
    pub fn abort(&self) {
        // Relaxed: the flag carries no data; ranks only need to see it eventually,
        // and they poll it at least every few microseconds.
        self.abort.store(true, Ordering::Relaxed);
    }

    /// Clears the abort flag before a new run; the caller spawns the ranks after
    /// this store.
    pub(crate) fn rearm(&self) {
        // Relaxed: the ranks' threads are spawned after this store, and spawning
        // synchronises.
        self.abort.store(false, Ordering::Relaxed);
    }

    /// Whether the team was stopped.
    #[inline]
    pub fn aborted(&self) -> bool {
        // Relaxed: see `abort`.
        self.abort.load(Ordering::Relaxed)
    }

    /// Spins until `ready` returns `Some`, checking the abort flag and the
    /// deadline every 1024 polls (the clock is read only in a wait that lasts).
    /// `peer` names the rank waited for in the error.
    #[inline]
    pub fn spin_until<T>(
        &self,
        peer: usize,
        mut ready: impl FnMut() -> Option<T>,
    ) -> Result<T, RankError> {
        let mut polls: u32 = 0;
        let mut started: Option<Instant> = None;
        loop {
            if let Some(v) = ready() {
                return Ok(v);
            }
            crate::primitive::spin_hint();
            polls = polls.wrapping_add(1);
            if cfg!(not(loom)) && polls.is_multiple_of(1024) {
                self.check(peer, &mut started)?;
            }
        }
    }

    /// The abort and deadline check of a wait that started at `started` (set on
    /// first call).
    pub fn check(&self, peer: usize, started: &mut Option<Instant>) -> Result<(), RankError> {
        if self.aborted() {
            return Err(RankError::Aborted);
        }
        let start = *started.get_or_insert_with(Instant::now);
        let waited = start.elapsed();
        if waited > self.wait_timeout {
            return Err(RankError::Deadline {
                peer,
                waited_ms: waited.as_millis() as u64,
            });
        }
        Ok(())
    }
}
