//! GOAL schedules: the text format of LogGOPSim and Schedgen (Hoefler, Schneider and
//! Lumsdaine, "LogGOPSim", HPDC 2010), read into a dependency graph per rank. Pure:
//! text in, graph out; `model::simulator` simulates it, the replay runs it.
//!
//! # The subset read (LogGOPSim's `txt2bin` grammar, one statement a line)
//! ```text
//! num_ranks 2                       // first statement; 1 ..= MAX_RANKS
//! rank 0 {                          // a block per rank, each at most once
//! l1: send 8b to 1 tag 0            // `tag T` optional (0)
//! l2: calc 100                      // local work, ns
//! l3: recv 8b from 1 tag 0
//! l3 requires l2                    // l3 starts after l2 completed
//! l2 irequires l1                   // l2 starts after l1 started
//! }                                 /* block comments too */
//! ```
//! Labels are `[A-Za-z][A-Za-z0-9_]*`, local to their rank, defined once; a
//! dependency may name a label defined later in the block. Unlabelled ops get
//! the label `#N` (N = OpId), which no file can name. `Nb` may have blanks
//! before `b`. Ranks missing from the file are empty.
//!
//! # halfperf's extensions (a comment to a plain GOAL reader)
//! - `l2: calc 1000 //@ vector triad-f64 L1 4096`: 4096 flop of Hockney's
//!   vector operation (`dyadic`, `triad`, `scalar-triad`, `scalar`, each `-f64`
//!   or `-f32`) on operands in a level (`L1`, `L2`, `L3`, `memory`); a plain
//!   reader does `calc 1000`. The replay runs the loop, `predict` times it by
//!   Hockney's eq. (4) from `hockney-vector`'s `r_inf` and `n_1/2`, `simulate`
//!   reads `N` (with `--from RESULT`, eq. (4)).
//! - `//@ sync METHOD` on the 0-byte messages of a gather and release: ranks
//!   meeting through a `hockney-sync` method ([`SYNC_METHODS`]; form and rules
//!   in the `sync` submodule). A plain reader replays the messages.
//!
//! A `//@` word other than these, or a mark on the wrong op, is refused.
//!
//! Time unit: `calc N` is N nanoseconds, the unit of LogGOPSim's parameters
//! (`-L 2500` is 2.5 us in its help and paper), so a schedule's times and
//! `simulate --loggp` figures are in ns.
//!
//! Read and ignored only at their default: `cpu 0` and `nic 0` after an op
//! (LogGOPSim's multi-CPU / multi-NIC hosts); any other value is refused, as the
//! engine models one CPU and one NIC per rank. Outside the subset (one error
//! naming the file, line and construct): any-source (`from -1`) and any-tag
//! (`tag -1`) receives, a statement outside a rank block, a number above
//! `u64::MAX` (or a rank above `u32`), a file over [`MAX_FILE_BYTES`] or not
//! UTF-8, an unclosed block (a truncated file).
//!
//! # Invariants of a parsed [`Schedule`]
//! `ranks.len() == num_ranks`; every peer is `< num_ranks`; every `requires` and
//! `irequires` id is an op of the same rank; ops are in file order. [`check`]
//! adds the run-time promises: matching sends and receives, no cycle.
//!
//! # Matching (as MPI and LogGOPSim)
//! Between one (source, destination, tag) messages match in the order posted.
//! [`check`] pairs them in file order, which is the posting order of any
//! schedule whose same-triple messages are ordered by dependencies, and also
//! looks for cycles through message edges (send before its receive), so that a
//! head-to-head receive deadlock is found before anything runs.
#![forbid(unsafe_code)]

mod check;
mod parse;
mod small;
mod sync;

use std::path::Path;

use serde::Serialize;

pub use check::check;
pub use parse::parse;
pub use small::{Deps, Label};
pub use sync::SYNC_METHODS;

/// Largest file [`read`] accepts, bytes (a 1024-rank all-to-all is about 60 MB).
pub const MAX_FILE_BYTES: u64 = 256 << 20;
/// Largest `num_ranks` accepted.
pub const MAX_RANKS: u32 = 1 << 20;

