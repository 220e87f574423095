//! `decomposition`: Krumme & Greenfield's six times F, S, R, A, U, E per transport,
//! message size and version of the background computation `Q` (sections 2 to 4,
//! 5.1 and Appendix A's program).
//!
//! Six hosted virtual nodes ([`crate::team::hosted`]) on two spinning workers,
//! one per CPU: ranks 0, 2, 4 on the first, 1, 3, 5 on the second, so every hop
//! between consecutive ranks crosses a CPU and no hop waits for a thread wake-up.
//! Rank 0 is the paper's node 0 and the only one that times; rank 1 its neighbour;
//! ranks 2 to 5 extend the chain so that rank `d` lies `d` hops from rank 0. Every
//! node has system buffers and forwards in its system, not its program (see
//! [`super::protocol`]), so the six times mean here:
//! - `F`: the write call: the copy into a system buffer, and the hand-over to the
//!   transport (its copy into the receiver's memory) when it has room;
//! - `S`: what a node's computation loses to a message it sends on, past the write
//!   call (for a forwarded message, handing the system buffer to the transport);
//! - `R`: what a node's computation loses while a message arrives: the poll that
//!   finds it and the copy out of the transport into a system buffer;
//! - `A`: the read call up to the message (a look at the delivered queue);
//! - `U`: the rest of the read call, the copy from the system buffer to the user;
//! - `E`: the elapsed time of one hop, from a message ready in the sender's system
//!   buffer to it lying in the next node's: the transport's copy in, the
//!   receiver's poll and its copy out.
//!
//! `Q` runs in chunks of about 2 µs; between chunks the worker polls the nodes it
//! hosts, rank 0's own system first, which is where a message arriving or passing
//! through takes its time from `Q`. `Q(SENDTIME)` is 10 chunks (about 20 µs: with
//! spinning workers a message of 64 KiB clears in a few µs, and the neighbour's
//! echo must land well inside the `Q(COMPTIME)` that follows) and `Q(COMPTIME)` five
//! times that, as Appendix A's 5 and 25 units. Each experiment has 100 timed
//! iterations (50 with `--quick`), every event timed on rank 0 with the clock
//! around it, run in 25 rounds: in each round the experiments at a size run in
//! turn, each as a block of 4 iterations (2 with `--quick`) after a warm-up that
//! is dropped, as Appendix A drops its first. An experiment's figure is the median
//! of its iterations from all rounds, not the paper's mean, so that the odd
//! iteration another process preempts does not decide it; the baselines
//! subtracted are timed in the same blocks with nothing in flight.
//!
//! *Rounds.* The solve takes differences of the experiments' figures (`A` comes
//! out as `(A + U) − (F + E + U) + (F + S) − (R + S) + R + E`), so it holds
//! whatever changed between the times they were measured. Run whole, one after
//! the other, each experiment saw the machine only as it was during its own
//! milliseconds, and a virtual machine's speed changes at that scale: on a
//! two-vCPU AMD EPYC VM (Zen 3) a hop of 64 KiB took 3.6 µs in one state and
//! 13 µs in the other, and `E` at 16 B ran from 240 to 640 ns between runs. In
//! rounds every experiment samples the same stretch of time. On that VM, three
//! sets of interleaved `--quick` runs; the median over a run's points of the
//! deviation over its five repetitions, as a fraction of `E`, and the points
//! below zero by more than their deviation:
//!
//! | rounds | runs | `U` | `A` | points below zero |
//! |---|---|---|---|---|
//! | 1 / 5 | 12 each | 0.197 / 0.119 | 0.237 / 0.148 | 8 / 5 |
//! | 5 / 10 / 25 | 10 each | 0.108 / 0.104 / 0.086 | 0.133 / 0.124 / 0.116 | 6 / 13 / 10 |
//! | 1 / 25 | 7 each | 0.168 / 0.093 | 0.193 / 0.118 | 11 / 3 |
//!
//! The deviations of `U` and `A` narrow by about 40 %; the points below zero
//! did not fall in step, because narrower deviations also bare what is biased
//! rather than noisy: the channel's `U` at 16 B (its first link cheaper than a
//! hop further on) and `A` at 64 KiB (see item 5). Blocks of a twenty-fifth cost
//! a warm-up iteration each: `--quick` takes about 13 s instead of 9 to 11.
//!
//! *Probes.* Before and after each size's team run, the two CPUs' round trip of
//! a cache line and of 64 KiB are timed (`cpu_round_trip_ns`,
//! `cpu_round_trip_64k_ns`; rows `RT line` and `RT 64K`), and a run whose 64 KiB
//! probes span more than half again their least is flagged: it was measured in
//! more than one state of the machine. On the EPYC VM the probes found two
//! states, each lasting from milliseconds to minutes, and nothing between: a
//! line's round trip of 77 to 107 ns and 64 KiB's of 7.3 to 9.5 µs in one
//! (*near* below), 330 to 390 ns and 22 to 26 µs in the other (*far*: as if the
//! host had put the two virtual CPUs on different dies). Over eight `--quick` runs, medians of the
//! points measured in one state throughout, integer and floating-point `Q`
//! together:
//!
//! | mailbox, ns | `E` 16 B | `E` 64 KiB | `S` 64 KiB | `F` 64 KiB | `U` 64 KiB | `A` 64 KiB | `A + U` 64 KiB |
//! |---|---|---|---|---|---|---|---|
//! | near | 239 | 4109 | 1909 | 1490 | 1141 | 298 | 1430 |
//! | far | 523 | 13 094 | 8871 | 1026 | 2298 | −823 | 1459 |
//!
//! A copy within a CPU (the timed read `A + U`) costs the same in both; what
//! crosses between the CPUs costs 2.2 to 4.6 times as much in the far state,
//! and there the costs no longer add: a forward's hand-over (`S`, from test 5)
//! exceeds the write call's (in `F + S`, test 4) by more than in the near
//! state, so `F` falls below the copy it is, and test 6's ends cost about 1 µs
//! more than the timed read and write, which the solve puts into `U` and takes
//! from `A`. Of the 45 points whose median probe was near, none had a parameter
//! below zero by more than its deviation; of the 147 far, 31 had: `A` at 64 KiB
//! at 24 of the 25 such points, the mailbox's `A` at 1500 B at 5, and 2 more at
//! the paper's sizes.
//!
//! *Lost computation* (`R`, `R + S`, the `S` in `F + S`) is timed where it is
//! taken: around each poll of rank 0's own system inside the `Q`; the polls that
//! moved something, less as many of the same `Q`'s idle polls
//! ([`super::protocol::q_sys`]). The paper timed the whole `Q`, with a 140 µs
//! clock; here the whole `Q(COMPTIME)` is 100 µs of chunks whose jitter on a
//! virtual machine (about 1 µs) exceeds the costs measured, while the chunks
//! themselves are register-only and cannot be slowed by the messages. The
//! whole-`Q` excesses are reported beside (`r_whole_q_ns`, `r_plus_s_whole_q_ns`,
//! `f_plus_s_whole_q_ns`): on a quiet machine their medians run 0 to 150 ns
//! above the polls' (they also hold the polls of the ranks co-hosted with rank 0,
//! and whatever slows the chunks after a message), with a spread up to ten times
//! larger.
//!
//! *The clock* costs about one read (18 ns with the TSC on the Xeon VM this was
//! measured on) inside every interval, where the paper's 140 µs clock cost
//! nothing worth naming. Left in, the figures timed directly (`A + U`, the write
//! call, the echoes, test 6) carry it once each, and the solve makes it
//! `F + c`, `U − c/2` and `A + 3c/2`: 26 ns on an `A` of about 20. So the run's
//! measured read overhead ([`crate::platform::ClockInfo::read_overhead_ns`],
//! Hockney's T0, which the other kernels subtract too) is taken from each of
//! them, and each point says how much (`clock_ns`); the differences of timed
//! polls need no correction. Before this
//! correction the solved `A` stood 26 ns higher; the one-link figures quoted
//! below (item 5 and the wash table) were measured then and stand about 17 ns
//! lower than the same runs would give now.
//!
//! Every system action ends with a full fence
//! ([`super::protocol::system_return`]): its buffered stores are its own cost.
//! Each size runs on its own team run with system and transport buffers of that
//! size (see `run_on`: buffers sized for the longest message put every hop's
//! copies into the same cache sets), and as many transport slots a lane as keep
//! every hop at one cost (see `slots_for`).
//!
//! Every iteration of every experiment ends, after what it times, with a wash of
//! both CPUs' private caches ([`crate::team::hosted::Host::wash_caches`]: each
//! worker reads twice its L1 data cache, 96 KiB on the Xeon this was measured
//! on), so that every iteration finds the transport's and the nodes' memory in
//! the same place. Without it, where a hop found its lines depended on how much
//! the echo had touched since they were last used, which grows with `d`: the
//! mailbox's half-increments `(T_{d+1} − T_d) / 2` fell along the chain (at
//! 1500 B 868, 761, 574, 617 ns; at 2000 B 985, 855, 779, 683), and the
//! channel's first link came out cheaper than `E`. The NCUBE's DMA moved
//! messages through memory with no caches to remember the previous iteration.
//! Over the paper's sizes, the one-link check (item 5) averaged, per run:
//!
//! | | mailbox | channel | points below zero by more than their deviation |
//! |---|---|---|---|
//! | no wash (12 default runs) | +26 to +121 ns | −207 to +11 ns | 51: 20 mailbox, 31 channel |
//! | wash (12 default runs) | +30 to +109 ns | −21 to +16 ns | 14: 11 mailbox `A` at 16 to 2000 B (6 at 500 B), 3 channel |
//!
//! A wash beyond the L2 (4 MiB) was worse: it also drove the nodes' own buffers
//! and code out, which the echo's two ends pay and the hops do not, and put `A`
//! below zero at every size.
//!
//! 1. echo at distance `d = 1..5` (3.2): rank 0 writes and reads the echo; ranks
//!    `1..d-1` forward it in their systems; rank `d` reads it and writes it back at
//!    once (`X = 0`). `T_d` is the time from before the write to after the read,
//!    and `E = (T_{d+1} − T_d) / 2`. Appendix A's `X` only gave node 0 time to
//!    issue its read, which a polled rank 0 does within a microsecond; a delay on
//!    rank `d`'s CPU is not timed by rank 0, and a `Q(SENDTIME)` of op chunks
//!    differs by hundreds of ns between the two CPUs' poll rounds, which went into
//!    `E`. With `X = 0`, `T_1` is test 6 below, so `U` is solved from the same
//!    hops `E` was. Again *busy*, with `X = Q(SENDTIME)` and `Q(SENDTIME)` after
//!    the writes on rank 0 and rank `d` (less `Q(SENDTIME)`): section 5.1's
//!    comparison, the other way round. On two CPUs every forwarder shares its CPU
//!    with a node that computes in the busy echo, so its hops also wait for a chunk
//!    boundary (the emulated interrupt latency, up to 2 µs), which the direct hops
//!    of test 6 do not; so the solve takes `E` from the idle echo, and `E` busy is
//!    reported beside it (`e_busy_ns`). The idle echo is kept at every distance
//!    (`echo_idle_d1_ns` to `echo_idle_d5_ns`), with its first and last
//!    half-increments (`e_d1_d2_ns`, `e_d4_d5_ns`; rows `E d1-d2` and `E d4-d5`
//!    of Tables 1 and 2): the paper's model is a line in `d`, and where it is
//!    not, `E` is the mean of unequal links (item 5).
//! 2. tests 2 to 4 of Appendix A, one loop: rank 0 writes, runs `Q(SENDTIME)`, then
//!    `Q(COMPTIME)` during which rank 1's echo arrives in rank 0's system: what
//!    its system took from it beyond the baseline is `R`; the timed read of that
//!    arrived message is `A + U`; a timed write and what the system took from the
//!    `Q(SENDTIME)` after it, beyond the baseline, is `F + S`. Iterations whose
//!    echo had not arrived when `Q(COMPTIME)` ended (or had before it began) are
//!    left out of `R` and `A + U` and counted. The timed write goes to rank 3,
//!    which reads it: the lane the forward of test 5 uses, one message an
//!    iteration in both. A transport refreshes its credit every few sends (the
//!    mailbox every second send on a two-slot lane), and on a lane with two
//!    messages an iteration the refresh fell always on the timed write or never:
//!    `F = (F + S) − S` moved by its cost (about 50 ns), and `U` and `A` with it.
//! 3. test 5, `R + S`: rank 0 writes to rank 1 and runs `Q(SENDTIME)`; rank 1
//!    writes the message back to rank 0, whose system forwards it to rank 3 (as the
//!    NCUBE's node 0 forwarded node 1's message to node 2) during `Q(COMPTIME)`;
//!    what its system took from it beyond the baseline is `R + S`. Rank 0 counts
//!    the forwards, so an iteration whose forward fell outside the `Q` is known
//!    and left out. Rank 1 waits for the next message right after its write, as
//!    in tests 2 to 4, without Appendix A's `Q(SENDTIME)`: on the NCUBE that `Q`
//!    ran on node 1 alone, here it would run on the worker that also hosts
//!    rank 3, which would then look for the forward only between chunks. The
//!    forward's hand-over then met a receiver that was not polling, cheaper than
//!    the timed write's in test 4 (whose receiver polls), and `S` came out low:
//!    by about 40 ns with the channel, whose `F` fell from 80-160 to 55-110 ns
//!    at the paper's sizes when the two were made alike.
//! 4. test 6, `2 (F + E + U)`: rank 0 writes and reads at once; rank 1, reading
//!    already, writes the message back at once (`X = 0`, as in the idle echo).
//! 5. a check of the model, not in the paper: test 6 again with rank 1 returning
//!    the message in its system (a route back to rank 0) instead of reading it
//!    and writing it (`twice_f_e_u_system_ns`). By the model the difference from
//!    test 6 is rank 1's `F + U`; where it is not, the costs do not add up.
//!    The excess over `2E + F + (A + U)` is also what a negative `A` is
//!    explained by. With the wash, at the paper's sizes, over twelve runs on
//!    this machine, it averaged +30 to +109 ns for the mailbox and −21 to
//!    +16 ns for the channel: the mailbox's first link still costs more than a
//!    hop further along, though its half-increments are now level (at 500 B
//!    379, 368, 307, 379 ns). Where the buffers lie moves it further (−210 to
//!    +500 ns with every buffer at one page offset, a trial without the wash
//!    that allocated each from the OS by itself). `U` and `A` are 10 to 150 ns
//!    there, so the mailbox's `A` can go below zero by more than the
//!    repetitions' deviation. Part of the mailbox's excess was its own: it
//!    wrote a chunk's length into the header line the receiver polls before
//!    the payload, so that line crossed to the sender twice a message. With the
//!    length written after the payload, interleaved runs on the same day gave
//!    +24 to +94 ns over 26 runs against +48 to +96 ns over 9 with the old
//!    order, and 1.8 of the mailbox's points at the paper's sizes below zero
//!    a run against 2.8; its solved `A`, mean over those runs, went from
//!    −34, −79, −7, −18, +13 ns at 16, 500, 1000, 1500, 2000 B to −19, −29,
//!    −14, −3, +33 ns, against 16 to 19 ns timed alone. A trial build that
//!    read the TSC (between `lfence`s) on both CPUs at every step of the
//!    echoes at 16 B (not kept: each reading costs about 10 ns) put much of
//!    the rest in the hops, not in the echo's ends. The ends cost what the
//!    solve says: rank 0's write call, rank 1's read and write and rank 0's
//!    read from the message on took 415 ns against two forwards' 326, so
//!    `F + U` = 44 ns against 42 from the solve. But from the sender's fence
//!    to the receiver's copy done, a hop that follows a write call took 185
//!    to 190 ns out of rank 0 and 170 to 196 ns out of the echo's far end
//!    (means 188 and 182), and one that follows a forward 160 to 184 ns (mean
//!    170). Test 6's two hops both follow write calls, while the hops that
//!    `E` adds at each `d` follow forwards: the paper's "comparable and small"
//!    difference between a sent and a forwarded message (section 2) is about
//!    15 ns a hop here, which the solve puts into `U` and takes from `A`.
//!    Three further trials did not remove it: rank 0 waiting with one look at
//!    its queues a round instead of two, its buffers at random offsets in
//!    their pages, and a chunk of `Q` after each wash so that every poller is
//!    warm when the echo starts.
//!    Part of it is the first message after an idle spell. In tests 2 to 5
//!    every timed event follows other messages of the same iteration; in test
//!    6, the check and the echoes the timed write is the first message since
//!    the wash. A trial (not kept) sent an untimed echo through rank 5 (rank
//!    0's write, rank 5's system returning it, rank 0's read) before each of
//!    them: unlike the chunk of `Q` above, it runs the message paths. Over 14
//!    `--quick` runs against 14 interleaved without it, the check's excess at
//!    the paper's sizes went from +51 to +16 ns for the mailbox and from +2 to
//!    −24 ns for the channel, where the model puts it at −A (−17 and −21 ns
//!    with `A` timed alone), and the mailbox's solved `A` went from −36, −27,
//!    −11, −1, +50 ns at 16 to 2000 B to −8, +10, +6, +9, +51. But the
//!    channel's `A` rose to 30 to 73 ns at 500 to 2000 B and its `U` fell to 4
//!    ns at 1500 B: its points below zero by more than their deviation went
//!    from 3 to 9, while the mailbox's went from 19 to 7. The other end of test
//!    6 does not add up either, and the warm-up does not touch it: rank 1's
//!    read and write (test 6 less the check) cost about 30 ns less than `F +
//!    U`, with `U = (A + U) − A alone`, for both transports (−25 and −33 ns,
//!    means over those runs). A fence after each of rank 1's calls, as rank 0's
//!    calls have, did not change that. Neither did a random delay after the
//!    wash (0 to 1023 turns of an empty loop, so that the first hop does not
//!    meet the receiver's poll loop always at one phase), nor block figures
//!    taken as means trimmed by 10 or 25 % instead of medians (the solve is
//!    linear and a median is not: the write call at 500 B has two modes, about
//!    140 and 270 ns, in proportions that vary from block to block).
//!    What the mailbox's first-link excess was, at least at 16 B: the echo was
//!    not a line in `d`. Its half-increments fell along the chain, at 16 B
//!    (means of four sets of 3 to 6 `--quick` runs on the Xeon) 312, 282, 256
//!    and 241 ns for the mailbox and 545, 535, 535 and 528 ns for the channel.
//!    Trial builds that dealt the chain in other orders found the dear links by
//!    the ranks they joined, not by their place (the link between ranks 1 and 2
//!    289 to 306 ns a half wherever it lay, the one between 4 and 5 228 to 258).
//!    The cause was the mailroom's scan ([`crate::team::hosted::Mailroom::pump`]):
//!    it looked at its sources in the order 0, 1, … and handed forwarded messages
//!    on after the whole scan, so a message waited at each node for one look at
//!    every source numbered above the one it came from. Counting those looks, an
//!    order of the chain predicts each of its half-increments (in the paper's
//!    order 3, 2, 1, 0 half-looks along it; reversed 0, 1, 2, 3), and the 20
//!    half-increments of the five orders fit `242 + 18 k` ns, `k` the half-looks,
//!    with an rms of 9 ns (a cost for each rank fitted them to 23 ns). In the
//!    paper's order test 6's link, which no difference of echoes isolates, held
//!    more looks than `E`'s mean hop, and the solve put the difference into `U`
//!    and took it from `A`. The scan now begins after the node's own rank and
//!    forwards at once, so every node of the chain `0, 1, 2, …` holds a message
//!    alike: a forwarder hands it on before its next look, and the chain's end
//!    finds it from `rank - 1` at its last look. On a two-vCPU AMD EPYC VM
//!    (Zen 3), 14 interleaved `--quick` runs of each build: the mailbox's
//!    half-increments at 16 B with the integer `Q`, 503, 494, 528 and 462 ns
//!    before, 395, 397, 378 and 376 ns after; points below zero by more than
//!    their deviation 20 before (10 at the paper's sizes, 10 at 64 KiB), 10
//!    after (3 and 7). When an `A` falls below zero and the half-increments
//!    fall, the warning gives both.
//! 6. `A` alone, also not in the paper (whose read call could not be stopped
//!    before the message): in test 2's loop, with nothing in flight, a read
//!    call's first look at its queues, which finds nothing, timed by itself
//!    ([`super::protocol::read_before_arrival`]; `a_alone_ns`). It is the part of
//!    the read that runs before the message arrives, as the emulated read
//!    defines it, without the differences of the solve: 19 to 20 ns for the
//!    mailbox and 21 ns for the channel at each of the paper's sizes on the Xeon
//!    VM (22 to 25 ns at 64 KiB), against a solved `A` of −35 to +18 ns
//!    (mailbox) and −44 to +19 ns (channel), means over six default runs. Where
//!    the two differ, the costs of the echo do not add up as the model assumes
//!    (item 5), and the solve, which takes `A` last, holds the difference.
//!
//! Then `E, R, S, F, U, A` are solved in the paper's order
//! ([`crate::model::decomposition::solve`]). The whole experiment is repeated five
//! times (`--trials`); the points give mean and standard deviation per parameter
//! and size (Tables 1 and 2; their medians are there too) and the fits the lines
//! `X0 + X1 n` with R^2 over the paper's sizes (Table 3) and over all sizes, fitted
//! to the medians over repetitions so that one disturbed repetition does not tilt
//! them (on a quiet machine median and mean agree).

