//! The command line's own value parsers: `--repeat`, `--cpus`, `--sizes`, each
//! with the one-line errors the CLI promises (the lists themselves are read by
//! the parsers `platform` shares with `/sys`).

use anyhow::{Context, Result, bail};
use halfperf::platform::{SizeError, parse_cpu_list, parse_size};

/// The largest message size a sweep accepts (64 MiB).
const MAX_SIZE_BYTES: usize = 64 << 20;

/// The most repetitions `--repeat` takes: a hundred quick suites are most of an hour.
const MAX_REPEAT: u32 = 100;

/// `--repeat K`: a whole number from 1 to [`MAX_REPEAT`].
pub(crate) fn parse_repeat(text: &str) -> Result<u32, String> {
    match text.trim().parse::<i64>() {
        Ok(k) if (1..=i64::from(MAX_REPEAT)).contains(&k) => Ok(k as u32),
        Ok(k) => Err(format!(
            "{k} repetitions: give a whole number from 1 to {MAX_REPEAT}"
        )),
        Err(_) => Err(format!(
            "not a number of repetitions: give a whole number from 1 to {MAX_REPEAT}"
        )),
    }
}

/// Parses a CPU list (`0,2-3`), in the order given, each CPU once.
pub(crate) fn parse_cpus(text: &str) -> Result<Vec<usize>> {
    parse_cpu_list(text).context("--cpus")
}

/// Parses a size list (`8,64,4K,1M`) and checks every size is 1 B..64 MiB.
pub(crate) fn parse_sizes(text: &str) -> Result<Vec<usize>> {
    text.split(',')
        .map(str::trim)
        .map(|part| {
            let n = match parse_size(part) {
                Ok(n) => usize::try_from(n).ok().filter(|&n| n <= MAX_SIZE_BYTES),
                Err(SizeError::TooLarge { .. }) => None,
                Err(e) => return Err(anyhow::Error::new(e).context("--sizes")),
            };
            let Some(n) = n else {
                bail!("--sizes: {part} is larger than the 64M a sweep accepts");
            };
            if n == 0 {
                bail!("--sizes: a message of 0 bytes measures nothing; the smallest size is 1");
            }
            Ok(n)
        })
        .collect()
}