/// A parsed GOAL schedule (LogGOPSim / Schedgen text format).
#[derive(Debug, Clone, Serialize)]
pub struct Schedule {
    /// `num_ranks` of the file.
    pub num_ranks: u32,
    /// One entry per rank, index = rank.
    pub ranks: Vec<RankSchedule>,
    /// Hex digest of the file's bytes (128-bit FNV-1a: identifies, does not
    /// authenticate).
    pub hash: String,
    /// The file name or label it was read from.
    pub name: String,
    /// The `//@ sync` meetings, by [`SyncOp::meeting`].
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub meetings: Vec<Meeting>,
}

/// Ranks meeting through a `hockney-sync` method (`//@ sync METHOD`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Meeting {
    /// The method, one of [`SYNC_METHODS`].
    pub method: String,
    /// The tag of its messages.
    pub tag: u32,
    /// Its ranks, ascending; the first is the master.
    pub members: Vec<u32>,
    /// The line of its first marked op.
    pub line: u32,
}

/// An op's part in a meeting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SyncOp {
    /// Index into [`Schedule::meetings`].
    pub meeting: u32,
    /// An arrival (a worker's send, the master's receives); else a leaving op.
    pub arrive: bool,
}

/// The ops of one rank.
#[derive(Debug, Clone, Serialize)]
pub struct RankSchedule {
    /// Index = [`OpId`] within the rank, in file order.
    pub ops: Vec<Op>,
}

/// Index of an op within its rank.
pub type OpId = u32;

/// One operation.
#[derive(Debug, Clone, Serialize)]
pub struct Op {
    /// The label in the file (`l1`), or `#N` for an unlabelled op.
    pub label: Label,
    /// What it does.
    pub kind: OpKind,
    /// May start only after these ops completed.
    pub requires: Deps,
    /// May start only after these ops started (LogGOPSim's `irequires`).
    pub irequires: Deps,
    /// 1-based line in the file.
    pub line: u32,
    /// halfperf's `//@ vector` extension of a `calc` (see the module doc).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vector: Option<Box<VectorCalc>>,
    /// halfperf's `//@ sync` extension of a message (see the module doc).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sync: Option<SyncOp>,
}

/// The vector operations of Hockney's Table I, as `hockney-vector` names them
/// (each with `-f64` or `-f32`), and their flop an element.
pub const VECTOR_OPERATIONS: [(&str, u64); 4] = [
    ("dyadic", 1),
    ("triad", 2),
    ("scalar-triad", 2),
    ("scalar", 1),
];

/// The memory levels `hockney-vector` fits a line on.
pub const VECTOR_LEVELS: [&str; 4] = ["L1", "L2", "L3", "memory"];

/// `calc N //@ vector OP LEVEL FLOP`: `FLOP` flop of Hockney's vector operation
/// `OP` on operands that lie in `LEVEL`; `N` stays the plain GOAL reading, ns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VectorCalc {
    /// The operation as `hockney-vector` names it (`triad-f64`).
    pub operation: String,
    /// The memory level (`L1`, `L2`, `L3`, `memory`).
    pub level: String,
    /// Flop to do.
    pub flop: u64,
}

impl VectorCalc {
    /// Flop an element (a vector instruction's flop is its length, so this is
    /// also the vector instructions an element: Hockney's "divided by two").
    pub fn flop_per_element(&self) -> u64 {
        let base = self.operation.rsplit_once('-').map_or("", |(b, _)| b);
        VECTOR_OPERATIONS
            .iter()
            .find(|(name, _)| *name == base)
            .map_or(1, |(_, f)| *f)
    }

    /// Whether the operands are `f32`.
    pub fn is_f32(&self) -> bool {
        self.operation.ends_with("-f32")
    }

    /// Elements of each operand: `FLOP / flop an element`, at least 1.
    pub fn elements(&self) -> u64 {
        (self.flop / self.flop_per_element()).max(1)
    }

    /// Hockney's eq. (4) for this op: `vi` vector instructions of `elements`
    /// each, `(FLOP + vi n_1/2) / r_inf`, ns (`r_inf` in flop/s).
    pub fn time_ns(&self, r_inf_flop_per_s: f64, n_half_flop: f64) -> f64 {
        let vi = self.flop_per_element() as f64;
        (self.flop as f64 + vi * n_half_flop) / r_inf_flop_per_s * 1e9
    }
}

/// What an op does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum OpKind {
    /// `send 8b to 1 tag 0`
    Send {
        /// Message size, bytes.
        bytes: u64,
        /// Destination rank.
        peer: u32,
        /// Tag.
        tag: u32,
    },
    /// `recv 8b from 1 tag 0` (peer = the source rank)
    Recv {
        /// Message size, bytes.
        bytes: u64,
        /// Source rank.
        peer: u32,
        /// Tag.
        tag: u32,
    },
    /// `calc 100`: local computation, ns.
    Calc {
        /// Duration, ns.
        ns: u64,
    },
}

