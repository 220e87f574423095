//! `halfperf model kg` and `halfperf model comet`: the papers' derived predictions
//! from a result file, printed beside the measurements of the kernels that run
//! what they predict. The equations are in [`halfperf::model::kg`] and
//! [`halfperf::model::comet`]; this file finds their inputs in the file, marks the
//! untrustworthy ones and prints.

use anyhow::{Context, Result, bail};
use halfperf::control::Placement;
use halfperf::model::comet::{self as cm, EchoLines};
use halfperf::model::interval::t_interval;
use halfperf::model::kg::{self, Estimate, Line, SixLines};
use halfperf::results::{self, FitResult, KernelResult, Point, ResultFile};
use std::path::{Path, PathBuf};

/// `halfperf model kg`.
#[derive(clap::Args)]
pub(crate) struct KgArgs {
    /// A result file with the `decomposition` kernel (and `interference` to compare
    /// section 5.2's period and slowdown).
    #[arg(long, value_name = "FILE")]
    from: PathBuf,
    /// The transport whose `decomposition` to use (mailbox, channel, ...; default:
    /// the first in the file).
    #[arg(long, value_name = "NAME")]
    transport: Option<String>,
}

/// `halfperf model comet`.
#[derive(clap::Args)]
pub(crate) struct CometArgs {
    /// A result file with `comet-echo` (the lines) and any of the collectives and
    /// matrix kernels to compare with.
    #[arg(long, value_name = "FILE")]
    from: PathBuf,
    /// The transport whose kernels to use (default: the echo's first).
    #[arg(long, value_name = "NAME")]
    transport: Option<String>,
}

/// A prediction's input is noisy when its interval is wider than this fraction of
/// its value either side.
const NOISY: f64 = 0.25;
/// A measured point is noisy when its trials spread more than this ((max - min) /
/// min), scibench's ACCURACY.
const ACCURACY: f64 = 0.10;

fn read(path: &Path) -> Result<ResultFile> {
    results::read(path).with_context(|| format!("--from {}", path.display()))
}

fn kernel<'a>(
    file: &'a ResultFile,
    name: &str,
    transport: Option<&str>,
) -> Option<&'a KernelResult> {
    file.kernels
        .iter()
        .find(|k| k.kernel == name && transport.is_none_or(|t| k.transport.as_deref() == Some(t)))
}

/// A coefficient of `fit` with its Student-t interval.
fn coefficient(fit: &FitResult, name: &str) -> Option<Estimate> {
    let value = *fit.params.get(name)?;
    if !value.is_finite() {
        return None;
    }
    let dof = fit.n_points.saturating_sub(2);
    let ci = fit
        .std_errors
        .get(name)
        .and_then(|&se| t_interval(value, se, dof));
    Some(Estimate::new(value, ci))
}

/// The marks of an input: flagged fit, noisy interval, virtual processors.
fn marks(e: &Estimate, flagged: bool, virtual_: bool) -> String {
    let mut m = Vec::new();
    if flagged {
        m.push("flagged");
    }
    let noisy = e.ci95.is_none_or(|[lo, hi]| {
        let half = (hi - lo) / 2.0;
        half > NOISY * e.value.abs()
    });
    if noisy {
        m.push("noisy");
    }
    if virtual_ {
        m.push("virtual");
    }
    if m.is_empty() {
        String::new()
    } else {
        format!(" [{}]", m.join(", "))
    }
}

fn ci_text(e: &Estimate) -> String {
    match e.ci95 {
        Some([lo, hi]) if hi.is_finite() => format!("[{}, {}]", num(lo), num(hi)),
        Some([lo, _]) => format!("[{}, unbounded]", num(lo)),
        None => "(no interval)".into(),
    }
}

fn num(v: f64) -> String {
    results::sig(v)
}

fn pct(pred: f64, meas: f64) -> String {
    format!("{:+.0} %", (pred / meas - 1.0) * 100.0)
}

