//! The `halfperf` command line: parses, calls the library, prints.

use anyhow::{Result, bail};
use clap::{Parser, Subcommand};
use halfperf::kernels::{self, Fault, RunConfig, RunContext};
use halfperf::platform::{self, Topology};
use halfperf::transport::TransportKind;
use halfperf::{analysis, report, results};
use halfperf::{suite, text};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

mod args;
mod index_cli;
mod model_hockney_cli;
mod model_papers_cli;
mod model_sci_cli;
mod mpirun;
mod plan_cli;
mod predict_cli;
mod progress;
mod replay_cli;
mod simulate_cli;
use args::{
    OutArgs, check_out_path, floor_pct, parse_cpus, parse_repeat, parse_sizes, resolve_kernels,
};
use progress::Bars;

#[derive(Parser)]
#[command(
    name = "halfperf",
    version,
    about = "Characterise a multicore machine with the methods of classic parallel-computer benchmarking",
    long_about = "halfperf pins threads to CPUs, lets them exchange messages through lock-free channels and \
shared-memory flag polling (remote write, local read), and reduces every measurement to a few model \
parameters that can be compared across primitives and machines: Hockney's r_inf, n_1/2 and s_1/2; \
Krumme & Greenfield's six message costs F, S, R, A, U, E; CoMet's kernels with their latency and \
bandwidth lines; scibench's one-way and ping-pong latencies with an analytic topology model; Lamanna's \
speedup benchmark and discrete-event simulator.\n\nStart with `halfperf run --quick` (`halfperf list` \
names the kernels), then `halfperf report` and `halfperf compare` on the result files."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Show the machine: CPUs, cores, packages, NUMA nodes, caches, distance classes.
    Topo {
        /// Print JSON on stdout instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// List the kernels with the paper each ports.
    List {
        /// Print JSON on stdout instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Run kernels, print their tables, and write a JSON result file.
    Run(RunArgs),
    /// Evaluate an analytic model from numbers on the command line or a result file.
    Model {
        #[command(subcommand)]
        model: ModelCommand,
    },
    /// Lamanna's discrete-event simulator of a parallel process on a message-passing
    /// machine (default model: the thesis's SLAM listing, Appendix B; `--params eq9`
    /// for the text's eq. 9), or `--experiment lamanna` for the Table 5 design and its
    /// eq. 11 fit.
    Simulate(SimulateArgs),
    /// Run a GOAL schedule (LogGOPSim / Schedgen) on pinned processors, one rank a
    /// CPU, over the thread transports: trials timed on rank 0, per-rank finish
    /// times, every message checked, a result file with the schedule's hash.
    Replay(replay_cli::ReplayArgs),
    /// Predict a GOAL schedule's replay time under LogGOPS from a result file's
    /// measured costs, with a 95 % interval and its inputs; `--run` replays it
    /// too and prints measured against predicted, with the error.
    Predict(predict_cli::PredictArgs),
    /// Compare result files: their machine cards side by side.
    ///
    /// One column per file, named by CPU model, host and date; one row per headline
    /// parameter of the cards, with the 95 % interval, then per later file the
    /// change against the first: a ratio for a positive quantity, a difference for
    /// one that can be negative or zero (an intercept, Krumme & Greenfield's
    /// differences). `*` marks a change only where the two 95 % intervals do not
    /// overlap; `~` instead where the kernel's probe of the machine's state (the
    /// CPU pair's two-flag round trip) moved too, its intervals apart, and a
    /// latency or a time per byte moved in the probe's direction by no more
    /// than it (or up to twice more, the floor's phase modes), or where one
    /// run's probes spanned a change of the machine's state that covers the
    /// change: the machine moved, not the parameter. An `r_inf` is judged the
    /// same way against its kernel's rate probe (`P` times a processor's
    /// serial rate). Every interval is first widened to the
    /// run-to-run floor (`--floor`). `--points` gives every fit parameter and
    /// every measured point instead (`*` where two values differ by more than
    /// their uncertainties together, `~` as above). The table fits 120
    /// columns for two files (each further file adds its own columns); a
    /// value's trust is one letter after its interval: n noisy (interval wider
    /// than a fifth of the value), f flagged fit, v virtual processors, b busy
    /// machine; a parameter shown as "not resolved" has no trustworthy value
    /// (`halfperf card` says why).
    Compare {
        /// Result files written by `halfperf run`.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Every fit parameter and measured point, not the cards' parameters.
        #[arg(long)]
        points: bool,
        /// Print JSON on stdout instead of a table.
        #[arg(long, conflicts_with = "csv")]
        json: bool,
        /// Print CSV on stdout instead of a table.
        #[arg(long)]
        csv: bool,
        /// Run-to-run floor, % of the value: intervals are widened to at least
        /// value ± PCT before they are compared (0: the runs' own intervals).
        #[arg(long, value_name = "PCT", default_value_t = 5.0, value_parser = floor_pct, allow_negative_numbers = true)]
        floor: f64,
    },
    /// Print a result file's machine card: identity, headline parameters with 95 %
    /// intervals and trust marks, decisions.
    Card {
        /// A result file written by `halfperf run`.
        file: PathBuf,
        /// Print the card as JSON on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Write an HTML page and a Markdown report with SVG figures from result files.
    Report {
        /// Result files written by `halfperf run`; several overlay per machine.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Directory for index.html, report.md and the SVG files.
        #[arg(long, value_name = "DIR", default_value = "report")]
        out: PathBuf,
    },
    /// Print the JSON Schema of result files.
    Schema,
    /// The gallery's index of result files (CPU, cores, headline numbers, and
    /// whether each file is fit for results/machines/) as Markdown.
    Index(index_cli::IndexArgs),
}

#[derive(Subcommand)]
enum ModelCommand {
    /// The SCI torus latency model (Gonzalez 2000): crossover sizes between dimensions
    /// for average latency and one-to-all multi-unicast, and the latency curves.
    Sci(SciArgs),
    /// Krumme & Greenfield's derived patterns (echo at distance d, forwarding chains,
    /// section 5.2's period and slowdown) from a result file's F S R A U E lines,
    /// beside the decomposition and interference kernels' measurements.
    Kg(model_papers_cli::KgArgs),
    /// CoMet's collectives and matrix kernels predicted from the echo's lines,
    /// beside their measurements, with the error and where the prediction fails.
    Comet(model_papers_cli::CometArgs),
    /// Hockney's program time (eqs. 4-9) from a result file's card, per sync method.
    Hockney(model_hockney_cli::HockneyArgs),
    /// Lamanna's T, optimal N and U for an efficiency (eqs. 13-18) from a result file.
    Speedup(model_hockney_cli::SpeedupArgs),
}

#[derive(clap::Args)]
struct SciArgs {
    /// Propagation latency per hop, l_p (ns).
    #[arg(long, value_name = "NS", allow_negative_numbers = true)]
    lp_ns: Option<f64>,
    /// Forwarding latency through a node of the same ring, l_f (ns).
    #[arg(long, value_name = "NS", allow_negative_numbers = true)]
    lf_ns: Option<f64>,
    /// Switching latency from one ring to another at an agent, l_s (ns).
    #[arg(long, value_name = "NS", allow_negative_numbers = true)]
    ls_ns: Option<f64>,
    /// Overhead o of a 64-byte message at the sender (and again at the receiver), ns.
    #[arg(long, value_name = "NS", allow_negative_numbers = true)]
    overhead_ns: Option<f64>,
    /// Growth of the overhead per byte beyond 64 bytes (ns/byte; default 0).
    #[arg(long, value_name = "NS", allow_negative_numbers = true)]
    overhead_per_byte_ns: Option<f64>,
    /// Take the components from a result file of `halfperf run sci-topology`; flags
    /// given as well override the file's values.
    #[arg(long, value_name = "FILE")]
    from: Option<PathBuf>,
    /// Message size in bytes (at least 1).
    #[arg(long, value_name = "BYTES", default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..))]
    size: u32,
    /// Largest system size (total nodes) of the curves and the crossover search.
    #[arg(long, value_name = "N", default_value_t = 4096, value_parser = clap::value_parser!(u32).range(2..=100_000_000))]
    max_nodes: u32,
    /// Dimension counts to compare.
    #[arg(
        long,
        value_name = "LIST",
        value_delimiter = ',',
        default_value = "1,2,3,4"
    )]
    dims: Vec<u32>,
    /// Print the report as JSON on stdout.
    #[arg(long)]
    json: bool,
}