use super::background::{Background, QKind};
use super::protocol::{
    Block, CHUNK, Node, Op, Samples, cache_sizes, check_len, cpu_pair, hosted_team, interrupted,
    ns, q, q_sys, read, read_before_arrival, system_return, wash_bytes, write,
};
use crate::control::{Placement, RankError};
use crate::kernels::{KernelError, KernelSpec, RunContext};
use crate::model::decomposition::{ExperimentTimes, ParameterLines, Parameters, fit_lines, solve};
use crate::model::fit::LineFit;
use crate::model::stats::summarize;
use crate::platform::{LineAligned, Topology};
use crate::results::num;
use crate::results::{FitResult, KernelResult, Point};
use crate::team::hosted::{Host, HostedTeam};
use crate::team::{Team, TeamError};
use crate::transport::channel::Channel;
use crate::transport::mailbox::Mailbox;
use crate::transport::{Endpoint, Transport, TransportConfig, TransportKind};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// The kernel's name, as users type it and its results carry it.
pub const NAME: &str = "decomposition";

pub(super) const DECOMPOSITION: KernelSpec = KernelSpec {
    name: NAME,
    method: "krumme-greenfield",
    paper: "Krumme & Greenfield 1988, sections 2-4 and 5.1, Tables 1-3, Appendix A",
    about: "the six message-cost times F S R A U E per transport, size and integer/floating-point Q, with lines X0 + X1 n",
    in_quick_suite: true,
    run,
};

