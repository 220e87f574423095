//! The registry: every kernel's [`KernelSpec`] (name, paper, whether the
//! suite takes it, its MPI support, its card rows, its run function), the one
//! list that `list`, `run`, the MPI dispatch and the card read, and the load
//! check every kernel runs inside. The dispatch is here, once: a run over
//! MPI processes takes the kernel's [`OverMpi`](super::OverMpi) function,
//! any other its run between threads.

use super::harness::timing::Timer;
use super::spec::{KernelSpec, runs_over_mpi};
#[cfg(feature = "mpi")]
use super::spec::{OverMpi, mpi_processes_needed};
use super::{
    KernelError, RunContext, card, comet, decomposition, headline, hockney, reliability, scibench,
    speedup,
};
use crate::platform::{IdleSample, LoadReport, LoadWindow};
use crate::results::KernelResult;
use std::time::Duration;

/// Every kernel, in the order a full run takes them.
pub fn registry() -> Vec<&'static KernelSpec> {
    scibench::KERNELS
        .iter()
        .chain(hockney::KERNELS.iter())
        .chain(decomposition::KERNELS.iter())
        .chain(comet::KERNELS.iter())
        .chain(speedup::KERNELS.iter())
        .chain(reliability::KERNELS.iter())
        .collect()
}

/// The names of the kernels that run over MPI processes, registry order.
pub fn over_mpi_names() -> Vec<&'static str> {
    registry()
        .into_iter()
        .filter(|k| runs_over_mpi(k))
        .map(|k| k.name)
        .collect()
}

/// Why `spec`, which runs over MPI, cannot run on a world of `processes`, if
/// it cannot: fewer processes than it needs ([`mpi_processes_needed`]), or,
/// for CoMet's matrix kernels, a world that forms no processor grid. Checked
/// before any kernel runs, so that a refused run writes nothing.
#[cfg(feature = "mpi")]
pub fn over_mpi_refusal(spec: &KernelSpec, processes: usize) -> Option<String> {
    let needed = mpi_processes_needed(spec);
    if processes < needed {
        return Some(format!(
            "kernel {} needs at least {needed} MPI processes, and this world has {processes}: start it with `mpirun -n {needed}`",
            spec.name
        ));
    }
    match spec.over_mpi {
        OverMpi::OnGrid { .. } => comet::grid_refusal(spec.name, processes),
        _ => None,
    }
}

/// The kernels a run that names none takes.
pub fn default_suite() -> Vec<&'static KernelSpec> {
    registry()
        .into_iter()
        .filter(|k| k.in_quick_suite)
        .collect()
}

/// The kernel named `name`.
pub fn find(name: &str) -> Option<&'static KernelSpec> {
    registry().into_iter().find(|k| k.name == name)
}

/// Every kernel's card entries, registry order, then the bench-only ones.
pub fn card_entries() -> impl Iterator<Item = &'static card::CardEntry> {
    registry()
        .into_iter()
        .flat_map(|k: &'static KernelSpec| k.card)
        .chain(card::BENCH_ONLY)
}

/// The presenter of the result `kernel` over `transport`, if the card shows it.
pub fn card_rows_of(kernel: &str, transport: Option<&str>) -> Option<card::CardRows> {
    card_entries()
        .find(|e| e.matches(kernel, transport))
        .map(|e| e.rows)
}

/// Whether any transport of the result `kernel` has the presenter `rows`.
pub fn presented_as(kernel: &str, rows: card::CardRows) -> bool {
    card_entries().any(|e| e.names(kernel) && e.rows == rows)
}

/// The idle sample before a kernel: 100 ms, long enough that tick counting
/// resolves a neighbour using half a CPU (see
/// [`crate::platform::counting_error_cpus`]).
pub const IDLE_SAMPLE: Duration = Duration::from_millis(100);

/// How long a suite's idle sample serves the kernels after it: a sample at
/// most this old, with no other work seen during the kernels since, is not
/// taken again. A quick suite's twenty kernels slept 2 s of its 27 s in
/// their own samples; with a sample every 10 s, three of its 20 s. Every
/// kernel's own window still counts others' work during it, and a kernel
/// that saw any makes the next one sample afresh, so a longer reuse only
/// leaves the quiet stretches unsampled again.
pub const IDLE_SAMPLE_REUSE: Duration = Duration::from_secs(30);

