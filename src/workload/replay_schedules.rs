//! The validation set: GOAL schedules of common parallel patterns that no kernel
//! runs, written to `workloads/pP/` for P = 2, 4 and 8 and committed. Each file
//! opens with a comment saying what it is, its parameters, and how it was made.
//!
//! Regenerate the committed files with
//! `HALFPERF_WRITE_WORKLOADS=1 cargo test --release --test replay workloads`;
//! without the variable that test checks that the files are what this module
//! writes.
//!
//! `bsp-sync` meets through a `hockney-sync` method (`//@ sync`).
//!
//! Times are in nanoseconds (`calc`), sizes in bytes; message tags say which
//! step or direction a message belongs to, so that receives match by tag as MPI
//! programs do. GOAL has no any-source receive, so the master-worker schedule
//! hands its tasks out statically (round-robin), the way a trace of one run of
//! a dynamic master would record them.

use std::fmt::Write;

/// One schedule of the set.
#[derive(Debug, Clone, PartialEq)]
pub struct Workload {
    /// File stem (`binomial-bcast`).
    pub name: &'static str,
    /// The GOAL text, header comment included.
    pub text: String,
}

/// The rank counts the committed set has.
pub const RANK_COUNTS: [u32; 3] = [2, 4, 8];

/// Every schedule of the set at `p` ranks (a power of two, at least 2).
pub fn validation_set(p: u32) -> Vec<Workload> {
    vec![
        Workload {
            name: "binomial-bcast",
            text: binomial_broadcast(p, 4096),
        },
        Workload {
            name: "ring-allreduce",
            text: ring_allreduce(p, 65_536, 0.125),
        },
        Workload {
            name: "recursive-doubling-allreduce",
            text: recursive_doubling_allreduce(p, 8192, 0.125),
        },
        Workload {
            name: "halo-2d",
            text: halo_2d(p, 8, 20_000, 2048),
        },
        Workload {
            name: "pipeline",
            text: pipeline(p, 16, 5_000, 1024),
        },
        Workload {
            name: "master-worker",
            text: master_worker(p, 12, 64, 1024),
        },
        Workload {
            name: "lamanna-matrix",
            text: lamanna_matrix(p, 700_000, 3000, p - 1),
        },
        Workload {
            name: "bsp-sync",
            text: bsp_sync(p, 32, 2000, "barrier-spin"),
        },
    ]
}

/// How a dependency waits: for completion (`requires`) or start (`irequires`).
#[derive(Debug, Clone, Copy)]
enum Dep {
    Done(usize),
    Started(usize),
}

/// A schedule under construction: per rank, its operation lines and its
/// dependency lines.
struct Builder {
    ops: Vec<Vec<String>>,
    deps: Vec<Vec<String>>,
}

impl Builder {
    fn new(p: u32) -> Builder {
        Builder {
            ops: vec![Vec::new(); p as usize],
            deps: vec![Vec::new(); p as usize],
        }
    }

    fn op(&mut self, rank: u32, what: String, after: &[Dep]) -> usize {
        let r = rank as usize;
        let id = self.ops[r].len();
        self.ops[r].push(format!("l{id}: {what}"));
        for d in after {
            let line = match d {
                Dep::Done(k) => format!("l{id} requires l{k}"),
                Dep::Started(k) => format!("l{id} irequires l{k}"),
            };
            self.deps[r].push(line);
        }
        id
    }

    fn send(&mut self, rank: u32, bytes: u64, to: u32, tag: u32, after: &[Dep]) -> usize {
        self.op(rank, format!("send {bytes}b to {to} tag {tag}"), after)
    }

    fn recv(&mut self, rank: u32, bytes: u64, from: u32, tag: u32, after: &[Dep]) -> usize {
        self.op(rank, format!("recv {bytes}b from {from} tag {tag}"), after)
    }

    fn calc(&mut self, rank: u32, ns: u64, after: &[Dep]) -> usize {
        self.op(rank, format!("calc {ns}"), after)
    }

    fn text(&self, header: &str) -> String {
        let mut s = String::new();
        for line in header.lines() {
            let _ = writeln!(s, "// {line}");
        }
        let _ = writeln!(s, "num_ranks {}", self.ops.len());
        for (r, (ops, deps)) in self.ops.iter().zip(&self.deps).enumerate() {
            let _ = writeln!(s, "\nrank {r} {{");
            for l in ops.iter().chain(deps) {
                let _ = writeln!(s, "  {l}");
            }
            s.push_str("}\n");
        }
        s
    }
}

fn made_by(call: &str) -> String {
    format!(
        "Made by halfperf::workload::replay_schedules::{call}\n(HALFPERF_WRITE_WORKLOADS=1 cargo test --release --test replay workloads)."
    )
}

