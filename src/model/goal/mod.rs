//! GOAL schedules (the text format of LogGOPSim and Schedgen): ranks, labelled
//! `send`, `recv` and `calc` operations, and `requires` / `irequires`
//! dependencies between them.
//!
//! A minimal reader of the subset the replay needs, with the public API of the
//! schedule types; the full reader replaces this file.

#![forbid(unsafe_code)]

use serde::Serialize;
use std::collections::HashMap;
use std::path::Path;

/// Largest schedule file read, in bytes.
const MAX_FILE_BYTES: u64 = 64 << 20;

/// A parsed GOAL schedule.
#[derive(Debug, Clone, Serialize)]
pub struct Schedule {
    /// Number of ranks.
    pub num_ranks: u32,
    /// One schedule per rank, index = rank.
    pub ranks: Vec<RankSchedule>,
    /// Hex digest of the file's bytes.
    pub hash: String,
    /// The file name or label it was read from.
    pub name: String,
}

/// One rank's operations, file order (index = [`OpId`]).
#[derive(Debug, Clone, Serialize)]
pub struct RankSchedule {
    /// The operations.
    pub ops: Vec<Op>,
}

/// An operation's index within its rank.
pub type OpId = u32;

/// One operation.
#[derive(Debug, Clone, Serialize)]
pub struct Op {
    /// The label in the file.
    pub label: String,
    /// What it does.
    pub kind: OpKind,
    /// May start only after these completed.
    pub requires: Vec<OpId>,
    /// May start only after these started.
    pub irequires: Vec<OpId>,
    /// 1-based line in the file.
    pub line: u32,
}

/// What an operation does.
#[derive(Debug, Clone, Serialize)]
pub enum OpKind {
    /// `send 8b to 1 tag 0`
    Send {
        /// Payload bytes.
        bytes: u64,
        /// Destination rank.
        peer: u32,
        /// Tag.
        tag: u32,
    },
    /// `recv 8b from 1 tag 0`
    Recv {
        /// Payload bytes.
        bytes: u64,
        /// Source rank.
        peer: u32,
        /// Tag.
        tag: u32,
    },
    /// `calc 100`: local computation, nanoseconds.
    Calc {
        /// Nanoseconds.
        ns: u64,
    },
}

/// Why a schedule could not be read.
#[derive(Debug, thiserror::Error)]
pub enum GoalError {
    /// A syntax or semantic error at a line.
    #[error("{file}:{line}: {what}")]
    At {
        /// The file.
        file: String,
        /// The line.
        line: u32,
        /// What is wrong.
        what: String,
    },
    /// The file could not be read.
    #[error("{file}: {what}")]
    File {
        /// The file.
        file: String,
        /// What is wrong.
        what: String,
    },
}

fn at(file: &str, line: u32, what: impl Into<String>) -> GoalError {
    GoalError::At {
        file: file.into(),
        line,
        what: what.into(),
    }
}

fn number<T: std::str::FromStr>(
    file: &str,
    line: u32,
    t: Option<&str>,
    what: &str,
) -> Result<T, GoalError> {
    t.and_then(|t| t.parse().ok())
        .ok_or_else(|| at(file, line, format!("expected {what}")))
}

fn bytes(file: &str, line: u32, t: Option<&str>) -> Result<u64, GoalError> {
    number(
        file,
        line,
        t.and_then(|t| t.strip_suffix('b')),
        "a size such as 8b",
    )
}

