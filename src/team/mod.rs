//! The emulated multiprocessor: P ranks, each a thread pinned to one logical CPU,
//! running one SPMD closure.
//!
//! As on the NCUBE and in CoMet, rank 0 is the test node: kernels time on rank 0
//! only, there is no global clock. A team starts its ranks together on a start
//! gate, gives every wait a deadline (a lost peer ends the kernel with an error
//! naming the kernel, the rank and the peer, never a hang), and propagates a panic
//! or error on any rank to all the others through an abort flag that every wait
//! polls.
//!
//! # Placement and virtual processors
//! With at most one rank per CPU the placement is [`Placement::Pinned`] and ranks
//! spin while they wait. A kernel that needs more ranks than CPUs (rings, tori,
//! interference, speedup sweeps) asks for virtual processors: ranks are dealt
//! round-robin over the CPUs (alternate placement, so that ranks `i` and `i + 1`
//! sit on different CPUs whenever there are two), several ranks' threads are pinned
//! to one CPU, and every rank whose CPU hosts another rank waits by blocking
//! (parking), never by spinning: spinning threads sharing a core make results
//! meaningless and can stall for a whole scheduler quantum. Messages between
//! co-hosted ranks and between ranks on different CPUs use the same transports; the
//! sender wakes a blocked receiver. Results made so are labelled
//! [`Placement::Virtual`] (or [`Placement::Oversubscribed`] when the user asked
//! for more processors than CPUs) in the output and the JSON.
//!
//! Kernels whose virtual processors must not wait for thread wake-ups (forwarding
//! chains) host them instead as polled nodes on spinning workers, one per CPU:
//! [`hosted`], labelled [`Placement::Hosted`].
//!
//! With `--features mpi`, `mpi` forms a team of MPI processes instead, one
//! rank a process, and runs the same kernel bodies on it.

pub mod hosted;
#[cfg(feature = "mpi")]
pub mod mpi;

use crate::control::{Placement, RankError, TeamControl, WaitStrategy};
use crate::platform::pin_current_thread;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use std::time::Duration;

/// What a team is asked to be.
#[derive(Debug, Clone)]
pub struct TeamSpec {
    /// The CPUs to use, distinct.
    pub cpus: Vec<usize>,
    /// Number of ranks; more than `cpus.len()` needs `virtual_ok` or `oversubscribe`.
    pub ranks: usize,
    /// The kernel hosts several virtual processors per CPU by design.
    pub virtual_ok: bool,
    /// The user asked for more processors than CPUs.
    pub oversubscribe: bool,
    /// How long any single wait may last before the kernel fails.
    pub wait_timeout: Duration,
}

/// Why a team could not be formed or a kernel failed on it.
#[derive(Debug, thiserror::Error)]
pub enum TeamError {
    /// No CPU was given.
    #[error("no CPUs given: pass at least one with --cpus")]
    NoCpus,
    /// A CPU appears twice.
    #[error("CPU {0} is listed twice: give each CPU once")]
    RepeatedCpu(usize),
    /// Zero ranks.
    #[error("a team needs at least one rank")]
    NoRanks,
    /// More ranks than CPUs without permission.
    #[error(
        "{ranks} processors do not fit on {cpus} CPUs: spinning threads would share a core; pass --oversubscribe to run with blocking waits (results are labelled oversubscribed)"
    )]
    TooManyRanks {
        /// Ranks asked for.
        ranks: usize,
        /// CPUs available.
        cpus: usize,
    },
    /// The endpoints given do not match the team.
    #[error("kernel {kernel}: {got} endpoints for a team of {ranks} ranks")]
    EndpointCount {
        /// The kernel.
        kernel: String,
        /// Endpoints given.
        got: usize,
        /// Ranks in the team.
        ranks: usize,
    },
    /// The run was cancelled from outside (Ctrl-C); every thread stopped.
    #[error("kernel {kernel}: cancelled")]
    Cancelled {
        /// The kernel.
        kernel: String,
    },
    /// A rank failed; the others were stopped.
    #[error("kernel {kernel}, rank {rank}: {error}")]
    Rank {
        /// The kernel.
        kernel: String,
        /// The failing rank.
        rank: usize,
        /// What went wrong.
        error: RankError,
    },
}

/// What each rank's closure is given besides its endpoint.
#[derive(Debug)]
pub struct RankCtx<'a> {
    /// This rank.
    pub rank: usize,
    /// Number of ranks.
    pub size: usize,
    /// The CPU this rank is pinned to.
    pub cpu: usize,
    /// The team's control block (abort flag, deadlines).
    pub control: &'a TeamControl,
}