/// `run --transport`: the transports of the message-passing kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum TransportArg {
    Mailbox,
    Channel,
    All,
    /// MPI point-to-point between the processes of `mpirun` (a build with
    /// `--features mpi`).
    Mpi,
}

/// `simulate --experiment`: an experiment design.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum ExperimentArg {
    Lamanna,
}

/// `simulate --topology`: the interconnection network.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum TopologyArg {
    Hypercube,
    Ring,
    Torus,
}

/// `simulate --burst-dist`: the burst-length distribution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum BurstDistArg {
    Normal,
    Exponential,
}

/// `halfperf simulate --params`: which model of a message's processor time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum SimModel {
    /// The SLAM listing of Appendix B, the thesis's simulation model: MSG_INIT =
    /// 1.667 ms at the sender (line 86), OVERHEAD = 0.6158 ms on the destination's CPU
    /// (line 84), INT_TIME = 0.485 ms (line 83), XMT_TIME = 0.0008968 ms/byte (line 82),
    /// the node held through the sends (lines 275-308), transmit queues ranked by the
    /// hop's dimension (line 31).
    Listing,
    /// The text's eq. 9: one start-up t_l = 1.1232 ms at the sender, nothing at the
    /// destination, t_c = 0.0008968 ms/byte, t_i = 0.485 ms, first-come first-served
    /// channels, start-ups pre-empted by arrivals.
    Eq9,
    /// The listing's costs both charged at the sender (2.283 ms a start-up),
    /// first-come first-served channels.
    AppendixB,
}

