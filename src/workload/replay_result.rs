//! A replay's entry in a result document: one [`KernelResult`] named `replay`
//! (method `goal`), with the schedule's name and hash in its points' companion
//! config, the placement, a point per rank (its finish times) and a point for
//! the whole schedule (rank 0's times), and the median time as the headline
//! with its 95 % interval.

use super::replay::ReplayOutcome;
use crate::model::stats::summarize;
use crate::results::{KernelResult, Param, Point};

/// The kernel name replay results carry.
pub(crate) const KERNEL: &str = "replay";

impl ReplayOutcome {
    /// The result document's entry for this replay.
    pub fn kernel_result(&self) -> KernelResult {
        let mut points = Vec::new();
        let times: Vec<f64> = self.trials.iter().map(|t| t.time_ns as f64).collect();
        if let Ok(stats) = summarize(&times) {
            points.push(
                Point::new()
                    .with("processors", f64::from(self.num_ranks))
                    .with("messages", self.messages_per_trial as f64)
                    .with("trials", times.len() as f64)
                    .with_stats("time_ns", stats),
            );
        }
        for (r, &cpu) in self.hosts.iter().enumerate() {
            let finish: Vec<f64> = self.trials.iter().map(|t| t.finish_ns[r] as f64).collect();
            if let Ok(stats) = summarize(&finish) {
                points.push(
                    Point::new()
                        .with("rank", r as f64)
                        .with("cpu", cpu as f64)
                        .with_stats("finish_ns", stats),
                );
            }
        }
        let mut warnings = vec![format!(
            "schedule {} (hash {}): {} messages ({} payload bytes) a trial, each received once and checked (sequence and length every trial, {} payload bytes byte by byte in the first of {} untimed warm-up trials)",
            self.schedule,
            self.hash,
            self.messages_per_trial,
            self.bytes_per_trial,
            self.payload_bytes_checked,
            self.warmup_trials
        )];
        if self.calc_asked_ns > 0 {
            warnings.push(format!(
                "calc: calibrated work at {:.3} steps/ns took {:.3} times the time asked in the warm-up ({} ns asked)",
                self.calc_steps_per_ns,
                self.calc_took_ns as f64 / self.calc_asked_ns as f64,
                self.calc_asked_ns
            ));
        }
        if self.placement != crate::control::Placement::Pinned {
            warnings.push(format!(
                "{} ranks on {} CPUs ({}): ranks that share a CPU yield while they wait, and their work waits for the CPU",
                self.num_ranks,
                distinct(&self.hosts),
                self.placement
            ));
        }
        KernelResult::new(KERNEL, "goal", self.placement, self.hosts.clone())
            .with_transport(Some(self.transport_name()))
            .with_ranks(self.num_ranks as usize)
            .with_points(points)
            .with_warnings(warnings)
            .with_headline(vec![
                Param::new("time_ns", Some(&self.schedule), self.summary.median_ns)
                    .with_ci(self.summary.ci95_ns, "bootstrap of the median over trials"),
            ])
    }

    /// The transport's name: `mpi` over MPI processes, else the thread transport's.
    pub fn transport_name(&self) -> &'static str {
        if self.over_mpi {
            "mpi"
        } else {
            self.transport.name()
        }
    }

    /// What the result document's `config` records of a replay: the schedule,
    /// its hash, the transport, the placement and the trials.
    pub fn config_json(&self) -> serde_json::Value {
        serde_json::json!({
            "command": "replay",
            "schedule": self.schedule,
            "schedule_hash": self.hash,
            "num_ranks": self.num_ranks,
            "transport": self.transport_name(),
            "placement": self.placement,
            "hosts": self.hosts,
            "trials": self.trials.len(),
        })
    }
}

fn distinct(hosts: &[usize]) -> usize {
    let mut h = hosts.to_vec();
    h.sort_unstable();
    h.dedup();
    h.len()
}
