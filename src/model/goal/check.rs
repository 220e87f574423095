//! Static checks of a schedule before it runs (rules in the parent module).
#![forbid(unsafe_code)]

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

fn rank_of(base: &[usize], g: usize) -> (u32, u32) {
    let r = base.partition_point(|&b| b <= g) - 1;
    (r as u32, (g - base[r]) as u32)
}

/// Pairs sends with receives; returns `(send, recv)` in global op indices.
/// Each side's messages are sorted by (source, destination, tag, op), so that
/// one key's messages lie together in file order, and the keys are walked in
/// order: the first problem in key order is the one reported.
fn match_messages(s: &Schedule) -> Result<Vec<(usize, usize)>, GoalError> {
    let base = s.op_bases();
    // ((src, dst, tag), global index, bytes); a file within MAX_FILE_BYTES
    // holds fewer than 2^32 ops.
    type Msg = ((u32, u32, u32), u32, u64);
    let mut sends: Vec<Msg> = Vec::new();
    let mut recvs: Vec<Msg> = Vec::new();
    for (r, rank) in s.ranks.iter().enumerate() {
        let r32 = r as u32;
        for (i, op) in rank.ops.iter().enumerate() {
            let g = (base[r] + i) as u32;
            match op.kind {
                OpKind::Send { peer, tag, bytes } => sends.push(((r32, peer, tag), g, bytes)),
                OpKind::Recv { peer, tag, bytes } => recvs.push(((peer, r32, tag), g, bytes)),
                OpKind::Calc { .. } => {}
            }
        }
    }
    sends.sort_unstable();
    recvs.sort_unstable();
    let unmatched = |g: u32, what: String| {
        let (r, i) = rank_of(&base, g as usize);
        let op = &s.ranks[r as usize].ops[i as usize];
        GoalError::Unmatched {
            file: s.name.clone(),
            line: op.line,
            rank: r,
            label: op.label.to_string(),
            what,
        }
    };
    // The run of `v` from `at` with the key `key`.
    let run = |v: &[Msg], at: usize, key| v[at..].iter().take_while(|m| m.0 == key).count();
    let mut pairs = Vec::with_capacity(sends.len().min(recvs.len()));
    let (mut i, mut j) = (0, 0);
    while i < sends.len() || j < recvs.len() {
        let key = match (sends.get(i), recvs.get(j)) {
            (Some(a), Some(b)) => a.0.min(b.0),
            (Some(a), None) => a.0,
            (None, Some(b)) => b.0,
            (None, None) => unreachable!("the loop's condition"),
        };
        let (src, dst, tag) = key;
        let (ns, nr) = (run(&sends, i, key), run(&recvs, j, key));
        let (snd, rcv) = (&sends[i..i + ns], &recvs[j..j + nr]);
        for (k, (&(_, sg, sb), &(_, rg, rb))) in snd.iter().zip(rcv).enumerate() {
            if sb != rb {
                return Err(unmatched(
                    rg,
                    format!(
                        "receive {} of {src} -> {dst} tag {tag} expects {rb} B but send {} sends {sb} B",
                        k + 1,
                        k + 1,
                    ),
                ));
            }
            pairs.push((sg as usize, rg as usize));
        }
        if nr > ns {
            return Err(unmatched(
                rcv[ns].1,
                format!(
                    "receive from {src} tag {tag} has no matching send ({ns} sends, {nr} receives)"
                ),
            ));
        }
        if ns > nr {
            return Err(unmatched(
                snd[nr].1,
                format!(
                    "send to {dst} tag {tag} has no matching receive ({ns} sends, {nr} receives)"
                ),
            ));
        }
        i += ns;
        j += nr;
    }
    Ok(pairs)
}

/// Kahn's algorithm over the global graph; on a cycle, walks back from a
/// leftover op through leftover predecessors until one repeats. Op indices
/// are `u32` here (the engine numbers ops the same way), halving the arrays.
fn find_cycle(s: &Schedule, messages: &[(usize, usize)]) -> Result<(), GoalError> {
    let base = s.op_bases();
    let n = *base.last().unwrap_or(&0);
    const NONE: u32 = u32::MAX;
    // Predecessors of every op in one array (CSR): its `requires`, then its
    // `irequires`, then the send of its message.
    let mut from_send = vec![NONE; n];
    for &(snd, rcv) in messages {
        from_send[rcv] = snd as u32;
    }
    let mut start: Vec<u32> = Vec::with_capacity(n + 1);
    let mut preds: Vec<u32> = Vec::with_capacity(n + messages.len());
    for (r, rank) in s.ranks.iter().enumerate() {
        let b = base[r] as u32;
        for (i, op) in rank.ops.iter().enumerate() {
            start.push(preds.len() as u32);
            preds.extend(op.requires.iter().chain(&op.irequires).map(|&p| b + p));
            if from_send[base[r] + i] != NONE {
                preds.push(from_send[base[r] + i]);
            }
        }
    }
    start.push(preds.len() as u32);
    drop(from_send);
    let preds_of = |g: usize| &preds[start[g] as usize..start[g + 1] as usize];
    let mut indegree: Vec<u32> = start.windows(2).map(|w| w[1] - w[0]).collect();
    // Successors (CSR), from the predecessors.
    let mut succ_start = vec![0u32; n + 1];
    for &p in &preds {
        succ_start[p as usize + 1] += 1;
    }
    for g in 0..n {
        succ_start[g + 1] += succ_start[g];
    }
    let mut fill = succ_start.clone();
    let mut succs = vec![0u32; preds.len()];
    for g in 0..n {
        for &p in preds_of(g) {
            succs[fill[p as usize] as usize] = g as u32;
            fill[p as usize] += 1;
        }
    }
    drop(fill);
    let mut ready: Vec<u32> = (0..n as u32)
        .filter(|&g| indegree[g as usize] == 0)
        .collect();
    let mut done = 0;
    while let Some(g) = ready.pop() {
        done += 1;
        let g = g as usize;
        for &t in &succs[succ_start[g] as usize..succ_start[g + 1] as usize] {
            indegree[t as usize] -= 1;
            if indegree[t as usize] == 0 {
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
        g = preds_of(g)
            .iter()
            .map(|&p| p as usize)
            .find(|&p| indegree[p] > 0)
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
        label: op.label.to_string(),
        what: steps.join(" -> "),
    })
}