/// `--receive-at`: where the receive cost is charged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum ReceiveAtArg {
    /// On the destination's CPU, pre-empting its task, queueing behind other arrivals.
    Destination,
    /// Added to the sender's start-up.
    Sender,
}

/// `--channel-order`: the order of a node's transmit queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum ChannelOrderArg {
    /// Lowest hop dimension first, ties first come first served (listing line 31).
    Dimension,
    /// First come, first served.
    Fifo,
}

/// `--send-hold`: how a task's start-ups share its node with arriving messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum SendHoldArg {
    /// The task holds its node through its start-ups until FREE (lines 275-308);
    /// arrivals wait for the FREE.
    Held,
    /// Arrivals pre-empt a start-up as they pre-empt a burst.
    Preemptible,
    /// Start-ups run beside the node's message work, undelayed by it.
    Beside,
}

// `halfperf simulate`'s options over the model's message costs
// (`halfperf::model::simulator::MessageCosts`), field for field. (A plain
// comment: a doc comment here would become the subcommand's about text.)
#[derive(clap::Args)]
struct MessageCostArgs {
    /// Sender's start-up t_l (MSG_INIT), ms [default: the model's, listing 1.667, eq9
    /// 1.1232]. Given without --receive-ms it is the whole processor time of a
    /// message (receive 0, eq. 9's split). For this machine's measured split give
    /// the `speedup` kernel's eqs. 7-9 fit: --tl-ms tl_send_ms --receive-ms
    /// tl_receive_ms.
    #[arg(long, value_name = "MS", allow_negative_numbers = true)]
    tl_ms: Option<f64>,
    /// Destination's receive cost (OVERHEAD), ms [default: the model's, listing
    /// 0.6158, eq9 0]; measured: the `speedup` kernel's tl_receive_ms.
    #[arg(long, value_name = "MS", allow_negative_numbers = true)]
    receive_ms: Option<f64>,
    /// Where the receive cost is charged [default: the model's].
    #[arg(long, value_name = "WHERE", value_enum)]
    receive_at: Option<ReceiveAtArg>,
    /// Order of each node's transmit queue [default: the model's].
    #[arg(long, value_name = "ORDER", value_enum)]
    channel_order: Option<ChannelOrderArg>,
    /// How start-ups share the node with arriving messages [default: the model's].
    #[arg(long, value_name = "HOLD", value_enum)]
    send_hold: Option<SendHoldArg>,
    /// Transmission time per byte and link t_c, ms/byte [default: 0.0008968].
    #[arg(long, value_name = "MS", allow_negative_numbers = true)]
    tc_ms_per_byte: Option<f64>,
    /// Intermediate-node forwarding time t_i, ms [default: 0.485].
    #[arg(long, value_name = "MS", allow_negative_numbers = true)]
    ti_ms: Option<f64>,
}

