//! How the card judges one value: its trust mark (the worst of a busy
//! machine, virtual processors, a flagged fit, a noisy interval) and whether
//! its quantity may be negative or zero in a sound measurement (then two
//! values compare by difference, not by ratio). The card's rows, those
//! derived from fits and points, and `compare` all judge by these.

use crate::control::Placement;
use crate::results::{KernelResult, Trust};

/// The trust mark of a value from kernel `k`: the worst that applies.
/// `real_point`: the value comes from a point measured on real processors although
/// the kernel as a whole ran virtual ones too.
pub fn trust(
    k: &KernelResult,
    flagged: bool,
    value: f64,
    ci: Option<[f64; 2]>,
    real_point: bool,
) -> Trust {
    if k.load.as_ref().is_some_and(|l| l.busy) {
        Trust::Busy
    } else if k.placement != Placement::Pinned && !real_point {
        Trust::Virtual
    } else if flagged {
        Trust::FlaggedFit
    } else if ci.is_some_and(|[lo, hi]| (hi - lo) / 2.0 > 0.2 * value.abs()) {
        Trust::Noisy
    } else {
        Trust::Ok
    }
}

/// Whether a parameter can be negative or zero in a sound measurement: Krumme &
/// Greenfield's times are differences of measured times (A is often negative),
/// intercepts of lines (`a_ns`, `a_ms`, `t_startup_ns` of a fitted line), residuals
/// and errors. Such a value is compared by difference, not by ratio.
pub fn is_signed(name: &str) -> bool {
    let kg = ["int_", "float_"].iter().any(|p| name.starts_with(p))
        || ["a_ns", "f_ns", "s_ns", "r_ns", "u_ns", "e_ns"].contains(&name);
    let intercept = matches!(name, "a_ns" | "a_ms" | "t_startup_ns" | "t0_ns" | "tl_ms");
    kg || intercept
        || name.contains("residual")
        || name.contains("error")
        || name.starts_with("gain")
}