/// The load check of a run of kernels: the last idle sample while it still
/// serves ([`IDLE_SAMPLE_REUSE`]).
#[derive(Debug, Default)]
pub struct LoadCheck {
    last: Option<IdleSample>,
    /// The time its idle samples took so far.
    pub sampled: Duration,
}

impl LoadCheck {
    /// The window around the next kernel: the last idle sample if it still
    /// serves, else a new one.
    fn begin(&mut self) -> LoadWindow {
        let idle = match self.last {
            Some(s) if s.age() < IDLE_SAMPLE_REUSE => s,
            _ => IdleSample::take(IDLE_SAMPLE),
        };
        self.last = Some(idle);
        LoadWindow::begin_after(idle)
    }

    /// After a kernel whose load check said `load`: a kernel that saw others'
    /// work (before or during) makes the next one sample afresh.
    fn end(&mut self, load: &LoadReport) {
        if load.busy {
            self.last = None;
        }
    }
}

/// Runs one kernel with the load check around it, attaching the load report, its
/// warning and the elapsed time to every result it returns; on a busy machine
/// every fit is flagged too, with the reason among the warnings.
pub fn run_kernel(
    spec: &KernelSpec,
    ctx: &RunContext<'_>,
) -> Result<Vec<KernelResult>, KernelError> {
    run_kernel_checked(spec, ctx, &mut LoadCheck::default())
}

/// [`run_kernel`] as one of a run's kernels, sharing the run's `check`.
pub fn run_kernel_checked(
    spec: &KernelSpec,
    ctx: &RunContext<'_>,
    check: &mut LoadCheck,
) -> Result<Vec<KernelResult>, KernelError> {
    let sampling = Timer::start();
    let window = check.begin();
    check.sampled += sampling.elapsed();
    let start = Timer::start();
    let mut results = dispatch(spec, ctx)?;
    let load = window.finish();
    check.end(&load);
    let elapsed = start.elapsed().as_secs_f64();
    for r in &mut results {
        if let Some(w) = load.warning() {
            r.warnings.push(w);
            // Results never look clean when the run was not: a busy machine flags
            // every fit, whatever its R^2.
            r.fits.iter_mut().for_each(|f| f.flagged = true);
            let fits = r.fits.len();
            if fits > 0 {
                r.warnings
                    .push(format!("{fits} fit(s) flagged: measured on a busy machine"));
            }
        }
        r.load = Some(load.clone());
        r.elapsed_s = elapsed;
        headline::fill_from_fits(r);
        r.drop_non_finite();
    }
    Ok(results)
}

/// Runs `spec` in this process: over MPI processes (the run has them) its
/// run between processes, which a kernel that has none refuses; else its run
/// between threads.
fn dispatch(spec: &KernelSpec, ctx: &RunContext<'_>) -> Result<Vec<KernelResult>, KernelError> {
    #[cfg(feature = "mpi")]
    if let Some(procs) = ctx.processes {
        return match spec.over_mpi {
            OverMpi::Runs { run, .. } | OverMpi::OnGrid { run } => run(ctx, procs.get()),
            OverMpi::No(why) => Err(KernelError::NotRunnable {
                kernel: spec.name.into(),
                reason: format!("it does not run over MPI: {why}"),
            }),
        };
    }
    (spec.run)(ctx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_shares_a_recent_idle_sample_until_others_work() {
        let mut check = LoadCheck::default();
        let t = Timer::start();
        let _first = check.begin();
        assert!(t.elapsed() >= IDLE_SAMPLE, "the first kernel samples");
        let t = Timer::start();
        let _second = check.begin();
        assert!(
            t.elapsed() < IDLE_SAMPLE / 2,
            "the next kernel reuses the sample: {:?}",
            t.elapsed()
        );
        check.end(&LoadReport {
            others_before_cpus: Some(0.0),
            others_during_cpus: Some(1.0),
            busy: true,
        });
        let t = Timer::start();
        let _third = check.begin();
        assert!(
            t.elapsed() >= IDLE_SAMPLE,
            "after a busy kernel the next one samples again"
        );
    }
}