/// The measured median of `name` at a point, or of its legacy name.
fn median(p: &Point, names: &[&str]) -> Option<f64> {
    names.iter().find_map(|n| p.stats(n)).map(|s| s.median)
}

/// `halfperf model kg --from FILE`.
pub(crate) fn kg(args: &KgArgs) -> Result<()> {
    let file = read(&args.from)?;
    let dec = kernel(&file, "decomposition", args.transport.as_deref()).with_context(|| {
        format!(
            "{} has no decomposition kernel{}: run `halfperf run decomposition interference` first",
            args.from.display(),
            args.transport
                .as_deref()
                .map(|t| format!(" over {t}"))
                .unwrap_or_default()
        )
    })?;
    let virtual_ = dec.placement != Placement::Pinned;
    let mut lines = Vec::new();
    println!(
        "Krumme & Greenfield's derived patterns from {} (decomposition over {}, placement {:?})",
        args.from.display(),
        dec.transport.as_deref().unwrap_or("-"),
        dec.placement
    );
    println!("inputs: the lines X0 + X1 n of Table 3 (integer Q, 16-2000 B), 95 % intervals:");
    for letter in ["e", "r", "s", "f", "u", "a"] {
        let upper = letter.to_uppercase();
        let fit = dec
            .fits
            .iter()
            .find(|f| f.model.starts_with(&format!("{upper} = ")) && f.model.contains("integer Q, 16-2000 B"))
            .with_context(|| format!("{}: the decomposition has no line of {upper} (integer Q, 16-2000 B); rerun `halfperf run decomposition`", args.from.display()))?;
        let (c0, c1) = (
            format!("int_{letter}0_ns"),
            format!("int_{letter}1_ns_per_byte"),
        );
        let at0 = coefficient(fit, &c0);
        let per = coefficient(fit, &c1);
        let (Some(at0), Some(per)) = (at0, per) else {
            bail!(
                "{}: the line of {upper} lacks {c0} or {c1}; rerun `halfperf run decomposition`",
                args.from.display()
            );
        };
        println!(
            "  {upper} = {} {} + {} {} n ns  (R^2 {:.3}){}",
            num(at0.value),
            ci_text(&at0),
            num(per.value),
            ci_text(&per),
            fit.r2,
            marks(&at0, fit.flagged, virtual_)
        );
        lines.push(Line {
            at0_ns: at0,
            per_byte_ns: per,
        });
    }
    let six = SixLines {
        e: lines[0],
        r: lines[1],
        s: lines[2],
        f: lines[3],
        u: lines[4],
        a: lines[5],
    };
    print_echoes(dec, &six)?;
    print_section_5_2(&file, args.transport.as_deref(), &six, virtual_)?;
    Ok(())
}

