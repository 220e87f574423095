//! The progress bars `run` draws while kernels measure.

use halfperf::kernels::Progress;

/// Progress bars on stderr, shown only when stderr is a terminal.
#[derive(Default)]
pub(crate) struct Bars {
    bar: parking_lot::Mutex<Option<indicatif::ProgressBar>>,
}

impl Progress for Bars {
    fn begin(&self, kernel: &str, total: u64) {
        let bar = indicatif::ProgressBar::with_draw_target(
            Some(total),
            indicatif::ProgressDrawTarget::stderr(),
        );
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{prefix:>10} [{bar:30}] {pos}/{len} {msg} ({elapsed})",
            )
            .expect("valid template")
            .progress_chars("=> "),
        );
        bar.set_prefix(kernel.to_string());
        *self.bar.lock() = Some(bar);
    }

    fn step(&self, what: &str) {
        if let Some(b) = &*self.bar.lock() {
            b.set_message(what.to_string());
            b.inc(1);
        }
    }

    fn end(&self) {
        if let Some(b) = self.bar.lock().take() {
            b.finish_and_clear();
        }
    }
}
