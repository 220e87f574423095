//! `halfperf model kg` and `halfperf model comet`: the papers' derived predictions
//! from a result file, printed beside the measurements of the kernels that run
//! what they predict. The equations are in [`halfperf::model::kg`] and
//! [`halfperf::model::comet`]; the inputs, marks and predictions are
//! [`halfperf::analysis::kg_prediction`]'s and
//! [`halfperf::analysis::comet_prediction`]'s; this file reads and prints.

use anyhow::{Context, Result};
use halfperf::analysis::comet_prediction::{no_cases, predict_comet};
use halfperf::analysis::kg_prediction::predict_kg;
use halfperf::results::{self, ResultFile};
use halfperf::text;
use std::path::{Path, PathBuf};

/// `halfperf model kg`.
#[derive(clap::Args)]
pub(crate) struct KgArgs {
    /// A result file with the `decomposition` kernel (and `interference` to compare
    /// section 5.2's period and slowdown).
    #[arg(long, value_name = "FILE")]
    from: PathBuf,
    /// The transport whose `decomposition` to use (mailbox, channel, ...; default:
    /// the first in the file).
    #[arg(long, value_name = "NAME")]
    transport: Option<String>,
}

/// `halfperf model comet`.
#[derive(clap::Args)]
pub(crate) struct CometArgs {
    /// A result file with `comet-echo` (the lines) and any of the collectives and
    /// matrix kernels to compare with.
    #[arg(long, value_name = "FILE")]
    from: PathBuf,
    /// The transport whose kernels to use (default: the echo's first).
    #[arg(long, value_name = "NAME")]
    transport: Option<String>,
}

fn read(path: &Path) -> Result<ResultFile> {
    results::read(path).with_context(|| format!("--from {}", path.display()))
}

/// `halfperf model kg --from FILE`.
pub(crate) fn kg(args: &KgArgs) -> Result<()> {
    let file = read(&args.from)?;
    let from = args.from.display().to_string();
    let report = predict_kg(&file, &from, args.transport.as_deref())?;
    print!("{}", text::papers::kg(&report, &from));
    Ok(())
}

/// `halfperf model comet --from FILE`.
pub(crate) fn comet(args: &CometArgs) -> Result<()> {
    let file = read(&args.from)?;
    let from = args.from.display().to_string();
    let report = predict_comet(&file, &from, args.transport.as_deref())?;
    print!("{}", text::papers::comet_inputs(&report, &from));
    if report.kernels.is_empty() {
        return Err(no_cases(&from, report.transport.as_deref()).into());
    }
    print!("{}", text::papers::comet_kernels(&report));
    Ok(())
}
