//! The two list formats the machine and its users share: CPU lists (`0-3,8`, as
//! `/sys` writes them and as `--cpus` takes them) and sizes with a binary suffix
//! (`48K`, as `/sys` writes cache sizes and as `--sizes` takes them). One parser
//! each, with errors that say which part is wrong.

use std::num::ParseIntError;

/// What is wrong with a CPU list.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CpuListError {
    /// A part, or an end of a range, is not a whole number.
    #[error("{text:?} is not a CPU number")]
    NotACpu {
        /// The offending text.
        text: String,
        /// Why it does not parse.
        #[source]
        cause: ParseIntError,
    },
    /// A range whose end is below its start.
    #[error("range {range:?} runs backwards")]
    Backwards {
        /// The range as written.
        range: String,
    },
    /// A CPU named twice.
    #[error("CPU {cpu} is listed twice; give each CPU once")]
    Repeated {
        /// The CPU.
        cpu: usize,
    },
}

/// The CPUs of a list such as `0,2-3`, in the order given, each CPU once. Parts
/// are trimmed; an empty part is no CPU number.
pub fn parse_cpu_list(text: &str) -> Result<Vec<usize>, CpuListError> {
    let number = |t: &str| {
        t.parse::<usize>().map_err(|cause| CpuListError::NotACpu {
            text: t.to_owned(),
            cause,
        })
    };
    let mut out = Vec::new();
    for part in text.split(',').map(str::trim) {
        let range = match part.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (number(a)?, number(b)?);
                if b < a {
                    return Err(CpuListError::Backwards { range: part.into() });
                }
                a..=b
            }
            None => {
                let c = number(part)?;
                c..=c
            }
        };
        for cpu in range {
            if out.contains(&cpu) {
                return Err(CpuListError::Repeated { cpu });
            }
            out.push(cpu);
        }
    }
    Ok(out)
}

/// A set of CPUs in the kernel's list format (`0-3,8,10-11`), ascending.
pub fn format_cpu_list(cpus: &[usize]) -> String {
    let mut sorted = cpus.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let mut j = i;
        while j + 1 < sorted.len() && sorted[j + 1] == sorted[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            sorted[i].to_string()
        } else {
            format!("{}-{}", sorted[i], sorted[j])
        });
        i = j + 1;
    }
    parts.join(",")
}

/// What is wrong with a size.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SizeError {
    /// Not a whole number with an optional `K` or `M`.
    #[error("{text:?} is not a size in bytes (e.g. 64, 4K, 1M)")]
    NotASize {
        /// The offending text.
        text: String,
        /// Why its digits do not parse.
        #[source]
        cause: ParseIntError,
    },
    /// More bytes than a `u64` holds.
    #[error("{text} is too large")]
    TooLarge {
        /// The size as written.
        text: String,
    },
}

/// Bytes of a size such as `64`, `48K` or `2M` (`K` = 1024, `M` = 1024 K; either
/// case).
pub fn parse_size(text: &str) -> Result<u64, SizeError> {
    let (digits, mult) = match text.chars().last() {
        Some('K' | 'k') => (&text[..text.len() - 1], 1 << 10),
        Some('M' | 'm') => (&text[..text.len() - 1], 1 << 20),
        _ => (text, 1),
    };
    let n: u64 = digits.parse().map_err(|cause| SizeError::NotASize {
        text: text.to_owned(),
        cause,
    })?;
    n.checked_mul(mult).ok_or_else(|| SizeError::TooLarge {
        text: text.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A list keeps the order given and refuses a CPU named twice, also through
    /// an overlapping range.
    #[test]
    fn a_cpu_list_keeps_its_order_and_names_each_cpu_once() {
        assert_eq!(parse_cpu_list("3, 0-1"), Ok(vec![3, 0, 1]));
        assert_eq!(
            parse_cpu_list("0-2,1"),
            Err(CpuListError::Repeated { cpu: 1 })
        );
        assert!(matches!(
            parse_cpu_list("0,"),
            Err(CpuListError::NotACpu { text, .. }) if text.is_empty()
        ));
    }

    /// The format is the parser's inverse on a sorted set.
    #[test]
    fn a_cpu_list_formats_as_the_kernel_writes_it() {
        assert_eq!(format_cpu_list(&[8, 0, 1, 2, 3, 10, 11]), "0-3,8,10-11");
        assert_eq!(format_cpu_list(&[]), "");
        assert_eq!(
            parse_cpu_list(&format_cpu_list(&[5, 7, 6])),
            Ok(vec![5, 6, 7])
        );
    }

    /// `4k` is 4096 bytes, `1M` 2^20; 2^60 M overflows.
    #[test]
    fn a_size_reads_its_binary_suffix() {
        assert_eq!(parse_size("4k"), Ok(4096));
        assert_eq!(parse_size("1M"), Ok(1 << 20));
        assert_eq!(
            parse_size("1152921504606846976M"),
            Err(SizeError::TooLarge {
                text: "1152921504606846976M".into()
            })
        );
        assert!(matches!(parse_size("1G"), Err(SizeError::NotASize { .. })));
    }
}