/// Parses a schedule's text.
pub fn parse(text: &str, name: &str) -> Result<Schedule, GoalError> {
    let mut num_ranks: Option<u32> = None;
    let mut ranks: Vec<RankSchedule> = Vec::new();
    let mut current: Option<(usize, HashMap<String, OpId>)> = None;
    let mut last_line = 0;
    for (i, raw) in text.lines().enumerate() {
        let line = i as u32 + 1;
        last_line = line;
        let code = raw.split("//").next().unwrap_or("");
        let code = code.split('#').next().unwrap_or("").trim();
        if code.is_empty() {
            continue;
        }
        let words: Vec<&str> = code.split_whitespace().collect();
        match (&mut current, words.as_slice()) {
            (None, ["num_ranks", n]) => {
                let n: u32 = number(name, line, Some(n), "a number of ranks")?;
                if n == 0 {
                    return Err(at(name, line, "num_ranks must be at least 1"));
                }
                num_ranks = Some(n);
                ranks = vec![RankSchedule { ops: Vec::new() }; n as usize];
            }
            (None, ["rank", r, "{"]) => {
                let n = num_ranks.ok_or_else(|| at(name, line, "rank before num_ranks"))?;
                let r: u32 = number(name, line, Some(r), "a rank")?;
                if r >= n {
                    return Err(at(name, line, format!("rank {r} beyond num_ranks {n}")));
                }
                current = Some((r as usize, HashMap::new()));
            }
            (Some(_), ["}"]) => current = None,
            (Some((r, labels)), [a, dep @ ("requires" | "irequires"), b]) => {
                let id = |l: &str| {
                    labels
                        .get(l)
                        .copied()
                        .ok_or_else(|| at(name, line, format!("unknown label {l:?}")))
                };
                let (a, b) = (id(a)?, id(b)?);
                let op = &mut ranks[*r].ops[a as usize];
                if *dep == "requires" {
                    op.requires.push(b);
                } else {
                    op.irequires.push(b);
                }
            }
            (Some((r, labels)), [label, rest @ ..]) if label.ends_with(':') => {
                let label = label.trim_end_matches(':').to_string();
                let n = num_ranks.unwrap_or(0);
                let peer = |t: Option<&&str>| -> Result<u32, GoalError> {
                    let p: u32 = number(name, line, t.copied(), "a peer rank")?;
                    if p >= n {
                        return Err(at(name, line, format!("peer {p} beyond num_ranks {n}")));
                    }
                    Ok(p)
                };
                let kind = match rest {
                    ["send", b, "to", p, "tag", t] => OpKind::Send {
                        bytes: bytes(name, line, Some(b))?,
                        peer: peer(Some(p))?,
                        tag: number(name, line, Some(t), "a tag")?,
                    },
                    ["recv", b, "from", p, "tag", t] => OpKind::Recv {
                        bytes: bytes(name, line, Some(b))?,
                        peer: peer(Some(p))?,
                        tag: number(name, line, Some(t), "a tag")?,
                    },
                    ["calc", t] => OpKind::Calc {
                        ns: number(name, line, Some(t), "a time")?,
                    },
                    _ => return Err(at(name, line, format!("unknown operation {code:?}"))),
                };
                let id = ranks[*r].ops.len() as OpId;
                if labels.insert(label.clone(), id).is_some() {
                    return Err(at(name, line, format!("label {label:?} defined twice")));
                }
                ranks[*r].ops.push(Op {
                    label,
                    kind,
                    requires: Vec::new(),
                    irequires: Vec::new(),
                    line,
                });
            }
            _ => return Err(at(name, line, format!("unknown construct {code:?}"))),
        }
    }
    if current.is_some() {
        return Err(at(name, last_line, "the file ends inside a rank block"));
    }
    let num_ranks = num_ranks.ok_or_else(|| at(name, last_line.max(1), "no num_ranks line"))?;
    Ok(Schedule {
        num_ranks,
        ranks,
        hash: fnv1a(text.as_bytes()),
        name: name.into(),
    })
}

fn fnv1a(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// Reads and parses a schedule file.
pub fn read(path: &Path) -> Result<Schedule, GoalError> {
    let file = path.display().to_string();
    let err = |what: String| GoalError::File {
        file: file.clone(),
        what,
    };
    let len = std::fs::metadata(path)
        .map_err(|e| err(e.to_string()))?
        .len();
    if len > MAX_FILE_BYTES {
        return Err(err(format!("{len} bytes, larger than {MAX_FILE_BYTES}")));
    }
    let data = std::fs::read(path).map_err(|e| err(e.to_string()))?;
    let text = String::from_utf8(data).map_err(|_| err("not UTF-8 text".into()))?;
    parse(&text, &file)
}

/// Static checks: every recv has a matching send (pair, tag, size, in order) and
/// no rank's dependencies form a cycle.
pub fn check(s: &Schedule) -> Result<(), GoalError> {
    type Key = (u32, u32, u32);
    let mut sends: HashMap<Key, Vec<u64>> = HashMap::new();
    let mut recvs: HashMap<Key, Vec<(u64, &Op)>> = HashMap::new();
    for (r, rank) in s.ranks.iter().enumerate() {
        let r = r as u32;
        for op in &rank.ops {
            match op.kind {
                OpKind::Send { bytes, peer, tag } => {
                    sends.entry((r, peer, tag)).or_default().push(bytes)
                }
                OpKind::Recv { bytes, peer, tag } => {
                    recvs.entry((peer, r, tag)).or_default().push((bytes, op))
                }
                OpKind::Calc { .. } => {}
            }
        }
        cycle_free(s, r as usize)?;
    }
    for (key, list) in &recvs {
        let sent = sends.get(key).map_or(&[][..], |v| &v[..]);
        for (k, (bytes, op)) in list.iter().enumerate() {
            match sent.get(k) {
                Some(b) if b == bytes => {}
                _ => {
                    return Err(at(
                        &s.name,
                        op.line,
                        format!(
                            "rank {}, {}: receive #{} from rank {} tag {} has no matching send of {bytes}b",
                            key.1,
                            op.label,
                            k + 1,
                            key.0,
                            key.2
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

fn cycle_free(s: &Schedule, r: usize) -> Result<(), GoalError> {
    let ops = &s.ranks[r].ops;
    let mut state = vec![0u8; ops.len()];
    for start in 0..ops.len() {
        let mut stack = vec![(start, 0usize)];
        while let Some((v, k)) = stack.pop() {
            if k == 0 {
                if state[v] == 2 {
                    continue;
                }
                state[v] = 1;
            }
            let deps: Vec<OpId> = ops[v]
                .requires
                .iter()
                .chain(&ops[v].irequires)
                .copied()
                .collect();
            if let Some(&d) = deps.get(k) {
                stack.push((v, k + 1));
                match state[d as usize] {
                    1 => {
                        return Err(at(
                            &s.name,
                            ops[v].line,
                            format!("rank {r}, {}: dependency cycle", ops[v].label),
                        ));
                    }
                    0 => stack.push((d as usize, 0)),
                    _ => {}
                }
            } else {
                state[v] = 2;
            }
        }
    }
    Ok(())
}
