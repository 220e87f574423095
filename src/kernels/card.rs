//! The machine card's rows as a kernel declares them in its
//! [`KernelSpec`](super::KernelSpec):
//! which of its results the card shows, and with which presenter. The
//! presenters themselves (which fit or point each row reads, its interval)
//! are the analysis of results'; a kernel only names one and gives its words.
//!
//! A result is matched by its kernel name as the file spells it (a kernel may
//! write several, as `sci-topology` writes `sci-decomposition`), and where
//! given by its transport (`pingpong/atomic-flags` is a baseline, the other
//! transports a line); the first of a spec's entries that matches wins.
//! Results that only `cargo bench` writes, which no spec registers, have
//! their entries here ([`BENCH_ONLY`]).

/// A presenter of card rows, with the words and names it needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CardRows {
    /// An 8-byte one-way time (the median over trials), headed `eight`, and
    /// the line `t_startup + N t_per_byte` with its `n_1/2`, headed `line`.
    TransportLine {
        /// The 8-byte time's words.
        eight: &'static str,
        /// The line's words.
        line: &'static str,
    },
    /// A baseline's 8-byte one-way time (`what` it is) and the transports'
    /// ratios to it, point fields `ratios` with their `_min` and `_max`.
    Baseline {
        /// The baseline in words.
        what: &'static str,
        /// The ratios' point fields.
        ratios: &'static [&'static str],
    },
    /// Per distance class, the smallest, median and largest pair's one-way
    /// time; the kernel's headline where it has no such points.
    CoreToCore,
    /// The parameters `names` of the fit whose model starts with `model`,
    /// headed `line`.
    FitParams {
        /// The rows' words.
        line: &'static str,
        /// The start of the fit's model.
        model: &'static str,
        /// The fit's parameters shown.
        names: &'static [&'static str],
    },
    /// A vector kernel's `r_inf` and `n_1/2` per memory level; its
    /// instruction set per level goes on the card's identity.
    VectorLevels,
    /// A synchronisation method's `t0`, `s_1/2`, `r_inf` and `t_wake`, the
    /// methods ordered by `s_1/2`; the headline where the fit is missing.
    SyncMethods,
    /// Krumme & Greenfield's six lines `F S R A U E = X0 + X1 n`.
    MessageCosts,
    /// The barrier time at the largest team of real processors.
    Barrier,
    /// Lamanna's `T_ML` components, eq. 13's coefficients and the optimal N.
    Speedup,
    /// The parameters the result recorded as its headline, as they stand;
    /// nothing derived.
    Headline,
}

/// One result a kernel writes that the card shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CardEntry {
    /// The result's kernel name; a trailing `*` matches every name it starts
    /// (`comet-barrier*`: one result per barrier).
    pub result: &'static str,
    /// The result's transport, where only one gets these rows.
    pub transport: Option<&'static str>,
    /// Its presenter.
    pub rows: CardRows,
}

impl CardEntry {
    /// The rows of every transport of the result `result`.
    pub const fn of(result: &'static str, rows: CardRows) -> CardEntry {
        CardEntry {
            result,
            transport: None,
            rows,
        }
    }

    /// The rows of the result `result` over `transport` alone.
    pub const fn over(result: &'static str, transport: &'static str, rows: CardRows) -> CardEntry {
        CardEntry {
            result,
            transport: Some(transport),
            rows,
        }
    }

    /// Whether this entry names the result `kernel` (any transport).
    pub fn names(&self, kernel: &str) -> bool {
        match self.result.strip_suffix('*') {
            Some(prefix) => kernel.starts_with(prefix),
            None => kernel == self.result,
        }
    }

    /// Whether this entry is for the result `kernel` over `transport`.
    pub fn matches(&self, kernel: &str, transport: Option<&str>) -> bool {
        self.names(kernel) && self.transport.is_none_or(|t| transport == Some(t))
    }
}

/// The result `cargo bench`'s copy group writes: the cross-core copy of
/// the copy probe, timed alone.
pub const BENCH_COPY: &str = "copy";

/// The card entries of results that only `cargo bench` writes (no kernel's
/// spec registers them).
pub static BENCH_ONLY: &[CardEntry] = &[CardEntry::of(BENCH_COPY, CardRows::Headline)];
