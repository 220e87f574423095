//! The analysis of results: what halfperf concludes from result files, above
//! the kernels that write them and below the tables and reports that print it.
//!
//! - [`card`]: a file's machine card (identity, headline parameters with their
//!   95 % intervals and trust marks, decisions); `card_rows` derives the rows
//!   of a file written before kernels recorded headlines, `decisions` draws
//!   the conclusions (spin or park, mailbox or channel, a torus's crossover,
//!   Lamanna's efficiency with the interval of eq. 13 from `eq13_interval`);
//!   `trust` marks each value and says whether it compares by difference.
//! - [`compare`] and [`compare_cards`]: files side by side, every parameter
//!   or card row with its ratio to the first file and a mark where the two
//!   differ.
//! - [`hockney_prediction`]: Hockney's program time from the card (`model
//!   hockney`).
//! - [`speedup_prediction`]: Lamanna's eqs. 10-18 from the `speedup`
//!   kernel (`model speedup`).
//! - [`kg_prediction`] and [`comet_prediction`]: Krumme & Greenfield's
//!   derived patterns and CoMet's kernels from their lines (`model kg`,
//!   `model comet`).
//! - [`prediction_rows`]: the card rows the papers' predictions read (`model
//!   hockney`, `model speedup`), every headline a file holds, as [`Input`]s
//!   with their marks.
//! - [`repeat_spread`]: each headline parameter's spread over the
//!   repetitions of `run --repeat K`, with its verdict against the probes.
//! - `state`: how a comparison tells a parameter that changed from one that
//!   moved with the machine ([`judge`]), from the probes and mode figures the
//!   kernels recorded (their names are the document's, in `results`).
//!
//! Invariants: everything here is a pure function of the files read (no
//! clock, no machine), so a card or a comparison of committed files is the
//! same on every machine and every run; a value is marked different only when
//! its interval, widened to the run-to-run floor, misses the other's and the
//! machine's probes do not explain the move.

#![forbid(unsafe_code)]

mod card;
mod card_compare;
mod card_rows;
pub mod comet_prediction;
mod compare;
mod decisions;
mod eq13_interval;
pub mod hockney_prediction;
pub mod kg_prediction;
mod prediction_inputs;
mod repeat;
pub mod speedup_prediction;
mod state;
mod trust;

pub use card::{bytes, card, card_of, isa_run, resolve};
pub use card_compare::{
    CardCell, CardComparison, CardComparisonRow, cards_to_csv, compare_cards,
    compare_cards_with_floor,
};
pub use compare::{
    Comparison, ComparisonRow, compare, compare_with_floor, kernel_key, reports_mean, to_csv,
};
pub use prediction_inputs::{Input, PredictionError, input_marks, prediction_rows};
pub use repeat::{MOVED_ALLOWANCE, RepeatSpread, TARGET_CV, Verdict, cv, repeat_spread};
pub use state::{
    DEFAULT_FLOOR, MAX_SLEEP_NS, MODE_SHIFT, Mode, ModeOf, PHASE_MODES, ProbeKind, Probed,
    STATE_SPAN, Why, explained, judge, latency_like, moves_both_ways, moves_with_copy,
    moves_with_mode, moves_with_probe, moves_with_rate,
};
pub use trust::{is_signed, trust};
