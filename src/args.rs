//! The command line's own value parsers: `--repeat`, `--cpus`, `--sizes`, each
//! with the one-line errors the CLI promises.

use anyhow::{Context, Result, bail};

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
    let mut out = Vec::new();
    for part in text.split(',').map(str::trim) {
        let range = match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (usize, usize) = (
                    a.parse()
                        .with_context(|| format!("--cpus: {a:?} is not a CPU number"))?,
                    b.parse()
                        .with_context(|| format!("--cpus: {b:?} is not a CPU number"))?,
                );
                if b < a {
                    bail!("--cpus: range {part:?} runs backwards");
                }
                a..=b
            }
            None => {
                let c: usize = part
                    .parse()
                    .with_context(|| format!("--cpus: {part:?} is not a CPU number"))?;
                c..=c
            }
        };
        for c in range {
            if out.contains(&c) {
                bail!("--cpus: CPU {c} is listed twice; give each CPU once");
            }
            out.push(c);
        }
    }
    Ok(out)
}

/// Parses a size list (`8,64,4K,1M`) and checks every size is 1 B..64 MiB.
pub(crate) fn parse_sizes(text: &str) -> Result<Vec<usize>> {
    text.split(',')
        .map(str::trim)
        .map(|part| {
            let (digits, mult) = match part.chars().last() {
                Some('K' | 'k') => (&part[..part.len() - 1], 1024),
                Some('M' | 'm') => (&part[..part.len() - 1], 1024 * 1024),
                _ => (part, 1),
            };
            let n: usize = digits.parse().with_context(|| {
                format!("--sizes: {part:?} is not a size in bytes (e.g. 64, 4K, 1M)")
            })?;
            let n = n
                .checked_mul(mult)
                .filter(|&n| n <= MAX_SIZE_BYTES)
                .with_context(|| {
                    format!("--sizes: {part} is larger than the 64M a sweep accepts")
                })?;
            if n == 0 {
                bail!("--sizes: a message of 0 bytes measures nothing; the smallest size is 1");
            }
            Ok(n)
        })
        .collect()
}
