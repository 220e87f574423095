//! Kernels that time the same thing through different code must agree. Five
//! kernels send a small message between the same two CPUs over the mailbox, each
//! converting its clock readings on its own: `pingpong` and `c2c` (scibench PP,
//! half the round trip, through the pair code), the two-flag baseline beside
//! `pingpong`, `comet-echo` (CoMet's echo, half the round trip, through CoMet's
//! command-driven sweep), `sci-topology` (the 2-node ring's ping-pong and the
//! flag ping-pong `l_p`, through the emulated fabric) and `decomposition` (Krumme &
//! Greenfield's echo at distance 1 and its per-link `E`, on hosted nodes).
//!
//! A factor-of-two error in any one of them (a round trip reported as one way, a
//! one-way time halved twice) moves its figure by 2 against the others, while
//! every figure still looks plausible on its own. The bounds below are generous
//! (this may be a loaded two-core virtual machine), but those of the figures
//! that are one cache-line transfer each way are narrower than a factor of two
//! around what the kernels measure together (see [`Figures::misses`]).

mod common;

use halfperf::kernels::{self, RunConfig, RunContext};
use halfperf::platform::{Topology, allowed_cpus, measure_clock};
use halfperf::results::KernelResult;
use halfperf::transport::TransportKind;

/// Runs `kernel` on the pair `cpus` over the mailbox at `size` bytes.
fn run(kernel: &str, cpus: &[usize], size: usize) -> Vec<KernelResult> {
    let topology = Topology::detect().expect("topology");
    let allowed = allowed_cpus();
    let clock = measure_clock();
    let config = RunConfig {
        quick: true,
        cpus: Some(cpus.to_vec()),
        transports: vec![TransportKind::Mailbox],
        sizes: Some(vec![size]),
        trials: Some(5),
        ..RunConfig::default()
    };
    let ctx = RunContext::quiet(&topology, &allowed, &clock, &config);
    let spec = kernels::find(kernel).expect("registered");
    kernels::run_kernel(spec, &ctx).unwrap_or_else(|e| panic!("{kernel}: {e}"))
}

fn result<'a>(results: &'a [KernelResult], kernel: &str, transport: &str) -> &'a KernelResult {
    results
        .iter()
        .find(|r| r.kernel == kernel && r.transport.as_deref() == Some(transport))
        .unwrap_or_else(|| panic!("no {kernel} [{transport}]"))
}

/// The minimum of `quantity` at the first point that has it.
fn min_of(
    r: &KernelResult,
    quantity: &str,
    filter: impl Fn(&halfperf::results::Point) -> bool,
) -> f64 {
    r.points
        .iter()
        .filter(|p| filter(p))
        .find_map(|p| p.stats(quantity))
        .unwrap_or_else(|| panic!("{}: no {quantity}", r.kernel))
        .min
}

/// One-way figures, ns, of one round of the five kernels.
#[derive(Debug, Clone, Copy)]
struct Figures {
    /// `pingpong` over the mailbox at 8 B.
    pingpong: f64,
    /// The two-flag baseline beside it.
    flags: f64,
    /// `c2c`'s pair.
    c2c: f64,
    /// `comet-echo` at 8 B.
    comet_echo: f64,
    /// `sci-topology`'s 2-node ring at 8 B.
    sci_ring: f64,
    /// `sci-topology`'s `l_p`, the flag ping-pong.
    sci_lp: f64,
    /// `decomposition`'s `E` at 16 B: a link's share of the echo, one way.
    decomposition_e: f64,
}

impl Figures {
    fn measure(cpus: &[usize]) -> Figures {
        let pp = run("pingpong", cpus, 8);
        let c2c = run("c2c", cpus, 8);
        let echo = run("comet-echo", cpus, 8);
        let sci = run("sci-topology", cpus, 8);
        let dec = run("decomposition", cpus, 16);
        let any = |_: &halfperf::results::Point| true;
        // Both versions of Q measure the same echo: the least of their medians
        // over the repetitions.
        let dec_min = |name: &str| {
            result(&dec, "decomposition", "mailbox")
                .points
                .iter()
                .filter(|p| p.number("size_bytes") == Some(16.0))
                .filter_map(|p| p.stats(name))
                .map(|s| s.median)
                .fold(f64::INFINITY, f64::min)
        };
        Figures {
            pingpong: min_of(result(&pp, "pingpong", "mailbox"), "one_way_ns", any),
            flags: min_of(result(&pp, "pingpong", "atomic-flags"), "one_way_ns", any),
            c2c: min_of(result(&c2c, "c2c", "mailbox"), "one_way_ns", any),
            comet_echo: min_of(result(&echo, "comet-echo", "mailbox"), "one_way_ns", |p| {
                p.number("size_bytes") == Some(8.0)
            }),
            sci_ring: min_of(
                sci.iter()
                    .find(|r| r.kernel == "sci-topology")
                    .expect("sci-topology"),
                "ping_pong_ns",
                |p| p.number("nodes") == Some(2.0) && p.number("size_bytes") == Some(8.0),
            ),
            sci_lp: min_of(
                sci.iter()
                    .find(|r| r.kernel == "sci-decomposition")
                    .expect("sci-decomposition"),
                "cache_line_one_way_ns",
                any,
            ),
            decomposition_e: dec_min("e_ns"),
        }
    }