fn print_echoes(dec: &KernelResult, six: &SixLines) -> Result<()> {
    println!(
        "\necho at distance d: T_d = 2F + 2dE + 2U (E itself was solved from these echoes, (T_5 - T_1)/8, so the check is on F and U)"
    );
    println!(
        "  where forwarding ranks are user code the kernel took their receive + send (forward_ns) out of E: +fwd adds 2(d - 1) forward_ns back"
    );
    println!(
        "  {:>7} {:>2} {:>12} {:>28} {:>12} {:>12} {:>7}",
        "size B", "d", "predicted ns", "95 % interval", "+fwd ns", "measured ns", "error"
    );
    let mut any = false;
    for p in &dec.points {
        if p.number("q_float").unwrap_or(0.0) != 0.0 {
            continue;
        }
        let Some(n) = p.number("size_bytes") else {
            continue;
        };
        for d in 1..=5u32 {
            let measured = median(
                p,
                &[&format!("echo_idle_d{d}_ns"), &format!("echo_d{d}_ns")],
            );
            let Some(measured) = measured else { continue };
            let pred = six.echo_ns(d, n)?;
            let fwd = median(p, &["forward_ns"])
                .or_else(|| p.number("forward_ns"))
                .unwrap_or(0.0);
            let with_fwd = pred.value + 2.0 * f64::from(d - 1) * fwd;
            any = true;
            println!(
                "  {:>7} {:>2} {:>12} {:>28} {:>12} {:>12} {:>7}",
                n,
                d,
                num(pred.value),
                ci_text(&pred),
                num(with_fwd),
                num(measured),
                pct(with_fwd, measured)
            );
            if n > 2000.0 && d == 1 {
                println!("          (beyond the lines' 16-2000 B: extrapolated)");
            }
        }
    }
    if !any {
        println!("  (the file keeps no echo times; rerun `halfperf run decomposition`)");
    }
    println!(
        "\nforwarding through k nodes (one way F + (k+1)E + U; each forwarder loses R + S), at 2000 B:"
    );
    for k in 0..=4 {
        let t = six.forward_chain_ns(k, 2000.0)?;
        println!("  k = {k}: {} ns {}", num(t.value), ci_text(&t));
    }
    let cost = six.forward_cost_ns(2000.0)?;
    println!(
        "  R + S per message = {} ns {}",
        num(cost.value),
        ci_text(&cost)
    );
    Ok(())
}

fn print_section_5_2(
    file: &ResultFile,
    transport: Option<&str>,
    six: &SixLines,
    virtual_: bool,
) -> Result<()> {
    let n = 2000.0;
    let (stage, period) = six.stream_period_ns(n)?;
    let cost = six.forward_cost_ns(n)?;
    println!("\nsection 5.2 (2000-byte streams through one node):");
    for (s, e) in six.stages(n)? {
        println!(
            "  stage {:<28} {} ns {}",
            s.formula(),
            num(e.value),
            ci_text(&e)
        );
    }
    println!(
        "  predicted period: {} ns, limited by {}{}",
        num(period.value),
        stage.formula(),
        marks(&period, false, virtual_)
    );
    let Some(inter) = kernel(file, "interference", transport) else {
        println!(
            "  (no interference kernel in the file: run `halfperf run interference` to compare)"
        );
        return Ok(());
    };
    println!(
        "  {:>7} {:>9} {:>12} {:>7} {:>10} {:>10} {:>10}",
        "streams", "channels", "period ns", "error", "slowdown", "lines", "lines+P"
    );
    for p in &inter.points {
        let k = p.number("streams").unwrap_or(0.0);
        if k < 1.0 {
            continue;
        }
        let k_u = k as u32;
        let measured_period = median(p, &["period_ns"]);
        let measured_slowdown = median(p, &["slowdown"]);
        let (pure, _) = kg::slowdown_estimate(k_u, cost, period)?;
        let with_p = match measured_period {
            Some(mp) => kg::slowdown(k_u, cost.value, mp)?,
            None => None,
        };
        let show = |v: Option<f64>| v.map_or("saturated".to_string(), |v| format!("{v:.2}"));
        println!(
            "  {:>7} {:>9} {:>12} {:>7} {:>10} {:>10} {:>10}",
            k_u,
            2 * k_u,
            measured_period.map_or("-".into(), num),
            measured_period.map_or("-".into(), |m| pct(period.value, m)),
            measured_slowdown.map_or("-".into(), |s| format!("{s:.2}")),
            show(pure),
            show(with_p),
        );
    }
    println!(
        "  (slowdown: measured; lines: 1/(1 - k(R+S)/P) with the predicted period; lines+P: with the measured period)"
    );
    if inter.placement != Placement::Pinned || virtual_ {
        println!(
            "  marked virtual: sources and sinks share CPUs, so the period is set by their wake-ups, not by E, and the prediction is not a test of the lines"
        );
    }
    Ok(())
}

/// What one kernel's points are predicted from.
struct CometCase {
    kernel: &'static str,
    measured: &'static str,
    why: &'static str,
}

