//! `halfperf predict SCHEDULE.goal --from RESULT.json`: the replay's time of a
//! GOAL schedule simulated under LogGOPS with the costs the result files
//! measured ([`halfperf::workload::predict`]), with its interval and inputs;
//! with `--run`, the replay too, measured against predicted
//! ([`halfperf::workload::validate`]), the message parameters measured again
//! just before and just after the replay so that both describe one machine.

use anyhow::{Context, Result, bail};
use halfperf::kernels::{self, RunConfig, RunContext};
use halfperf::model::goal::{self, Schedule};
use halfperf::platform::{self, ClockInfo, Topology};
use halfperf::results::{self, ResultFile};
use halfperf::suite;
use halfperf::text;
use halfperf::transport::TransportKind;
use halfperf::workload::predict::{
    OVERHEADS, Prediction, gather, predict as simulate, switch_input, with_switch,
};
use halfperf::workload::replay::{ReplayConfig, replay};
use halfperf::workload::validate::{Source, validate};
use halfperf::workload::{gather_syncs, gather_vectors};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// The transports a prediction is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum PredictTransport {
    /// Remote-write / local-read flag polling.
    Mailbox,
    /// crossbeam-channel.
    Channel,
}

/// How the ranks sit on the CPUs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum PredictPlacement {
    /// One rank a CPU when they fit, else shared.
    Auto,
    /// One rank a CPU (refused when the ranks outnumber the CPUs).
    Pinned,
    /// Ranks round robin on the CPUs, waiting by yielding as `replay
    /// --oversubscribe` does: each turn of a CPU to another rank costs a yield
    /// turn, measured on the first CPU before predicting.
    Shared,
}

/// `halfperf predict` (see `--help`).
#[derive(Debug, clap::Args)]
pub(crate) struct PredictArgs {
    /// The GOAL schedule.
    schedule: PathBuf,
    /// Result file with the parameters (overheads' pinned S and R for o and O,
    /// else the decomposition's; pingpong's t_startup and t_per_byte for L and
    /// G, oneway's 8-byte time for
    /// g; ranks sharing a CPU: a yield turn, measured). Repeatable: a later
    /// file's parameter replaces an earlier one's.
    #[arg(long = "from", value_name = "FILE", required = true)]
    from: Vec<PathBuf>,
    /// The transport whose parameters to use (and to replay over with --run).
    #[arg(long, value_name = "NAME", value_enum, default_value_t = PredictTransport::Mailbox)]
    transport: PredictTransport,
    /// Placement of the ranks on the CPUs.
    #[arg(long, value_name = "HOW", value_enum, default_value_t = PredictPlacement::Auto)]
    placement: PredictPlacement,
    /// CPUs the ranks run on (default: the CPUs this process may use).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=4096))]
    cpus: Option<u32>,
    /// Replay the schedule too and print measured against predicted, with the
    /// parameters measured again (pingpong, oneway, overheads) before and
    /// after the replay and the CPU pair probed right around it: the
    /// prediction is made from the parameters measured before, or after where
    /// the state changed and the replay's probes match the state after.
    #[arg(long)]
    run: bool,
    /// With --run: predict from the --from files only, without measuring again.
    #[arg(long, requires = "run")]
    no_remeasure: bool,
    /// With --run: timed trials of the replay.
    #[arg(long, value_name = "N", default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    trials: u32,
    /// Print the prediction (and validation) as JSON on stdout.
    #[arg(long)]
    json: bool,
}

fn transport_of(t: PredictTransport) -> TransportKind {
    match t {
        PredictTransport::Mailbox => TransportKind::Mailbox,
        PredictTransport::Channel => TransportKind::Channel,
    }
}