impl MessageCostArgs {
    /// `model`'s costs with the options given in their place; `--tl-ms` without
    /// `--receive-ms` is the whole processor time of a message (receive 0).
    fn over(
        &self,
        model: halfperf::model::simulator::MessageCosts,
    ) -> halfperf::model::simulator::MessageCosts {
        use halfperf::model::simulator::{ChannelOrder, MessageCosts, ReceiveAt, SendHold};
        MessageCosts {
            tl_ms: self.tl_ms.unwrap_or(model.tl_ms),
            receive_ms: match (self.receive_ms, self.tl_ms) {
                (Some(ms), _) => ms,
                (None, Some(_)) => 0.0,
                (None, None) => model.receive_ms,
            },
            receive_at: self.receive_at.map_or(model.receive_at, |at| match at {
                ReceiveAtArg::Destination => ReceiveAt::Destination,
                ReceiveAtArg::Sender => ReceiveAt::Sender,
            }),
            channel_order: self.channel_order.map_or(model.channel_order, |o| match o {
                ChannelOrderArg::Dimension => ChannelOrder::Dimension,
                ChannelOrderArg::Fifo => ChannelOrder::Fifo,
            }),
            send_hold: self.send_hold.map_or(model.send_hold, |h| match h {
                SendHoldArg::Held => SendHold::Held,
                SendHoldArg::Preemptible => SendHold::Preemptible,
                SendHoldArg::Beside => SendHold::Beside,
            }),
            tc_ms_per_byte: self.tc_ms_per_byte.unwrap_or(model.tc_ms_per_byte),
            ti_ms: self.ti_ms.unwrap_or(model.ti_ms),
        }
    }
}

#[derive(clap::Args)]
struct SimulateArgs {
    /// A GOAL schedule (LogGOPSim / Schedgen text) to simulate under LogGOPS with
    /// `--loggp`, instead of Lamanna's model; prints every rank's finish time, ns.
    #[arg(value_name = "SCHEDULE.goal", requires = "loggp")]
    schedule: Option<std::path::PathBuf>,
    /// LogGOPS parameters for a GOAL schedule, ns (G and O per byte, S in bytes):
    /// `L=2500,o=1500,g=1000,G=6,O=0,S=65535` (LogGOPSim's defaults fill any left out).
    #[arg(
        long,
        value_name = "L=..,o=..,g=..,G=..,O=..,S=..",
        requires = "schedule"
    )]
    loggp: Option<String>,
    /// With a GOAL schedule: result files whose `hockney-vector` lines time the
    /// `//@ vector` calcs by Hockney's eq. (4), as `predict` does (without, a
    /// vector calc is its plain `calc N`, as LogGOPSim reads it). Repeatable.
    #[arg(long = "from", value_name = "FILE", requires = "schedule")]
    from: Vec<std::path::PathBuf>,
    /// Run an experiment design instead of one configuration (`lamanna`: Tables 4-5).
    #[arg(long, value_name = "NAME", value_enum)]
    experiment: Option<ExperimentArg>,
    /// The model of a message's processor time: `listing` (Appendix B's SLAM model, the
    /// one behind the thesis's Tables 6-7), `eq9` (the text's single start-up t_l), or
    /// `appendix-b` (the listing's costs, all at the sender). The options below
    /// override its parts.
    #[arg(long, value_name = "NAME", value_enum, default_value_t = SimModel::Listing)]
    params: SimModel,
    /// Interconnection network.
    #[arg(long, value_name = "NAME", value_enum, default_value_t = TopologyArg::Hypercube)]
    topology: TopologyArg,
    /// Nodes N (a power of two on the hypercube, a square on the torus).
    #[arg(long, value_name = "N", default_value_t = 8)]
    nodes: u32,
    /// Bursts per task B.
    #[arg(long, value_name = "B", default_value_t = 1)]
    bursts: u32,
    /// Receivers of each burst's message: a count R (drawn at random) or `all` (N - 1).
    #[arg(long, value_name = "R|all", default_value = "all")]
    receivers: String,
    /// Burst-length distribution.
    #[arg(long, value_name = "NAME", value_enum, default_value_t = BurstDistArg::Normal)]
    burst_dist: BurstDistArg,
    /// Standard deviation of a node's total computation, ms.
    #[arg(long, value_name = "MS", default_value_t = halfperf::model::simulator::THESIS_VALIDATION_SIGMA_MS, allow_negative_numbers = true)]
    sigma_ms: f64,
    /// Uniprocessor time U of the whole process, ms [default: 1000]. With
    /// --experiment: the levels, comma-separated [default: 1000,20000].
    #[arg(long, value_name = "MS", allow_negative_numbers = true)]
    uniprocessor_ms: Option<String>,
    /// With --experiment: scale the levels of U by (t_l + receive) / 1.1232 ms, so
    /// that U keeps the thesis's ratio to a message's start-up on a machine with
    /// other costs (give this machine's --tl-ms, --receive-ms, --tc-ms-per-byte and
    /// --ti-ms, e.g. from the `speedup` kernel's fits).
    #[arg(long)]
    scale_u: bool,
    #[command(flatten)]
    costs: MessageCostArgs,
    /// Message length L, bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 1024)]
    message_bytes: u32,
    /// Eq. 10 calibration `C0,C1` (ms): C = C0 + C1 N added when N > 2 (default none).
    #[arg(long, value_name = "C0,C1", allow_negative_numbers = true)]
    calibration: Option<String>,
    /// Runs (seeds) to average; with --experiment, runs per unit.
    #[arg(long, value_name = "K", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    runs: u32,
    /// Base seed; identical seeds give identical runs.
    #[arg(long, value_name = "S", default_value_t = 1)]
    seed: u64,
    /// Print JSON on stdout instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
