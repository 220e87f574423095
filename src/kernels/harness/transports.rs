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
    ctx.progress
        .begin(kernel, (ctx.config.transports.len() * points) as u64);
    let mut out = Vec::new();
    for &t in &ctx.config.transports {
        if ctx.cancelled() {
            break;
        }
        out.push(body(t)?);
    }
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

    /// Two transports of 3 points: a bar of 6, one result each in the run's
    /// order; cancelled after the first, one result and `Interrupted`.
    #[test]
    fn one_result_a_transport_until_interrupted() {
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
        let result = |t: TransportKind| {
            KernelResult::new("k", "m", Placement::Pinned, vec![0, 1])
                .with_transport(Some(t.name()))
        };
        let out = per_transport(&ctx, "k", 3, |t| Ok(result(t))).unwrap();
        let names: Vec<_> = out.iter().map(|r| r.transport.clone().unwrap()).collect();
        assert_eq!(names, ["mailbox", "channel"]);
        assert_eq!(*count.0.lock().unwrap(), (6, 0, 1));
        let mut seen = 0;
        let err = per_transport(&ctx, "k", 3, |t| {
            seen += 1;
            // Relaxed: the flag orders nothing else; this thread reads it next.
            ctx.cancel.store(true, Ordering::Relaxed);
            Ok(result(t))
        })
        .unwrap_err();
        assert!(matches!(err, KernelError::Interrupted), "{err}");
        assert_eq!(seen, 1);
    }
}
