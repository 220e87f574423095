//! `halfperf replay SCHEDULE.goal`: a GOAL schedule run on pinned processors,
//! one rank a CPU, over the thread transports (the library's
//! [`halfperf::workload::replay`]); its table on the terminal and its result
//! file.

use crate::args::{OutArgs, check_out_path, parse_cpus};
use anyhow::{Result, bail};
use halfperf::analysis;
use halfperf::model::goal;
use halfperf::platform::{self, Topology};
use halfperf::results::{self, ResultFile, SCHEMA_VERSION, TOOL_NAME};
use halfperf::suite;
use halfperf::text;
use halfperf::transport::TransportKind;
use halfperf::workload::replay::{ReplayConfig, ReplayOutcome, replay as run_replay};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// The transports a replay runs over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ReplayTransport {
    /// Remote-write / local-read flag polling.
    Mailbox,
    /// crossbeam-channel.
    Channel,
    /// Both thread transports, one after the other.
    All,
    /// MPI processes (needs --features mpi and mpirun).
    Mpi,
}

/// `halfperf replay`: run a GOAL schedule on real cores.
#[derive(Debug, clap::Args)]
pub(crate) struct ReplayArgs {
    /// The GOAL schedule (LogGOPSim / Schedgen text: num_ranks, rank blocks,
    /// send / recv / calc, requires / irequires).
    schedule: PathBuf,
    /// Transport between the ranks.
    #[arg(long, value_name = "NAME", value_enum, default_value_t = ReplayTransport::All)]
    transport: ReplayTransport,
    /// Timed trials, after an untimed warm-up (until the transport's buffers
    /// have all been used once; its first trial checks every payload byte).
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    trials: u32,
    /// CPUs to use, rank r on the r-th (default: the first allowed CPUs, one a rank).
    #[arg(long, value_name = "LIST")]
    cpus: Option<String>,
    /// Allow more ranks than CPUs: ranks that share a CPU yield while they wait,
    /// and the result is labelled oversubscribed.
    #[arg(long)]
    oversubscribe: bool,
    /// Deadline in milliseconds: a rank that makes no progress for this long ends
    /// the replay with an error naming it and the operation it waits at.
    #[arg(long, value_name = "MS", default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..))]
    deadline_ms: u64,
    #[command(flatten)]
    output: OutArgs,
    /// Print the result document on stdout (the table goes to stderr).
    #[arg(long)]
    json: bool,
}

/// Runs `halfperf replay`.
pub(crate) fn replay(args: &ReplayArgs) -> Result<ExitCode> {
    // Every check on the input comes before any measurement.
    let schedule = goal::read(&args.schedule)?;
    goal::check(&schedule)?;
    let transports = match args.transport {
        ReplayTransport::Mailbox => vec![TransportKind::Mailbox],
        ReplayTransport::Channel => vec![TransportKind::Channel],
        ReplayTransport::All => TransportKind::ALL.to_vec(),
        ReplayTransport::Mpi => return over_mpi(args, &schedule),
    };
    let topo = Topology::detect()?;
    let allowed = platform::allowed_cpus();
    let ranks = schedule.num_ranks as usize;
    let cpus = match &args.cpus {
        Some(text) => {
            let cpus = parse_cpus(text)?;
            for c in &cpus {
                if topo.cpu(*c).is_none() || !allowed.contains(c) {
                    bail!(
                        "--cpus: CPU {c} does not exist or is not allowed (allowed: {allowed:?})"
                    );
                }
            }
            cpus
        }
        None => allowed.iter().copied().take(ranks).collect(),
    };
    if ranks > cpus.len() && !args.oversubscribe {
        bail!(
            "{}: {ranks} ranks do not fit on {} CPUs, one rank a CPU; pass --oversubscribe to run them anyway (labelled oversubscribed)",
            schedule.name,
            cpus.len()
        );
    }
    let started = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    let out = args.output.path(args.json, &started);
    if let Some(p) = &out {
        check_out_path(p, args.output.force)?;
    }
    let clock = platform::measure_clock();
    let mut outcomes = Vec::new();
    for t in transports {
        let config = ReplayConfig {
            transport: t,
            cpus: cpus.clone(),
            oversubscribe: args.oversubscribe,
            trials: args.trials as usize,
            deadline: Duration::from_millis(args.deadline_ms),
        };
        let outcome = run_replay(&schedule, &config)?;
        eprint!("{}", text::workload::replay(&outcome));
        outcomes.push(outcome);
    }
    write_result(
        args,
        &outcomes,
        started,
        out.as_deref(),
        (&topo, &allowed, &clock),
    )?;
    Ok(ExitCode::SUCCESS)
}