/// Runs `halfperf predict`.
pub(crate) fn predict(args: &PredictArgs) -> Result<ExitCode> {
    // Every check on the input comes before any measurement.
    let schedule = goal::read(&args.schedule)?;
    goal::check(&schedule)?;
    let mut files = Vec::new();
    for p in &args.from {
        files.push((p.display().to_string(), results::read(p)?));
    }
    let allowed = platform::allowed_cpus();
    let cpus = args.cpus.unwrap_or(allowed.len().max(1) as u32);
    let ranks = schedule.num_ranks;
    let shared = ranks > cpus;
    if shared && args.placement == PredictPlacement::Pinned {
        bail!(
            "--placement pinned: {ranks} ranks do not fit on {cpus} CPUs one a CPU; use --placement shared"
        );
    }
    if args.run && cpus as usize > allowed.len() {
        bail!(
            "--run replays on this machine's {} allowed CPUs; --cpus {cpus} is more",
            allowed.len()
        );
    }
    let t = transport_of(args.transport);
    let named: Vec<(&str, &ResultFile)> = files.iter().map(|(n, f)| (n.as_str(), f)).collect();
    let mut inputs = gather(&named, t)?;
    gather_vectors(&named, &schedule, &mut inputs)?;
    gather_syncs(&named, &schedule, &mut inputs)?;
    if shared {
        with_switch(&mut inputs, measure_switch(&allowed)?);
    }
    let cpus_used = if args.placement == PredictPlacement::Shared {
        cpus.min(ranks)
    } else {
        cpus
    };
    if !args.run {
        let p = simulate(&schedule, &inputs, cpus_used)?;
        match args.json {
            true => println!("{}", serde_json::to_string_pretty(&p)?),
            false => print!("{}", text::workload::prediction(&schedule, &p)),
        }
        return Ok(ExitCode::SUCCESS);
    }
    run_and_compare(args, &schedule, &named, &allowed, cpus_used, shared)
}

/// `--run`: parameters measured, replay, parameters measured again, compared.
fn run_and_compare(
    args: &PredictArgs,
    schedule: &Schedule,
    files: &[(&str, &ResultFile)],
    allowed: &[usize],
    cpus: u32,
    shared: bool,
) -> Result<ExitCode> {
    let t = transport_of(args.transport);
    let hosts: Vec<usize> = allowed.iter().copied().take(cpus as usize).collect();
    let machine = match args.no_remeasure {
        false => Some(Machine::read(allowed)?),
        true => None,
    };
    let remeasure = machine.is_some();
    let measured = || machine.as_ref().map(|m| measure(m, t, &hosts)).transpose();
    let probed = || -> Result<Option<f64>> {
        Ok(machine
            .as_ref()
            .map(|m| pair_probe(m, t, &hosts))
            .transpose()?
            .flatten())
    };
    let before = measured()?;
    let switch_before = shared.then(|| measure_switch(&hosts)).transpose()?;
    let config = ReplayConfig {
        oversubscribe: shared,
        trials: args.trials as usize,
        ..ReplayConfig::new(t, hosts.clone())
    };
    let probe_pre = probed()?;
    let outcome = replay(schedule, &config)?;
    let probe_post = probed()?;
    let after = measured()?;
    let switch_after = (shared && remeasure)
        .then(|| measure_switch(&hosts))
        .transpose()?;
    let with = |extra: &Option<ResultFile>,
                switch: &Option<halfperf::workload::predict::Input>,
                name: &'static str|
     -> Result<Prediction> {
        let mut all = files.to_vec();
        if let Some(f) = extra {
            all.push((name, f));
        }
        let mut inputs = gather(&all, t)?;
        gather_vectors(&all, schedule, &mut inputs)?;
        gather_syncs(&all, schedule, &mut inputs)?;
        if let Some(s) = switch {
            with_switch(&mut inputs, s.clone());
        }
        Ok(simulate(schedule, &inputs, cpus)?)
    };
    let p_before = with(&before, &switch_before, "measured before the replay")?;
    let p_after = match &after {
        Some(_) => Some(with(&after, &switch_after, "measured after the replay")?),
        None => None,
    };
    let probe = |f: &Option<ResultFile>| {
        let f = f.as_ref()?;
        let k = f
            .kernels
            .iter()
            .find(|k| k.kernel == "pingpong" && k.transport.as_deref() == Some(t.name()))?;
        k.headline
            .iter()
            .find(|p| p.name == results::PROBE_PARAM)
            .map(|p| p.value)
    };
    let probes = probe(&before).zip(probe(&after)).map(|(b, a)| [b, a]);
    let replay_probes = probe_pre.zip(probe_post).map(|(b, a)| [b, a]);
    let v = validate(&outcome, &p_before, p_after.as_ref(), probes, replay_probes);
    let head = match (v.predicted_from, &p_after) {
        (Source::After, Some(a)) => a,
        _ => &p_before,
    };
    if args.json {
        let doc = serde_json::json!({
            "schedule": schedule.name, "hash": schedule.hash, "transport": t.name(),
            "placement": outcome.placement, "hosts": outcome.hosts,
            "validation": v, "prediction": head, "prediction_before": p_before,
            "prediction_after": p_after, "replay": outcome.summary,
        });
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        print!("{}", text::workload::prediction(schedule, head));
        print!("{}", text::workload::validation(&outcome, &v, remeasure));
    }
    Ok(ExitCode::SUCCESS)
}