/// The paper's message sizes (Tables 1 to 3), bytes.
pub const PAPER_SIZES: [usize; 5] = [16, 500, 1000, 1500, 2000];
/// The longer sweep beyond the paper's sizes.
const LONG_SIZES: [usize; 3] = [4096, 16_384, 65_536];
/// The longest echo distance: `d = 1..=MAX_DISTANCE` hops.
const MAX_DISTANCE: usize = 5;
/// Ranks: rank 0 and one per hop.
const RANKS: usize = MAX_DISTANCE + 1;
/// Target length of `Q(SENDTIME)`: long enough for a 64 KiB message to clear and
/// for the neighbour's echo to land inside the `Q(COMPTIME)` that follows.
pub(super) const SENDTIME: Duration = Duration::from_micros(20);
/// Repetitions of the whole experiment (section 4: "repeated five times").
const REPETITIONS: usize = 5;

/// Rounds of the experiments at a size: each runs a twenty-fifth of its
/// iterations in each (4, or 2 with `--quick`), in turn with the others, and its
/// figure is the median of all its iterations (see the module doc).
const ROUNDS: usize = 25;

/// Below this R^2 a line of E, F or U is flagged.
const R2_THRESHOLD: f64 = 0.9;

/// Timed iterations of each experiment, over all rounds (Appendix A's NOTIMES).
fn notimes(quick: bool) -> u64 {
    if quick { 50 } else { 100 }
}

/// The sizes a run sweeps.
fn sizes(ctx: &RunContext<'_>) -> Vec<usize> {
    if let Some(s) = &ctx.config.sizes {
        return s.clone();
    }
    let mut s = PAPER_SIZES.to_vec();
    if ctx.config.quick {
        s.push(65_536);
    } else {
        s.extend(LONG_SIZES);
    }
    s
}

/// One experiment of the plan, as both rank 0 and the scripts see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Experiment {
    /// Echo at distance `d`, with `Q` after the writes or idle.
    Echo { d: usize, busy: bool },
    /// Tests 2 to 4.
    Neighbour,
    /// Test 5.
    RPlusS,
    /// Test 6.
    Efu,
    /// Test 6 with rank 1 returning the message in its system.
    EfuSystem,
}

/// The experiments at one size, in rank 0's order.
fn experiments_at_size() -> Vec<Experiment> {
    let echo = |busy| (1..=MAX_DISTANCE).map(move |d| Experiment::Echo { d, busy });
    echo(true)
        .chain([
            Experiment::Neighbour,
            Experiment::RPlusS,
            Experiment::Efu,
            Experiment::EfuSystem,
        ])
        .chain(echo(false))
        .collect()
}

/// Rank `rank`'s part of `e` at `reps + 1` iterations; `bg` gives the lengths.
pub(super) fn script_of(rank: usize, e: Experiment, reps: u64, bg: &Background) -> Vec<Block> {
    let (st, times) = (bg.send_chunks, reps + 1);
    let each = |ops: Vec<Op>| vec![Block { ops, times }];
    match e {
        Experiment::Echo { d, .. } if rank < d && rank > 0 => vec![Block::once(vec![
            Op::Route {
                from: rank - 1,
                to: rank + 1,
                count: times,
            },
            Op::Route {
                from: rank + 1,
                to: rank - 1,
                count: times,
            },
            Op::AwaitRoutes,
        ])],
        Experiment::Echo { d, busy: true } if rank == d => each(vec![
            Op::Read(rank - 1),
            Op::Compute(st),
            Op::Write(rank - 1),
            Op::Compute(st),
        ]),
        Experiment::Echo { d, busy: false } if rank == d => {
            each(vec![Op::Read(rank - 1), Op::Write(rank - 1)])
        }
        Experiment::Neighbour if rank == 1 => each(vec![
            Op::Read(0),
            Op::Compute(st),
            Op::Compute(st), // the echo lands inside rank 0's Q(COMPTIME)
            Op::Write(0),
        ]),
        Experiment::Neighbour if rank == 3 => each(vec![Op::Read(0)]),
        Experiment::RPlusS if rank == 1 => each(vec![
            Op::Read(0),
            Op::Compute(st),
            Op::Compute(st), // passes through rank 0 inside its Q(COMPTIME)
            Op::Write(0),
        ]),
        Experiment::RPlusS if rank == 3 => each(vec![Op::Read(0)]),
        Experiment::Efu if rank == 1 => each(vec![Op::Read(0), Op::Write(0)]),
        Experiment::EfuSystem if rank == 1 => vec![Block::once(vec![
            Op::Route {
                from: 0,
                to: 0,
                count: times,
            },
            Op::AwaitRoutes,
        ])],
        _ => Vec::new(),
    }
}

/// Rank 0's figures of tests 2 to 4 (Appendix A) for one size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct NeighbourTimes {
    /// What rank 0's system took from `Q(COMPTIME)` while the echo arrived, beyond
    /// what it takes with nothing in flight: `R`.
    pub(super) r_ns: f64,
    /// The same from the whole `Q(COMPTIME)`, timed as the paper did (its excess
    /// over `Q(COMPTIME)` alone), for comparison.
    pub(super) r_whole_q_ns: f64,
    /// Timed read of the arrived echo: `A + U`.
    pub(super) a_plus_u_ns: f64,
    /// A read call with nothing in flight, up to where it would wait: `A` timed
    /// by itself ([`read_before_arrival`]), a check on the solved `A`.
    pub(super) a_alone_ns: f64,
    /// The clock's read overhead, subtracted from every figure above timed
    /// directly.
    pub(super) clock_ns: f64,
    /// The write call alone.
    pub(super) send_call_ns: f64,
    /// The write call and what rank 0's system took from the `Q(SENDTIME)` after
    /// it, beyond its share with nothing in flight: `F + S`.
    pub(super) f_plus_s_ns: f64,
    /// Write then `Q(SENDTIME)` timed whole, less `Q(SENDTIME)` alone.
    pub(super) f_plus_s_whole_q_ns: f64,
    /// Iterations whose echo had not arrived when `Q(COMPTIME)` ended, or had
    /// before it began (dropped from `R` and `A + U`).
    pub(super) late: u64,
}

/// The hosted team's rank 0, as the experiments use it.
type Rank0<'h, 'a, E> = &'h mut Host<'a, E, Node>;

/// One round of tests 2 to 4 on rank 0, neighbour rank 1 (the timed write to
/// rank 3), added to `acc`. Each iteration ends with `Q(COMPTIME)` and
/// `Q(SENDTIME)` timed with nothing in flight, the baselines.
#[inline(never)]
fn rank0_neighbour<E: Endpoint>(
    host: Rank0<'_, '_, E>,
    bg: &Background,
    out: &[u8],
    inbuf: &mut [u8],
    reps: u64,
    acc: &mut NeighbourSamples,
) -> Result<(), RankError> {
    let (st, ct) = (bg.send_chunks, bg.comp_chunks);
    for a in 0..=reps {
        write(host, 1, out)?;
        q(host, bg, st)?;
        // An echo already here (a preempted Q(SENDTIME)) did not arrive inside.
        let early = host.parts().0.room.arrived(1);
        let t0 = Instant::now();
        let sys_r = q_sys(host, bg, ct)?;
        let arrived = !early && host.parts().0.room.arrived(1);
        let t1 = Instant::now();
        let n = read(host, 1, inbuf)?;
        let t2 = Instant::now();
        write(host, 3, out)?;
        let t3 = Instant::now();
        let sys_s = q_sys(host, bg, st)?;
        let t4 = Instant::now();
        check_len(n, out.len())?;
        // Baselines of the whole-Q figures: nothing is in flight now (rank 1
        // waits for the next message). The same code as the Qs they are the
        // baselines of, kept whole (the clock reads around the polls are about
        // 2 µs of a Q(COMPTIME)).
        let b0 = Instant::now();
        black_box(q_sys(host, bg, ct)?);
        let b1 = Instant::now();
        black_box(q_sys(host, bg, st)?);
        let b2 = Instant::now();
        read_before_arrival(host, 1, inbuf)?;
        let b3 = Instant::now();
        system_return();
        if a > 0 {
            if arrived {
                acc.r.push(ns(t0, t1));
                acc.r_sys.push(sys_r.excess_ns());
                acc.au.push(ns(t1, t2));
            } else {
                acc.late += 1;
            }
            acc.call.push(ns(t2, t3));
            acc.fs.push(ns(t2, t4));
            acc.fs_sys.push(ns(t2, t3) + sys_s.excess_ns());
            acc.comp.push(ns(b0, b1));
            acc.send.push(ns(b1, b2));
            acc.alone.push(ns(b2, b3));
        }
        host.wash_caches()?;
    }
    Ok(())
}

/// Rank 0's samples of tests 2 to 4 at one size, pooled over the rounds.
struct NeighbourSamples {
    r: Samples,
    r_sys: Samples,
    au: Samples,
    call: Samples,
    fs: Samples,
    fs_sys: Samples,
    comp: Samples,
    send: Samples,
    alone: Samples,
    late: u64,
}

impl NeighbourSamples {
    /// Room for `reps` iterations.
    fn new(reps: u64) -> NeighbourSamples {
        let [r, r_sys, au, call, fs, fs_sys, comp, send, alone] =
            std::array::from_fn(|_| Samples::new(reps));
        NeighbourSamples {
            r,
            r_sys,
            au,
            call,
            fs,
            fs_sys,
            comp,
            send,
            alone,
            late: 0,
        }
    }

    /// The block's figures, `clock_ns` taken from those timed directly.
    fn times(&self, clock_ns: f64) -> NeighbourTimes {
        // The whole-Q figures are differences of intervals, where the clock cancels.
        let c = clock_ns;
        NeighbourTimes {
            r_ns: self.r_sys.median(),
            r_whole_q_ns: self.r.median() - self.comp.median(),
            a_plus_u_ns: self.au.median() - c,
            a_alone_ns: self.alone.median() - c,
            clock_ns: c,
            send_call_ns: self.call.median() - c,
            f_plus_s_ns: self.fs_sys.median() - c,
            f_plus_s_whole_q_ns: self.fs.median() - self.send.median(),
            late: self.late,
        }
    }
}

/// Rank 0's figures of test 5.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct ForwardTimes {
    /// What rank 0's system took from `Q(COMPTIME)` while it forwarded the
    /// message, beyond what it takes with nothing in flight: `R + S`.
    pub(super) r_plus_s_ns: f64,
    /// The same from the whole `Q(COMPTIME)`, timed as the paper did.
    pub(super) r_plus_s_whole_q_ns: f64,
    /// Iterations whose forward fell outside the timed `Q` (left out).
    pub(super) late: u64,
}

/// Test 5 on rank 0 in one block: `R + S`, and the iterations whose forward
/// fell outside the timed `Q`. Each iteration ends with a baseline `Q(COMPTIME)`
/// with nothing in flight.
#[inline(never)]
pub(super) fn rank0_rs<E: Endpoint>(
    host: Rank0<'_, '_, E>,
    bg: &Background,
    out: &[u8],
    reps: u64,
) -> Result<ForwardTimes, RankError> {
    let mut acc = ForwardSamples::new(reps);
    rank0_forward(host, bg, out, reps, &mut acc)?;
    Ok(acc.times())
}

