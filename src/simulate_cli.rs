//! `halfperf simulate`: Lamanna's discrete-event simulator from the command
//! line, one configuration averaged over seeds or the Table 4-5 experiment
//! design (the options are [`crate::SimulateArgs`]); or a GOAL schedule under
//! LogGOPS parameters given directly (`SCHEDULE.goal --loggp L=..,o=..`), the
//! engine's other front end, which reproduces LogGOPSim's finish times; with
//! `--from RESULT`, its `//@ vector` calcs timed as `predict` times them.

use crate::{BurstDistArg, SimModel, SimulateArgs, TopologyArg};
use anyhow::{Context, Result, bail};
use halfperf::text;

/// `halfperf simulate`: one configuration averaged over `--runs` seeds, or the
/// Lamanna experiment design.
pub(crate) fn simulate(args: &SimulateArgs) -> Result<()> {
    use halfperf::model::simulator::{self as sim, LamannaParams};
    if let (Some(path), Some(loggp)) = (&args.schedule, &args.loggp) {
        return simulate_goal(path, loggp, &args.from, args.json);
    }
    if args.scale_u && args.experiment.is_none() {
        bail!("--scale-u scales the experiment's levels of U; use it with --experiment lamanna");
    }
    let mut params = match args.params {
        SimModel::Listing => LamannaParams::listing(),
        SimModel::Eq9 => LamannaParams::eq9(),
        SimModel::AppendixB => LamannaParams::appendix_b(),
    };
    params.costs = args.costs.over(params.costs);
    if args.experiment.is_some() {
        return simulate_experiment(args, params);
    }
    let mut config = sim_config(args, &params)?;
    config.validate()?;
    let mut runs = Vec::with_capacity(args.runs as usize);
    for k in 0..u64::from(args.runs) {
        config.seed = args.seed.wrapping_add(k);
        runs.push(sim::simulate(&config)?);
    }
    config.seed = args.seed;
    print_runs(args, &params, &config, &runs)
}

/// `--uniprocessor-ms`: comma-separated positive numbers of ms.
fn levels_u(text: &str) -> Result<Vec<f64>> {
    text.split(',')
        .map(|t| {
            t.trim()
                .parse::<f64>()
                .ok()
                .filter(|u| *u > 0.0 && u.is_finite())
                .with_context(|| format!("--uniprocessor-ms: {t:?} is not a positive number of ms"))
        })
        .collect()
}

/// `--experiment lamanna`: the Table 4-5 design and its eq. 11 fit.
fn simulate_experiment(
    args: &SimulateArgs,
    mut params: halfperf::model::simulator::LamannaParams,
) -> Result<()> {
    if let Some(text) = &args.uniprocessor_ms {
        params.uniprocessor_ms = levels_u(text)?;
    }
    if args.scale_u {
        params.scale_uniprocessor_to_startup()?;
    }
    let report = halfperf::model::simulator::run_lamanna_experiment(&params, args.runs, args.seed)?;
    if args.json {
        let m = &report.eq11.model;
        let doc = serde_json::json!({
            "eq11": {
                "mu_ms": m.mu_ms,
                "b": m.b,
                "c_ms_per_message": m.c_ms_per_message,
                "r2": report.eq11.fit.r_squared,
                "ci95": report.eq11_ci95,
            },
            "model": params.model_name(),
            "runs": report.runs,
            "seed": report.seed,
            "report": report,
        });
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        print!("{}", text::simulator::experiment(&report));
    }
    Ok(())
}

/// One configuration from the options over the model's base (not yet validated).
fn sim_config(
    args: &SimulateArgs,
    params: &halfperf::model::simulator::LamannaParams,
) -> Result<halfperf::model::simulator::SimConfig> {
    use halfperf::model::simulator as sim;
    let topology = match args.topology {
        TopologyArg::Ring => sim::Topology::Ring,
        TopologyArg::Torus => sim::Topology::Torus2D,
        TopologyArg::Hypercube => sim::Topology::Hypercube,
    };
    let receivers = match args.receivers.as_str() {
        "all" => sim::Receivers::All,
        r => sim::Receivers::Count(
            r.parse()
                .with_context(|| format!("--receivers: {r:?} is neither a count nor `all`"))?,
        ),
    };
    let burst_dist = match args.burst_dist {
        BurstDistArg::Exponential => sim::BurstDist::Exponential {
            sigma_ms: args.sigma_ms,
        },
        BurstDistArg::Normal => sim::BurstDist::Normal {
            sigma_ms: args.sigma_ms,
        },
    };
    let calibration = args
        .calibration
        .as_deref()
        .map(|text| -> Result<(f64, f64)> {
            let parse = |t: &str| -> Result<f64> {
                t.trim().parse().with_context(|| {
                    format!("--calibration: {t:?} is not a number; give C0,C1 in ms")
                })
            };
            match text.split_once(',') {
                Some((c0, c1)) => Ok((parse(c0)?, parse(c1)?)),
                None => bail!("--calibration: give two numbers C0,C1 in ms, not {text:?}"),
            }
        })
        .transpose()?;
    Ok(sim::SimConfig {
        topology,
        nodes: args.nodes,
        bursts: args.bursts,
        receivers,
        burst_dist,
        uniprocessor_ms: match &args.uniprocessor_ms {
            None => 1000.0,
            Some(text) => match levels_u(text)?[..] {
                [u] => u,
                _ => bail!("--uniprocessor-ms: one value without --experiment, not {text:?}"),
            },
        },
        message_bytes: args.message_bytes,
        calibration,
        seed: args.seed,
        ..params.base_config()
    })
}

