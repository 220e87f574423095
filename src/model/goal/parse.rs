//! The GOAL text reader (grammar in the parent module): comments stripped line by
//! line, each line split into tokens, statements parsed from the tokens.
#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::sync::{self, Mark};
use super::{
    Deps, GoalError, Label, MAX_RANKS, Op, OpId, OpKind, RankSchedule, Schedule, VECTOR_LEVELS,
    VECTOR_OPERATIONS, VectorCalc, digest,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok<'a> {
    Word(&'a str),
    /// Digits, kept as text so that an overflow can quote them.
    Int(&'a str),
    /// `-` and digits (LogGOPSim's any-source / any-tag `-1`).
    Neg(&'a str),
    Colon,
    Open,
    Close,
    Other(char),
}

impl std::fmt::Display for Tok<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Tok::Word(s) | Tok::Int(s) | Tok::Neg(s) => write!(f, "`{s}`"),
            Tok::Colon => f.write_str("`:`"),
            Tok::Open => f.write_str("`{`"),
            Tok::Close => f.write_str("`}`"),
            Tok::Other(c) => write!(f, "`{}`", c.escape_default()),
        }
    }
}

/// Appends the tokens of `code` (a comment-free stretch of a line) to `out`.
fn tokens<'a>(code: &'a str, out: &mut Vec<Tok<'a>>) {
    scan(code, 0, false, out);
}

/// Appends the tokens of `text` from byte `at` to `out`, up to the end or,
/// with `line`, up to the line's `\n` or its first `/` (a comment, read by
/// [`line_tokens`]); returns where it stopped.
fn scan<'a>(text: &'a str, at: usize, line: bool, out: &mut Vec<Tok<'a>>) -> usize {
    let bytes = text.as_bytes();
    let mut i = at;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        let run = |i: &mut usize, f: fn(u8) -> bool| {
            while *i < bytes.len() && f(bytes[*i]) {
                *i += 1;
            }
        };
        match c {
            b' ' | b'\t' | b'\r' => i += 1,
            b'\n' | b'/' if line => return i,
            b':' | b'{' | b'}' => {
                out.push(match c {
                    b':' => Tok::Colon,
                    b'{' => Tok::Open,
                    _ => Tok::Close,
                });
                i += 1;
            }
            b'0'..=b'9' => {
                run(&mut i, |b| b.is_ascii_digit());
                out.push(Tok::Int(&text[start..i]));
            }
            b'-' if bytes.get(i + 1).is_some_and(u8::is_ascii_digit) => {
                i += 1;
                run(&mut i, |b| b.is_ascii_digit());
                out.push(Tok::Neg(&text[start..i]));
            }
            b'a'..=b'z' | b'A'..=b'Z' => {
                run(&mut i, |b| b.is_ascii_alphanumeric() || b == b'_');
                out.push(Tok::Word(&text[start..i]));
            }
            _ => {
                let ch = text[i..].chars().next().unwrap_or('?');
                out.push(Tok::Other(ch));
                i += ch.len_utf8();
            }
        }
    }
    i
}

/// Tokenises one line without its `//` and `/* */` comments: each stretch of
/// code between comments separately (a comment separates tokens as a blank
/// does), borrowed from the text; `in_block` carries an open block comment
/// over to the next line.
/// `slash`: whether the line holds a `/` at all.
fn line_tokens<'a>(line: &'a str, slash: bool, in_block: &mut bool, out: &mut Vec<Tok<'a>>) {
    if !*in_block && !slash {
        tokens(line, out);
        return;
    }
    let mut rest = line;
    loop {
        if *in_block {
            match rest.find("*/") {
                Some(end) => {
                    *in_block = false;
                    rest = &rest[end + 2..];
                }
                None => return,
            }
        }
        let line_c = rest.find("//");
        let block_c = rest.find("/*");
        match (line_c, block_c) {
            (Some(l), b) if b.is_none_or(|b| l < b) => {
                tokens(&rest[..l], out);
                return;
            }
            (_, Some(b)) => {
                tokens(&rest[..b], out);
                *in_block = true;
                rest = &rest[b + 2..];
            }
            _ => {
                tokens(rest, out);
                return;
            }
        }
    }
}

/// The text after `//@` when the line's first comment is one.
fn extension(raw: &str) -> Option<&str> {
    let at = raw.find("//")?;
    (raw[at..].starts_with("//@") && !raw[..at].contains("/*")).then(|| &raw[at + 3..])
}