/// One round of test 5 on rank 0, added to `acc`.
#[inline(never)]
fn rank0_forward<E: Endpoint>(
    host: Rank0<'_, '_, E>,
    bg: &Background,
    out: &[u8],
    reps: u64,
    acc: &mut ForwardSamples,
) -> Result<(), RankError> {
    let (st, ct) = (bg.send_chunks, bg.comp_chunks);
    host.parts().0.room.route(1, 3, reps + 1)?;
    for a in 0..=reps {
        let before = host.parts().0.room.forwarded();
        write(host, 1, out)?;
        q(host, bg, st)?;
        // A forward already done here (a preempted Q(SENDTIME)) is not inside.
        let early = host.parts().0.room.forwarded() > before;
        let t0 = Instant::now();
        let sys = q_sys(host, bg, ct)?;
        let t1 = Instant::now();
        let inside = !early && host.parts().0.room.forwarded() > before;
        host.wait_until(1, |node, _| {
            Ok((node.room.forwarded() > before && node.room.sent_all()).then_some(()))
        })?;
        q(host, bg, st)?;
        let b0 = Instant::now();
        black_box(q_sys(host, bg, ct)?);
        let b1 = Instant::now();
        if a > 0 {
            if inside {
                acc.rs.push(ns(t0, t1));
                acc.rs_sys.push(sys.excess_ns());
            } else {
                acc.late += 1;
            }
            acc.comp.push(ns(b0, b1));
        }
        host.wash_caches()?;
    }
    Ok(())
}

/// Rank 0's samples of test 5 at one size, pooled over the rounds.
pub(super) struct ForwardSamples {
    rs: Samples,
    rs_sys: Samples,
    comp: Samples,
    late: u64,
}

impl ForwardSamples {
    /// Room for `reps` iterations.
    fn new(reps: u64) -> ForwardSamples {
        let [rs, rs_sys, comp] = std::array::from_fn(|_| Samples::new(reps));
        ForwardSamples {
            rs,
            rs_sys,
            comp,
            late: 0,
        }
    }

    /// The figures.
    fn times(&self) -> ForwardTimes {
        ForwardTimes {
            r_plus_s_ns: self.rs_sys.median(),
            r_plus_s_whole_q_ns: self.rs.median() - self.comp.median(),
            late: self.late,
        }
    }
}

/// One round of test 6 on rank 0: `2 (F + E + U)`, the neighbour echoing at
/// once (`X = 0`), added to `efu`.
#[inline(never)]
fn rank0_efu<E: Endpoint>(
    host: Rank0<'_, '_, E>,
    bg: &Background,
    out: &[u8],
    inbuf: &mut [u8],
    reps: u64,
    efu: &mut Samples,
) -> Result<(), RankError> {
    for a in 0..=reps {
        let t0 = Instant::now();
        write(host, 1, out)?;
        let n = read(host, 1, inbuf)?;
        let t1 = Instant::now();
        check_len(n, out.len())?;
        q(host, bg, bg.send_chunks)?;
        if a > 0 {
            efu.push(ns(t0, t1));
        }
        host.wash_caches()?;
    }
    Ok(())
}

/// One round of the echo at distance `d` on rank 0: `T_d`, and `Q(SENDTIME)`
/// timed in the same iterations with nothing in flight, added to `acc`.
#[inline(never)]
fn rank0_echo<E: Endpoint>(
    host: Rank0<'_, '_, E>,
    bg: &Background,
    out: &[u8],
    inbuf: &mut [u8],
    reps: u64,
    busy: bool,
    acc: &mut EchoSamples,
) -> Result<(), RankError> {
    let st = bg.send_chunks;
    let EchoSamples { t, x } = acc;
    for a in 0..=reps {
        let t0 = Instant::now();
        write(host, 1, out)?;
        if busy {
            q(host, bg, st)?;
        }
        let n = read(host, 1, inbuf)?;
        let t1 = Instant::now();
        check_len(n, out.len())?;
        q(host, bg, st)?;
        let b0 = Instant::now();
        q(host, bg, st)?;
        let b1 = Instant::now();
        if a > 0 {
            t.push(ns(t0, t1));
            x.push(ns(b0, b1));
        }
        host.wash_caches()?;
    }
    Ok(())
}

/// Rank 0's samples of one echo at one size, pooled over the rounds: `T_d`, and
/// `Q(SENDTIME)` timed alone.
struct EchoSamples {
    t: Samples,
    x: Samples,
}

impl EchoSamples {
    /// Room for `reps` iterations.
    fn new(reps: u64) -> EchoSamples {
        EchoSamples {
            t: Samples::new(reps),
            x: Samples::new(reps),
        }
    }

    /// The median `T_d`, less `Q(SENDTIME)` when busy, else the clock's overhead.
    fn time(&self, busy: bool, clock_ns: f64) -> f64 {
        // Busy, the Q(SENDTIME) subtracted was timed with the clock too.
        self.t.median() - if busy { self.x.median() } else { clock_ns }
    }
}

/// Everything rank 0 measured at one size in one repetition.
#[derive(Debug, Clone)]
struct SizeTimes {
    size: usize,
    /// `T_1 .. T_5` with `Q` after the writes.
    echo_busy: Vec<f64>,
    /// The same with the processors idle (section 5.1).
    echo_idle: Vec<f64>,
    neighbour: NeighbourTimes,
    forward: ForwardTimes,
    twice_f_e_u: f64,
    /// Test 6 with rank 1 returning the message in its system.
    twice_f_e_u_system: f64,
    /// The two CPUs' round trips just before and just after the team run of
    /// this size ([`probe`]; NaN on one CPU).
    probes: [Probe; 2],
}

/// One repetition of the whole experiment.
#[derive(Debug, Clone)]
struct Repetition {
    sizes: Vec<SizeTimes>,
}

/// Settings of one run of the experiment on one transport and `Q`.
#[derive(Clone, Copy)]
struct Plan<'a> {
    bg: Background,
    sizes: &'a [usize],
    reps: u64,
    /// The clock's read overhead, ns, taken from every interval timed directly.
    clock_ns: f64,
    repetitions: usize,
    /// Rounds of the experiments at each size; each experiment's iterations are
    /// split evenly between them and pooled.
    rounds: usize,
    /// What a lane's slots span for longer messages ([`lane_span`]).
    lane_span: usize,
    /// The two CPUs' round trips now ([`probe`]).
    probe: &'a (dyn Fn() -> Result<Probe, KernelError> + Sync),
    on_size: &'a (dyn Fn(usize) + Sync),
    cancelled: &'a (dyn Fn() -> bool + Sync),
}

impl Plan<'_> {
    /// Timed iterations of each experiment in one round.
    fn per_round(&self) -> u64 {
        self.reps.div_ceil(self.rounds.max(1) as u64)
    }
}

/// The whole plan in order: (repetition, size, experiment), each experiment
/// once a round.
fn plan_steps(plan: &Plan<'_>) -> Vec<(usize, usize, Experiment)> {
    let mut steps = Vec::new();
    for rep in 0..plan.repetitions {
        for &size in plan.sizes {
            for _ in 0..plan.rounds {
                for e in experiments_at_size() {
                    steps.push((rep, size, e));
                }
            }
        }
    }
    steps
}

/// Rank 0's program.
fn rank0<E: Endpoint>(
    host: &mut Host<'_, E, Node>,
    plan: &Plan<'_>,
) -> Result<Vec<Repetition>, RankError> {
    let max = plan.sizes.iter().copied().max().unwrap_or(0);
    let out = LineAligned::from_fn(max, |i| (i % 251) as u8);
    let mut inbuf = LineAligned::filled(max.max(32), 0u8);
    let (bg, clock_ns) = (&plan.bg, plan.clock_ns);
    let (per_round, total) = (plan.per_round(), plan.per_round() * plan.rounds as u64);
    let mut repetitions = Vec::with_capacity(plan.repetitions);
    'outer: for _ in 0..plan.repetitions {
        let mut sizes = Vec::with_capacity(plan.sizes.len());
        for &size in plan.sizes {
            let out = &out[..size];
            let echoes = || std::array::from_fn::<_, MAX_DISTANCE, _>(|_| EchoSamples::new(total));
            let (mut busy_echo, mut idle_echo) = (echoes(), echoes());
            let mut neighbour = NeighbourSamples::new(total);
            let mut forward = ForwardSamples::new(total);
            let (mut efu, mut efu_system) = (Samples::new(total), Samples::new(total));
            for _ in 0..plan.rounds {
                if (plan.cancelled)() {
                    break 'outer;
                }
                for e in experiments_at_size() {
                    let inbuf = &mut inbuf;
                    match e {
                        Experiment::Echo { d, busy } => {
                            let acc = if busy { &mut busy_echo } else { &mut idle_echo };
                            rank0_echo(host, bg, out, inbuf, per_round, busy, &mut acc[d - 1])?;
                        }
                        Experiment::Neighbour => {
                            rank0_neighbour(host, bg, out, inbuf, per_round, &mut neighbour)?;
                        }
                        Experiment::RPlusS => {
                            rank0_forward(host, bg, out, per_round, &mut forward)?
                        }
                        Experiment::Efu => rank0_efu(host, bg, out, inbuf, per_round, &mut efu)?,
                        Experiment::EfuSystem => {
                            rank0_efu(host, bg, out, inbuf, per_round, &mut efu_system)?;
                        }
                    }
                }
            }
            sizes.push(SizeTimes {
                size,
                echo_busy: busy_echo.iter().map(|e| e.time(true, clock_ns)).collect(),
                echo_idle: idle_echo.iter().map(|e| e.time(false, clock_ns)).collect(),
                neighbour: neighbour.times(clock_ns),
                forward: forward.times(),
                twice_f_e_u: efu.median() - clock_ns,
                twice_f_e_u_system: efu_system.median() - clock_ns,
                probes: [Probe::NONE; 2],
            });
            (plan.on_size)(size);
        }
        repetitions.push(Repetition { sizes });
    }
    Ok(repetitions)
}

/// The plan, one team run per repetition and size, each with system and transport
/// buffers for that size only.
///
/// Buffers sized for the longest message (64 KiB) lie 64 KiB apart, so the first
/// lines of every buffer fall into the same few sets of the caches; the dozens of
/// buffers a worker touches in an echo over five hops then evict each other, and
/// a hop's copies cost more or less by where its buffers happen to lie: at 2000 B
/// the increments `T_{d+1} − T_d` ranged from 0.2 to 2 µs, and the `U` solved from
/// them came out 200 ns above the timed read `A + U`. With buffers of the
/// message's size they are uniform (1.4 to 1.9 µs), as the paper's model assumes.
fn run_on<T: Transport>(
    team: &HostedTeam,
    plan: &Plan<'_>,
) -> Result<Vec<Repetition>, KernelError> {
    let mut out = Vec::with_capacity(plan.repetitions);
    // One size's probe after is the next one's before: nothing runs between.
    let mut before = (plan.probe)()?;
    for _ in 0..plan.repetitions {
        let mut sizes = Vec::with_capacity(plan.sizes.len());
        for size in plan.sizes {
            if (plan.cancelled)() {
                break;
            }
            let one = Plan {
                sizes: std::slice::from_ref(size),
                repetitions: 1,
                ..*plan
            };
            let config = store_and_forward(*size, slots_for(*size, plan.lane_span));
            let runs = run_sized::<T>(team, &config, &one).map_err(interrupted)?;
            let after = (plan.probe)()?;
            for r in runs {
                sizes.extend(r.sizes.into_iter().map(|s| SizeTimes {
                    probes: [before, after],
                    ..s
                }));
            }
            before = after;
        }
        out.push(Repetition { sizes });
    }
    Ok(out)
}