/// Binomial-tree broadcast of `bytes` from rank 0: in round k, each rank that
/// has the data and is below 2^k sends it to the rank 2^k above it.
pub fn binomial_broadcast(p: u32, bytes: u64) -> String {
    let mut b = Builder::new(p);
    for r in 0..p {
        let mut last = None;
        let mut mask = 1;
        while mask < p {
            if r >= mask && r < 2 * mask {
                last = Some(b.recv(r, bytes, r - mask, 0, &[]));
            } else if r < mask && r + mask < p {
                let after: Vec<Dep> = last.map(Dep::Done).into_iter().collect();
                last = Some(b.send(r, bytes, r + mask, 0, &after));
            }
            mask *= 2;
        }
    }
    b.text(&format!(
        "Binomial-tree broadcast of {bytes} B from rank 0 to {p} ranks: in round k a rank\n\
         below 2^k that holds the data sends it to the rank 2^k above it, one send\n\
         after another; a rank forwards after its receive completed.\n{}",
        made_by(&format!("binomial_broadcast({p}, {bytes})"))
    ))
}

/// Ring allreduce of a `bytes` vector: reduce-scatter then allgather, `p - 1`
/// steps each, chunks of `bytes / p`; each reduce-scatter step adds the chunk
/// received, `ns_per_byte` of work per byte.
pub fn ring_allreduce(p: u32, bytes: u64, ns_per_byte: f64) -> String {
    let chunk = bytes / u64::from(p);
    let add_ns = (chunk as f64 * ns_per_byte).round() as u64;
    let mut b = Builder::new(p);
    for r in 0..p {
        let (next, prev) = ((r + 1) % p, (r + p - 1) % p);
        // A step sends what the last one received (and reduced), after the last
        // one's send left.
        let mut after: Vec<Dep> = Vec::new();
        for step in 0..2 * (p - 1) {
            let s = b.send(r, chunk, next, step, &after);
            let v = b.recv(r, chunk, prev, step, &after);
            let got = if step < p - 1 {
                b.calc(r, add_ns, &[Dep::Done(v)])
            } else {
                v
            };
            after = vec![Dep::Done(s), Dep::Done(got)];
        }
    }
    b.text(&format!(
        "Ring allreduce of a {bytes} B vector over {p} ranks: reduce-scatter then allgather,\n\
         {} steps of one {chunk} B chunk to the next rank and one from the previous\n\
         (tag = step); each reduce-scatter step adds the chunk received ({add_ns} ns of\n\
         work, {ns_per_byte} ns a byte).\n{}",
        2 * (p - 1),
        made_by(&format!("ring_allreduce({p}, {bytes}, {ns_per_byte})"))
    ))
}

/// Recursive-doubling allreduce of `bytes`: log2 p rounds, in round k an
/// exchange of the whole vector with rank `r ^ 2^k`, then the addition.
pub fn recursive_doubling_allreduce(p: u32, bytes: u64, ns_per_byte: f64) -> String {
    assert!(
        p.is_power_of_two(),
        "recursive doubling needs a power of two"
    );
    let add_ns = (bytes as f64 * ns_per_byte).round() as u64;
    let mut b = Builder::new(p);
    for r in 0..p {
        let mut last: Option<usize> = None;
        let mut mask = 1;
        let mut round = 0;
        while mask < p {
            let after: Vec<Dep> = last.map(Dep::Done).into_iter().collect();
            let s = b.send(r, bytes, r ^ mask, round, &after);
            let v = b.recv(r, bytes, r ^ mask, round, &after);
            last = Some(b.calc(r, add_ns, &[Dep::Done(s), Dep::Done(v)]));
            mask *= 2;
            round += 1;
        }
    }
    b.text(&format!(
        "Recursive-doubling allreduce of a {bytes} B vector over {p} ranks: in round k each\n\
         rank exchanges the whole vector with rank r XOR 2^k (tag = k), then adds\n\
         ({add_ns} ns of work, {ns_per_byte} ns a byte).\n{}",
        made_by(&format!(
            "recursive_doubling_allreduce({p}, {bytes}, {ns_per_byte})"
        ))
    ))
}

/// The grid of a 2-D decomposition of `p` ranks: columns, rows (columns >= rows).
fn grid(p: u32) -> (u32, u32) {
    let mut rows = (f64::from(p).sqrt()) as u32;
    while !p.is_multiple_of(rows) {
        rows -= 1;
    }
    (p / rows, rows)
}

