//! The load check: how much CPU time other processes used while a kernel ran.
//!
//! These machines are shared, and a busy neighbour doubles every latency. Before and
//! after each kernel halfperf reads `/proc/stat` (busy time of all CPUs) and this
//! process's own CPU time (`getrusage`); the difference is time used by others. It
//! is expressed in CPUs' worth (1.0 = one CPU fully busy with other work).

use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// Above this many CPUs' worth of other work (plus the window's counting error,
/// see [`counting_error_cpus`]), a kernel's result gets a warning.
pub const BUSY_THRESHOLD_CPUS: f64 = 0.10;

/// The largest error of a reading over a window of `seconds`: `/proc/stat`
/// counts in clock ticks, so each CPU's count can be off by a tick at each end of
/// the window. On 2 CPUs with 10 ms ticks that is 0.4 CPUs over 0.1 s, which alone
/// would look like a busy neighbour in a short kernel.
pub fn counting_error_cpus(seconds: f64) -> f64 {
    // SAFETY: sysconf has no preconditions.
    let (ticks, cpus) = unsafe {
        (
            libc::sysconf(libc::_SC_CLK_TCK),
            libc::sysconf(libc::_SC_NPROCESSORS_ONLN),
        )
    };
    2.0 * cpus.max(1) as f64 / ticks.max(1) as f64 / seconds.max(1e-3)
}

/// A point-in-time reading of machine and process CPU time.
#[derive(Debug, Clone, Copy)]
pub struct LoadSnapshot {
    at: Instant,
    machine_busy_s: f64,
    own_s: f64,
}

impl LoadSnapshot {
    /// Reads `/proc/stat` and this process's CPU time now; `None` where
    /// `/proc/stat` is unreadable.
    pub fn now() -> Option<LoadSnapshot> {
        let stat = std::fs::read_to_string("/proc/stat").ok()?;
        let line = stat.lines().find(|l| l.starts_with("cpu "))?;
        let fields: Vec<f64> = line
            .split_whitespace()
            .skip(1)
            .filter_map(|f| f.parse().ok())
            .collect();
        // user nice system idle iowait irq softirq steal ...: busy = all but idle and iowait.
        let total: f64 = fields.iter().take(8).sum();
        let idle = fields.get(3).copied().unwrap_or(0.0) + fields.get(4).copied().unwrap_or(0.0);
        // SAFETY: sysconf has no preconditions.
        let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
        Some(LoadSnapshot {
            at: Instant::now(),
            machine_busy_s: (total - idle) / ticks.max(1.0),
            own_s: own_cpu_seconds(),
        })
    }
}

/// Processes whose CPU time the load check counts as this process's own: the
/// other ranks of an MPI job on this node, which poll while they wait and are
/// part of the measurement, not a neighbour's load.
static OWN_PEERS: std::sync::Mutex<Vec<u32>> = std::sync::Mutex::new(Vec::new());

/// Counts the CPU time of processes `pids` as this process's own from now on.
pub fn count_as_own(pids: &[u32]) {
    let mut peers = OWN_PEERS.lock().unwrap_or_else(|e| e.into_inner());
    peers.clear();
    peers.extend_from_slice(pids);
}

fn own_cpu_seconds() -> f64 {
    // SAFETY: rusage is plain data; all-zero is valid and getrusage fills it.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: RUSAGE_SELF with a valid pointer to `usage`.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    let peers = OWN_PEERS.lock().unwrap_or_else(|e| e.into_inner());
    tv(usage.ru_utime)
        + tv(usage.ru_stime)
        + peers.iter().map(|&p| process_cpu_seconds(p)).sum::<f64>()
}

/// User and system CPU time of process `pid` from `/proc/PID/stat` (fields 14
/// and 15, in clock ticks, counted after the parenthesised command name); 0
/// where unreadable.
fn process_cpu_seconds(pid: u32) -> f64 {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return 0.0;
    };
    let Some((_, rest)) = stat.rsplit_once(')') else {
        return 0.0;
    };
    // After ')': state is field 3, so utime (14) and stime (15) are the 12th
    // and 13th.
    let ticks: f64 = rest
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|f| f.parse::<f64>().ok())
        .sum();
    // SAFETY: sysconf has no preconditions.
    ticks / (unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64).max(1.0)
}

