//! Static checks of a schedule before it runs (rules in the parent module).
#![forbid(unsafe_code)]

use std::collections::HashMap;

use super::{GoalError, OpKind, Schedule};

/// Static checks before anything runs: every receive has a matching send (same
/// pair and tag, paired in file order per (source, destination, tag), equal
/// sizes), and no dependency cycle through `requires`, `irequires` and message
/// edges (a send before its matching receive). The error names the rank, the
/// label and the line.
pub fn check(s: &Schedule) -> Result<(), GoalError> {
    let matches = match_messages(s)?;
    find_cycle(s, &matches)
}

/// Global index of each rank's first op.
fn bases(s: &Schedule) -> Vec<usize> {
    let mut base = Vec::with_capacity(s.ranks.len() + 1);
    let mut total = 0;
    for r in &s.ranks {
        base.push(total);
        total += r.ops.len();
    }
    base.push(total);
    base
}

fn rank_of(base: &[usize], g: usize) -> (u32, u32) {
    let r = base.partition_point(|&b| b <= g) - 1;
    (r as u32, (g - base[r]) as u32)
}

/// Pairs sends with receives; returns `(send, recv)` in global op indices.
fn match_messages(s: &Schedule) -> Result<Vec<(usize, usize)>, GoalError> {
    let base = bases(s);
    // (src, dst, tag) -> (sends, recvs) as global indices in file order.
    type Lists = (Vec<usize>, Vec<usize>);
    let mut by_triple: HashMap<(u32, u32, u32), Lists> = HashMap::new();
    for (r, rank) in s.ranks.iter().enumerate() {
        let r = r as u32;
        for (i, op) in rank.ops.iter().enumerate() {
            let g = base[r as usize] + i;
            match op.kind {
                OpKind::Send { peer, tag, .. } => {
                    by_triple.entry((r, peer, tag)).or_default().0.push(g)
                }
                OpKind::Recv { peer, tag, .. } => {
                    by_triple.entry((peer, r, tag)).or_default().1.push(g)
                }
                OpKind::Calc { .. } => {}
            }
        }
    }
    let unmatched = |g: usize, what: String| {
        let (r, i) = rank_of(&base, g);
        let op = &s.ranks[r as usize].ops[i as usize];
        GoalError::Unmatched {
            file: s.name.clone(),
            line: op.line,
            rank: r,
            label: op.label.clone(),
            what,
        }
    };
    let bytes = |g: usize| {
        let (r, i) = rank_of(&base, g);
        match s.ranks[r as usize].ops[i as usize].kind {
            OpKind::Send { bytes, .. } | OpKind::Recv { bytes, .. } => bytes,
            OpKind::Calc { .. } => 0,
        }
    };
    let mut keys: Vec<_> = by_triple.keys().copied().collect();
    keys.sort_unstable();
    let mut pairs = Vec::new();
    for key @ (src, dst, tag) in keys {
        let (sends, recvs) = &by_triple[&key];
        for (k, (&snd, &rcv)) in sends.iter().zip(recvs).enumerate() {
            if bytes(snd) != bytes(rcv) {
                return Err(unmatched(
                    rcv,
                    format!(
                        "receive {} of {src} -> {dst} tag {tag} expects {} B but send {} sends {} B",
                        k + 1,
                        bytes(rcv),
                        k + 1,
                        bytes(snd)
                    ),
                ));
            }
            pairs.push((snd, rcv));
        }
        if recvs.len() > sends.len() {
            return Err(unmatched(
                recvs[sends.len()],
                format!(
                    "receive from {src} tag {tag} has no matching send ({} sends, {} receives)",
                    sends.len(),
                    recvs.len()
                ),
            ));
        }
        if sends.len() > recvs.len() {
            return Err(unmatched(
                sends[recvs.len()],
                format!(
                    "send to {dst} tag {tag} has no matching receive ({} sends, {} receives)",
                    sends.len(),
                    recvs.len()
                ),
            ));
        }
    }
    Ok(pairs)
}

/// Kahn's algorithm over the global graph; on a cycle, walks back from a
/// leftover op through leftover predecessors until one repeats.
fn find_cycle(s: &Schedule, messages: &[(usize, usize)]) -> Result<(), GoalError> {
    let base = bases(s);
    let n = *base.last().unwrap_or(&0);
    // Predecessors of every op (CSR).
    let mut preds_of: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (r, rank) in s.ranks.iter().enumerate() {
        for (i, op) in rank.ops.iter().enumerate() {
            let g = base[r] + i;
            for &p in op.requires.iter().chain(&op.irequires) {
                preds_of[g].push(base[r] + p as usize);
            }
        }
    }
    for &(snd, rcv) in messages {
        preds_of[rcv].push(snd);
    }
    let mut indegree: Vec<usize> = preds_of.iter().map(Vec::len).collect();
    let mut succs: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (g, preds) in preds_of.iter().enumerate() {
        for &p in preds {
            succs[p].push(g);
        }
    }
    let mut ready: Vec<usize> = (0..n).filter(|&g| indegree[g] == 0).collect();
    let mut done = 0;
    while let Some(g) = ready.pop() {
        done += 1;
        for &t in &succs[g] {
            indegree[t] -= 1;
            if indegree[t] == 0 {
                ready.push(t);
            }
        }
    }
    if done == n {
        return Ok(());
    }
    // Every leftover op has a leftover predecessor: walking back must repeat.
    let mut seen = vec![usize::MAX; n];
    let mut path = Vec::new();
    let mut g = (0..n).find(|&g| indegree[g] > 0).expect("a leftover op");
    while seen[g] == usize::MAX {
        seen[g] = path.len();
        path.push(g);
        g = *preds_of[g]
            .iter()
            .find(|&&p| indegree[p] > 0)
            .expect("a leftover op has a leftover predecessor");
    }
    let mut cycle: Vec<usize> = path[seen[g]..].to_vec();
    cycle.reverse();
    let name = |g: usize| {
        let (r, i) = rank_of(&base, g);
        format!("{r}:{}", s.ranks[r as usize].ops[i as usize].label)
    };
    let steps: Vec<String> = cycle
        .iter()
        .chain(cycle.first())
        .map(|&g| name(g))
        .collect();
    let (r, i) = rank_of(&base, cycle[0]);
    let op = &s.ranks[r as usize].ops[i as usize];
    Err(GoalError::Cycle {
        file: s.name.clone(),
        line: op.line,
        rank: r,
        label: op.label.clone(),
        what: steps.join(" -> "),
    })
}