/// A schedule that cannot be read or cannot complete. Display: `FILE:LINE: what`.
#[derive(Debug, thiserror::Error)]
pub enum GoalError {
    /// The text breaks the grammar or leaves the subset.
    #[error("{file}:{line}: {what}")]
    Syntax {
        /// File name.
        file: String,
        /// 1-based line.
        line: u32,
        /// What is wrong, quoting the construct.
        what: String,
    },
    /// The file cannot be read.
    #[error("{file}: cannot read: {source}")]
    Io {
        /// File name.
        file: String,
        /// The system's error.
        source: std::io::Error,
    },
    /// The file exceeds [`MAX_FILE_BYTES`].
    #[error("{file}: {bytes} bytes exceed the GOAL reader's limit of {limit}")]
    TooLarge {
        /// File name.
        file: String,
        /// Its size.
        bytes: u64,
        /// The limit.
        limit: u64,
    },
    /// A receive or send without its partner.
    #[error("{file}:{line}: rank {rank} `{label}`: {what}")]
    Unmatched {
        /// File name.
        file: String,
        /// Line of the op.
        line: u32,
        /// Its rank.
        rank: u32,
        /// Its label.
        label: String,
        /// What has no partner.
        what: String,
    },
    /// A dependency cycle (through `requires`, `irequires` and messages).
    #[error("{file}:{line}: rank {rank} `{label}` is on a dependency cycle: {what}")]
    Cycle {
        /// File name.
        file: String,
        /// Line of an op on the cycle.
        line: u32,
        /// Its rank.
        rank: u32,
        /// Its label.
        label: String,
        /// The cycle, as `rank:label` steps.
        what: String,
    },
}

/// Reads and parses a GOAL file: at most [`MAX_FILE_BYTES`], UTF-8.
pub fn read(path: &Path) -> Result<Schedule, GoalError> {
    let file = path.display().to_string();
    let io = |source| GoalError::Io {
        file: file.clone(),
        source,
    };
    let bytes = std::fs::metadata(path).map_err(io)?.len();
    if bytes > MAX_FILE_BYTES {
        return Err(GoalError::TooLarge {
            file,
            bytes,
            limit: MAX_FILE_BYTES,
        });
    }
    let data = std::fs::read(path).map_err(io)?;
    let text = std::str::from_utf8(&data).map_err(|e| {
        let line = 1 + data[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        GoalError::Syntax {
            file: file.clone(),
            line: u32::try_from(line).unwrap_or(u32::MAX),
            what: "the file is not UTF-8 text".into(),
        }
    })?;
    // The digest is a serial pass over every byte; it runs beside the parse.
    std::thread::scope(|scope| {
        let hash = std::thread::Builder::new().spawn_scoped(scope, || digest(&data));
        let parsed = parse::parse_text(text, &file);
        // Without a thread (or if it failed), the digest is taken here.
        let hash = hash
            .ok()
            .and_then(|h| h.join().ok())
            .unwrap_or_else(|| digest(&data));
        parsed.map(|s| Schedule { hash, ..s })
    })
}

/// 128-bit FNV-1a of `bytes`, as 32 hex digits.
pub fn digest(bytes: &[u8]) -> String {
    const OFFSET: u128 = 0x6c62272e07bb014262b821756295c58d;
    const PRIME: u128 = 0x0000000001000000000000000000013B;
    let h = bytes
        .iter()
        .fold(OFFSET, |h, &b| (h ^ u128::from(b)).wrapping_mul(PRIME));
    format!("{h:032x}")
}

impl Schedule {
    /// Total ops over all ranks.
    pub fn op_count(&self) -> usize {
        self.ranks.iter().map(|r| r.ops.len()).sum()
    }

    /// The global numbering of the ops: `ranks.len() + 1` entries, the index
    /// of each rank's first op and then the total, so that op `i` of rank `r`
    /// is `base[r] + i`.
    pub fn op_bases(&self) -> Vec<usize> {
        let mut base = Vec::with_capacity(self.ranks.len() + 1);
        let mut total = 0;
        for r in &self.ranks {
            base.push(total);
            total += r.ops.len();
        }
        base.push(total);
        base
    }
}

#[cfg(test)]
mod tests;
