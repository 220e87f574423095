//! `halfperf model hockney` and `halfperf model speedup`: the papers' own
//! predictions from a result file's card.
//!
//! `model hockney`: a program's time by Hockney's eqs. (4)-(9), read from
//! `--program` and the flags here and predicted by
//! [`halfperf::analysis::hockney_prediction`] from the card's `hockney-vector`
//! `(r_inf, n_1/2)` per level and `hockney-sync` `(r_inf, t_0, s_1/2)` per
//! method, with its 95 % interval, the segments' efficiency and the grain for
//! a target efficiency, per method. `model speedup`: Lamanna's eq. 13 (or
//! eq. 11 with bursts and receivers) from the `speedup` kernel, the optimal N
//! (eq. 15) and the U for an efficiency (eq. 18), beside the kernel's own
//! points at that N. Every prediction lists its inputs (card rows with their
//! intervals and trust) and is marked when one of them is not `ok`.

use anyhow::{Context, Result, bail};
use halfperf::analysis::hockney_prediction::predict_hockney;
use halfperf::model::hockney_program::Program;
use halfperf::results;
use halfperf::text;
use std::path::PathBuf;

#[path = "model_speedup_cli.rs"]
mod speedup_cli;
pub(crate) use speedup_cli::{SpeedupArgs, model_speedup};

/// `halfperf model hockney` (see `--help`).
#[derive(clap::Args)]
pub(crate) struct HockneyArgs {
    /// Result file whose card gives the parameters: `hockney-vector` for the
    /// vector part, `hockney-sync` for the segments.
    #[arg(long, value_name = "FILE")]
    from: PathBuf,
    /// Program file, one statement a line (`#` comments): `vector LEVEL FLOP
    /// COUNT` (COUNT operations of FLOP flop at LEVEL's r_inf, n_1/2, eq. 4),
    /// `scalar FLOP RATE_FLOP_PER_S` (eq. 5), `segment GRAIN_FLOP COUNT`
    /// (COUNT synchronised segments, eqs. 8-9, in order), `processors P`,
    /// `method NAME`, `ep E_P`. Flags below add to it.
    #[arg(long, value_name = "FILE")]
    program: Option<PathBuf>,
    /// Vector operations: LEVEL:FLOPxCOUNT, e.g. `L1:400x10` (LEVEL as the
    /// card's `of`, or VARIANT/LEVEL, e.g. `triad-f64/L1`). Repeatable.
    #[arg(
        long = "vector",
        value_name = "LEVEL:FLOPxCOUNT",
        allow_hyphen_values = true
    )]
    vector: Vec<String>,
    /// Synchronised segments: GRAINxCOUNT, e.g. `8000x5` (five segments of
    /// 8000 flop split between the processors). Repeatable, in order.
    #[arg(
        long = "segment",
        value_name = "GRAINxCOUNT",
        allow_hyphen_values = true
    )]
    segment: Vec<String>,
    /// Scalar work: FLOP@RATE, flop at RATE flop/s (the card has no scalar rate).
    #[arg(long, value_name = "FLOP@RATE", allow_hyphen_values = true)]
    scalar: Option<String>,
    /// Processors P the segments are split between; must be the P that
    /// `hockney-sync` measured on (default: that P).
    #[arg(long, value_name = "P", allow_negative_numbers = true)]
    processors: Option<f64>,
    /// Synchronisation method (a `hockney-sync` method; default: every method
    /// on the card).
    #[arg(long, value_name = "NAME")]
    method: Option<String>,
    /// Kuck's scheduling efficiency E_p of eq. 9 (default: the balance of the
    /// segments split in whole flop, 1 when they split evenly).
    #[arg(long, value_name = "E_P", allow_negative_numbers = true)]
    ep: Option<f64>,
    /// Target efficiency (fraction of r_inf) for the grain column, in (0, E_p).
    #[arg(
        long,
        value_name = "E",
        default_value_t = 0.9,
        allow_negative_numbers = true
    )]
    efficiency: f64,
    /// Print the prediction as JSON on stdout.
    #[arg(long)]
    json: bool,
}

/// Reads the program from `--program` and the flags.
fn program_of(args: &HockneyArgs) -> Result<Program> {
    let mut p = match &args.program {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("--program {}", path.display()))?;
            Program::parse(&text).with_context(|| format!("--program {}", path.display()))?
        }
        None => Program::default(),
    };
    for v in &args.vector {
        let (level, rest) = v.split_once(':').with_context(|| {
            format!("--vector {v:?}: expected LEVEL:FLOPxCOUNT, e.g. L1:400x10")
        })?;
        let (flop, count) = rest.split_once('x').with_context(|| {
            format!("--vector {v:?}: expected LEVEL:FLOPxCOUNT, e.g. L1:400x10")
        })?;
        p.statement(&format!("vector {level} {flop} {count}"), 0)
            .with_context(|| format!("--vector {v:?}"))?;
    }
    for s in &args.segment {
        let (grain, count) = s
            .split_once('x')
            .with_context(|| format!("--segment {s:?}: expected GRAINxCOUNT, e.g. 8000x5"))?;
        p.statement(&format!("segment {grain} {count}"), 0)
            .with_context(|| format!("--segment {s:?}"))?;
    }
    if let Some(s) = &args.scalar {
        let (flop, rate) = s
            .split_once('@')
            .with_context(|| format!("--scalar {s:?}: expected FLOP@RATE, e.g. 1000@5e8"))?;
        p.statement(&format!("scalar {flop} {rate}"), 0)
            .with_context(|| format!("--scalar {s:?}"))?;
    }
    if let Some(n) = args.processors {
        p.statement(&format!("processors {n}"), 0)
            .context("--processors")?;
    }
    if let Some(m) = &args.method {
        p.method = Some(m.clone());
    }
    if let Some(e) = args.ep {
        p.statement(&format!("ep {e}"), 0).context("--ep")?;
    }
    if p.vector.is_empty() && p.segments.is_empty() && p.scalar.is_none() {
        bail!("no program: give --vector, --segment, --scalar or --program FILE");
    }
    Ok(p)
}

/// `halfperf model hockney`.
pub(crate) fn model_hockney(args: &HockneyArgs) -> Result<()> {
    let p = program_of(args)?;
    let file = results::read(&args.from)?;
    let report = predict_hockney(&p, &file, &args.from, args.efficiency)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", text::prediction::hockney(&report));
    }
    Ok(())
}
