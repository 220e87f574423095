//! `halfperf run`'s planning options: `--plan` (print the plan and stop),
//! `--max-minutes` (keep the run within a budget by sampling), `--sys-root`
//! (plan for the machine saved under a root instead of this one), and the
//! preheat before the first kernel, and where the pair kernels home their
//! lines (`--home`).

use anyhow::{Result, bail};
use halfperf::kernels::plan::{self, Shape};
use halfperf::kernels::{KernelSpec, RunConfig};
use halfperf::platform::{self, Home, MachineRoot, Topology};
use halfperf::text;
use std::path::PathBuf;
use std::time::Duration;

/// The planning options of `run`.
#[derive(clap::Args)]
pub(crate) struct PlanArgs {
    /// Print the plan (each kernel's processors, pairs and estimated time, and
    /// what was sampled to fit the budget) and stop without timing anything.
    /// Every run prints its total at its top.
    #[arg(long)]
    pub(crate) plan: bool,
    /// Keep the run within MIN minutes by sampling c2c's pairs (down to one
    /// per distance class and core types) and the CoMet collectives'
    /// processor counts; refused if even that does not fit (default: 1 with
    /// --quick, 20 otherwise, for each repetition of --repeat).
    #[arg(long, value_name = "MIN", allow_negative_numbers = true)]
    pub(crate) max_minutes: Option<f64>,
    /// With --plan: read the machine under DIR (a directory holding `sys/`
    /// and `proc/`, such as the fixtures in tests/data) instead of this one;
    /// its cgroup cpuset, if any, gives the allowed CPUs.
    #[arg(long, value_name = "DIR", requires = "plan")]
    pub(crate) sys_root: Option<PathBuf>,
    /// Keep every CPU in use busy this long before the first kernel, so that
    /// cores leave their idle frequency (0: no preheat); recorded in the
    /// result file.
    #[arg(long, value_name = "MS", default_value_t = 200)]
    pub(crate) preheat_ms: u64,
    /// Where the pair kernels (pingpong, oneway, c2c) home their transport's
    /// lines: `local` (the pair's first CPU), a CPU number, `node:N` (the first
    /// allowed CPU of NUMA node N) or `third` (a CPU that is neither of the
    /// pair, on another node or L3 domain where there is one; c2c then times
    /// every pair twice, with its line local and on the third CPU). The lines
    /// are first touched by a thread pinned there; each point records the
    /// home CPU and the node its page was read back on.
    #[arg(long, value_name = "CPU|node:N|third|local", default_value = "local")]
    pub(crate) home: Home,
}

/// The machine to plan and run on, and the CPUs allowed there.
pub(crate) fn machine(args: &PlanArgs) -> Result<(Topology, Vec<usize>)> {
    if let Some(m) = args.max_minutes
        && !(m > 0.0 && m.is_finite())
    {
        bail!("--max-minutes must be a number of minutes above 0 (got {m})");
    }
    let (topo, allowed) = match &args.sys_root {
        None => (Topology::detect()?, platform::allowed_cpus()),
        Some(dir) => {
            let root = MachineRoot::under(dir);
            let topo = root.topology()?;
            let allowed = match root.cpuset(&topo)? {
                Some(set) => set,
                None => topo.cpus.iter().map(|c| c.id).collect(),
            };
            (topo, allowed)
        }
    };
    args.home.check(&topo, &allowed)?;
    Ok((topo, allowed))
}

/// Plans the run, prints the plan (on stderr when stdout carries JSON), and
/// returns the settings with the plan's sampling and the preheat's length;
/// `None` after `--plan`, which stops there.
pub(crate) fn settle(
    args: &PlanArgs,
    topo: &Topology,
    allowed: &[usize],
    chosen: &[&KernelSpec],
    (mut config, repeat): (RunConfig, u32),
    json: bool,
) -> Result<Option<RunConfig>> {
    config.home = args.home;
    if config.transports.is_empty() {
        return Ok(Some(config)); // over MPI: the processes decide
    }
    let clock = platform::measure_clock();
    let cpus = config.cpus.clone().unwrap_or_else(|| allowed.to_vec());
    // The plan counts the preheat planned; the run records the one it took.
    config.preheat_ms = Some(args.preheat_ms as f64);
    let shape = Shape {
        topology: topo,
        cpus: &cpus,
        config: &config,
        clock: &clock,
        repeat,
    };
    let p = plan::plan(chosen, &shape, args.max_minutes)?;
    if args.plan {
        if json {
            println!("{}", serde_json::to_string_pretty(&p)?);
        } else {
            print!("{}", text::plan::plan_text(&p));
        }
        return Ok(None);
    }
    // At the top of a run, the plan in brief (`--plan` gives every kernel).
    let brief = format!(
        "plan: {} kernels{}, about {:.0} s of a {:.0} s budget{}\n",
        p.kernels.len(),
        if p.repeat > 1 {
            format!(" x {} repetitions", p.repeat)
        } else {
            String::new()
        },
        p.total_s,
        p.budget_s,
        p.sampled
            .iter()
            .map(|s| format!("; sampled {s}"))
            .collect::<String>()
    );
    if json {
        eprint!("{brief}");
    } else {
        print!("{brief}");
    }
    if p.c2c_per_kind != config.c2c_pairs_per_kind && !config.quick {
        config.c2c_pairs_per_kind = p.c2c_per_kind;
    }
    if config.quick && p.c2c_per_kind != Some(plan::C2C_QUICK_PER_KIND) {
        config.c2c_pairs_per_kind = p.c2c_per_kind;
    }
    if p.max_processors < cpus.len() {
        config.max_processors = Some(p.max_processors);
    }
    config.preheat_ms = None;
    if args.preheat_ms > 0 {
        let took = platform::preheat(&cpus, Duration::from_millis(args.preheat_ms));
        config.preheat_ms = Some(took.as_secs_f64() * 1e3);
    }
    Ok(Some(config))
}
