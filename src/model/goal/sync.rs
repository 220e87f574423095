//! halfperf's `//@ sync METHOD` extension: ranks that meet through one of
//! `hockney-sync`'s synchronisation methods, written as the messages a plain
//! GOAL reader replays (a linear gather and release), so the file stays valid
//! GOAL and a plain reader still synchronises the ranks.
//!
//! # The form (one tag a meeting; the lowest rank is the master)
//! ```text
//! rank 0 {
//!   a: recv 0b from 1 tag 90 //@ sync barrier-spin
//!   b: send 0b to 1 tag 90 //@ sync barrier-spin
//!   b requires a
//! }
//! rank 1 {
//!   a: send 0b to 0 tag 90 //@ sync barrier-spin
//!   b: recv 0b from 0 tag 90 //@ sync barrier-spin
//!   b requires a
//! }
//! ```
//! Every op marked with tag `T` belongs to the meeting of `T`. Each worker
//! (every member but the lowest, the master) has exactly a `send 0b` to the
//! master then a `recv 0b` from it; the master a `recv 0b` from and a `send
//! 0b` to every worker. The first half (the worker's send, the master's
//! receives) is where a rank *arrives*; the second (the worker's receive, the
//! master's sends) is where it *leaves*, and each of these requires every
//! arrival op of its rank and nothing else. No op outside the meeting may
//! depend on an arrival op, and no unmarked message may use the tag: so the
//! meeting can be run as one call of the method.
//!
//! `METHOD` is one of [`SYNC_METHODS`], the methods `hockney-sync` times on a
//! team of threads (its `t_0` row): the replay runs that method's own waits on
//! the ranks (awake: a waiter polls the method's test, then waits), `predict`
//! lets every member leave at the last arrival plus the method's `t_0`, and a
//! plain reader (`simulate --loggp`) sees the messages.
//!
//! Anything else (an unknown method, a mark on a `calc`, a meeting of one
//! rank, two methods on a tag, a wrong shape, a dependency across the
//! meeting) is one error naming the file, the line and the construct.
#![forbid(unsafe_code)]

use std::collections::BTreeMap;

use super::{GoalError, Meeting, OpId, OpKind, RankSchedule, SyncOp};

/// The methods a meeting may use: `hockney-sync`'s team methods, by the names
/// of its result rows.
pub const SYNC_METHODS: [&str; 7] = [
    "locks",
    "events-condvar",
    "events-park",
    "spin-hint",
    "spin-nohint",
    "barrier-std",
    "barrier-spin",
];

/// A `//@ sync` mark read from a line: its rank, op, method and line.
#[derive(Debug, Clone)]
pub(super) struct Mark {
    pub(super) rank: u32,
    pub(super) op: OpId,
    pub(super) method: &'static str,
    pub(super) line: u32,
}

/// The form, quoted in errors.
pub(super) const FORM: &str = "//@ sync METHOD";

/// The method of `//@ sync WORDS`, or the error's text.
pub(super) fn method_of(words: &[&str]) -> Result<&'static str, String> {
    match words {
        [m] => SYNC_METHODS
            .iter()
            .copied()
            .find(|k| k == m)
            .ok_or_else(|| {
                format!(
                    "unknown synchronisation method `{m}` in `{FORM}` ({})",
                    SYNC_METHODS.join(", ")
                )
            }),
        [] => Err(format!("`{FORM}` names no method")),
        [_, extra, ..] => Err(format!("unexpected `{extra}` after the method in `{FORM}`")),
    }
}

/// Groups the marks into meetings, checks each meeting's form, and marks its
/// ops; `file` names the file in errors.
pub(super) fn group(
    ranks: &mut [RankSchedule],
    marks: Vec<Mark>,
    file: &str,
) -> Result<Vec<Meeting>, GoalError> {
    let err = |line: u32, what: String| GoalError::Syntax {
        file: file.to_owned(),
        line,
        what,
    };
    let mut by_tag: BTreeMap<u32, Vec<Mark>> = BTreeMap::new();
    for m in marks {
        let (OpKind::Send { tag, .. } | OpKind::Recv { tag, .. }) =
            ranks[m.rank as usize].ops[m.op as usize].kind
        else {
            unreachable!("the reader marks only sends and receives")
        };
        by_tag.entry(tag).or_default().push(m);
    }
    let mut meetings = Vec::with_capacity(by_tag.len());
    for (tag, marks) in &by_tag {
        let first = &marks[0];
        if let Some(m) = marks.iter().find(|m| m.method != first.method) {
            return Err(err(
                m.line,
                format!(
                    "`//@ sync {}` on tag {tag}, whose meeting (line {}) uses `{}`: one method a meeting",
                    m.method, first.line, first.method
                ),
            ));
        }
        let mut members: Vec<u32> = marks.iter().map(|m| m.rank).collect();
        members.sort_unstable();
        members.dedup();
        if members.len() < 2 {
            return Err(err(
                first.line,
                format!(
                    "the `{FORM}` meeting on tag {tag} has ops on rank {} only: a meeting needs two ranks or more",
                    first.rank
                ),
            ));
        }
        let index = meetings.len() as u32;
        let master = members[0];
        for &r in &members {
            let ops: Vec<&Mark> = marks.iter().filter(|m| m.rank == r).collect();
            shape(ranks, &ops, &members, *tag, file)?;
            for m in ops {
                let op = &mut ranks[r as usize].ops[m.op as usize];
                let arrive = match op.kind {
                    OpKind::Send { .. } => r != master,
                    _ => r == master,
                };
                op.sync = Some(SyncOp {
                    meeting: index,
                    arrive,
                });
            }
        }
        meetings.push(Meeting {
            method: first.method.to_owned(),
            tag: *tag,
            members,
            line: first.line,
        });
    }
    dependencies(ranks, &meetings, &by_tag, file)?;
    Ok(meetings)
}