/// FNV-1a over a label's bytes: labels are short, and the map is the
/// reader's busiest (every op and every dependency looks one up).
#[derive(Default)]
struct LabelHasher(u64);

impl Hasher for LabelHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for &b in bytes {
            h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
        self.0 = h;
    }
}

type Labels<'a> = HashMap<&'a str, OpId, BuildHasherDefault<LabelHasher>>;

/// The number that ends `label` (`l12`: 12), up to 9 digits.
fn number_of(label: &str) -> Option<usize> {
    let digits = label.bytes().rev().take_while(u8::is_ascii_digit).count();
    (1..=9)
        .contains(&digits)
        .then(|| label[label.len() - digits..].parse().ok())
        .flatten()
}

/// The op of `ops` labelled `label`: first a guess from the label's number
/// (Schedgen numbers its labels as its ops, from 0 or 1), then the map,
/// which holds only the labels the guess misses (op `k` or `k - 1` for a
/// label numbered `k`). Labels are unique in a rank, so a guess that matches
/// is the op.
fn find_label(ops: &[Op], labels: &Labels<'_>, label: &str) -> Option<OpId> {
    if let Some(k) = number_of(label) {
        for g in [k, k.wrapping_sub(1)] {
            if ops
                .get(g)
                .is_some_and(|o| o.label.as_bytes() == label.as_bytes())
            {
                return Some(g as OpId);
            }
        }
    }
    labels.get(label).copied()
}

/// A rank block being read.
struct Block {
    rank: u32,
    line: u32,
    ops: Vec<Op>,
}

struct Reader<'a> {
    file: &'a str,
    line: u32,
    num_ranks: Option<u32>,
    ranks: Vec<Option<RankSchedule>>,
    block: Option<Block>,
    /// The `//@ sync` marks read.
    marks: Vec<Mark>,
    /// Ops of the last rank block closed.
    last_ops: usize,
    /// The open block's `(line, dependent, prerequisite, started)` by label,
    /// resolved at `}`.
    deps: Vec<(u32, &'a str, &'a str, bool)>,
    /// The open block's labels, borrowed from the text.
    labels: Labels<'a>,
}

/// Parses GOAL text; `name` names it in errors and in the schedule.
pub fn parse(text: &str, name: &str) -> Result<Schedule, GoalError> {
    let mut s = parse_text(text, name)?;
    s.hash = digest(text.as_bytes());
    Ok(s)
}

/// [`parse`] without the digest (an empty `hash`), which the caller computes
/// beside it.
pub(super) fn parse_text(text: &str, name: &str) -> Result<Schedule, GoalError> {
    let mut r = Reader {
        file: name,
        line: 0,
        num_ranks: None,
        ranks: Vec::new(),
        block: None,
        marks: Vec::new(),
        last_ops: 0,
        deps: Vec::new(),
        labels: Labels::default(),
    };
    let mut in_block = false;
    let mut toks: Vec<Tok<'_>> = Vec::with_capacity(16);
    let bytes = text.as_bytes();
    let mut at = 0;
    // One pass over the text: a line without a `/` is tokenised as it is
    // scanned for its end; a line with one goes through the comment reader.
    while at < bytes.len() {
        r.line = r.line.saturating_add(1);
        toks.clear();
        let mut end = if in_block {
            at
        } else {
            scan(text, at, true, &mut toks)
        };
        let mut ext = None;
        if end == bytes.len() || bytes[end] != b'\n' {
            end += bytes[end..]
                .iter()
                .position(|&b| b == b'\n')
                .unwrap_or(bytes.len() - end);
            let raw = &text[at..end];
            let raw = raw.strip_suffix('\r').unwrap_or(raw);
            let slash = raw.as_bytes().contains(&b'/');
            ext = (!in_block && slash).then(|| extension(raw)).flatten();
            toks.clear();
            line_tokens(raw, slash, &mut in_block, &mut toks);
        }
        let before = r.block.as_ref().map_or(0, |b| b.ops.len());
        r.line_tokens(&toks)?;
        if let Some(ext) = ext {
            r.extension(ext, before)?;
        }
        at = end + 1;
    }
    if in_block {
        return Err(r.err("unterminated `/*` comment at the end of the file".into()));
    }
    if let Some(b) = &r.block {
        r.line = b.line;
        return Err(r.err(format!(
            "`rank {} {{` is never closed (is the file truncated?)",
            b.rank
        )));
    }
    let Some(num_ranks) = r.num_ranks else {
        return Err(r.err("no `num_ranks` statement".into()));
    };
    let mut ranks: Vec<RankSchedule> = r
        .ranks
        .into_iter()
        .map(|o| o.unwrap_or(RankSchedule { ops: Vec::new() }))
        .collect();
    let meetings = match r.marks.is_empty() {
        true => Vec::new(),
        false => sync::group(&mut ranks, r.marks, name)?,
    };
    Ok(Schedule {
        num_ranks,
        ranks,
        hash: digest(text.as_bytes()),
        name: name.to_owned(),
        meetings,
    })
}