struct RunArgs {
    /// Kernels to run (see `halfperf list`), or a method name (`scibench`) for all its
    /// kernels; none or `all` runs the default suite (the long `soak` runs only when
    /// named).
    kernels: Vec<String>,
    /// Fewer trials and shorter batches: the whole suite in under a minute.
    #[arg(long)]
    quick: bool,
    /// CPUs to use, e.g. `0,1` or `0-3` (default: pairs of the most distant class
    /// for two-CPU kernels, all allowed CPUs for matrices).
    #[arg(long, value_name = "LIST")]
    cpus: Option<String>,
    /// Transport for message-passing kernels.
    #[arg(long, value_name = "NAME", value_enum, default_value_t = TransportArg::All)]
    transport: TransportArg,
    /// Message sizes in bytes, e.g. `8,64,4K,64K` (default: powers of two, 1 B to 64 KiB).
    #[arg(long, value_name = "LIST")]
    sizes: Option<String>,
    /// Trials per point (default 15, or 5 with --quick); the minimum is fitted.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=10_000))]
    trials: Option<u32>,
    /// Run the chosen kernels K times, interleaved (A, B, A, B, ...); every
    /// repetition is kept in the result file, and the median, range and CV of each
    /// headline parameter over the repetitions are printed, each repetition's
    /// value beside its probe, with a verdict: stable (CV <= 10 %), machine
    /// moved (CV <= the probe's + 5 points), mode changed (a sync method's
    /// hand-overs slept in some repetitions only), moved with the probe (no
    /// repetition differs from the median one as `compare` judges, and one
    /// or more moved with the machine), within its intervals (every
    /// repetition's 95 % interval overlaps the median one's), or unstable.
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = parse_repeat, allow_negative_numbers = true)]
    repeat: u32,
    #[command(flatten)]
    output: OutArgs,
    /// Print the result document on stdout (progress and the card go to stderr).
    #[arg(long)]
    json: bool,
    /// Print each kernel's table of points and fits as it finishes.
    #[arg(long)]
    tables: bool,
    /// List each kernel's warnings under its progress line (by default only counted).
    #[arg(long)]
    warnings: bool,
    /// Allow more processors than CPUs; waits then block instead of spinning and
    /// results are labelled oversubscribed.
    #[arg(long)]
    oversubscribe: bool,
    /// Deadline of any single wait, in milliseconds: a lost peer ends the run.
    #[arg(long, value_name = "MS", default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..))]
    deadline_ms: u64,
    /// Total messages the `soak` kernel sends, over both directions, every size class
    /// and every transport run, split evenly (default 12000000).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    messages: Option<u64>,
    /// Inject a fault (stall:RANK or panic:RANK) to test that the run stops cleanly.
    #[arg(long, value_name = "FAULT", hide = true)]
    inject_fault: Option<String>,
    #[command(flatten)]
    planning: plan_cli::PlanArgs,
}

fn main() -> ExitCode {
    // A closed pipe (`halfperf compare ... | head`) ends the process quietly, as
    // for any Unix filter, instead of panicking in `println!`.
    // SAFETY: called first thing, before any other thread exists; SIG_DFL is a
    // valid disposition for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            let _ = e.print(); // --help, --version
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            let rendered = e.render().to_string();
            let first = rendered.lines().next().unwrap_or("invalid arguments");
            return mpirun::fail(&format!(
                "halfperf: {}",
                first.trim_start_matches("error: ")
            ));
        }
    };
    match run(cli) {
        Ok(code) => code,
        // Under mpirun every process meets the same bad input; rank 0 says it.
        Err(e) => mpirun::fail(&format!("halfperf: error: {}", one_line(&e))),
    }
}