/// Prints (`--json`) and writes the result document of `outcomes`.
fn write_result(
    args: &ReplayArgs,
    outcomes: &[ReplayOutcome],
    started: String,
    out: Option<&std::path::Path>,
    (topo, allowed, clock): (&Topology, &[usize], &platform::ClockInfo),
) -> Result<()> {
    let mut file = ResultFile {
        schema_version: SCHEMA_VERSION,
        tool: TOOL_NAME.into(),
        started_utc: started,
        machine: suite::machine_info(topo, allowed, clock),
        software: suite::software_info(),
        config: config_json(outcomes),
        kernels: outcomes.iter().map(ReplayOutcome::kernel_result).collect(),
        incomplete: false,
        summary: None,
    };
    file.summary = Some(analysis::card(&file));
    if args.json {
        println!("{}", serde_json::to_string_pretty(&file)?);
    }
    if let Some(p) = out {
        results::write_atomic(&file, p, args.output.force)?;
        eprintln!("wrote {}", p.display());
    }
    Ok(())
}

/// `--transport mpi`: this process is one rank of the schedule under `mpirun`.
#[cfg(not(feature = "mpi"))]
fn over_mpi(_args: &ReplayArgs, _schedule: &goal::Schedule) -> Result<ExitCode> {
    bail!(crate::mpirun::NOT_BUILT)
}

/// `--transport mpi`: this process is one rank of the schedule under `mpirun`;
/// rank 0 prints the table and writes the result.
#[cfg(feature = "mpi")]
fn over_mpi(args: &ReplayArgs, schedule: &goal::Schedule) -> Result<ExitCode> {
    use halfperf::workload::replay_mpi::replay_mpi;
    use mpi::traits::CommunicatorCollectives;
    if args.cpus.is_some() || args.oversubscribe {
        bail!(
            "--cpus and --oversubscribe do not apply over MPI: each process pins itself by its rank on its node; place processes with mpirun"
        );
    }
    let topo = Topology::detect()?;
    let allowed = platform::allowed_cpus();
    let started = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    let out = args.output.path(args.json, &started);
    let deadline = Duration::from_millis(args.deadline_ms);
    let procs = crate::mpirun::join(deadline, topo.cpu_model.clone(), out.as_deref(), |p| {
        check_out_path(p, args.output.force)
    })?;
    if procs.size() != schedule.num_ranks as usize {
        // Every process meets this alike: rank 0 says it, all meet, rank 0 exits 2.
        if procs.rank() == 0 {
            crate::mpirun::say(&format!(
                "halfperf: error: {}: {} ranks need as many MPI processes; this job has {} (mpirun -n {})",
                schedule.name,
                schedule.num_ranks,
                procs.size(),
                schedule.num_ranks
            ));
        }
        procs.world().barrier();
        return Ok(ExitCode::from(if procs.rank() == 0 { 2 } else { 0 }));
    }
    let clock = platform::measure_clock();
    let config = ReplayConfig {
        transport: TransportKind::Mailbox,
        cpus: Vec::new(),
        oversubscribe: false,
        trials: args.trials as usize,
        deadline,
    };
    match replay_mpi(schedule, &config, &procs) {
        Ok(Some(outcome)) => {
            eprint!("{}", text::workload::replay(&outcome));
            write_result(
                args,
                &[outcome],
                started,
                out.as_deref(),
                (&topo, &allowed, &clock),
            )?;
            Ok(ExitCode::SUCCESS)
        }
        Ok(None) => Ok(ExitCode::SUCCESS),
        Err(e) => {
            crate::mpirun::say(&format!("halfperf: error: rank {}: {e}", procs.rank()));
            procs.abort(1)
        }
    }
}

fn config_json(outcomes: &[ReplayOutcome]) -> serde_json::Value {
    let mut doc = outcomes
        .first()
        .map(ReplayOutcome::config_json)
        .unwrap_or_default();
    doc["transports"] = outcomes.iter().map(|o| o.transport_name()).collect();
    if let Some(map) = doc.as_object_mut() {
        map.remove("transport");
    }
    doc
}