    fn min(self, o: Figures) -> Figures {
        Figures {
            pingpong: self.pingpong.min(o.pingpong),
            flags: self.flags.min(o.flags),
            c2c: self.c2c.min(o.c2c),
            comet_echo: self.comet_echo.min(o.comet_echo),
            sci_ring: self.sci_ring.min(o.sci_ring),
            sci_lp: self.sci_lp.min(o.sci_lp),
            decomposition_e: self.decomposition_e.min(o.decomposition_e),
        }
    }

    /// Each figure against `pingpong`'s (or the flags'), with the range it must
    /// fall in; the ratios that miss. The four figures that are one cache-line
    /// transfer each way agree within a factor that a halving error breaks: on
    /// a 2-vCPU Xeon VM (reference files of 2026-11-22) flags 1.00 and c2c 0.99
    /// of `pingpong`; on a 2-vCPU EPYC VM under a load of 10 (2026-11-25, rounds
    /// in both of its states, `pingpong` 67 and 200 to 290 ns) flags 0.68 to
    /// 0.80, c2c 0.93 to 1.07, the echo 0.93 to 1.07, `l_p` 0.95 to 1.1 of the
    /// flags. A halving error in `pingpong` (or in `c2c`, the flags, the echo,
    /// `l_p`) moves its ratios out by 2. The SCI ring (`2 o + l_p`: copies and a
    /// flush) and `E` (forwarding by polled hosted nodes) carry costs that do not
    /// scale with the line transfer (the ring 3.5 x `pingpong` on the Xeon, 2.6 to
    /// 3.1 on the EPYC in its slow state and 8.7 in its fast one), so they are
    /// held only to being dearer than one transfer and within 15 of it: a unit
    /// slip, not a halving, breaks those (tests/sci.rs and the decomposition's
    /// own solve tests pin their halving).
    fn misses(&self) -> Vec<String> {
        let pp = self.pingpong;
        let checks = [
            ("flags / pingpong", self.flags / pp, 0.55, 1.35),
            ("c2c / pingpong", self.c2c / pp, 0.6, 1.6),
            ("comet_echo / pingpong", self.comet_echo / pp, 0.6, 1.6),
            ("sci_lp / flags", self.sci_lp / self.flags, 0.6, 1.6),
            ("sci_ring / pingpong", self.sci_ring / pp, 1.0, 15.0),
            (
                "decomposition_e / pingpong",
                self.decomposition_e / pp,
                1.0,
                15.0,
            ),
        ];
        checks
            .iter()
            .filter(|(_, r, lo, hi)| !(lo..=hi).contains(&r))
            .map(|(name, r, lo, hi)| format!("{name} = {r:.2} outside [{lo}, {hi}]"))
            .collect()
    }
}

#[test]
fn five_kernels_agree_on_one_message_between_the_same_two_cpus() {
    let allowed = allowed_cpus();
    if allowed.len() < 2 {
        return common::cannot_run_here(
            "five_kernels_agree_on_one_message_between_the_same_two_cpus",
            "it needs 2 CPUs",
        );
    }
    let cpus = &allowed[..2];
    // Each round runs the five kernels back to back. On a loaded machine a
    // kernel now and then loses its partner thread for a scheduler quantum
    // (milliseconds, where a message takes hundreds of ns), and this machine's
    // core-to-core cost may change state (fourfold on a 2-vCPU EPYC VM) between
    // rounds or within one. So the test passes when one round agrees, or when
    // the least of each figure over the rounds so far does (slips only ever
    // raise a figure); up to five rounds.
    let mut rounds = Vec::new();
    let mut least: Option<Figures> = None;
    for _ in 0..5 {
        let f = Figures::measure(cpus);
        let l = least.map_or(f, |l| l.min(f));
        least = Some(l);
        let (misses, least_misses) = (f.misses(), l.misses());
        eprintln!("{f:?}: {misses:?}; least so far: {least_misses:?}");
        rounds.push(format!("{f:?}: {}", misses.join("; ")));
        if misses.is_empty() || least_misses.is_empty() {
            return;
        }
    }
    panic!(
        "no round agreed, nor the least figures {least:?}:\n{}",
        rounds.join("\n")
    );
}