/// One team run of `plan` with transport buffers `config`.
fn run_sized<T: Transport>(
    team: &HostedTeam,
    config: &TransportConfig,
    plan: &Plan<'_>,
) -> Result<Vec<Repetition>, TeamError> {
    let max = config.max_message_bytes;
    let steps = plan_steps(plan);
    let nodes = (0..RANKS)
        .map(|rank| {
            let script = if rank == 0 {
                Vec::new()
            } else {
                steps
                    .iter()
                    .flat_map(|&(_, _, e)| script_of(rank, e, plan.per_round(), &plan.bg))
                    .collect()
            };
            Node::new(rank, RANKS, max, plan.bg, script)
        })
        .collect();
    let eps = T::endpoints(team.control(), config);
    team.run(NAME, eps, nodes, |host| rank0(host, plan))
}

/// Transport buffers for messages up to `max` bytes, `slots` of them per lane,
/// each holding a whole message: a message is then handed over whole (store and
/// forward, as the NCUBE's system buffers), where smaller slots would let a
/// receiver copy one chunk out while the next arrives.
pub(super) fn store_and_forward(max: usize, slots: usize) -> TransportConfig {
    let max = max.max(32);
    TransportConfig {
        max_message_bytes: max,
        slots,
        slot_bytes: max.div_ceil(128) * 128,
    }
}

/// Transport slots per lane for messages of `size` bytes: two up to
/// [`TWO_SLOTS_UP_TO`], beyond it enough to span `span` bytes (a power of two;
/// [`lane_span`]: a sixteenth of the L2).
///
/// Never more than one message is in flight on a lane, but a hand-over's cost
/// depends on where the slot's lines are when it is written and read again: in
/// the other CPU's private caches since its last use, or gone from them. Between
/// two uses of a slot a CPU touches every lane of the echo and the nodes'
/// buffers, more the longer the echo, so the state a slot is found in, and the
/// cost of a hop, can change with the distance `d`, while the paper's `E` is the
/// same for every hop. Test 6's echo again with rank 1 forwarding in its system
/// (`twice_f_e_u_system_ns`) shows where: by the model it is `2E + F + (A + U)`.
/// On the two-CPU Xeon this was measured on (median excess over 2 runs, both
/// transports, both `Q`s):
///
/// | size | 2 slots | 4 | 8 | 16 | 32 |
/// |---|---|---|---|---|---|
/// | 4 KiB | −80 to +35 ns | +200 to +230 | +180 to +280 | | −235 to −300 |
/// | 8 KiB | +610 to +740 | +580 to +660 | +380 to +470 | −260 to −330 | |
/// | 32 KiB | +2.7 to +2.9 µs | −80 to −235 ns | −180 to +40 | | |
///
/// A positive excess is a first link dearer than the hops `E` comes from; the
/// solve puts it into `U` and `A` goes below zero by as much (at 32 KiB with two
/// slots, `A` = −1.4 µs). From 8 KiB on, lanes that span 128 KiB (16 slots at
/// 8 KiB, 8 at 16 KiB, 4 at 32 KiB, 2 at 64 KiB) keep the excess within 0.35 µs
/// (at 64 KiB −0.9 to +0.3 µs, within 5% of the echo); at 4 KiB and below two
/// slots do (the paper's sizes: −180 to +210 ns), where lanes of 16 to 128 KiB
/// missed by 0.2 to 0.3 µs either way. A machine with other caches may need
/// other spans: the one-link check says so.
///
/// These figures predate the wash between iterations (see the module doc). With
/// it and this rule, two sweeps from 4 to 64 KiB left one point below zero by
/// more than its deviation (channel `U` at 8 KiB, −66 ± 60 ns) and the check
/// at −730 to +340 ns, within 10% of the echo at 32 KiB, where it is widest.
///
/// The Xeon's L2 holds 2 MiB; the two-vCPU AMD EPYC VM (Zen 3) has 512 KiB, and
/// there lanes of 128 KiB missed the other way: at 16 KiB, the points measured
/// in the near state of the module doc's probes, from 12 interleaved runs with
/// 2 and 8 slots and 4 with 4 and 16 (both transports, both `Q`s, medians over
/// points):
///
/// | 16 KiB on the EPYC | 2 slots | 4 | 8 | 16 |
/// |---|---|---|---|---|
/// | one-link excess, mailbox / channel | +18 / +13 ns | −943 / −605 | −956 / −822 | −1219 / −946 |
/// | `(T2 − T1)/2 − (T5 − T4)/2` | 192 / 88 ns | 298 / 351 | 382 / 594 | 684 / 117 |
/// | points below zero by more than their sd | 2 of 29 | 3 of 11 | 8 of 31 | 0 of 9 |
///
/// A negative excess is a first link cheaper than the hops `E` comes from, and
/// the solve takes it from `U` (at 8 slots `U` = −39 and −89 ns against a timed
/// `(A + U) − A alone` of 530). Lanes of a sixteenth of the L2 give both
/// machines the span that did best on them: 128 KiB on the Xeon, 32 KiB (two
/// slots at 16 KiB) on the EPYC. It is a rule drawn from two machines; the
/// one-link check says where it misses.
fn slots_for(size: usize, span: usize) -> usize {
    if size <= TWO_SLOTS_UP_TO {
        return 2;
    }
    let slot = store_and_forward(size, 2).slot_bytes;
    span.div_ceil(slot).next_power_of_two().max(2)
}

/// What a lane's slots span together for messages beyond [`TWO_SLOTS_UP_TO`]
/// on `cpus` ([`slots_for`]): a sixteenth of their smallest L2, or
/// [`LANE_SPAN_UNKNOWN`] where the machine reports none.
fn lane_span(topology: &Topology, cpus: &[usize]) -> usize {
    cache_sizes(topology, cpus, 2)
        .map(|size| usize::try_from(size / 16).unwrap_or(usize::MAX))
        .min()
        .unwrap_or(LANE_SPAN_UNKNOWN)
}

/// The longest message whose lanes have two slots, bytes.
const TWO_SLOTS_UP_TO: usize = 4096;

/// A lane's span where the machine reports no L2, bytes: a sixteenth of the
/// Xeon's 2 MiB, the span of the transports' default ring (64 slots of 2 KiB).
const LANE_SPAN_UNKNOWN: usize = 128 * 1024;

/// Batches a probe takes the least of ([`probe`]).
const PROBE_BATCHES: usize = 3;
/// Cache-line round trips in a batch.
const PROBE_LINE_TRIPS: u64 = 500;
/// Round trips of [`PROBE_BULK_BYTES`] in a batch.
const PROBE_BULK_TRIPS: u64 = 10;
/// The bulk probe's message, bytes: the longest of the default sweep.
const PROBE_BULK_BYTES: usize = 65_536;

/// The two CPUs' round trips at one moment, ns ([`probe`]).
#[derive(Debug, Clone, Copy)]
struct Probe {
    /// A cache line there and back: the two-flag ping-pong.
    line_ns: f64,
    /// 64 KiB there and back through the mailbox.
    bulk_ns: f64,
}

impl Probe {
    /// No probe (one CPU).
    const NONE: Probe = Probe {
        line_ns: f64::NAN,
        bulk_ns: f64::NAN,
    };
}

/// The two CPUs' round trips now, on `team`'s two CPUs: the least mean of
/// [`PROBE_BATCHES`] batches of the two-flag ping-pong
/// ([`crate::kernels::scibench::atomic_flag_round_trip`]) and of the mailbox's
/// ping-pong of 64 KiB ([`crate::kernels::scibench::round_trip_time`]), about
/// half a millisecond in all.
///
/// A virtual machine's host can move its virtual CPUs or load the machine
/// under them while it runs, and the message costs move with that: on a
/// two-vCPU AMD EPYC VM (Zen 3) the decomposition took states that lasted
/// milliseconds to minutes, a hop of 64 KiB 4.2 µs in one and 13 µs in the
/// other, while a copy within a CPU (the timed read `A + U` at 64 KiB, 1.45 to
/// 1.64 µs) cost the same in both. The probes before and after each size's
/// team run say which state that size was measured in.
fn probe(team: &Team) -> Result<Probe, KernelError> {
    let mut p = Probe {
        line_ns: f64::INFINITY,
        bulk_ns: f64::INFINITY,
    };
    for _ in 0..PROBE_BATCHES {
        let line = crate::kernels::scibench::atomic_flag_round_trip(team, PROBE_LINE_TRIPS)?;
        p.line_ns = p
            .line_ns
            .min(line.as_nanos() as f64 / PROBE_LINE_TRIPS as f64);
        let bulk = crate::kernels::scibench::round_trip_time(
            team,
            TransportKind::Mailbox,
            PROBE_BULK_BYTES,
            PROBE_BULK_TRIPS,
        )?;
        p.bulk_ns = p
            .bulk_ns
            .min(bulk.as_nanos() as f64 / PROBE_BULK_TRIPS as f64);
    }
    Ok(p)
}

/// One repetition at one size, solved: the parameters (`E` from the idle echo,
/// whose hops are those of test 6) and `E` from the busy echo.
fn solve_size(s: &SizeTimes) -> Option<(Parameters, f64)> {
    let n = &s.neighbour;
    let times = ExperimentTimes {
        size_bytes: s.size as f64,
        echo_ns: s.echo_idle.clone(),
        r_ns: n.r_ns,
        a_plus_u_ns: n.a_plus_u_ns,
        f_plus_s_ns: n.f_plus_s_ns,
        r_plus_s_ns: s.forward.r_plus_s_ns,
        twice_f_e_u_ns: s.twice_f_e_u,
    };
    let p = solve(&times).ok()?;
    let busy = solve(&ExperimentTimes {
        echo_ns: s.echo_busy.clone(),
        ..times
    })
    .ok()?;
    Some((p, busy.e_ns))
}

/// Reads one parameter.
type Getter = fn(&Parameters) -> f64;

/// The parameters by name, in the paper's order.
const PARAMS: [(&str, Getter); 6] = [
    ("e", |p| p.e_ns),
    ("r", |p| p.r_ns),
    ("s", |p| p.s_ns),
    ("f", |p| p.f_ns),
    ("u", |p| p.u_ns),
    ("a", |p| p.a_ns),
];