const CASES: [CometCase; 12] = [
    CometCase {
        kernel: "comet-exchange",
        measured: "exchange_ns",
        why: "full duplex assumed: both sends at once cost one t(N)",
    },
    CometCase {
        kernel: "comet-broadcast-linear",
        measured: "broadcast_ns",
        why: "no overlap assumed: P - 1 whole one-way times, then a dissemination barrier",
    },
    CometCase {
        kernel: "comet-broadcast-tree",
        measured: "broadcast_ns",
        why: "ceil(log2 P) rounds of t(N), then the barrier",
    },
    CometCase {
        kernel: "comet-global-sum-doubling",
        measured: "global_sum_ns",
        why: "log2 P exchanges, the additions free",
    },
    CometCase {
        kernel: "comet-global-sum-tree",
        measured: "global_sum_ns",
        why: "reduce then broadcast: 2 ceil(log2 P) t(N)",
    },
    CometCase {
        kernel: "comet-barrier-dissemination",
        measured: "barrier_ns",
        why: "ceil(log2 P) empty messages",
    },
    CometCase {
        kernel: "comet-shift-north",
        measured: "time_ns",
        why: "one exchange of the array with guard, 8 (ld+2)^2 B; none on a side of one rank",
    },
    CometCase {
        kernel: "comet-shift-east",
        measured: "time_ns",
        why: "one exchange of the array with guard; none on a side of one rank",
    },
    CometCase {
        kernel: "comet-transpose",
        measured: "time_ns",
        why: "one exchange with the transposed position, the local transpose free, then the barrier",
    },
    CometCase {
        kernel: "comet-update-guard",
        measured: "time_ns",
        why: "four strips of 8 ld B in sequence",
    },
    CometCase {
        kernel: "comet-row-broadcast",
        measured: "time_ns",
        why: "(rows - 1) x (t(8 ld) + an empty acknowledgement)",
    },
    CometCase {
        kernel: "comet-col-broadcast",
        measured: "time_ns",
        why: "(cols - 1) x (t(8 ld) + an empty acknowledgement), the packing free",
    },
];

/// The echo's line covering `bytes` (a piecewise fit has several segments).
fn echo_line(echo: &KernelResult, bytes: f64) -> Option<(&FitResult, Estimate, Estimate)> {
    let segments: Vec<&FitResult> = echo
        .fits
        .iter()
        .filter(|f| f.params.contains_key("t_startup_ns") && f.params.contains_key("t_per_byte_ns"))
        .collect();
    let within = |f: &&FitResult| {
        let lo = f.params.get("x_min_bytes").copied().unwrap_or(0.0);
        let hi = f
            .params
            .get("x_max_bytes")
            .copied()
            .unwrap_or(f64::INFINITY);
        bytes >= lo && bytes <= hi
    };
    let fit = segments
        .iter()
        .copied()
        .find(within)
        .or_else(|| segments.last().copied())?;
    Some((
        fit,
        coefficient(fit, "t_startup_ns")?,
        coefficient(fit, "t_per_byte_ns")?,
    ))
}

