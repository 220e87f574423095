//! The loop over a run's transports: a kernel that measures the same thing
//! on every transport of `--transport` returns one result each, with one
//! progress bar over all of them and the user's interrupt honoured between
//! transports (a transport's sweep checks it between batches).

use crate::kernels::{KernelError, RunContext};
use crate::results::KernelResult;
use crate::transport::TransportKind;

/// One result per transport of the run, each from `body` (which measures on
/// a team and describes what it measured): the progress bar counts `points`
/// a transport, an interrupted run stops before the next transport and ends
/// in `KernelError::Interrupted`.
pub(crate) fn per_transport(
    ctx: &RunContext<'_>,
    kernel: &str,
    points: usize,
    mut body: impl FnMut(TransportKind) -> Result<KernelResult, KernelError>,
) -> Result<Vec<KernelResult>, KernelError> {
    let steps = ctx.config.transports.len() * points;
    each_transport(ctx, kernel, steps, &[()], |(), t| body(t).map(Some))
}

/// [`per_transport`] for every variant of a kernel in turn (its algorithms,
/// operations, ...), with a progress bar of `steps` in all: at most one
/// result per variant and transport, none where `body` measured nothing.
pub(crate) fn each_transport<A: Copy>(
    ctx: &RunContext<'_>,
    kernel: &str,
    steps: usize,
    variants: &[A],
    mut body: impl FnMut(A, TransportKind) -> Result<Option<KernelResult>, KernelError>,
) -> Result<Vec<KernelResult>, KernelError> {
    with_progress(ctx, kernel, steps, || {
        let mut out = Vec::new();
        for &variant in variants {
            for &t in &ctx.config.transports {
                if ctx.cancelled() {
                    break;
                }
                out.extend(body(variant, t)?);
            }
        }
        Ok(out)
    })
}

/// One kernel's progress: the bar counts `steps`, `body` measures and
/// returns its results, and an interrupted run ends in
/// `KernelError::Interrupted`.
pub(crate) fn with_progress(
    ctx: &RunContext<'_>,
    kernel: &str,
    steps: usize,
    body: impl FnOnce() -> Result<Vec<KernelResult>, KernelError>,
) -> Result<Vec<KernelResult>, KernelError> {
    ctx.progress.begin(kernel, steps as u64);
    let out = body()?;
    ctx.progress.end();
    interrupted(ctx)?;
    Ok(out)
}

/// `KernelError::Interrupted` where the user interrupted the run.
pub(crate) fn interrupted(ctx: &RunContext<'_>) -> Result<(), KernelError> {
    if ctx.cancelled() {
        Err(KernelError::Interrupted)
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::Placement;
    use crate::kernels::{Progress, RunConfig};
    use std::sync::Mutex;
    use std::sync::atomic::Ordering;

    /// Counts the progress calls.
    #[derive(Default)]
    struct Count(Mutex<(u64, u64, u64)>);

    impl Progress for Count {
        fn begin(&self, _: &str, total: u64) {
            self.0.lock().unwrap().0 = total;
        }
        fn step(&self, _: &str) {
            self.0.lock().unwrap().1 += 1;
        }
        fn end(&self) {
            self.0.lock().unwrap().2 += 1;
        }
    }

    /// `f` on a run of the mailbox and channel transports, whose progress
    /// calls `count` counts.
    fn on_two_transports(f: impl FnOnce(&RunContext<'_>, &Count)) {
        let topology = crate::platform::Topology::detect().expect("a topology");
        let allowed = crate::platform::allowed_cpus();
        let clock = super::super::test_support::clock(0.0);
        let config = RunConfig {
            transports: vec![TransportKind::Mailbox, TransportKind::Channel],
            ..RunConfig::default()
        };
        let count = Count::default();
        let mut ctx = RunContext::quiet(&topology, &allowed, &clock, &config);
        ctx.progress = &count;
        f(&ctx, &count);
    }

    /// Two transports of 3 points: a bar of 6, one result each in the run's
    /// order; cancelled after the first, one result and `Interrupted`.
    #[test]
    fn one_result_a_transport_until_interrupted() {
        on_two_transports(|ctx, count| {
            let result = |t: TransportKind| {
                KernelResult::new("k", "m", Placement::Pinned, vec![0, 1])
                    .with_transport(Some(t.name()))
            };
            let out = per_transport(ctx, "k", 3, |t| Ok(result(t))).unwrap();
            let names: Vec<_> = out.iter().map(|r| r.transport.clone().unwrap()).collect();
            assert_eq!(names, ["mailbox", "channel"]);
            assert_eq!(*count.0.lock().unwrap(), (6, 0, 1));
            let mut seen = 0;
            let err = per_transport(ctx, "k", 3, |t| {
                seen += 1;
                // Relaxed: the flag orders nothing else; this thread reads it next.
                ctx.cancel.store(true, Ordering::Relaxed);
                Ok(result(t))
            })
            .unwrap_err();
            assert!(matches!(err, KernelError::Interrupted), "{err}");
            assert_eq!(seen, 1);
        });
    }

    /// Two variants over two transports, 4 steps in all: the results in
    /// variant-then-transport order, a variant that measured nothing on a
    /// transport left out, and the bar begun and ended once.
    #[test]
    fn every_variant_on_every_transport_in_turn() {
        on_two_transports(|ctx, count| {
            let out = each_transport(ctx, "k", 4, &["a", "b"], |v, t| {
                let skip = v == "b" && t == TransportKind::Mailbox;
                Ok((!skip).then(|| {
                    KernelResult::new(v, "m", Placement::Pinned, vec![0, 1])
                        .with_transport(Some(t.name()))
                }))
            })
            .unwrap();
            let got: Vec<_> = out
                .iter()
                .map(|r| format!("{} {}", r.kernel, r.transport.as_deref().unwrap()))
                .collect();
            assert_eq!(got, ["a mailbox", "a channel", "b channel"]);
            assert_eq!(*count.0.lock().unwrap(), (4, 0, 1));
        });
    }
}