/// An error and its causes on one line, a cause left out when the message
/// before it already says it (our errors name their I/O cause in their own
/// words, and anyhow's chain would repeat it).
fn one_line(e: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in e.chain() {
        let words = cause.to_string();
        if line.contains(&words) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&words);
    }
    line
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Topo { json } => {
            let topo = Topology::detect()?;
            let allowed = platform::allowed_cpus();
            if json {
                let pairs: Vec<_> = topo
                    .pairs_by_class(&allowed)
                    .into_iter()
                    .map(|(class, a, b)| serde_json::json!({"class": class, "cpus": [a, b]}))
                    .collect();
                let doc = serde_json::json!({"topology": topo, "allowed_cpus": allowed, "distance_pairs": pairs});
                println!("{}", serde_json::to_string_pretty(&doc)?);
            } else {
                print!("{}", text::topology(&topo, &allowed));
            }
        }
        Command::List { json } => {
            let all = kernels::registry();
            if json {
                let doc: Vec<_> = all
                    .iter()
                    .map(|k| serde_json::json!({"name": k.name, "method": k.method, "paper": k.paper, "about": k.about, "over_mpi": kernels::runs_over_mpi(k)}))
                    .collect();
                println!("{}", serde_json::to_string_pretty(&doc)?);
            } else {
                print!("{}", text::kernel_list(&all));
            }
        }
        Command::Run(args) => return run_kernels(args),
        Command::Model { model } => match model {
            ModelCommand::Sci(args) => model_sci_cli::model_sci(&args)?,
            ModelCommand::Kg(args) => model_papers_cli::kg(&args)?,
            ModelCommand::Comet(args) => model_papers_cli::comet(&args)?,
            ModelCommand::Hockney(args) => model_hockney_cli::model_hockney(&args)?,
            ModelCommand::Speedup(args) => model_hockney_cli::model_speedup(&args)?,
        },
        Command::Simulate(args) => simulate_cli::simulate(&args)?,
        Command::Replay(args) => return replay_cli::replay(&args),
        Command::Predict(args) => return predict_cli::predict(&args),
        Command::Compare {
            files,
            points,
            json,
            csv,
            floor,
        } => {
            let files = read_all(&files)?;
            if points {
                let cmp = analysis::compare_with_floor(&files, floor / 100.0);
                print_as(&cmp, json, csv, analysis::to_csv, text::comparison)?;
            } else {
                let cmp = analysis::compare_cards_with_floor(&files, floor / 100.0);
                print_as(
                    &cmp,
                    json,
                    csv,
                    analysis::cards_to_csv,
                    text::card_comparison,
                )?;
            }
        }
        Command::Card { file, json } => {
            let card = analysis::card_of(&results::read(&file)?);
            if json {
                println!("{}", serde_json::to_string_pretty(&card)?);
            } else {
                print!("{}", text::card::card(&card));
            }
        }
        Command::Report { files, out } => {
            let built = report::build(&read_all(&files)?);
            let written = report::write(&built, &out)?;
            println!(
                "wrote {} and {} other files in {}",
                out.join("index.html").display(),
                written.len() - 1,
                out.display()
            );
        }
        Command::Index(args) => index_cli::index(&args)?,
        Command::Schema => {
            println!("{}", serde_json::to_string_pretty(&results::json_schema())?);
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Prints `value` as JSON, CSV or text on stdout.
fn print_as<T: serde::Serialize>(
    value: &T,
    json: bool,
    csv: bool,
    to_csv: fn(&T) -> String,
    to_text: fn(&T) -> String,
) -> Result<()> {
    if json {
        println!("{}", serde_json::to_string_pretty(value)?);
    } else if csv {
        print!("{}", to_csv(value));
    } else {
        print!("{}", to_text(value));
    }
    Ok(())
}

fn read_all(files: &[PathBuf]) -> Result<Vec<results::ResultFile>> {
    Ok(files
        .iter()
        .map(|f| results::read(f))
        .collect::<Result<Vec<_>, _>>()?)
}

/// A run as the command line asks for it, every input checked and nothing
/// measured yet.
struct RunPlan {
    topo: Topology,
    allowed: Vec<usize>,
    chosen: Vec<&'static kernels::KernelSpec>,
    over_mpi: bool,
    config: RunConfig,
    out: Option<PathBuf>,
    started: String,
}

/// The planning stage of `run`: every check on the input comes before any
/// measurement. `None` where the plan alone was asked for (and printed).
fn plan_run(args: &RunArgs) -> Result<Option<RunPlan>> {
    let (topo, allowed) = plan_cli::machine(&args.planning)?;
    let chosen = resolve_kernels(&args.kernels)?;
    let over_mpi = args.transport == TransportArg::Mpi;
    #[cfg(not(feature = "mpi"))]
    if over_mpi {
        bail!(mpirun::NOT_BUILT);
    }
    let chosen = match over_mpi {
        true => mpirun::check(
            &args.kernels,
            chosen,
            args.cpus.is_some(),
            args.oversubscribe,
        )?,
        false => chosen,
    };
    let cpus = args.cpus.as_deref().map(parse_cpus).transpose()?;
    if let Some(cpus) = &cpus {
        for c in cpus {
            if topo.cpu(*c).is_none() {
                bail!(
                    "--cpus: CPU {c} does not exist; this machine has CPUs {:?}",
                    topo.cpus.iter().map(|c| c.id).collect::<Vec<_>>()
                );
            }
            if !allowed.contains(c) {
                bail!(
                    "--cpus: CPU {c} is not allowed for this process (allowed: {allowed:?}; see taskset/cpuset)"
                );
            }
        }
    }
    let sizes = args.sizes.as_deref().map(parse_sizes).transpose()?;
    let transports = match args.transport {
        TransportArg::All => TransportKind::ALL.to_vec(),
        TransportArg::Mailbox => vec![TransportKind::Mailbox],
        TransportArg::Channel => vec![TransportKind::Channel],
        TransportArg::Mpi => Vec::new(),
    };
    let fault = args
        .inject_fault
        .as_deref()
        .map(str::parse::<Fault>)
        .transpose()
        .map_err(anyhow::Error::msg)?;
    let started = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    let out = args.output.path(args.json, &started);
    if let Some(p) = out.as_ref().filter(|_| !over_mpi) {
        check_out_path(p, args.output.force)?;
    }

    let config = RunConfig {
        quick: args.quick,
        cpus,
        transports,
        sizes,
        trials: args.trials.map(|t| t as usize),
        wait_timeout: Duration::from_millis(args.deadline_ms),
        oversubscribe: args.oversubscribe,
        fault,
        soak_messages: args.messages,
        ..RunConfig::default()
    };
    let Some(config) = plan_cli::settle(
        &args.planning,
        &topo,
        &allowed,
        &chosen,
        (config, args.repeat),
        args.json,
    )?
    else {
        return Ok(None);
    };
    Ok(Some(RunPlan {
        topo,
        allowed,
        chosen,
        over_mpi,
        config,
        out,
        started,
    }))
}

/// Sets the flag on the first Ctrl-C (the run finishes its point and keeps
/// the kernels that finished); a second exits at once.
fn interrupt_flag() -> Arc<AtomicBool> {
    let cancel = Arc::new(AtomicBool::new(false));
    {
        let cancel = Arc::clone(&cancel);
        // A second Ctrl-C exits at once.
        let _ = ctrlc::set_handler(move || {
            if cancel.swap(true, Ordering::Relaxed) {
                std::process::exit(130);
            }
            eprintln!(
                "\nhalfperf: interrupted; finishing the current point and keeping completed kernels"
            );
        });
    }
    cancel
}

fn run_kernels(args: RunArgs) -> Result<ExitCode> {
    let Some(plan) = plan_run(&args)? else {
        return Ok(ExitCode::SUCCESS);
    };
    let (topo, allowed, config) = (plan.topo, plan.allowed, plan.config);
    let (chosen, over_mpi) = (plan.chosen, plan.over_mpi);
    let (out, started) = (plan.out, plan.started);
    let cancel = interrupt_flag();
    // Over MPI: join the team of processes; rank 0 alone prints and writes.
    #[cfg(feature = "mpi")]
    let processes = match over_mpi {
        true => Some(mpirun::join(
            config.wait_timeout,
            topo.cpu_model.clone(),
            out.as_deref(),
            |p| check_out_path(p, args.output.force),
        )?),
        false => None,
    };
    #[cfg(feature = "mpi")]
    let chosen = match &processes {
        Some(procs) => mpirun::fit_world(&args.kernels, chosen, procs.size()),
        None => chosen,
    };
    #[cfg(feature = "mpi")]
    if let Some(code) = mpirun::refuse_world(&args.kernels, &chosen, processes.as_ref()) {
        return Ok(code);
    }
    #[cfg(feature = "mpi")]
    let leader = processes.as_ref().is_none_or(|p| p.rank() == 0);
    #[cfg(not(feature = "mpi"))]
    let leader = true;
    let clock = platform::measure_clock();
    let bars = Bars::default();
    let ctx = RunContext {
        topology: &topo,
        allowed: &allowed,
        clock: &clock,
        config: &config,
        progress: if leader { &bars } else { &kernels::NoProgress },
        cancel: Arc::clone(&cancel),
        #[cfg(feature = "mpi")]
        processes: processes
            .as_ref()
            .map(halfperf::team::mpi::ProcessesHandle::new),
    };
    let json = args.json;
    let show = |s: String| {
        if !leader {
        } else if json {
            eprint!("{s}");
        } else {
            print!("{s}");
        }
    };
    show(format!(
        "halfperf {} on {} ({} CPUs allowed: {:?}); clock read overhead {:.1} ns, resolution {:.0} ns\n\n",
        env!("CARGO_PKG_VERSION"),
        topo.cpu_model.as_deref().unwrap_or("unknown CPU"),
        allowed.len(),
        allowed,
        clock.read_overhead_ns,
        clock.resolution_ns
    ));
    let config_json = {
        let mut c = suite::config_json(&config, &chosen);
        c["repeat"] = args.repeat.into();
        #[cfg(feature = "mpi")]
        if let Some(procs) = &processes {
            c["transport"] = "mpi".into();
            c["mpi"] = mpirun::describe(procs);
            show(mpirun::banner(procs));
        }
        c
    };
    // Over MPI, rank 0 keeps the file up to date after every kernel, marked
    // incomplete, in case mpirun ends the job before the run does.
    let checkpoint = out.as_ref().filter(|_| over_mpi && leader);
    let mut finished = Vec::new();
    let outcome = suite::run_suite_repeated(
        &chosen,
        args.repeat,
        &ctx,
        started.clone(),
        config_json.clone(),
        |r| {
            if let Some(p) = checkpoint {
                finished.push(r.clone());
                let file = suite::document(&ctx, &started, &config_json, finished.clone(), true);
                if let Err(e) = results::write_atomic(&file, p, true) {
                    show(format!("halfperf: could not update {}: {e}\n", p.display()));
                }
            }
            if args.tables {
                show(text::kernel_result(r, args.warnings));
                show("\n".into());
            } else {
                show(text::progress_line(r));
                if args.warnings {
                    r.warnings
                        .iter()
                        .for_each(|w| show(format!("      warning: {w}\n")));
                }
            }
        },
    );
    #[cfg(feature = "mpi")]
    if let Some(procs) = &processes
        && !leader
    {
        return mpirun::finish_rank(procs, outcome.failure);
    }
    let end = present_run(&args, outcome, out.as_deref(), checkpoint.is_some(), &show);
    #[cfg(feature = "mpi")]
    if let (Some(procs), Err(e)) = (&processes, &end) {
        mpirun::abort(procs, &one_line(e));
    }
    end
}

/// The presenting stage of `run` on the leader: what was skipped, the spread
/// over repetitions, the JSON, the card, the result file, and the exit
/// status. `replace` lets the file replace the checkpoint written during the
/// run.
fn present_run(
    args: &RunArgs,
    outcome: suite::SuiteOutcome,
    out: Option<&std::path::Path>,
    replace: bool,
    show: &impl Fn(String),
) -> Result<ExitCode> {
    show(text::skipped(&outcome.skipped));
    if args.repeat > 1 {
        let spread = analysis::repeat_spread(&outcome.file.kernels);
        show(text::repeat::repeat_spread(&spread, args.repeat));
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&outcome.file)?);
    }
    if let Some(card) = &outcome.file.summary
        && !outcome.file.kernels.is_empty()
    {
        show(format!("\n{}", text::card::card(card)));
    }
    let wrote = match out {
        Some(p) if !outcome.file.kernels.is_empty() => {
            results::write_atomic(&outcome.file, p, args.output.force || replace)?;
            show(text::wrote(p, outcome.file.incomplete));
            true
        }
        _ => false,
    };
    match outcome.failure {
        None if outcome.file.kernels.is_empty() => {
            bail!("no kernel could run here (see the reasons above); nothing was written")
        }
        None => Ok(ExitCode::SUCCESS),
        Some(kernels::KernelError::Interrupted) => {
            if !wrote {
                eprintln!("halfperf: interrupted before any kernel finished; nothing written");
            }
            Ok(ExitCode::from(130))
        }
        Some(e) => Err(anyhow::Error::new(e).context(if wrote {
            "the run stopped; the kernels that finished were written, marked incomplete"
        } else {
            "the run stopped; nothing was written"
        })),
    }
}
