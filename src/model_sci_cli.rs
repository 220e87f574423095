//! `halfperf model sci`: Gonzalez's SCI topology model from flags or from the
//! components a result file measured.

use crate::SciArgs;
use anyhow::{Context, Result};
use halfperf::model::sci::{self, SciComponents};
use halfperf::{kernels, results, text};

/// `halfperf model sci`: the components from the flags and/or `--from FILE`, the
/// report, printed.
pub(crate) fn model_sci(args: &SciArgs) -> Result<()> {
    let file = match &args.from {
        Some(path) => Some(
            kernels::scibench::components_from_result(&results::read(path)?)
                .with_context(|| format!("--from {}", path.display()))?,
        ),
        None => None,
    };
    let pick = |flag: Option<f64>, from_file: Option<f64>, name: &str| {
        flag.or(from_file).with_context(|| {
            format!(
                "--{name} is required (or take the components from a result file with --from FILE)"
            )
        })
    };
    let components = SciComponents::new(
        pick(args.lp_ns, file.map(|f| f.propagation_lp_ns), "lp-ns")?,
        pick(args.lf_ns, file.map(|f| f.forwarding_lf_ns), "lf-ns")?,
        pick(args.ls_ns, file.map(|f| f.switching_ls_ns), "ls-ns")?,
        pick(
            args.overhead_ns,
            file.map(|f| f.overhead_o_ns),
            "overhead-ns",
        )?,
        args.overhead_per_byte_ns
            .or(file.map(|f| f.overhead_per_byte_ns))
            .unwrap_or(0.0),
    )?;
    let report = sci::model_report(&components, args.size, args.max_nodes, &args.dims)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", text::sci::projection(&report));
    }
    Ok(())
}