/// The means of the runs of one configuration, as JSON or a table.
fn print_runs(
    args: &SimulateArgs,
    params: &halfperf::model::simulator::LamannaParams,
    config: &halfperf::model::simulator::SimConfig,
    runs: &[halfperf::model::simulator::SimResult],
) -> Result<()> {
    let m = text::simulator::RunMeans::of(runs);
    if args.json {
        let doc = serde_json::json!({
            "model": params.model_name(),
            "config": config,
            "runs": args.runs,
            "seed": args.seed,
            "time_ms": m.time_ms,
            "events": m.events,
            "messages": m.messages,
            "events_per_second": m.events_per_second,
            "run_results": runs,
        });
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        let model = params.model_name();
        print!(
            "{}",
            text::simulator::runs(model, config, args.runs, args.seed, &m)
        );
    }
    Ok(())
}

/// Parses `L=..,o=..,g=..,G=..,O=..,S=..` over LogGOPSim's defaults.
pub(crate) fn parse_loggp(text: &str) -> Result<halfperf::model::simulator::LogGops> {
    let mut p = halfperf::model::simulator::LogGops::LOGGOPSIM_DEFAULTS;
    for item in text.split(',').filter(|t| !t.trim().is_empty()) {
        let Some((name, value)) = item.split_once('=') else {
            bail!("--loggp: {item:?} is not NAME=VALUE (names L o g G O S)");
        };
        let v: f64 = value
            .trim()
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite() && *v >= 0.0)
            .with_context(|| format!("--loggp: {name}={value:?} is not a finite number >= 0"))?;
        match name.trim() {
            "L" => p.l_ns = v,
            "o" => p.o_ns = v,
            "g" => p.g_ns = v,
            "G" => p.big_g_ns_per_byte = v,
            "O" => p.big_o_ns_per_byte = v,
            "S" if v.fract() == 0.0 && v < 1.8e19 => p.s_bytes = v as u64,
            "S" => bail!("--loggp: S={value:?} must be a whole number of bytes"),
            other => bail!("--loggp: unknown parameter {other:?}; the names are L o g G O S"),
        }
    }
    Ok(p)
}

/// `halfperf simulate SCHEDULE.goal --loggp ... [--from RESULT]`: per-rank
/// finish times, ns; with result files, the `//@ vector` calcs timed from
/// their `hockney-vector` lines.
fn simulate_goal(
    path: &std::path::Path,
    loggp: &str,
    from: &[std::path::PathBuf],
    json: bool,
) -> Result<()> {
    use halfperf::model::{goal, simulator};
    use halfperf::workload::predict::Inputs;
    let p = parse_loggp(loggp)?;
    let schedule = goal::read(path)?;
    goal::check(&schedule)?;
    let mut files = Vec::new();
    for f in from {
        files.push((f.display().to_string(), halfperf::results::read(f)?));
    }
    let named: Vec<(&str, &halfperf::results::ResultFile)> =
        files.iter().map(|(n, f)| (n.as_str(), f)).collect();
    let mut vectors = Inputs {
        transport: String::new(),
        rows: Vec::new(),
    };
    if !named.is_empty() {
        halfperf::workload::gather_vectors(&named, &schedule, &mut vectors)?;
    }
    // Timed only where there is a vector calc to time: a copy of a large
    // schedule costs as much as reading it.
    let timed =
        (!vectors.rows.is_empty()).then(|| halfperf::workload::vectors_timed(&schedule, &vectors));
    let r = simulator::simulate_goal(timed.as_ref().unwrap_or(&schedule), &p, None)?;
    if json {
        let doc = serde_json::json!({
            "schedule": schedule.name,
            "schedule_hash": schedule.hash,
            "num_ranks": schedule.num_ranks,
            "loggops": p,
            "vector_calcs": vectors.rows,
            "result": r,
        });
        println!("{}", serde_json::to_string_pretty(&doc)?);
        return Ok(());
    }
    print!("{}", text::simulator::goal(&schedule, &p, &r));
    Ok(())
}