/// Predicted time of `case` at point `p` from echo lines `e`.
fn predict(case: &CometCase, e: &EchoLines, p: &Point) -> Option<f64> {
    let num_at = |n: &str| p.number(n);
    let procs = num_at("processors").map(|v| v as u32);
    let ld = num_at("local_order").map(|v| v as u32);
    let (rows, cols) = (
        num_at("grid_rows").map(|v| v as u32),
        num_at("grid_cols").map(|v| v as u32),
    );
    let size = num_at("size_bytes");
    let r = match case.kernel {
        "comet-exchange" => e.one_way_ns(size?, 1),
        "comet-broadcast-linear" => e.broadcast_linear_ns(size?, procs?),
        "comet-broadcast-tree" => e.broadcast_tree_ns(size?, procs?),
        "comet-global-sum-doubling" => e.global_sum_doubling_ns(size?, procs?),
        "comet-global-sum-tree" => e.global_sum_tree_ns(size?, procs?),
        "comet-barrier-dissemination" => e.barrier_ns(procs?),
        "comet-shift-north" => e.shift_ns(ld?, rows?),
        "comet-shift-east" => e.shift_ns(ld?, cols?),
        "comet-transpose" => e.transpose_ns(ld?, rows?, cols?),
        "comet-update-guard" => e.update_guard_ns(ld?),
        "comet-row-broadcast" => e.line_broadcast_ns(ld?, rows?.saturating_sub(1)),
        "comet-col-broadcast" => e.line_broadcast_ns(ld?, cols?.saturating_sub(1)),
        _ => return None,
    };
    r.ok()
}

/// The bytes whose echo segment applies to a point.
fn bytes_of(case: &CometCase, p: &Point) -> f64 {
    match (p.number("size_bytes"), p.number("local_order")) {
        (Some(b), _) => b,
        (None, Some(ld)) if case.kernel.contains("shift") || case.kernel.contains("transpose") => {
            cm::block_bytes(ld as u32)
        }
        (None, Some(ld)) => 8.0 * ld,
        (None, None) => 0.0,
    }
}

/// `halfperf model comet --from FILE`.
pub(crate) fn comet(args: &CometArgs) -> Result<()> {
    let file = read(&args.from)?;
    let echo = kernel(&file, "comet-echo", args.transport.as_deref()).with_context(|| {
        format!(
            "{} has no comet-echo kernel{}: run `halfperf run comet-echo` (and the collectives to compare)",
            args.from.display(),
            args.transport.as_deref().map(|t| format!(" over {t}")).unwrap_or_default()
        )
    })?;
    let transport = echo.transport.clone();
    let echo_virtual = echo.placement != Placement::Pinned;
    println!(
        "CoMet's kernels predicted from the echo's lines in {} (transport {}):",
        args.from.display(),
        transport.as_deref().unwrap_or("-")
    );
    println!("inputs (comet-echo, one hop, fitted on the minimum over trials; 95 % intervals):");
    for fit in echo
        .fits
        .iter()
        .filter(|f| f.params.contains_key("t_startup_ns"))
    {
        if let (Some(ts), Some(tb)) = (
            coefficient(fit, "t_startup_ns"),
            coefficient(fit, "t_per_byte_ns"),
        ) {
            println!(
                "  {}: t_startup = {} ns {}, t_per_byte = {} ns {}{}",
                fit.model,
                num(ts.value),
                ci_text(&ts),
                num(tb.value),
                ci_text(&tb),
                marks(&ts, fit.flagged, echo_virtual)
            );
        }
    }
    let hops = kernel(&file, "comet-echo-hops", transport.as_deref());
    let h = hops
        .and_then(|k| k.fits.iter().find_map(|f| coefficient(f, "h_ns")))
        .unwrap_or(Estimate::exact(0.0));
    match hops {
        Some(k) => println!(
            "  h = {} ns {} (comet-echo-hops){}; unused: every pair of threads is one hop here",
            num(h.value),
            ci_text(&h),
            marks(&h, false, k.placement != Placement::Pinned)
        ),
        None => println!(
            "  h: no comet-echo-hops in the file; unused: every pair of threads is one hop here"
        ),
    }
    let mut compared = 0;
    for case in &CASES {
        let Some(k) = kernel(&file, case.kernel, transport.as_deref()) else {
            continue;
        };
        compared += 1;
        print_case(case, k, echo, h);
    }
    if compared == 0 {
        bail!(
            "{} has no CoMet collective or matrix kernel over {}: run `halfperf run comet-broadcast comet-global-sum comet-barrier comet-shift comet-transpose`",
            args.from.display(),
            transport.as_deref().unwrap_or("its transport")
        );
    }
    println!("\nwhere the prediction fails and why:");
    println!(
        "  - virtual processors (more ranks than CPUs): a message to a rank that is not running waits for a wake-up, microseconds the pinned echo never saw; predictions there are far too fast"
    );
    println!(
        "  - overlap: a root's consecutive sends are copies into memory, not whole one-way trips; the no-overlap count is too slow for the linear broadcast and the guard update"
    );
    println!(
        "  - contention and store-and-forward: ranks sharing a core, a cache or a forwarding rank serialise what the count runs in parallel; too fast where several messages move at once"
    );
    println!(
        "  - computation: additions, packing and the local transpose are left out; too fast for large vectors and blocks"
    );
    Ok(())
}