/// A team of pinned ranks, ready to run kernels.
#[derive(Debug)]
pub struct Team {
    hosts: Vec<usize>,
    placement: Placement,
    control: Arc<TeamControl>,
}

impl Team {
    /// Forms a team: validates the CPUs and deals the ranks onto them.
    pub fn new(spec: &TeamSpec) -> Result<Team, TeamError> {
        check_cpus(&spec.cpus, spec.ranks)?;
        let n = spec.cpus.len();
        let placement = if spec.ranks <= n {
            Placement::Pinned
        } else if spec.virtual_ok {
            Placement::Virtual
        } else if spec.oversubscribe {
            Placement::Oversubscribed
        } else {
            return Err(TeamError::TooManyRanks {
                ranks: spec.ranks,
                cpus: n,
            });
        };
        let hosts: Vec<usize> = (0..spec.ranks).map(|r| spec.cpus[r % n]).collect();
        let waits = hosts
            .iter()
            .map(|cpu| {
                if hosts.iter().filter(|c| *c == cpu).count() > 1 {
                    WaitStrategy::Block
                } else {
                    WaitStrategy::Spin
                }
            })
            .collect();
        Ok(Team {
            hosts,
            placement,
            control: TeamControl::new(waits, spec.wait_timeout),
        })
    }

    /// Number of ranks.
    pub fn size(&self) -> usize {
        self.hosts.len()
    }

    /// The CPU of each rank.
    pub fn hosts(&self) -> &[usize] {
        &self.hosts
    }

    /// How ranks sit on CPUs.
    pub fn placement(&self) -> Placement {
        self.placement
    }

    /// The control block that transports for this team must share.
    pub fn control(&self) -> &Arc<TeamControl> {
        &self.control
    }

    /// Runs `body` on every rank, rank `r` with `endpoints[r]`, and returns the
    /// ranks' results in rank order. On the first failure (error or panic) the
    /// other ranks are stopped at their next wait and the root cause is returned.
    ///
    /// The control block is reset at the start, so a team runs many kernels.
    pub fn run<E, R, F>(
        &self,
        kernel: &str,
        endpoints: Vec<E>,
        body: F,
    ) -> Result<Vec<R>, TeamError>
    where
        E: Send,
        R: Send,
        F: Fn(&RankCtx<'_>, &mut E) -> Result<R, RankError> + Sync,
    {
        if endpoints.len() != self.size() {
            return Err(TeamError::EndpointCount {
                kernel: kernel.into(),
                got: endpoints.len(),
                ranks: self.size(),
            });
        }
        self.control.rearm();
        let arrived = AtomicUsize::new(0);
        let control = &*self.control;
        let body = &body;
        let arrived = &arrived;
        let outcomes: Vec<Result<R, RankError>> = std::thread::scope(|scope| {
            let handles: Vec<_> = endpoints
                .into_iter()
                .enumerate()
                .map(|(rank, mut ep)| {
                    let cpu = self.hosts[rank];
                    let size = self.size();
                    std::thread::Builder::new()
                        .name(format!("halfperf-rank-{rank}"))
                        .spawn_scoped(scope, move || {
                            let outcome = catch_unwind(AssertUnwindSafe(|| {
                                pin_current_thread(cpu)?;
                                start_gate(control, arrived, size)?;
                                let ctx = RankCtx {
                                    rank,
                                    size,
                                    cpu,
                                    control,
                                };
                                body(&ctx, &mut ep)
                            }))
                            .unwrap_or_else(|p| Err(RankError::Panicked(panic_message(&*p))));
                            if outcome.is_err() {
                                control.abort();
                            }
                            outcome
                        })
                        .expect("spawning a rank thread")
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|p| Err(RankError::Panicked(panic_message(&*p))))
                })
                .collect()
        });
        let mut results = Vec::with_capacity(outcomes.len());
        let mut failure: Option<(usize, RankError)> = None;
        for (rank, outcome) in outcomes.into_iter().enumerate() {
            match outcome {
                Ok(r) => results.push(r),
                // The root cause beats the ranks it stopped; ties go to the
                // lowest rank.
                Err(e) => {
                    if failure
                        .as_ref()
                        .is_none_or(|(_, f)| e.cause_rank() > f.cause_rank())
                    {
                        failure = Some((rank, e));
                    }
                }
            }
        }
        match failure {
            None => Ok(results),
            Some((rank, error)) => Err(TeamError::Rank {
                kernel: kernel.into(),
                rank,
                error,
            }),
        }
    }
}