/// The switch of ranks sharing a CPU: 7 batches of 2000 yield turns on the
/// first of `hosts` (about 30 ms).
fn measure_switch(hosts: &[usize]) -> Result<halfperf::workload::predict::Input> {
    let cpu = *hosts.first().context("no CPU to measure a yield turn on")?;
    let turns = platform::yield_turns(cpu, 7, 2000, Duration::from_secs(5))
        .map_err(|e| anyhow::anyhow!("measuring a yield turn: {e}"))?;
    switch_input(&turns, cpu).context("no yield turn measured")
}

/// The machine as the quick runs around the replay see it, read once: its
/// topology, the CPUs this process may use, and its clock (whose
/// calibration takes some 300,000 reads).
struct Machine {
    topo: Topology,
    allowed: Vec<usize>,
    clock: ClockInfo,
}

impl Machine {
    fn read(allowed: &[usize]) -> Result<Self> {
        Ok(Machine {
            topo: Topology::detect()?,
            allowed: allowed.to_vec(),
            clock: platform::measure_clock(),
        })
    }

    /// Runs `work` in a quick run's context on the first two of `hosts`,
    /// over `t`.
    fn quick<T>(
        &self,
        t: TransportKind,
        hosts: &[usize],
        work: impl FnOnce(&RunContext<'_>, &RunConfig) -> Result<T>,
    ) -> Result<T> {
        let config = RunConfig {
            quick: true,
            cpus: Some(hosts.iter().copied().take(2).collect()),
            transports: vec![t],
            wait_timeout: Duration::from_secs(10),
            ..RunConfig::default()
        };
        let ctx = RunContext::quiet(&self.topo, &self.allowed, &self.clock, &config);
        work(&ctx, &config)
    }
}

/// The CPU pair's two-flag round trip on the first two of `hosts`, the
/// probe the message parameters carry: the median of a quick run's trials,
/// ns (none on one CPU).
fn pair_probe(m: &Machine, t: TransportKind, hosts: &[usize]) -> Result<Option<f64>> {
    m.quick(t, hosts, |ctx, _| {
        let mut ns = kernels::harness::probe::pair_round_trips_ns(ctx, &ctx.cpus())
            .map_err(|e| anyhow::anyhow!("probing the CPU pair around the replay: {e}"))?;
        ns.sort_by(f64::total_cmp);
        Ok((!ns.is_empty()).then(|| ns[ns.len() / 2]))
    })
}

/// Quick `pingpong`, `oneway` and `overheads` over `t` on the first two of
/// `hosts` (the message parameters, with the probe of the pair's round trip).
fn measure(m: &Machine, t: TransportKind, hosts: &[usize]) -> Result<ResultFile> {
    m.quick(t, hosts, |ctx, config| {
        let specs: Vec<_> = ["pingpong", "oneway", OVERHEADS]
            .iter()
            .map(|k| kernels::find(k).context("kernel missing from the registry"))
            .collect::<Result<_>>()?;
        let started = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
        let out = suite::run_suite(
            &specs,
            ctx,
            started,
            suite::config_json(config, &specs),
            |_| {},
        );
        if let Some(e) = out.failure {
            bail!("measuring the message parameters around the replay: {e}");
        }
        Ok(out.file)
    })
}
