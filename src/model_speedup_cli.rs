//! `halfperf model speedup`: Lamanna's eq. 13 (or eq. 11 with `--bursts`/
//! `--receivers`), the optimal N (eq. 15), the U for an efficiency (eq. 18)
//! and eq. 10's checking term, predicted by
//! [`halfperf::analysis::speedup_prediction`] from the `speedup` kernel's card
//! rows and points; this file checks the flags and prints.

use anyhow::{Result, bail};
use halfperf::analysis::speedup_prediction::{SpeedupQuery, predict_speedup};
use halfperf::results;
use halfperf::text;
use std::path::PathBuf;

/// `halfperf model speedup` (see `--help`).
#[derive(clap::Args)]
pub(crate) struct SpeedupArgs {
    /// Result file with a `speedup` kernel result.
    #[arg(long, value_name = "FILE")]
    from: PathBuf,
    /// Uniprocessor time U of the whole process, ms.
    #[arg(long, value_name = "MS", allow_negative_numbers = true)]
    u_ms: f64,
    /// Nodes N (default: the optimal N of eq. 15, rounded).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    nodes: Option<f64>,
    /// Bursts per node B (with --receivers: eq. 11 instead of eq. 13).
    #[arg(long, value_name = "B", allow_negative_numbers = true)]
    bursts: Option<f64>,
    /// Receivers of each burst's message R (default with --bursts: N - 1).
    #[arg(long, value_name = "R", allow_negative_numbers = true)]
    receivers: Option<f64>,
    /// Target efficiency E = U / (N T) for eq. 18, in (0, 1).
    #[arg(
        long,
        value_name = "E",
        default_value_t = 0.8,
        allow_negative_numbers = true
    )]
    efficiency: f64,
    /// The speedup kernel's transport (`mailbox`, `channel`; default: the first).
    #[arg(long, value_name = "NAME")]
    transport: Option<String>,
    /// Print the prediction as JSON on stdout.
    #[arg(long)]
    json: bool,
}

fn whole(v: f64, flag: &str) -> Result<f64> {
    if !(v >= 1.0 && v.fract() == 0.0 && v < 1e9) {
        bail!("{flag} {v} must be a whole number of at least 1");
    }
    Ok(v)
}

/// The arguments checked: U and E in range, and N, B and R whole numbers
/// where given.
fn checked_args(args: &SpeedupArgs) -> Result<(Option<f64>, Option<f64>, Option<f64>)> {
    if !(args.u_ms > 0.0 && args.u_ms.is_finite()) {
        bail!("--u-ms {} must be a positive number of ms", args.u_ms);
    }
    if !(args.efficiency > 0.0 && args.efficiency < 1.0) {
        bail!(
            "--efficiency {} must lie strictly between 0 and 1",
            args.efficiency
        );
    }
    let nodes = args.nodes.map(|n| whole(n, "--nodes")).transpose()?;
    let bursts = args.bursts.map(|b| whole(b, "--bursts")).transpose()?;
    let receivers = args
        .receivers
        .map(|r| whole(r, "--receivers"))
        .transpose()?;
    Ok((nodes, bursts, receivers))
}

/// `halfperf model speedup`.
pub(crate) fn model_speedup(args: &SpeedupArgs) -> Result<()> {
    let (nodes, bursts, receivers) = checked_args(args)?;
    let file = results::read(&args.from)?;
    let query = SpeedupQuery {
        u_ms: args.u_ms,
        nodes,
        bursts,
        receivers,
        efficiency: args.efficiency,
        transport: args.transport.clone(),
    };
    let report = predict_speedup(&query, &file, &args.from)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", text::prediction::speedup(&report));
    }
    Ok(())
}