/// Every rank arrives, then all go. Waits yield the CPU (co-hosted ranks must be
/// able to arrive) and obey the abort flag and the deadline.
fn start_gate(control: &TeamControl, arrived: &AtomicUsize, size: usize) -> Result<(), RankError> {
    // AcqRel/Acquire: the gate orders each rank's setup before every other rank's
    // timed work.
    arrived.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
    let mut started = None;
    while arrived.load(std::sync::atomic::Ordering::Acquire) < size {
        control
            .check(usize::MAX, &mut started)
            .map_err(|e| match e {
                RankError::Deadline { waited_ms, .. } => RankError::Failed(format!(
                    "start gate: not every rank arrived within {waited_ms} ms"
                )),
                other => other,
            })?;
        std::thread::yield_now();
    }
    Ok(())
}

/// The checks every team makes of what it is asked to be: some CPUs, each once,
/// and some ranks.
fn check_cpus(cpus: &[usize], ranks: usize) -> Result<(), TeamError> {
    if cpus.is_empty() {
        return Err(TeamError::NoCpus);
    }
    if ranks == 0 {
        return Err(TeamError::NoRanks);
    }
    for (i, c) in cpus.iter().enumerate() {
        if cpus[..i].contains(c) {
            return Err(TeamError::RepeatedCpu(*c));
        }
    }
    Ok(())
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic payload".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    fn spec(cpus: Vec<usize>, ranks: usize) -> TeamSpec {
        TeamSpec {
            cpus,
            ranks,
            virtual_ok: false,
            oversubscribe: false,
            wait_timeout: Duration::from_millis(500),
        }
    }

    #[test]
    fn bad_teams_are_refused_with_the_reason() {
        assert!(matches!(
            Team::new(&spec(vec![], 1)),
            Err(TeamError::NoCpus)
        ));
        assert!(matches!(
            Team::new(&spec(vec![0, 0], 2)),
            Err(TeamError::RepeatedCpu(0))
        ));
        assert!(matches!(
            Team::new(&spec(vec![0], 2)),
            Err(TeamError::TooManyRanks { ranks: 2, cpus: 1 })
        ));
    }

    #[test]
    fn virtual_ranks_alternate_and_block_where_they_share() {
        let team = Team::new(&TeamSpec {
            virtual_ok: true,
            ..spec(vec![0, 1], 5)
        })
        .unwrap();
        assert_eq!(team.hosts(), &[0, 1, 0, 1, 0]);
        assert_eq!(team.placement(), Placement::Virtual);
        assert!((0..5).all(|r| team.control().wait_strategy(r) == WaitStrategy::Block));
        let team = Team::new(&TeamSpec {
            virtual_ok: true,
            ..spec(vec![0, 1], 3)
        })
        .unwrap();
        assert_eq!(team.control().wait_strategy(1), WaitStrategy::Spin);
    }

    #[test]
    fn a_panicking_rank_stops_the_team_and_is_named() {
        let cpu = crate::platform::allowed_cpus()[0];
        // A 5 s deadline: with RUST_BACKTRACE=1 the panic hook alone can take half a
        // second to capture and print the backtrace on a loaded machine.
        let team = Team::new(&TeamSpec {
            virtual_ok: true,
            wait_timeout: Duration::from_secs(5),
            ..spec(vec![cpu], 3)
        })
        .unwrap();
        let started = Instant::now();
        let err = team
            .run(
                "test-kernel",
                vec![(); 3],
                |ctx, _| -> Result<(), RankError> {
                    if ctx.rank == 2 {
                        panic!("injected");
                    }
                    // The others wait, as co-hosted ranks do, without spinning, for
                    // something that never comes.
                    let mut since = None;
                    loop {
                        ctx.control.check(2, &mut since)?;
                        std::thread::sleep(Duration::from_millis(1));
                    }
                },
            )
            .unwrap_err();
        assert!(
            started.elapsed() < Duration::from_secs(4),
            "abort must beat the deadline"
        );
        let text = err.to_string();
        assert!(
            text.contains("test-kernel") && text.contains("rank 2") && text.contains("injected"),
            "{text}"
        );
    }

    #[test]
    fn a_lost_peer_ends_in_a_deadline_error_naming_it() {
        let cpu = crate::platform::allowed_cpus()[0];
        let team = Team::new(&TeamSpec {
            virtual_ok: true,
            ..spec(vec![cpu], 2)
        })
        .unwrap();
        let err = team
            .run("k", vec![(); 2], |ctx, _| {
                if ctx.rank == 0 {
                    ctx.control.spin_until(1, || None::<()>)
                } else {
                    Ok(())
                }
            })
            .unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("rank 0") && text.contains("rank 1") && text.contains("deadline"),
            "{text}"
        );
    }
}