/// Adds the points, fits and warnings of one `Q` to `result`.
fn add_q(result: &mut KernelResult, kind: QKind, reps: &[Repetition], lane_span: usize) {
    let sizes: Vec<usize> = reps
        .first()
        .map(|r| r.sizes.iter().map(|s| s.size).collect())
        .unwrap_or_default();
    // The lines are fitted to the medians over repetitions: on a machine shared
    // with other work one disturbed repetition would otherwise tilt them.
    let mut medians: Vec<Parameters> = Vec::new();
    for (i, &size) in sizes.iter().enumerate() {
        let at: Vec<&SizeTimes> = reps.iter().filter_map(|r| r.sizes.get(i)).collect();
        let solved: Vec<(Parameters, f64)> = at.iter().filter_map(|s| solve_size(s)).collect();
        let mut point = Point::new()
            .with("q_float", f64::from(u8::from(kind == QKind::Float)))
            .with("size_bytes", size as f64)
            .with("slots_per_lane", slots_for(size, lane_span) as f64)
            .with("rounds", ROUNDS as f64)
            .with("repetitions", solved.len() as f64);
        // (point, (mean, standard deviation, median)) of the finite values.
        type Central = Option<(f64, f64, f64)>;
        let stat = |point: Point, name: &str, values: Vec<f64>| -> (Point, Central) {
            let finite: Vec<f64> = values.into_iter().filter(|v| v.is_finite()).collect();
            match summarize(&finite) {
                Ok(s) => {
                    let c = (s.mean, s.std_dev, s.median);
                    (point.with_stats(name, s), Some(c))
                }
                Err(_) => (point, None),
            }
        };
        let mut median_of = BTreeMap::new();
        let median = |v: Vec<f64>| summarize(&v).map_or(f64::NAN, |s| s.median);
        let a_plus_u = median(at.iter().map(|s| s.neighbour.a_plus_u_ns).collect());
        let a_alone = median(at.iter().map(|s| s.neighbour.a_alone_ns).collect());
        let one_link = median(at.iter().map(|s| s.twice_f_e_u_system).collect());
        let test_6 = median(at.iter().map(|s| s.twice_f_e_u).collect());
        // The idle echo's half-increments `(T_{d+1} − T_d) / 2`, whose mean is `E`:
        // the first (`d` = 1 to 2) and the last (4 to 5).
        let half_step = |d: usize| -> Vec<f64> {
            at.iter()
                .filter_map(|s| Some((s.echo_idle.get(d)? - s.echo_idle.get(d - 1)?) / 2.0))
                .collect()
        };
        let (first_steps, last_steps) = (half_step(1), half_step(MAX_DISTANCE - 1));
        let e_first = median(first_steps.clone());
        let e_last = median(last_steps.clone());
        for (name, get) in PARAMS {
            let (p, ms) = stat(
                point,
                &format!("{name}_ns"),
                solved.iter().map(|s| get(&s.0)).collect(),
            );
            point = p;
            if let Some((m, sd, median)) = ms {
                median_of.insert(name, median);
                if m + sd < 0.0 {
                    result.warnings.push(format!(
                        "{} Q, {size} B: {} = {} ns is below zero by more than its standard deviation {}{}{}",
                        kind.name(),
                        name.to_uppercase(),
                        num(m),
                        num(sd),
                        probed_at(&at),
                        if name == "a" {
                            // A is solved last: the medians of E, F and U are in.
                            let of = |n| median_of.get(n).copied().unwrap_or(f64::NAN);
                            Shortfall {
                                u: of("u"),
                                a_plus_u,
                                a_alone,
                                one_link_excess: one_link - 2.0 * of("e") - of("f") - a_plus_u,
                                f: of("f"),
                                f_echo: test_6 / 2.0 - of("e") - (a_plus_u - a_alone),
                                e: of("e"),
                                e_first,
                                e_last,
                            }
                            .explain()
                        } else {
                            String::new()
                        }
                    ));
                }
            }
        }
        let nb = |get: fn(&NeighbourTimes) -> f64| at.iter().map(|s| get(&s.neighbour)).collect();
        let echo = |busy: bool, d: usize| -> Vec<f64> {
            at.iter()
                .filter_map(|s| if busy { &s.echo_busy } else { &s.echo_idle }.get(d - 1))
                .copied()
                .collect()
        };
        // The ends of both echoes: E = (T_5 - T_1) / 8 is solved from the idle
        // one's, e_busy_ns from the busy one's; the idle one at every distance,
        // and its first and last half-increments, show whether T_d is a line.
        let raw: [(&str, Vec<f64>); 23] = [
            ("echo_idle_d1_ns", echo(false, 1)),
            ("echo_idle_d2_ns", echo(false, 2)),
            ("echo_idle_d3_ns", echo(false, 3)),
            ("echo_idle_d4_ns", echo(false, 4)),
            ("echo_idle_d5_ns", echo(false, MAX_DISTANCE)),
            ("e_d1_d2_ns", first_steps),
            ("e_d4_d5_ns", last_steps),
            ("echo_busy_d1_ns", echo(true, 1)),
            ("echo_busy_d5_ns", echo(true, MAX_DISTANCE)),
            ("e_busy_ns", solved.iter().map(|s| s.1).collect()),
            (
                "r_plus_s_ns",
                at.iter().map(|s| s.forward.r_plus_s_ns).collect(),
            ),
            (
                "r_plus_s_whole_q_ns",
                at.iter().map(|s| s.forward.r_plus_s_whole_q_ns).collect(),
            ),
            ("r_whole_q_ns", nb(|n| n.r_whole_q_ns)),
            ("a_plus_u_ns", nb(|n| n.a_plus_u_ns)),
            ("a_alone_ns", nb(|n| n.a_alone_ns)),
            ("clock_ns", nb(|n| n.clock_ns)),
            ("f_plus_s_ns", nb(|n| n.f_plus_s_ns)),
            ("f_plus_s_whole_q_ns", nb(|n| n.f_plus_s_whole_q_ns)),
            ("send_call_ns", nb(|n| n.send_call_ns)),
            ("twice_f_e_u_ns", at.iter().map(|s| s.twice_f_e_u).collect()),
            (
                "twice_f_e_u_system_ns",
                at.iter().map(|s| s.twice_f_e_u_system).collect(),
            ),
            (
                "cpu_round_trip_ns",
                at.iter()
                    .flat_map(|s| s.probes.map(|p| p.line_ns))
                    .collect(),
            ),
            (
                "cpu_round_trip_64k_ns",
                at.iter()
                    .flat_map(|s| s.probes.map(|p| p.bulk_ns))
                    .collect(),
            ),
        ];
        for (name, values) in raw {
            point = stat(point, name, values).0;
        }
        let late: u64 = at.iter().map(|s| s.neighbour.late + s.forward.late).sum();
        point = point.with("late_echoes", late as f64);
        if late > 0 {
            result.warnings.push(format!(
                "{} Q, {size} B: {late} echoes or forwards came after Q(COMPTIME) ended and were left out of R, A + U and R + S",
                kind.name()
            ));
        }
        if median_of.len() == PARAMS.len() {
            medians.push(Parameters {
                size_bytes: size as f64,
                e_ns: median_of["e"],
                r_ns: median_of["r"],
                s_ns: median_of["s"],
                f_ns: median_of["f"],
                u_ns: median_of["u"],
                a_ns: median_of["a"],
            });
        }
        result.points.push(point);
    }
    if let Some(w) = state_change(kind, reps) {
        result.warnings.push(w);
    }
    let paper: Vec<Parameters> = medians
        .iter()
        .filter(|p| p.size_bytes <= 2000.0)
        .cloned()
        .collect();
    if let Ok(lines) = fit_lines(&paper) {
        push_fits(result, kind, &lines, "16-2000 B, Table 3", "");
    }
    if medians.len() > paper.len()
        && let Ok(lines) = fit_lines(&medians)
    {
        push_fits(result, kind, &lines, "all sizes", "_all_sizes");
    }
}

/// Where a point's probes stood: the medians of its round trips, or nothing on
/// one CPU.
fn probed_at(at: &[&SizeTimes]) -> String {
    let median = |get: fn(&Probe) -> f64| {
        let v: Vec<f64> = at
            .iter()
            .flat_map(|s| s.probes.iter().map(get))
            .filter(|v| v.is_finite())
            .collect();
        summarize(&v).map_or(f64::NAN, |s| s.median)
    };
    let (line, bulk) = (median(|p| p.line_ns), median(|p| p.bulk_ns));
    if line.is_finite() && bulk.is_finite() {
        format!(
            ", with the CPUs' round trips at {:.0} ns (a line) and {:.0} ns (64 KiB)",
            line, bulk
        )
    } else {
        String::new()
    }
}

/// Round trips of 64 KiB further apart than this ratio mean that the machine
/// changed state during a run ([`probe`]).
const STATE_CHANGE_RATIO: f64 = 1.5;

/// A warning when the 64 KiB round trips of one `Q`'s run lie further apart than
/// [`STATE_CHANGE_RATIO`]: its repetitions and sizes were measured in different
/// states of the machine.
fn state_change(kind: QKind, reps: &[Repetition]) -> Option<String> {
    let trips: Vec<f64> = reps
        .iter()
        .flat_map(|r| &r.sizes)
        .flat_map(|s| s.probes.map(|p| p.bulk_ns))
        .filter(|t| t.is_finite())
        .collect();
    let (lo, hi) = trips.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &t| {
        (lo.min(t), hi.max(t))
    });
    (hi > STATE_CHANGE_RATIO * lo).then(|| {
        format!(
            "{} Q: the two CPUs' round trip of 64 KiB ranged from {:.0} to {:.0} ns over this run (probed before and after each size): the machine changed state while it ran, and points or repetitions measured in different states mix their costs (each point's cpu_round_trip_64k_ns gives its states)",
            kind.name(),
            lo,
            hi
        )
    })
}

/// What a negative `A` is made of (medians over repetitions): the `U` solved from
/// the echo, the timed read `A + U` it exceeds, `A` timed alone and the `F` the
/// echo implies with it, and how far the echo over one link, with rank 1
/// returning the message in its system, is from the model.
///
/// With `A` timed alone, `U = (A + U) − A alone` and test 6 give a second `F`,
/// `T6/2 − E − U`; the solve's `A` is exactly `A alone + F − that F` (in each
/// repetition; about so in the medians). So a negative `A` is an `F + S` and `S`
/// whose difference falls short of what the echo's two ends cost.
///
/// By the model that echo (`twice_f_e_u_system_ns`) is two hops `E` and rank 0's
/// `F` and `A + U`. Where it is longer, the one-link round trip costs more than
/// the echo's marginal hops, the solve puts the difference into `U`, and `A`
/// goes below zero: the costs do not add up as the paper's model assumes (see
/// `slots_for` for the sizes and lanes where they did not on a 2-vCPU Xeon).
#[derive(Debug, Clone, Copy)]
struct Shortfall {
    /// `U` solved from the echo.
    u: f64,
    /// The timed read of an arrived message.
    a_plus_u: f64,
    /// The read call's part before the message, timed by itself.
    a_alone: f64,
    /// `twice_f_e_u_system_ns` less `2E + F + (A + U)`: zero where the costs add
    /// up.
    one_link_excess: f64,
    /// `F` solved, `(F + S) − S`.
    f: f64,
    /// `F` from test 6 with `A` timed alone: `T6/2 − E − ((A + U) − A alone)`.
    f_echo: f64,
    /// `E` solved: the mean of the idle echo's half-increments.
    e: f64,
    /// The first half-increment, `(T_2 − T_1) / 2`.
    e_first: f64,
    /// The last, `(T_5 − T_4) / 2`.
    e_last: f64,
}