fn short(name: &str) -> &str {
    match name {
        "size_bytes" => "B",
        "processors" => "P",
        "local_order" => "ld",
        "n_elements" => "n",
        other => other,
    }
}

/// One kernel's table: each point predicted, measured, the error and marks.
fn print_case(case: &CometCase, k: &KernelResult, echo: &KernelResult, h: Estimate) {
    println!("\n{} ({})", case.kernel, case.why);
    println!(
        "  {:>26} {:>12} {:>28} {:>12} {:>8}  marks",
        "point", "predicted ns", "95 % interval", "measured ns", "error"
    );
    let mut errors = (Vec::new(), Vec::new());
    for p in &k.points {
        let Some(stats) = p.stats(case.measured) else {
            continue;
        };
        let bytes = bytes_of(case, p);
        let Some((_, ts, tb)) = echo_line(echo, bytes) else {
            continue;
        };
        // h is unused at one hop: its value stands in for its bounds.
        let lines = |f: fn(&Estimate) -> Option<f64>| {
            Some(EchoLines {
                t_startup_ns: f(&ts)?,
                t_per_byte_ns: f(&tb)?,
                h_ns: h.value,
            })
        };
        let Some(mid) = lines(|e| Some(e.value)).and_then(|l| predict(case, &l, p)) else {
            continue;
        };
        let lo = lines(|e| e.ci95.map(|c| c[0])).and_then(|l| predict(case, &l, p));
        let hi = lines(|e| e.ci95.map(|c| c[1])).and_then(|l| predict(case, &l, p));
        let est = Estimate::new(mid, lo.zip(hi).map(|(a, b)| [a, b]));
        let virtual_p = p.number("virtual").unwrap_or(0.0) != 0.0;
        let spread = (stats.max - stats.min) / stats.min;
        let mut m = Vec::new();
        if virtual_p {
            m.push("virtual");
        }
        if spread > ACCURACY {
            m.push("noisy");
        }
        let label: Vec<String> = p
            .swept()
            .filter(|(n, _)| {
                !matches!(
                    *n,
                    "log2_processors" | "matrix_order" | "grid_rows" | "grid_cols" | "virtual"
                )
            })
            .map(|(n, v)| format!("{}={v}", short(n)))
            .collect();
        let err = mid / stats.min - 1.0;
        if stats.min > 0.0 && mid > 0.0 {
            if virtual_p {
                &mut errors.1
            } else {
                &mut errors.0
            }
            .push(err.abs() * 100.0);
        }
        println!(
            "  {:>26} {:>12} {:>28} {:>12} {:>8}  {}",
            label.join(" "),
            num(mid),
            ci_text(&est),
            num(stats.min),
            if mid > 0.0 {
                pct(mid, stats.min)
            } else {
                "-".into()
            },
            m.join(", ")
        );
    }
    let med = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied()
    };
    let (own, virt) = (med(&mut errors.0), med(&mut errors.1));
    println!(
        "  median |error|: {} on own CPUs, {} on virtual processors",
        own.map_or("-".into(), |v| format!("{v:.0} %")),
        virt.map_or("-".into(), |v| format!("{v:.0} %"))
    );
}
