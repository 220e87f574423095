//! The models: least-squares fits and their goodness, sample statistics, and the
//! papers' analytic models and simulator. Pure computation, no timing.
//!
//! - [`fit`]: straight lines with R^2 and standard errors.
//! - [`goal`]: GOAL schedules (LogGOPSim, Schedgen): the reader and its checks.
//! - [`stats`]: min / median / max / percentiles of trial samples.
//! - [`interval`]: 95 % intervals, percentile bootstrap and Student t.
//! - [`hockney`]: `t = (n + n_half)/r_inf`, `s_half`, `t0`, `pi0` (Hockney).
//! - [`hockney_program`]: a program's time from them, eqs. (4)-(9), with its interval.
//! - [`piecewise`]: piecewise lines with breakpoints found from the data, and
//!   half-peak message sizes (CoMet).
//! - [`decomposition`]: F S R A U E from the NCUBE experiments (Krumme &
//!   Greenfield).
//! - [`kg`]: the patterns F S R A U E predict: echo at distance d, forwarding
//!   chains, section 5.2's message period and slowdown (Krumme & Greenfield).
//! - [`comet`]: collectives and matrix kernels predicted from the echo's lines
//!   (CoMet).
//! - [`goal`]: GOAL schedules (LogGOPSim / Schedgen text) read into dependency
//!   graphs, with static checks.
//! - [`sci`]: the SCI torus latency model, its decomposition and projections
//!   (Gonzalez).
//! - [`regression`], [`ttest`], [`speedup`], [`simulator`]: multiple least
//!   squares, the paired t test, Lamanna's speedup models and his discrete-event
//!   simulator of a hypercube.

#![forbid(unsafe_code)]

pub mod comet;
pub mod decomposition;
pub mod fit;
pub mod goal;
pub mod hockney;
pub mod hockney_program;
pub mod interval;
pub mod kg;
pub mod piecewise;
pub mod regression;
pub mod sci;
pub mod simulator;
pub mod speedup;
pub mod stats;
pub mod ttest;