impl Shortfall {
    /// The figures for a warning, or nothing when `U` or `A + U` is missing.
    fn explain(&self) -> String {
        if !(self.u.is_finite() && self.a_plus_u.is_finite()) {
            return String::new();
        }
        let mut why = format!(
            " (U solved from the echo: {:.0} ns; timed read A + U: {:.0} ns",
            self.u, self.a_plus_u
        );
        if self.a_alone.is_finite() {
            let _ = write!(
                why,
                "; the read's part before the message, timed alone: {:.0} ns",
                self.a_alone
            );
            if self.f_echo.is_finite() && self.f.is_finite() {
                let _ = write!(
                    why,
                    "; with U = (A + U) - A alone, test 6 gives F = T6/2 - E - U = {:.0} ns where (F + S) - S gives {:.0} ns, and A is A alone less the difference",
                    self.f_echo, self.f
                );
            }
        }
        if self.one_link_excess.is_finite() {
            let _ = write!(
                why,
                "; the echo over one link with rank 1 returning the message in its system is {:.0} ns longer than 2E + F + (A + U)",
                self.one_link_excess
            );
        }
        if self.e_first.is_finite() && self.e_last.is_finite() && self.e_first > self.e_last {
            let _ = write!(
                why,
                "; the echo's half-increments fall along the chain, from (T2 - T1)/2 = {:.0} ns to (T5 - T4)/2 = {:.0} ns, E = {:.0} ns their mean: its links differ in cost, and test 6's one link need not cost E",
                self.e_first, self.e_last, self.e
            );
        }
        why.push(')');
        why
    }
}

fn push_fits(
    result: &mut KernelResult,
    kind: QKind,
    lines: &ParameterLines,
    over: &str,
    suffix: &str,
) {
    let each: [(&str, &LineFit); 6] = [
        ("e", &lines.e),
        ("r", &lines.r),
        ("s", &lines.s),
        ("f", &lines.f),
        ("u", &lines.u),
        ("a", &lines.a),
    ];
    for (name, line) in each {
        let sized = matches!(name, "e" | "f" | "u");
        let flagged = sized && line.r2 < R2_THRESHOLD;
        let upper = name.to_uppercase();
        if flagged {
            result.warnings.push(format!(
                "{} Q, {over}: the line of {upper} has R^2 = {:.3} < {R2_THRESHOLD}",
                kind.name(),
                line.r2
            ));
        }
        let p0 = format!("{}_{name}0_ns{suffix}", kind.prefix());
        let p1 = format!("{}_{name}1_ns_per_byte{suffix}", kind.prefix());
        let mut params = BTreeMap::new();
        params.insert(p0.clone(), line.intercept);
        params.insert(p1.clone(), line.slope);
        let mut std_errors = BTreeMap::new();
        std_errors.insert(p0, line.se_intercept);
        std_errors.insert(p1, line.se_slope);
        result.fits.push(FitResult {
            model: format!(
                "{upper} = {upper}0 + {upper}1 n ({} Q, {over}{})",
                kind.name(),
                if sized { "" } else { "; flat, R^2 not a test" }
            ),
            x: "size_bytes".into(),
            y: format!("{name}_ns.median"),
            params,
            std_errors,
            r2: line.r2,
            n_points: line.n_points,
            flagged,
        });
    }
}

fn run(ctx: &RunContext<'_>) -> Result<Vec<KernelResult>, KernelError> {
    let kernel = NAME;
    let cpus = cpu_pair(ctx, kernel)?;
    let wash = wash_bytes(ctx.topology, &cpus);
    let span = lane_span(ctx.topology, &cpus);
    let team = hosted_team(ctx, &cpus, RANKS, wash)?;
    let sizes = sizes(ctx);
    if sizes.is_empty() {
        return Err(KernelError::NotRunnable {
            kernel: kernel.into(),
            reason: "no message sizes given".into(),
        });
    }
    let repetitions = ctx.config.trials.unwrap_or(REPETITIONS);
    let reps = notimes(ctx.config.quick);
    let probe_team = match &cpus[..] {
        [a, b, ..] => Some(Team::new(&ctx.team_spec(vec![*a, *b], 2, false))?),
        _ => None,
    };
    let probe = || probe_team.as_ref().map_or(Ok(Probe::NONE), probe);
    let backgrounds: Vec<Background> = QKind::ALL
        .iter()
        .map(|&k| Background::calibrate(k, SENDTIME, CHUNK))
        .collect();
    ctx.progress.begin(
        kernel,
        (ctx.config.transports.len() * backgrounds.len() * repetitions * sizes.len()) as u64,
    );
    let mut out = Vec::new();
    for &transport in &ctx.config.transports {
        let mut result = KernelResult {
            kernel: kernel.into(),
            method: "krumme-greenfield".into(),
            transport: Some(transport.name().into()),
            cpus: cpus.clone(),
            distance_class: (cpus.len() == 2)
                .then(|| ctx.topology.distance(cpus[0], cpus[1]))
                .flatten(),
            placement: team.placement(),
            ranks: team.size(),
            points: Vec::new(),
            fits: Vec::new(),
            warnings: Vec::new(),
            load: None,
            elapsed_s: 0.0,
        };
        for bg in &backgrounds {
            if ctx.cancelled() {
                break;
            }
            let on_size = |size: usize| {
                ctx.progress
                    .step(&format!("{transport} {} Q {size} B", bg.kind.name()))
            };
            let cancelled = || ctx.cancelled();
            let plan = Plan {
                bg: *bg,
                sizes: &sizes,
                reps,
                clock_ns: ctx.clock.read_overhead_ns,
                repetitions,
                rounds: ROUNDS,
                lane_span: span,
                probe: &probe,
                on_size: &on_size,
                cancelled: &cancelled,
            };
            let reps = match transport {
                TransportKind::Mailbox => run_on::<Mailbox>(&team, &plan),
                TransportKind::Channel => run_on::<Channel>(&team, &plan),
            }?;
            add_q(&mut result, bg.kind, &reps, span);
        }
        result
            .warnings
            .push(placement_note(team.placement(), &cpus, wash));
        out.push(result);
    }
    ctx.progress.end();
    if ctx.cancelled() {
        return Err(KernelError::Interrupted);
    }
    Ok(out)
}

