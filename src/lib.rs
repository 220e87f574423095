//! halfperf characterises a multicore machine with the methods of classic
//! parallel-computer benchmarking. Threads pinned to cores play the processors of a
//! message-passing machine; they exchange messages through lock-free channels and
//! through shared-memory flag polling (remote write, local read); and every
//! measurement ends in a few model parameters that can be compared across
//! synchronisation primitives and across machines.
//!
//! # The methods and their vocabulary
//! - Hockney: `r_inf` (asymptotic rate), `n_half` (vector length for half of it),
//!   `s_half` (work per synchronisation for half of it), `t0`, `pi0 = 1/t0`.
//! - Krumme & Greenfield (NCUBE): a message's cost split into F, S, R, A, U, E.
//! - CoMet: `t(N) = t_startup + N t_per_byte + (n - 1) h`, half-peak sizes.
//! - scibench (Gonzalez): one-way (OW) and ping-pong (PP) latency by remote write
//!   and local read; the SCI topology model (`overhead_o`, `forwarding_lf`,
//!   `switching_ls`, `propagation_lp`).
//! - Lamanna: `T = mu + b U/N + c N B R`, the discrete-event simulator.
//!
//! # Modules, from the machine up to the command line
//! Each module imports only those above it in this list, never one below
//! (`tests/layers.rs` reads the list and the imports and checks it).
//! - [`platform`]: the machine: topology from `/sys`, distance classes, pinning
//!   with read-back, the clock's overhead, the load check, the parsers of CPU
//!   lists and sizes that `/sys` and the command line share.
//! - [`model`]: fits with their goodness, statistics, the papers' analytic models
//!   and Lamanna's simulator; pure computation on numbers.
//! - [`control`]: what the layers above share about a running team: placement,
//!   wait strategy, rank errors, the abort flag and deadlines.
//! - [`transport`]: message passing between ranks: `mailbox` (remote-write /
//!   local-read flag polling) and `channel` (crossbeam-channel), one macro that
//!   picks one at run time; a node's `mailroom` above either; the SCI `fabric`;
//!   MPI point-to-point between processes (`mpi`, with `--features mpi`).
//! - [`sync`]: the synchronisation methods under test (tasks, locks, events, spin
//!   flag, barriers) and their team adapters.
//! - [`team`]: P pinned ranks running one SPMD closure, start gate, deadlines,
//!   panic propagation, virtual processors; hosted (polled) nodes; a team of MPI
//!   processes (`mpi`, with `--features mpi`).
//! - [`results`]: the versioned JSON, its schema, atomic writing, reading.
//! - [`kernels`]: one module per method, one file per kernel, and the registry
//!   (the one list of kernels; each exports its `NAME`).
//! - [`analysis`]: what is concluded from result files: the machine card,
//!   decisions, `compare`, the judging of the machine's state, the repeat
//!   spread.
//! - [`workload`]: GOAL schedules replayed on a team of pinned ranks, with
//!   trials and intervals, and predicted from a result file.
//! - [`suite`]: a whole run: machine and software description, kernels in turn.
//! - [`text`]: tables for the terminal, keyed on the kernels' names.
//! - [`report`]: HTML and Markdown reports with SVG figures, from result files.
//! - [`benchfit`]: the Criterion benches' parameters: the kernels' fits on the
//!   times a bench measured, printed as the card and written as a result file.
//! - `main.rs`: the command line only (`args.rs` its value parsers, `progress.rs`
//!   its progress bars, `mpirun.rs` its side of a run over MPI).

#![warn(unsafe_op_in_unsafe_fn)]

// In the order of the list above, from the machine up.
mod primitive;

pub mod platform;

pub mod model;

pub mod control;

pub mod transport;

pub mod sync;

pub mod team;

pub mod results;

pub mod kernels;

pub mod analysis;

pub mod workload;

pub mod suite;

pub mod text;

pub mod report;

pub mod benchfit;