impl<'a> Reader<'a> {
    fn err(&self, what: String) -> GoalError {
        GoalError::Syntax {
            file: self.file.to_owned(),
            line: self.line,
            what,
        }
    }

    fn number<T: TryFrom<u64>>(
        &self,
        t: Option<&Tok<'_>>,
        what: &str,
        construct: &str,
    ) -> Result<T, GoalError> {
        match t {
            Some(Tok::Int(s)) => s
                .parse::<u64>()
                .ok()
                .and_then(|v| T::try_from(v).ok())
                .ok_or_else(|| self.err(format!("{what} `{s}` is too large in `{construct}`"))),
            Some(Tok::Neg(s)) => Err(self.err(format!(
                "{what} `{s}` (any source / any tag) is outside halfperf's GOAL subset, in `{construct}`"
            ))),
            Some(t) => Err(self.err(format!("expected {what}, found {t} in `{construct}`"))),
            None => Err(self.err(format!("expected {what} at the end of `{construct}`"))),
        }
    }

    fn line_tokens(&mut self, toks: &[Tok<'a>]) -> Result<(), GoalError> {
        let mut rest = toks;
        while let Some(first) = rest.first() {
            match first {
                Tok::Word("num_ranks") => {
                    self.num_ranks_statement(rest.get(1))?;
                    rest = &rest[2..];
                }
                Tok::Word("rank") => {
                    self.open_rank(rest.get(1), rest.get(2))?;
                    rest = &rest[3..];
                }
                Tok::Close => {
                    self.close_rank()?;
                    rest = &rest[1..];
                }
                _ => {
                    return self.statement(rest);
                }
            }
        }
        Ok(())
    }

    fn num_ranks_statement(&mut self, n: Option<&Tok<'_>>) -> Result<(), GoalError> {
        if self.num_ranks.is_some() || self.block.is_some() {
            return Err(self.err("`num_ranks` given twice or inside a rank block".into()));
        }
        let n: u32 = self.number(n, "a rank count", "num_ranks N")?;
        if n == 0 || n > MAX_RANKS {
            return Err(self.err(format!("`num_ranks {n}`: give 1 ..= {MAX_RANKS} ranks")));
        }
        self.num_ranks = Some(n);
        self.ranks = (0..n).map(|_| None).collect();
        Ok(())
    }

    fn open_rank(&mut self, n: Option<&Tok<'_>>, open: Option<&Tok<'_>>) -> Result<(), GoalError> {
        let Some(num_ranks) = self.num_ranks else {
            return Err(self.err("`rank N {` before `num_ranks`".into()));
        };
        if let Some(b) = &self.block {
            return Err(self.err(format!(
                "`rank` inside the block of rank {}: missing `}}`",
                b.rank
            )));
        }
        let rank: u32 = self.number(n, "a rank number", "rank N {")?;
        if rank >= num_ranks {
            return Err(self.err(format!("`rank {rank}` but `num_ranks {num_ranks}`")));
        }
        if self.ranks[rank as usize].is_some() {
            return Err(self.err(format!("`rank {rank} {{` appears twice")));
        }
        if open != Some(&Tok::Open) {
            return Err(self.err(format!("expected `{{` after `rank {rank}`")));
        }
        self.block = Some(Block {
            rank,
            line: self.line,
            // Ranks of one file tend to have alike op counts: the last
            // block's sizes this one's ops, saving their regrowth.
            ops: Vec::with_capacity(self.last_ops),
        });
        self.labels.clear();
        self.deps.clear();
        Ok(())
    }

    fn close_rank(&mut self) -> Result<(), GoalError> {
        let Some(mut b) = self.block.take() else {
            return Err(self.err("`}` outside a rank block".into()));
        };
        for &(line, dependent, prerequisite, started) in &self.deps {
            let find = |label: &str| {
                find_label(&b.ops, &self.labels, label).ok_or_else(|| GoalError::Syntax {
                    file: self.file.to_owned(),
                    line,
                    what: format!(
                        "rank {}: label `{label}` is not defined in this rank",
                        b.rank
                    ),
                })
            };
            let (d, p) = (find(dependent)?, find(prerequisite)?);
            let op = &mut b.ops[d as usize];
            if started {
                op.irequires.push(p)
            } else {
                op.requires.push(p)
            }
        }
        self.last_ops = b.ops.len();
        self.ranks[b.rank as usize] = Some(RankSchedule { ops: b.ops });
        Ok(())
    }

    /// An op or a dependency: the rest of the line.
    fn statement(&mut self, toks: &[Tok<'a>]) -> Result<(), GoalError> {
        let line = self.line;
        let Some(block) = &self.block else {
            return Err(self.err(format!("{} outside a rank block", toks[0])));
        };
        let rank = block.rank;
        let (label, body) = match toks {
            [Tok::Word(w), ..] if matches!(*w, "send" | "recv" | "calc") => (None, toks),
            [Tok::Word(l), Tok::Colon, body @ ..] => (Some(*l), body),
            [
                Tok::Word(a),
                Tok::Word(dep @ ("requires" | "irequires")),
                Tok::Word(b),
                tail @ ..,
            ] => {
                if let Some(t) = tail.first() {
                    return Err(self.err(format!("unexpected {t} after `{a} {dep} {b}`")));
                }
                let started = *dep == "irequires";
                self.deps.push((line, *a, *b, started));
                return Ok(());
            }
            [t, ..] => {
                return Err(self.err(format!(
                    "expected `send`, `recv`, `calc`, `LABEL:`, `A requires B`, `A irequires B`, `rank` or `}}`, found {t}"
                )));
            }
            [] => return Ok(()),
        };
        let kind = self.op_kind(body, rank)?;
        let count = self.block.as_ref().map_or(0, |b| b.ops.len());
        let id = OpId::try_from(count).map_err(|_| GoalError::Syntax {
            file: self.file.to_owned(),
            line,
            what: "more than 2^32 ops in one rank".into(),
        })?;
        let label = match label {
            Some(l) => {
                let ops = &self.block.as_ref().expect("checked above").ops;
                if find_label(ops, &self.labels, l).is_some() {
                    return Err(self.err(format!("rank {rank}: label `{l}` defined twice")));
                }
                // A label its number finds needs no map entry.
                if number_of(l).is_none_or(|k| k != id as usize && k != id as usize + 1) {
                    self.labels.insert(l, id);
                }
                Label::from(l)
            }
            None => Label::unnamed(id),
        };
        let block = self.block.as_mut().expect("checked above");
        block.ops.push(Op {
            label,
            kind,
            requires: Deps::default(),
            irequires: Deps::default(),
            line,
            vector: None,
            sync: None,
        });
        Ok(())
    }

    /// Reads a `//@` extension onto the op the line added (the block held
    /// `before` ops): `vector` on a `calc`, `sync` on a send or receive.
    fn extension(&mut self, ext: &str, before: usize) -> Result<(), GoalError> {
        let words: Vec<&str> = ext.split_whitespace().collect();
        if words.first() != Some(&"sync") {
            return self.vector(ext, before);
        }
        let method = sync::method_of(&words[1..]).map_err(|w| self.err(w))?;
        let line = self.line;
        let added = self.block.as_ref().and_then(|b| {
            (b.ops.len() == before + 1).then(|| (b.rank, before as OpId, b.ops[before].kind))
        });
        match added {
            Some((rank, op, OpKind::Send { .. } | OpKind::Recv { .. })) => {
                self.marks.push(Mark {
                    rank,
                    op,
                    method,
                    line,
                });
                Ok(())
            }
            Some(_) => Err(self.err(format!(
                "`{}` marks a `send` or `recv`, not this op",
                sync::FORM
            ))),
            None => Err(self.err(format!(
                "`{}` follows no op (it marks the send or receive on its line)",
                sync::FORM
            ))),
        }
    }

    /// Reads `//@ vector OP LEVEL FLOP` onto the `calc` the line added (the
    /// block held `before` ops).
    fn vector(&mut self, ext: &str, before: usize) -> Result<(), GoalError> {
        const FORM: &str = "//@ vector OP LEVEL FLOP";
        let words: Vec<&str> = ext.split_whitespace().collect();
        let [kind, op, level, flop] = words[..] else {
            return Err(self.err(match words.first() {
                Some(&"vector") => format!("expected `{FORM}`, found `//@{ext}`"),
                Some(w) => format!(
                    "unknown extension `//@ {w}` (halfperf reads `{FORM}` and `//@ sync METHOD`)"
                ),
                None => format!("an empty `//@` (halfperf reads `{FORM}`)"),
            }));
        };
        if kind != "vector" {
            return Err(self.err(format!(
                "unknown extension `//@ {kind}` (halfperf reads `{FORM}` and `//@ sync METHOD`)"
            )));
        }
        let known_op = op.rsplit_once('-').is_some_and(|(base, p)| {
            matches!(p, "f64" | "f32") && VECTOR_OPERATIONS.iter().any(|(n, _)| *n == base)
        });
        if !known_op {
            return Err(self.err(format!(
                "unknown vector operation `{op}` in `{FORM}` (dyadic, triad, scalar-triad or scalar, each -f64 or -f32)"
            )));
        }
        let Some(level) = VECTOR_LEVELS.iter().find(|l| l.eq_ignore_ascii_case(level)) else {
            return Err(self.err(format!(
                "unknown memory level `{level}` in `{FORM}` (L1, L2, L3 or memory)"
            )));
        };
        let flop = match flop.parse::<u64>() {
            Ok(f) if f > 0 => f,
            _ => {
                return Err(self.err(format!(
                    "FLOP `{flop}` in `{FORM}` is not a whole number above 0"
                )));
            }
        };
        let added = self.block.as_mut().and_then(|b| {
            (b.ops.len() == before + 1)
                .then(|| b.ops.last_mut())
                .flatten()
        });
        match added {
            Some(o) if matches!(o.kind, OpKind::Calc { .. }) => {
                o.vector = Some(Box::new(VectorCalc {
                    operation: op.to_owned(),
                    level: (*level).to_owned(),
                    flop,
                }));
                Ok(())
            }
            Some(_) => Err(self.err(format!("`{FORM}` annotates a `calc`, not this op"))),
            None => Err(self.err(format!(
                "`{FORM}` follows no op (it annotates the `calc` on its line)"
            ))),
        }
    }

    fn op_kind(&self, body: &[Tok<'_>], rank: u32) -> Result<OpKind, GoalError> {
        let num_ranks = self.num_ranks.unwrap_or(0);
        let (kind, mut rest) = match body {
            [Tok::Word("calc"), n, rest @ ..] => {
                let ns = self.number(Some(n), "a time in ns", "calc N")?;
                (OpKind::Calc { ns }, rest)
            }
            [Tok::Word(w @ ("send" | "recv")), rest @ ..] => {
                let send = *w == "send";
                let (dir, construct) = if send {
                    ("to", "send Nb to R tag T")
                } else {
                    ("from", "recv Nb from R tag T")
                };
                let bytes = self.number(rest.first(), "a size", construct)?;
                if rest.get(1) != Some(&Tok::Word("b")) {
                    return Err(self.err(format!("expected `b` after the size in `{construct}`")));
                }
                if rest.get(2) != Some(&Tok::Word(dir)) {
                    return Err(self.err(format!("expected `{dir}` in `{construct}`")));
                }
                let peer: u32 = self.number(rest.get(3), "a rank", construct)?;
                if peer >= num_ranks {
                    return Err(self.err(format!(
                        "rank {rank}: peer {peer} in `{construct}` but `num_ranks {num_ranks}`"
                    )));
                }
                let mut rest = &rest[4..];
                let mut tag = 0;
                if rest.first() == Some(&Tok::Word("tag")) {
                    tag = self.number(rest.get(1), "a tag", construct)?;
                    rest = &rest[2..];
                }
                let kind = if send {
                    OpKind::Send { bytes, peer, tag }
                } else {
                    OpKind::Recv { bytes, peer, tag }
                };
                (kind, rest)
            }
            [t, ..] => {
                return Err(self.err(format!(
                    "expected `send`, `recv` or `calc` after the label, found {t}"
                )));
            }
            [] => return Err(self.err("expected an op after the label".into())),
        };
        // `cpu N` then `nic N` (not for calc), read only at their default 0.
        for annotation in ["cpu", "nic"] {
            if rest.first() == Some(&Tok::Word(annotation)) {
                if annotation == "nic" && matches!(kind, OpKind::Calc { .. }) {
                    break;
                }
                let v: u64 = self.number(rest.get(1), "a number", annotation)?;
                if v != 0 {
                    return Err(self.err(format!(
                        "`{annotation} {v}`: several CPUs or NICs per rank are outside halfperf's GOAL subset (only `{annotation} 0`)"
                    )));
                }
                rest = &rest[2..];
            }
        }
        if let Some(t) = rest.first() {
            return Err(self.err(format!("unexpected {t} at the end of the op")));
        }
        Ok(kind)
    }
}