fn placement_note(placement: Placement, cpus: &[usize], wash: usize) -> String {
    format!(
        "{placement} processors: {RANKS} virtual nodes dealt round-robin on spinning workers pinned to CPUs {cpus:?}{}; nodes are polled between 2 us chunks of Q, forwarding is done by the nodes' systems (R + S), no wait parks; every CPU reads {} KiB between timed iterations (a wash of its private caches)",
        if cpus.len() < 2 {
            " (one CPU: hops do not cross CPUs)"
        } else {
            " (every hop crosses a CPU)"
        },
        wash / 1024
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Table 1 (integer Q), µs: rows 16, 500, 1000, 1500, 2000 bytes; E R S F U A.
    const TABLE_1_US: [[f64; 6]; 5] = [
        [242.0, 178.0, 152.0, 169.0, 137.0, 122.0],
        [864.0, 200.0, 157.0, 465.0, 429.0, 124.0],
        [1506.0, 219.0, 167.0, 762.0, 748.0, 111.0],
        [2149.0, 249.0, 167.0, 1036.0, 1072.0, 97.0],
        [2792.0, 261.0, 175.0, 1372.0, 1343.0, 126.0],
    ];

    /// What this kernel's experiments would measure on a machine with Table 1's
    /// parameters.
    fn measured(size: usize, [e, r, s, f, u, a]: [f64; 6]) -> SizeTimes {
        let [e, r, s, f, u, a] = [e, r, s, f, u, a].map(|v| v * 1e3);
        let echo = |x: f64| {
            (1..=MAX_DISTANCE)
                .map(|d| 2.0 * f + 2.0 * d as f64 * e + 2.0 * u + x)
                .collect()
        };
        SizeTimes {
            size,
            echo_busy: echo(0.0),
            echo_idle: echo(5_000.0),
            neighbour: NeighbourTimes {
                r_ns: r,
                r_whole_q_ns: r,
                a_plus_u_ns: a + u,
                a_alone_ns: a,
                clock_ns: 0.0,
                send_call_ns: f,
                f_plus_s_ns: f + s,
                f_plus_s_whole_q_ns: f + s,
                late: 0,
            },
            forward: ForwardTimes {
                r_plus_s_ns: r + s,
                r_plus_s_whole_q_ns: r + s,
                late: 0,
            },
            twice_f_e_u: 2.0 * (f + e + u),
            twice_f_e_u_system: 2.0 * (f + e + u) - (f + u),
            probes: [Probe::NONE; 2],
        }
    }

    /// A run whose 64 KiB probes span more than half again their least is
    /// flagged with the range; one within it, or on one CPU (no probes), is not.
    #[test]
    fn a_change_of_state_is_flagged_from_the_probes() {
        let at = |bulk: [f64; 2]| {
            let mut s = measured(16, TABLE_1_US[0]);
            s.probes = bulk.map(|bulk_ns| Probe {
                line_ns: 100.0,
                bulk_ns,
            });
            Repetition { sizes: vec![s] }
        };
        let calm = [at([8000.0, 8200.0]), at([9000.0, 11_900.0])];
        assert_eq!(state_change(QKind::Integer, &calm), None);
        let moved = [at([8000.0, 8200.0]), at([9000.0, 26_000.0])];
        let w = state_change(QKind::Float, &moved).unwrap();
        assert!(
            w.starts_with(
                "floating-point Q: the two CPUs' round trip of 64 KiB ranged from 8000 to 26000 ns"
            ),
            "{w}"
        );
        let one_cpu = [at([f64::NAN; 2])];
        assert_eq!(state_change(QKind::Integer, &one_cpu), None);
        // The points carry both probes, before and after each size.
        let mut result = empty_result();
        add_q(&mut result, QKind::Integer, &moved, LANE_SPAN_UNKNOWN);
        let p = &result.points[0];
        assert_eq!(p.stats("cpu_round_trip_64k_ns").unwrap().max, 26_000.0);
        assert_eq!(p.stats("cpu_round_trip_ns").unwrap().median, 100.0);
        assert!(
            result
                .warnings
                .iter()
                .any(|w| w.contains("ranged from 8000"))
        );
        assert_eq!(
            probed_at(&[&moved[0].sizes[0], &moved[1].sizes[0]]),
            ", with the CPUs' round trips at 100 ns (a line) and 8600 ns (64 KiB)"
        );
        assert_eq!(probed_at(&[&one_cpu[0].sizes[0]]), "");
    }

    fn empty_result() -> KernelResult {
        KernelResult {
            kernel: NAME.into(),
            method: "krumme-greenfield".into(),
            transport: Some("mailbox".into()),
            cpus: vec![0, 1],
            distance_class: None,
            placement: Placement::Hosted,
            ranks: RANKS,
            points: Vec::new(),
            fits: Vec::new(),
            warnings: Vec::new(),
            load: None,
            elapsed_s: 0.0,
        }
    }

    /// The whole analysis (solve in the paper's order, mean and deviation over
    /// repetitions, lines) on the experiments that Table 1's parameters would
    /// produce gives back Table 1 and the paper's Table 3: E = 220 + 1.285n, R = 180 + .04n,
    /// S = 150 + .01n, F = 160 + .60n, U = 130 + .61n, A = 120 + 0.0n µs (intercepts
    /// to the paper's two figures, slopes to its printed decimals).
    #[test]
    fn table_1_experiments_give_table_1_and_table_3() {
        let sizes: Vec<SizeTimes> = PAPER_SIZES
            .iter()
            .zip(TABLE_1_US)
            .map(|(&n, row)| measured(n, row))
            .collect();
        let reps: Vec<Repetition> = (0..REPETITIONS)
            .map(|_| Repetition {
                sizes: sizes.clone(),
            })
            .collect();
        let mut result = empty_result();
        add_q(&mut result, QKind::Integer, &reps, LANE_SPAN_UNKNOWN);
        assert_eq!(result.points.len(), 5);
        let p = &result.points[2];
        assert_eq!(p.number("size_bytes"), Some(1000.0));
        for (name, want_us) in [
            ("e_ns", 1506.0),
            ("r_ns", 219.0),
            ("s_ns", 167.0),
            ("f_ns", 762.0),
            ("u_ns", 748.0),
            ("a_ns", 111.0),
            ("e_busy_ns", 1506.0),
            // The paper's model is a line in d: every half-increment is E.
            ("e_d1_d2_ns", 1506.0),
            ("e_d4_d5_ns", 1506.0),
        ] {
            let s = p.stats(name).unwrap();
            assert!((s.mean - want_us * 1e3).abs() < 1e-3, "{name} = {}", s.mean);
            assert_eq!(s.std_dev, 0.0);
        }
        let printed = [
            ("e", 220.0, 1.285, 3),
            ("r", 180.0, 0.04, 2),
            ("s", 150.0, 0.01, 2),
            ("f", 160.0, 0.60, 2),
            ("u", 130.0, 0.61, 2),
            ("a", 120.0, 0.0, 1),
        ];
        assert_eq!(result.fits.len(), 6);
        for (name, x0_us, x1_us, decimals) in printed {
            let fit = result
                .fits
                .iter()
                .find(|f| f.y == format!("{name}_ns.median"))
                .unwrap();
            let x0 = fit.params[&format!("int_{name}0_ns")] / 1e3;
            let x1 = fit.params[&format!("int_{name}1_ns_per_byte")] / 1e3;
            let scale = 10f64.powi(decimals);
            assert_eq!((x0 / 10.0).round() * 10.0, x0_us, "{name}0 = {x0}");
            assert_eq!((x1 * scale).round() / scale, x1_us, "{name}1 = {x1}");
            assert!(!fit.flagged, "{name}");
        }
        assert!(result.warnings.is_empty(), "{:?}", result.warnings);
        let text = crate::text::decomposition::tables(&result);
        assert!(text.contains("Table 1 shape") && text.contains("Table 3 shape"));
    }

    /// A negative `A` is shown with what it is made of, from a mailbox run at
    /// 16 KiB; without the one-link check when it is missing, and nothing when
    /// `U` is.
    #[test]
    fn a_shortfall_shows_u_against_the_timed_read_and_the_one_link_echo() {
        let at_16k = Shortfall {
            u: 862.0,
            a_plus_u: 254.0,
            a_alone: 23.0,
            one_link_excess: 7126.0 - 2.0 * 2681.0 - 167.0 - 254.0,
            f: 167.0,
            f_echo: 167.0 + 862.0 - (254.0 - 23.0),
            e: 2681.0,
            e_first: 2900.0,
            e_last: 2500.0,
        };
        let why = at_16k.explain();
        assert!(why.contains("U solved from the echo: 862 ns"), "{why}");
        assert!(why.contains("timed read A + U: 254 ns"), "{why}");
        assert!(
            why.contains("the read's part before the message, timed alone: 23 ns"),
            "{why}"
        );
        // A = A alone + F - F from the echo: 23 + 167 - 798 = 254 - 862.
        assert!(
            why.contains("test 6 gives F = T6/2 - E - U = 798 ns where (F + S) - S gives 167 ns"),
            "{why}"
        );
        assert!(
            why.contains("is 1343 ns longer than 2E + F + (A + U);"),
            "{why}"
        );
        assert!(
            why.contains(
                "from (T2 - T1)/2 = 2900 ns to (T5 - T4)/2 = 2500 ns, E = 2681 ns their mean"
            ),
            "{why}"
        );
        // Half-increments that do not fall say nothing.
        let level = Shortfall {
            e_first: 2681.0,
            e_last: 2681.0,
            ..at_16k
        };
        assert!(level.explain().ends_with("longer than 2E + F + (A + U))"));
        let without = Shortfall {
            one_link_excess: f64::NAN,
            e_first: f64::NAN,
            ..at_16k
        };
        assert!(without.explain().ends_with("A alone less the difference)"));
        let missing = Shortfall {
            u: f64::NAN,
            ..at_16k
        };
        assert!(missing.explain().is_empty());
    }

    /// A background whose lengths the scripts use: `Q(SENDTIME)` 10 chunks.
    fn test_background() -> Background {
        Background {
            kind: QKind::Integer,
            unit_ns: 1.0,
            chunk_units: 2000,
            send_chunks: 10,
            comp_chunks: 50,
        }
    }

    /// Every size runs its experiments in turn, once a round, each round with a
    /// twenty-fifth of the iterations: 4 of 100, 2 of `--quick`'s 50, and the
    /// scripts block by block in the same order.
    #[test]
    fn every_round_runs_every_experiment_in_turn() {
        let (on_size, cancelled) = (|_: usize| {}, || false);
        let probe = || Ok(Probe::NONE);
        let plan = Plan {
            bg: test_background(),
            sizes: &[16, 500],
            reps: notimes(false),
            clock_ns: 0.0,
            repetitions: 2,
            rounds: ROUNDS,
            lane_span: LANE_SPAN_UNKNOWN,
            probe: &probe,
            on_size: &on_size,
            cancelled: &cancelled,
        };
        assert_eq!(plan.per_round(), 4);
        assert_eq!(
            Plan {
                reps: notimes(true),
                ..plan
            }
            .per_round(),
            2
        );
        let each = experiments_at_size();
        let steps = plan_steps(&plan);
        assert_eq!(steps.len(), 2 * 2 * ROUNDS * each.len());
        for (i, round) in steps.chunks(each.len()).enumerate() {
            let (rep, size) = (i / (2 * ROUNDS), [16, 500][i / ROUNDS % 2]);
            let want: Vec<_> = each.iter().map(|&e| (rep, size, e)).collect();
            assert_eq!(round, want.as_slice(), "round {i}");
        }
        // Rank 3 reads the timed write and test 5's forward: two blocks of
        // 4 + 1 iterations a round.
        let script: Vec<Block> = steps
            .iter()
            .flat_map(|&(_, _, e)| script_of(3, e, plan.per_round(), &plan.bg))
            .collect();
        let reads: Vec<&Block> = script
            .iter()
            .filter(|b| b.ops == vec![Op::Read(0)])
            .collect();
        assert_eq!(reads.len(), 2 * 2 * ROUNDS * 2);
        assert!(reads.iter().all(|b| b.times == 5));
    }

    /// Lanes hold two slots up to 4 KiB and at least a sixteenth of the L2 of
    /// slots beyond: 128 KiB on the Xeon's 2 MiB, 32 KiB on the EPYC's 512 KiB.
    #[test]
    fn lanes_have_two_slots_up_to_4_kib_and_span_a_sixteenth_of_the_l2_beyond() {
        let xeon = LANE_SPAN_UNKNOWN;
        for size in [1, 16, 500, 2000, 4096] {
            assert_eq!(slots_for(size, xeon), 2, "{size} B");
        }
        let spans = [
            (8192, 16, 4),
            (16_384, 8, 2),
            (32_768, 4, 2),
            (65_536, 2, 2),
            (5000, 32, 8),
        ];
        let epyc = 32 * 1024;
        for (size, on_xeon, on_epyc) in spans {
            assert_eq!(slots_for(size, xeon), on_xeon, "{size} B");
            assert_eq!(slots_for(size, epyc), on_epyc, "{size} B");
            let config = store_and_forward(size, on_xeon);
            assert!(config.slots * config.slot_bytes >= xeon, "{size} B");
        }
        // Messages longer than a lane's span still get two slots.
        assert_eq!(slots_for(256 * 1024, xeon), 2);
    }

    /// The span is a sixteenth of the smallest L2 of the CPUs used, and 128 KiB
    /// where the machine reports none.
    #[test]
    fn a_lane_spans_a_sixteenth_of_the_smallest_l2() {
        use crate::platform::CacheKind;
        let topology = super::super::protocol::test_topology(vec![
            (1, CacheKind::Data, 32, vec![0]),
            (2, CacheKind::Unified, 2048, vec![0]),
            (2, CacheKind::Unified, 512, vec![1]),
            (3, CacheKind::Unified, 32 * 1024, vec![0, 1]),
        ]);
        assert_eq!(lane_span(&topology, &[0]), 128 * 1024);
        assert_eq!(lane_span(&topology, &[0, 1]), 32 * 1024);
        assert_eq!(lane_span(&topology, &[7]), LANE_SPAN_UNKNOWN);
    }

    /// Tests 2 to 4: rank 1 echoes once an iteration, and rank 3 reads the timed
    /// write, on the lane of test 5's forward.
    #[test]
    fn the_timed_write_takes_the_forwards_lane() {
        let bg = test_background();
        let one = script_of(1, Experiment::Neighbour, 9, &bg);
        let reads = |s: &[Block]| s[0].ops.iter().filter(|o| matches!(o, Op::Read(0))).count();
        assert_eq!(reads(&one), 1);
        assert_eq!(
            script_of(3, Experiment::Neighbour, 9, &bg)[0].ops,
            vec![Op::Read(0)]
        );
        assert_eq!(
            script_of(3, Experiment::RPlusS, 9, &bg)[0].ops,
            vec![Op::Read(0)]
        );
    }

    /// The scripts match rank 0's program: at distance 3 ranks 1 and 2 forward
    /// both ways as many messages as rank 0 sends, rank 3 echoes, 4 and 5 rest; in
    /// test 5 rank 1 echoes through rank 0 to rank 3, which reads them.
    #[test]
    fn scripts_match_rank_0s_program() {
        let bg = test_background();
        let e = Experiment::Echo { d: 3, busy: true };
        for rank in [1, 2] {
            let s = script_of(rank, e, 9, &bg);
            assert_eq!(s.len(), 1);
            assert_eq!(s[0].times, 1);
            assert!(s[0].ops.contains(&Op::Route {
                from: rank - 1,
                to: rank + 1,
                count: 10
            }));
            assert_eq!(s[0].ops.last(), Some(&Op::AwaitRoutes));
        }
        let echo = script_of(3, e, 9, &bg);
        assert_eq!(echo[0].times, 10);
        assert_eq!(
            echo[0].ops,
            vec![Op::Read(2), Op::Compute(10), Op::Write(2), Op::Compute(10)]
        );
        assert!(script_of(4, e, 9, &bg).is_empty() && script_of(5, e, 9, &bg).is_empty());
        let idle = script_of(1, Experiment::Echo { d: 1, busy: false }, 9, &bg);
        assert_eq!(idle[0].ops, vec![Op::Read(0), Op::Write(0)]);
        assert_eq!(
            script_of(1, Experiment::Efu, 9, &bg)[0].ops,
            idle[0].ops,
            "test 6 is the idle echo at d = 1"
        );
        assert_eq!(
            script_of(1, Experiment::RPlusS, 9, &bg)[0].ops[3],
            Op::Write(0)
        );
        assert_eq!(
            script_of(3, Experiment::RPlusS, 9, &bg)[0].ops,
            vec![Op::Read(0)]
        );
        assert_eq!(
            script_of(1, Experiment::EfuSystem, 9, &bg),
            vec![Block::once(vec![
                Op::Route {
                    from: 0,
                    to: 0,
                    count: 10
                },
                Op::AwaitRoutes
            ])],
            "rank 1 returns test 6's messages in its system"
        );
        assert_eq!(experiments_at_size().len(), 2 * MAX_DISTANCE + 4);
    }
}