/// A 2-D halo exchange: `p` ranks on a grid (non-periodic), `iterations` of
/// `calc_ns` of computation, then a face of `face_bytes` to each neighbour;
/// receives are posted when the computation starts, and an iteration's
/// computation waits for the last one's messages.
pub fn halo_2d(p: u32, iterations: u32, calc_ns: u64, face_bytes: u64) -> String {
    let (cols, rows) = grid(p);
    let mut b = Builder::new(p);
    for r in 0..p {
        let (x, y) = (r % cols, r / cols);
        // (neighbour, tag of the direction the message travels)
        let mut nbrs = Vec::new();
        if x + 1 < cols {
            nbrs.push((r + 1, 0, 1)); // east: send tag 0, receive from east tag 1
        }
        if x > 0 {
            nbrs.push((r - 1, 1, 0));
        }
        if y + 1 < rows {
            nbrs.push((r + cols, 2, 3));
        }
        if y > 0 {
            nbrs.push((r - cols, 3, 2));
        }
        let mut prev: Vec<usize> = Vec::new();
        for _ in 0..iterations {
            let after: Vec<Dep> = prev.iter().map(|&k| Dep::Done(k)).collect();
            let c = b.calc(r, calc_ns, &after);
            prev.clear();
            for &(n, send_tag, recv_tag) in &nbrs {
                prev.push(b.recv(r, face_bytes, n, recv_tag, &[Dep::Started(c)]));
                prev.push(b.send(r, face_bytes, n, send_tag, &[Dep::Done(c)]));
            }
        }
    }
    b.text(&format!(
        "2-D halo exchange on a {cols} x {rows} grid of ranks (not periodic), {iterations}\n\
         iterations: {calc_ns} ns of computation, then a {face_bytes} B face to each\n\
         neighbour (tag = direction of travel: 0 east, 1 west, 2 north, 3 south).\n\
         Receives are posted when the computation starts (irequires); the next\n\
         computation waits for every message of this iteration.\n{}",
        made_by(&format!(
            "halo_2d({p}, {iterations}, {calc_ns}, {face_bytes})"
        ))
    ))
}

/// A pipeline of `p` stages over `items` items: stage r receives item j from
/// stage r - 1, works on it `calc_ns`, and passes `bytes` on to stage r + 1.
pub fn pipeline(p: u32, items: u32, calc_ns: u64, bytes: u64) -> String {
    let mut b = Builder::new(p);
    for r in 0..p {
        let mut last_calc: Option<usize> = None;
        for j in 0..items {
            let mut after: Vec<Dep> = last_calc.map(Dep::Done).into_iter().collect();
            if r > 0 {
                let v = b.recv(r, bytes, r - 1, j, &[]);
                after.push(Dep::Done(v));
            }
            let c = b.calc(r, calc_ns, &after);
            if r + 1 < p {
                b.send(r, bytes, r + 1, j, &[Dep::Done(c)]);
            }
            last_calc = Some(c);
        }
    }
    b.text(&format!(
        "Pipeline (a 1-D wavefront) of {p} stages over {items} items: stage r receives\n\
         item j from stage r - 1 (tag = j), works on it {calc_ns} ns, passes {bytes} B\n\
         on to stage r + 1; stage 0 starts every item at once.\n{}",
        made_by(&format!("pipeline({p}, {items}, {calc_ns}, {bytes})"))
    ))
}

/// Task `t`'s work, ns: uneven, from 2 to 38 us in a fixed irregular order.
fn task_ns(t: u32) -> u64 {
    2_000 + u64::from((t * 7 + 3) % 10) * 4_000
}

/// Master-worker: rank 0 hands `tasks` tasks of uneven work to ranks 1..p,
/// round-robin, a `task_bytes` order each; a worker computes and returns
/// `result_bytes`; the master sends a worker its next task when its last
/// result is in.
pub fn master_worker(p: u32, tasks: u32, task_bytes: u64, result_bytes: u64) -> String {
    let workers = p - 1;
    let mut b = Builder::new(p);
    let mut last_result: Vec<Option<usize>> = vec![None; p as usize];
    let mut worker_last: Vec<Option<usize>> = vec![None; p as usize];
    for t in 0..tasks {
        let w = 1 + t % workers;
        let after: Vec<Dep> = last_result[w as usize].map(Dep::Done).into_iter().collect();
        b.send(0, task_bytes, w, t, &after);
        last_result[w as usize] = Some(b.recv(0, result_bytes, w, t, &[]));
        let after: Vec<Dep> = worker_last[w as usize].map(Dep::Done).into_iter().collect();
        let v = b.recv(w, task_bytes, 0, t, &after);
        let c = b.calc(w, task_ns(t), &[Dep::Done(v)]);
        worker_last[w as usize] = Some(b.send(w, result_bytes, 0, t, &[Dep::Done(c)]));
    }
    let work: Vec<String> = (0..tasks)
        .map(|t| (task_ns(t) / 1000).to_string())
        .collect();
    b.text(&format!(
        "Master-worker with uneven work: rank 0 hands {tasks} tasks to {workers} worker(s),\n\
         round-robin (GOAL has no any-source receive: a static assignment, as a trace\n\
         of one run records it), a {task_bytes} B order each (tag = task); a worker\n\
         computes and returns {result_bytes} B; the master sends a worker its next task\n\
         when its last result is in. Work per task, us: {}.\n{}",
        work.join(" "),
        made_by(&format!(
            "master_worker({p}, {tasks}, {task_bytes}, {result_bytes})"
        ))
    ))
}

