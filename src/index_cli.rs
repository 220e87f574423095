//! `halfperf index`: the gallery's index of result files (one row per machine,
//! see `halfperf::report::gallery`), printed as Markdown or written into a
//! README between its markers.

use anyhow::{Context, Result, bail};
use halfperf::report::gallery;
use halfperf::results;
use std::path::PathBuf;

/// The options of `halfperf index`.
#[derive(clap::Args)]
pub(crate) struct IndexArgs {
    /// Result files written by `halfperf run` (plain or `.json.gz`), one row
    /// each in the order given, e.g. `results/machines/*.json.gz`.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Replace the index between the markers of this Markdown file (the lines
    /// `<!-- halfperf index: begin ... -->` and `<!-- halfperf index: end -->`)
    /// instead of printing it.
    #[arg(long, value_name = "FILE")]
    write: Option<PathBuf>,
}

/// Builds the index and prints it, or writes it into `--write`'s file.
pub(crate) fn index(args: &IndexArgs) -> Result<()> {
    let mut docs = Vec::with_capacity(args.files.len());
    for path in &args.files {
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        docs.push((name, results::read(path)?));
    }
    let named: Vec<(String, &results::ResultFile)> =
        docs.iter().map(|(n, f)| (n.clone(), f)).collect();
    let table = gallery::index_markdown(&named);
    let Some(target) = &args.write else {
        print!("{table}");
        return Ok(());
    };
    let text =
        std::fs::read_to_string(target).with_context(|| format!("--write {}", target.display()))?;
    let Some(new) = gallery::splice_index(&text, &table) else {
        bail!(
            "--write {}: no index markers; add the lines {:?} and {:?} where the index goes",
            target.display(),
            gallery::BEGIN_MARK,
            gallery::END_MARK
        );
    };
    if new != text {
        std::fs::write(target, new).with_context(|| format!("--write {}", target.display()))?;
    }
    eprintln!(
        "wrote the index of {} file(s) into {}",
        named.len(),
        target.display()
    );
    Ok(())
}
