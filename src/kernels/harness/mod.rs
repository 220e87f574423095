//! The harness under the methods: what every kernel measures with, and
//! nothing any one paper defines.
//!
//! - [`timing`]: the one clock a kernel reads ([`timing::Timer`]: a stamp,
//!   the time since it, the clock's calibrated read overhead taken off) and
//!   the batches timed with it (calibrated to a target length, resized when
//!   they stray, summarised with scibench's ACCURACY bound).
//! - [`sweep`]: one sweep's plan (`SweepPlan`): its points, trials,
//!   batch target, clock, the fault to inject, the progress hook and the
//!   cancel check. CoMet's command-driven sweep and scibench's two-rank
//!   sweep both carry one.
//! - [`transports`]: the loop over the run's transports, one result each,
//!   with the progress bar and the user's interrupt.
//! - [`calls`]: the calls several methods time alike: the end of a system
//!   action (a full fence), an experiment's median samples, the
//!   dissemination barrier.
//! - [`flags`]: the bare two-flag round trip and the copy round trip between
//!   two pinned threads, the floor of every transport.
//! - [`pair`]: the two-rank primitives: which CPU pair a two-rank kernel
//!   takes, and a transport's timed ping-pong loops.
//! - [`probe`]: the probe of the machine's state built on [`flags`], timed
//!   beside a kernel's own measurements and recorded on its results.
//!
//! Layer rule: the harness imports nothing from a method (`scibench`,
//! `hockney`, `comet`, `decomposition`, `speedup`, `reliability`) and the
//! methods import the harness, so that no circle runs through `kernels/`
//! (a test below reads the harness's files and checks it).

pub mod calls;
pub mod flags;
pub mod pair;
pub mod probe;
pub mod sweep;
pub mod timing;
pub mod transports;

/// What the harness's tests share.
#[cfg(test)]
pub(crate) mod test_support {
    use crate::platform::ClockInfo;
    use crate::team::{Team, TeamSpec};
    use std::time::Duration;

    /// Two ranks on the first two CPUs this process may use (on one CPU,
    /// oversubscribed with blocking waits), with a 10 s deadline.
    pub(crate) fn two_ranks() -> Team {
        let cpus = crate::platform::allowed_cpus();
        Team::new(&TeamSpec {
            cpus: cpus.iter().copied().take(2).collect(),
            ranks: 2,
            virtual_ok: true,
            oversubscribe: cpus.len() < 2,
            wait_timeout: Duration::from_secs(10),
        })
        .unwrap()
    }

    /// A clock whose reads cost `overhead_ns`, resolving 1 ns.
    pub(crate) fn clock(overhead_ns: f64) -> ClockInfo {
        ClockInfo {
            source: "test".into(),
            read_overhead_ns: overhead_ns,
            resolution_ns: 1.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// Every folder under `src/kernels/` but this one is a method; no file
    /// of the harness names one (a path `kernels::m`, `super::m` or
    /// `super::super::m`), comments left out.
    #[test]
    fn the_harness_imports_no_method() {
        let kernels = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/kernels");
        let methods: Vec<String> = std::fs::read_dir(&kernels)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_dir() && !p.ends_with("harness"))
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert!(methods.iter().any(|m| m == "scibench"), "{methods:?}");
        let mut files = 0;
        for entry in std::fs::read_dir(kernels.join("harness")).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            let code: String = text
                .lines()
                .map(|l| l.split("//").next().unwrap_or(""))
                .collect::<Vec<_>>()
                .join("\n");
            for m in &methods {
                for form in [format!("kernels::{m}"), format!("super::{m}")] {
                    assert!(
                        !code.contains(&form),
                        "{} names the method {m} ({form})",
                        path.display()
                    );
                }
            }
            files += 1;
        }
        assert!(files >= 6, "{files} files");
    }
}