/// Lamanna's matrix benchmark as a schedule, at uniprocessor time `u_ns`, N =
/// `p` ranks, blocks of `block_bytes` (B) sent to `receivers` ranks (R): each
/// rank computes `U / N`, then sends its block to the next R ranks and receives
/// from the R before it, its receives posted from the start (Lamanna's probe
/// loop takes blocks in any order).
pub fn lamanna_matrix(p: u32, u_ns: u64, block_bytes: u64, receivers: u32) -> String {
    let mut b = Builder::new(p);
    let work = u_ns / u64::from(p);
    for r in 0..p {
        let c = b.calc(r, work, &[]);
        for k in 1..=receivers {
            b.send(r, block_bytes, (r + k) % p, 0, &[Dep::Done(c)]);
        }
        for k in 1..=receivers {
            b.recv(r, block_bytes, (r + p - k) % p, 0, &[]);
        }
    }
    b.text(&format!(
        "Lamanna's matrix benchmark (thesis ch. III, Appendix A) as a schedule, at\n\
         U = {u_ns} ns, N = {p}, B = {block_bytes} B, R = {receivers}: each rank computes\n\
         U/N = {work} ns, then sends its block to the next R ranks; its receives from\n\
         the R ranks before it are posted from the start.\n{}",
        made_by(&format!(
            "lamanna_matrix({p}, {u_ns}, {block_bytes}, {receivers})"
        ))
    ))
}

/// Bulk-synchronous phases ended by a `//@ sync METHOD` meeting of every rank:
/// `iterations` times, rank r computes `calc_ns (2 + (r + i) mod p) / 2` (so
/// the slowest rank changes from phase to phase) then meets the others through
/// `method`, as the gather and release of 0-byte messages on tag `100 + i`
/// that a plain GOAL reader replays.
pub fn bsp_sync(p: u32, iterations: u32, calc_ns: u64, method: &str) -> String {
    let mut b = Builder::new(p);
    let mark = format!("//@ sync {method}");
    let mut leave: Vec<Vec<usize>> = vec![Vec::new(); p as usize];
    for i in 0..iterations {
        let tag = 100 + i;
        let mut calcs = Vec::new();
        for r in 0..p {
            let after: Vec<Dep> = leave[r as usize].iter().map(|&k| Dep::Done(k)).collect();
            let work = calc_ns * u64::from(2 + (r + i) % p) / 2;
            calcs.push(b.calc(r, work, &after));
        }
        let mut arrive0 = Vec::new();
        for w in 1..p {
            let c = Dep::Done(calcs[w as usize]);
            let a = b.op(w, format!("send 0b to 0 tag {tag} {mark}"), &[c]);
            let l = b.op(
                w,
                format!("recv 0b from 0 tag {tag} {mark}"),
                &[Dep::Done(a)],
            );
            leave[w as usize] = vec![l];
            let c0 = Dep::Done(calcs[0]);
            arrive0.push(b.op(0, format!("recv 0b from {w} tag {tag} {mark}"), &[c0]));
        }
        let after: Vec<Dep> = arrive0.iter().map(|&k| Dep::Done(k)).collect();
        leave[0] = (1..p)
            .map(|w| b.op(0, format!("send 0b to {w} tag {tag} {mark}"), &after))
            .collect();
    }
    b.text(&format!(
        "Bulk-synchronous phases: {iterations} times, rank r computes\n\
         {calc_ns} (2 + (r + i) mod {p}) / 2 ns, then all ranks meet through\n\
         hockney-sync's {method} (`//@ sync {method}`), written as the gather and\n\
         release of 0-byte messages on tag 100 + i that a plain GOAL reader replays.\n{}",
        made_by(&format!(
            "bsp_sync({p}, {iterations}, {calc_ns}, \"{method}\")"
        ))
    ))
}