/// Checks one member's ops of the meeting on `tag`: a worker's send to the
/// master then receive from it, the master's receive from and send to every
/// worker, all of 0 bytes.
fn shape(
    ranks: &[RankSchedule],
    marks: &[&Mark],
    members: &[u32],
    tag: u32,
    file: &str,
) -> Result<(), GoalError> {
    let r = marks[0].rank;
    let master = members[0];
    let rank = &ranks[r as usize];
    let kinds: Vec<(u32, OpKind)> = marks
        .iter()
        .map(|m| (m.line, rank.ops[m.op as usize].kind))
        .collect();
    let bad = |line: u32, what: String| GoalError::Syntax {
        file: file.to_owned(),
        line,
        what: format!("rank {r}, the `{FORM}` meeting on tag {tag}: {what}"),
    };
    for &(line, k) in &kinds {
        if let OpKind::Send { bytes, .. } | OpKind::Recv { bytes, .. } = k
            && bytes != 0
        {
            return Err(bad(
                line,
                format!("a meeting's messages carry 0b, not {bytes}b"),
            ));
        }
    }
    if r != master {
        let want = |line| {
            bad(
                line,
                format!(
                    "a worker has exactly `send 0b to {master}` then `recv 0b from {master}` (rank {master} is the master, the lowest member)"
                ),
            )
        };
        match kinds[..] {
            [
                (_, OpKind::Send { peer: a, .. }),
                (_, OpKind::Recv { peer: b, .. }),
            ] if a == master && b == master => Ok(()),
            _ => Err(want(kinds.last().map_or(0, |k| k.0))),
        }
    } else {
        for &w in &members[1..] {
            for (dir, is) in [("recv 0b from", false), ("send 0b to", true)] {
                let n = kinds
                    .iter()
                    .filter(|(_, k)| match k {
                        OpKind::Send { peer, .. } => is && *peer == w,
                        OpKind::Recv { peer, .. } => !is && *peer == w,
                        OpKind::Calc { .. } => false,
                    })
                    .count();
                if n != 1 {
                    return Err(bad(
                        kinds[0].0,
                        format!(
                            "the master has exactly one `{dir} {w}` for each worker, found {n}"
                        ),
                    ));
                }
            }
        }
        if kinds.len() != 2 * (members.len() - 1) {
            return Err(bad(
                kinds[0].0,
                format!(
                    "the master has a receive from and a send to each worker ({} ops), found {}",
                    2 * (members.len() - 1),
                    kinds.len()
                ),
            ));
        }
        Ok(())
    }
}

/// Each leaving op requires every arrival op of its rank and nothing else; no
/// op outside a meeting depends on its arrival ops; no unmarked message uses
/// a meeting's tag.
fn dependencies(
    ranks: &[RankSchedule],
    meetings: &[Meeting],
    by_tag: &BTreeMap<u32, Vec<Mark>>,
    file: &str,
) -> Result<(), GoalError> {
    for (r, rank) in ranks.iter().enumerate() {
        // Each meeting's arrival ops in this rank, ascending.
        let mut arrivals: BTreeMap<u32, Vec<OpId>> = BTreeMap::new();
        for (i, op) in rank.ops.iter().enumerate() {
            if let Some(SyncOp {
                meeting,
                arrive: true,
            }) = op.sync
            {
                arrivals.entry(meeting).or_default().push(i as OpId);
            }
        }
        for op in &rank.ops {
            let what = match (op.sync, op.kind) {
                (None, OpKind::Send { tag, .. } | OpKind::Recv { tag, .. }) => {
                    by_tag.get(&tag).map(|m| {
                        format!(
                            "tag {tag} is the tag of the `{FORM}` meeting at line {}: an unmarked message needs another tag",
                            m[0].line
                        )
                    })
                }
                _ => None,
            };
            let what = what.or_else(|| match op.sync {
                Some(SyncOp {
                    meeting,
                    arrive: false,
                }) => {
                    let want = arrivals.get(&meeting).map_or(&[][..], Vec::as_slice);
                    let mut has: Vec<OpId> = op.requires.to_vec();
                    has.sort_unstable();
                    (has != want || !op.irequires.is_empty()).then(|| {
                        format!(
                            "rank {r} `{}` leaves the `{FORM}` meeting on tag {}: it requires every arrival op of its rank ({}) and nothing else",
                            op.label,
                            meetings[meeting as usize].tag,
                            want.iter()
                                .map(|&i| rank.ops[i as usize].label.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        )
                    })
                }
                _ => op
                    .requires
                    .iter()
                    .chain(&op.irequires)
                    .find_map(|&d| match rank.ops[d as usize].sync {
                        Some(SyncOp {
                            meeting,
                            arrive: true,
                        }) => Some(format!(
                            "rank {r} `{}` depends on `{}`, an arrival at the `{FORM}` meeting on tag {}: only the meeting's leaving ops may",
                            op.label,
                            rank.ops[d as usize].label,
                            meetings[meeting as usize].tag
                        )),
                        _ => None,
                    }),
            });
            if let Some(what) = what {
                return Err(GoalError::Syntax {
                    file: file.to_owned(),
                    line: op.line,
                    what,
                });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "sync_tests.rs"]
mod tests;