/// What others used between two snapshots, in CPUs' worth (never negative; the
/// kernel counts in clock ticks, so short windows are coarse).
pub fn busy_others_cpus(before: &LoadSnapshot, after: &LoadSnapshot) -> f64 {
    let wall = after.at.duration_since(before.at).as_secs_f64();
    if wall <= 0.0 {
        return 0.0;
    }
    let machine = after.machine_busy_s - before.machine_busy_s;
    let own = after.own_s - before.own_s;
    ((machine - own) / wall).max(0.0)
}

/// A window of the load check around one kernel: a short idle sample before
/// it (its own, or a recent one it shares with the kernels before it), and
/// the whole time it ran.
#[derive(Debug, Clone, Copy)]
pub struct LoadWindow {
    idle: IdleSample,
    start: Option<LoadSnapshot>,
}

/// An idle sample: others' work while this process slept, and when it ended.
#[derive(Debug, Clone, Copy)]
pub struct IdleSample {
    cpus: Option<f64>,
    seconds: f64,
    ended: Instant,
}

impl IdleSample {
    /// Samples the machine for `length` while this process sleeps.
    pub fn take(length: Duration) -> IdleSample {
        let a = LoadSnapshot::now();
        std::thread::sleep(length);
        let b = LoadSnapshot::now();
        IdleSample {
            cpus: a.zip(b).map(|(a, b)| busy_others_cpus(&a, &b)),
            seconds: length.as_secs_f64(),
            ended: Instant::now(),
        }
    }

    /// How long ago the sample ended.
    pub fn age(&self) -> Duration {
        self.ended.elapsed()
    }
}

impl LoadWindow {
    /// Samples the machine for `idle_sample` (while this process sleeps), then
    /// starts the window that [`LoadWindow::finish`] closes.
    pub fn begin(idle_sample: Duration) -> LoadWindow {
        LoadWindow::begin_after(IdleSample::take(idle_sample))
    }

    /// Starts the window now, with `idle` as the sample before it.
    pub fn begin_after(idle: IdleSample) -> LoadWindow {
        LoadWindow {
            idle,
            start: LoadSnapshot::now(),
        }
    }

    /// Closes the window.
    pub fn finish(self) -> LoadReport {
        let during = self.start.zip(LoadSnapshot::now()).map(|(a, b)| {
            (
                busy_others_cpus(&a, &b),
                b.at.duration_since(a.at).as_secs_f64(),
            )
        });
        let over =
            |cpus: f64, seconds: f64| cpus > BUSY_THRESHOLD_CPUS + counting_error_cpus(seconds);
        let busy = self.idle.cpus.is_some_and(|c| over(c, self.idle.seconds))
            || during.is_some_and(|(c, s)| over(c, s));
        let during = during.map(|(c, _)| c);
        LoadReport {
            others_before_cpus: self.idle.cpus,
            others_during_cpus: during,
            busy,
        }
    }
}

/// The load check recorded with every kernel result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LoadReport {
    /// CPUs' worth of other processes' work in a short idle sample before the
    /// kernel: its own, or in a suite the one a kernel before it took, at most
    /// 10 s earlier and with no other work seen since.
    pub others_before_cpus: Option<f64>,
    /// CPUs' worth of other processes' work while the kernel ran.
    pub others_during_cpus: Option<f64>,
    /// Whether either exceeded [`BUSY_THRESHOLD_CPUS`] by more than its window's
    /// counting error.
    pub busy: bool,
}

impl LoadReport {
    /// The warning to attach to a result made on a busy machine.
    pub fn warning(&self) -> Option<String> {
        self.busy.then(|| {
            format!(
                "machine busy: other processes used {:.2} CPUs before and {:.2} CPUs during this kernel; latencies may be inflated",
                self.others_before_cpus.unwrap_or(0.0),
                self.others_during_cpus.unwrap_or(0.0)
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_cpu_time_reads_from_proc() {
        let own = process_cpu_seconds(std::process::id());
        assert!(own >= 0.0 && own.is_finite());
        assert_eq!(process_cpu_seconds(u32::MAX), 0.0);
    }

    #[test]
    fn a_spinning_neighbour_process_shows_as_busy() {
        let window = LoadWindow::begin(Duration::from_millis(20));
        // Another process burns a CPU for one second while this one waits: well
        // above the counting error of a one-second window.
        let mut child = std::process::Command::new("sh")
            .args(["-c", "timeout 1 sh -c 'while :; do :; done'; true"])
            .spawn()
            .unwrap();
        child.wait().unwrap();
        let report = window.finish();
        let during = report.others_during_cpus.unwrap();
        assert!(
            during > 0.3,
            "a busy child should count as others' load: {report:?}"
        );
        assert!(report.busy && report.warning().is_some());
    }
}
