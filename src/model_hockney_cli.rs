//! `halfperf model hockney` and `halfperf model speedup`: the papers' own
//! predictions from a result file's card.
//!
//! `model hockney`: a program's time by Hockney's eqs. (4)-(9)
//! ([`halfperf::model::hockney_program`]) from the card's `hockney-vector`
//! `(r_inf, n_1/2)` per level and `hockney-sync` `(r_inf, t_0, s_1/2)` per
//! method, with its 95 % interval, the segments' efficiency and the grain for
//! a target efficiency, per method. `model speedup`: Lamanna's eq. 13 (or
//! eq. 11 with bursts and receivers) from the `speedup` kernel, the optimal N
//! (eq. 15) and the U for an efficiency (eq. 18), beside the kernel's own
//! points at that N. Every prediction lists its inputs (card rows with their
//! intervals and trust) and is marked when one of them is not `ok`.

use anyhow::{Context, Result, bail};
use halfperf::analysis::{Input, input_marks, prediction_rows};
use halfperf::model::hockney_program::{self as hp, Estimate, Program};
use halfperf::results::{self, CardRow, ResultFile};
use halfperf::text::prediction::{ci, input_line};
use serde::Serialize;
use std::path::{Path, PathBuf};

#[path = "model_speedup_cli.rs"]
mod speedup_cli;
pub(crate) use speedup_cli::{SpeedupArgs, model_speedup};

/// `halfperf model hockney` (see `--help`).
#[derive(clap::Args)]
pub(crate) struct HockneyArgs {
    /// Result file whose card gives the parameters: `hockney-vector` for the
    /// vector part, `hockney-sync` for the segments.
    #[arg(long, value_name = "FILE")]
    from: PathBuf,
    /// Program file, one statement a line (`#` comments): `vector LEVEL FLOP
    /// COUNT` (COUNT operations of FLOP flop at LEVEL's r_inf, n_1/2, eq. 4),
    /// `scalar FLOP RATE_FLOP_PER_S` (eq. 5), `segment GRAIN_FLOP COUNT`
    /// (COUNT synchronised segments, eqs. 8-9, in order), `processors P`,
    /// `method NAME`, `ep E_P`. Flags below add to it.
    #[arg(long, value_name = "FILE")]
    program: Option<PathBuf>,
    /// Vector operations: LEVEL:FLOPxCOUNT, e.g. `L1:400x10` (LEVEL as the
    /// card's `of`, or VARIANT/LEVEL, e.g. `triad-f64/L1`). Repeatable.
    #[arg(
        long = "vector",
        value_name = "LEVEL:FLOPxCOUNT",
        allow_hyphen_values = true
    )]
    vector: Vec<String>,
    /// Synchronised segments: GRAINxCOUNT, e.g. `8000x5` (five segments of
    /// 8000 flop split between the processors). Repeatable, in order.
    #[arg(
        long = "segment",
        value_name = "GRAINxCOUNT",
        allow_hyphen_values = true
    )]
    segment: Vec<String>,
    /// Scalar work: FLOP@RATE, flop at RATE flop/s (the card has no scalar rate).
    #[arg(long, value_name = "FLOP@RATE", allow_hyphen_values = true)]
    scalar: Option<String>,
    /// Processors P the segments are split between; must be the P that
    /// `hockney-sync` measured on (default: that P).
    #[arg(long, value_name = "P", allow_negative_numbers = true)]
    processors: Option<f64>,
    /// Synchronisation method (a `hockney-sync` method; default: every method
    /// on the card).
    #[arg(long, value_name = "NAME")]
    method: Option<String>,
    /// Kuck's scheduling efficiency E_p of eq. 9 (default: the balance of the
    /// segments split in whole flop, 1 when they split evenly).
    #[arg(long, value_name = "E_P", allow_negative_numbers = true)]
    ep: Option<f64>,
    /// Target efficiency (fraction of r_inf) for the grain column, in (0, E_p).
    #[arg(
        long,
        value_name = "E",
        default_value_t = 0.9,
        allow_negative_numbers = true
    )]
    efficiency: f64,
    /// Print the prediction as JSON on stdout.
    #[arg(long)]
    json: bool,
}

/// One method's prediction.
#[derive(Debug, Serialize)]
struct MethodPrediction {
    method: String,
    processors: usize,
    t_ns: f64,
    ci95_ns: [f64; 2],
    t_segments_ns: f64,
    efficiency: f64,
    efficiency_ci95: [f64; 2],
    grain_flop: Option<f64>,
    grain_ci95_flop: Option<[f64; 2]>,
    marks: Vec<String>,
    inputs: Vec<Input>,
}

/// The whole report.
#[derive(Debug, Serialize)]
struct HockneyReport {
    from: String,
    program: Vec<String>,
    segment_flop: f64,
    segments: f64,
    e_p: Option<f64>,
    target_efficiency: f64,
    t_vector_ns: f64,
    t_scalar_ns: f64,
    vector_inputs: Vec<Input>,
    notes: Vec<String>,
    predictions: Vec<MethodPrediction>,
}

/// Reads the program from `--program` and the flags.
fn program_of(args: &HockneyArgs) -> Result<Program> {
    let mut p = match &args.program {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("--program {}", path.display()))?;
            Program::parse(&text).with_context(|| format!("--program {}", path.display()))?
        }
        None => Program::default(),
    };
    for v in &args.vector {
        let (level, rest) = v.split_once(':').with_context(|| {
            format!("--vector {v:?}: expected LEVEL:FLOPxCOUNT, e.g. L1:400x10")
        })?;
        let (flop, count) = rest.split_once('x').with_context(|| {
            format!("--vector {v:?}: expected LEVEL:FLOPxCOUNT, e.g. L1:400x10")
        })?;
        p.statement(&format!("vector {level} {flop} {count}"), 0)
            .with_context(|| format!("--vector {v:?}"))?;
    }
    for s in &args.segment {
        let (grain, count) = s
            .split_once('x')
            .with_context(|| format!("--segment {s:?}: expected GRAINxCOUNT, e.g. 8000x5"))?;
        p.statement(&format!("segment {grain} {count}"), 0)
            .with_context(|| format!("--segment {s:?}"))?;
    }
    if let Some(s) = &args.scalar {
        let (flop, rate) = s
            .split_once('@')
            .with_context(|| format!("--scalar {s:?}: expected FLOP@RATE, e.g. 1000@5e8"))?;
        p.statement(&format!("scalar {flop} {rate}"), 0)
            .with_context(|| format!("--scalar {s:?}"))?;
    }
    if let Some(n) = args.processors {
        p.statement(&format!("processors {n}"), 0)
            .context("--processors")?;
    }
    if let Some(m) = &args.method {
        p.method = Some(m.clone());
    }
    if let Some(e) = args.ep {
        p.statement(&format!("ep {e}"), 0).context("--ep")?;
    }
    if p.vector.is_empty() && p.segments.is_empty() && p.scalar.is_none() {
        bail!("no program: give --vector, --segment, --scalar or --program FILE");
    }
    Ok(p)
}

/// The card rows of `kernel` (exact, or any `kernel/...` when it has no `/`).
fn row<'a>(rows: &'a [CardRow], kernel: &str, name: &str, of: Option<&str>) -> Option<&'a CardRow> {
    rows.iter().find(|r| {
        let k = match kernel.contains('/') {
            true => r.kernel == kernel,
            false => r.kernel.split('/').next() == Some(kernel),
        };
        k && r.name == name
            && of.is_none_or(|o| r.of.as_deref().is_some_and(|x| x.eq_ignore_ascii_case(o)))
    })
}

/// The vector part: eq. (4) per group, its inputs and notes.
fn vector_part(p: &Program, rows: &[CardRow], from: &Path) -> Result<(Vec<Input>, Vec<String>)> {
    let mut inputs = Vec::new();
    let mut notes = Vec::new();
    for v in &p.vector {
        let (kernel, level) = match v.level.split_once('/') {
            Some((variant, level)) => (format!("hockney-vector/{variant}"), level),
            None => ("hockney-vector".to_string(), v.level.as_str()),
        };
        let prefix = level.to_ascii_lowercase();
        let r = row(
            rows,
            &kernel,
            &format!("{prefix}_r_inf_flop_per_s"),
            Some(level),
        )
        .with_context(|| {
            format!(
                "{} has no r_inf for {} on its card: run `halfperf run hockney-vector`",
                from.display(),
                v.level
            )
        })?;
        let kernel = r.kernel.clone();
        inputs.push(Input::of_row(r));
        match row(rows, &kernel, &format!("{prefix}_n_half_flop"), Some(level)) {
            Some(n) => inputs.push(Input::of_row(n)),
            None => {
                notes.push(format!(
                    "{kernel} gives no n_1/2 for {level} (its line has no resolvable start-up): taken as 0"
                ));
                inputs.push(Input {
                    kernel: kernel.clone(),
                    name: format!("{prefix}_n_half_flop"),
                    of: Some(level.into()),
                    value: 0.0,
                    unit: "flop".into(),
                    ci95: None,
                    trust: "ok".into(),
                });
            }
        }
    }
    Ok((inputs, notes))
}

/// `T_v` in ns from drawn `(r_inf per s, n_1/2)` pairs, one per vector group.
fn t_vector_ns(p: &Program, x: &[f64]) -> f64 {
    p.vector
        .iter()
        .zip(x.chunks(2))
        .map(|(v, rn)| hp::vector_time(rn[0] / 1e9, rn[1], v.flop * v.count as f64, v.count as f64))
        .sum()
}

/// The `hockney-sync` (or `hockney-program`) methods on the card, in its order.
fn card_methods(rows: &[CardRow]) -> Vec<String> {
    let mut m: Vec<String> = Vec::new();
    for r in rows.iter().filter(|r| r.name == "t0_ns") {
        let name = match r.kernel.split_once('/') {
            Some(("hockney-sync" | "hockney-program", m)) => m.to_string(),
            _ => continue,
        };
        if !m.contains(&name) {
            m.push(name);
        }
    }
    m
}

/// The processors `hockney-sync` ran `method` on.
fn sync_processors(file: &ResultFile, method: &str) -> Option<usize> {
    file.kernels
        .iter()
        .find(|k| {
            (k.kernel == "hockney-sync" || k.kernel == "hockney-program")
                && k.transport.as_deref() == Some(method)
        })
        .map(|k| k.ranks.max(k.cpus.len()))
}

/// One method's prediction of the whole program.
fn predict_method(
    p: &Program,
    file: &ResultFile,
    rows: &[CardRow],
    method: &str,
    vector: &[Input],
    target: f64,
    from: &Path,
) -> Result<MethodPrediction> {
    let kernel = ["hockney-sync", "hockney-program"]
        .iter()
        .map(|k| format!("{k}/{method}"))
        .find(|k| row(rows, k, "t0_ns", None).is_some())
        .unwrap_or_else(|| format!("hockney-sync/{method}"));
    let need = |name: &str| {
        row(rows, &kernel, name, None).with_context(|| {
            format!(
                "{} has no {name} for method {method}: run `halfperf run hockney-sync`",
                from.display()
            )
        })
    };
    let (r, t0, s_half) = (
        need("r_inf_flop_per_s")?,
        need("t0_ns")?,
        need("s_half_flop")?,
    );
    let parts = sync_processors(file, method).unwrap_or(2);
    if let Some(want) = p.processors
        && want as usize != parts
    {
        bail!(
            "--processors {want}: {} measured {method} on P = {parts}; run `halfperf run hockney-sync --cpus LIST` with {want} CPUs",
            from.display()
        );
    }
    let e_p = p.e_p(parts as u64)?;
    if !(target > 0.0 && target < e_p) {
        bail!("--efficiency {target} must lie strictly between 0 and E_p = {e_p}");
    }
    let (s, q) = p.segment_work();
    let scalar = p
        .scalar
        .map_or(0.0, |(flop, rate)| hp::scalar_time(rate / 1e9, flop));
    let mut inputs: Vec<Input> = vector.to_vec();
    inputs.extend([Input::of_row(r), Input::of_row(t0), Input::of_row(s_half)]);
    let mut est: Vec<Estimate> = vector.iter().map(Input::estimate).collect();
    est.extend([Input::of_row(r).estimate(), Input::of_row(t0).estimate()]);
    let nv = vector.len();
    let total = |x: &[f64]| {
        t_vector_ns(p, &x[..nv])
            + scalar
            + match q > 0.0 {
                true => hp::segmented_time_t0(x[nv] / 1e9, x[nv + 1], s, q, e_p),
                false => 0.0,
            }
    };
    let values: Vec<f64> = est.iter().map(|e| e.value).collect();
    let t_seg = match q > 0.0 {
        true => hp::segmented_time_t0(r.value / 1e9, t0.value, s, q, e_p),
        false => 0.0,
    };
    let half = Estimate::new(s_half.value, s_half.ci95);
    let eff = |sh: f64| hp::segment_efficiency(sh, s, q, e_p);
    let efficiency_ci95 = hp::monte_carlo(&[half], |x| eff(x[0]));
    let grain = hp::grain_for_efficiency(s_half.value, target, e_p).ok();
    let grain_ci95 = s_half.ci95.and_then(|[lo, hi]| {
        let g = |v| hp::grain_for_efficiency(v, target, e_p).ok();
        Some([g(lo.max(f64::MIN_POSITIVE))?, g(hi)?])
    });
    Ok(MethodPrediction {
        method: method.into(),
        processors: parts,
        t_ns: total(&values),
        ci95_ns: hp::monte_carlo(&est, total),
        t_segments_ns: t_seg,
        efficiency: if q > 0.0 { eff(s_half.value) } else { f64::NAN },
        efficiency_ci95,
        grain_flop: grain,
        grain_ci95_flop: grain_ci95,
        marks: input_marks(&inputs),
        inputs,
    })
}

/// `halfperf model hockney`.
pub(crate) fn model_hockney(args: &HockneyArgs) -> Result<()> {
    let p = program_of(args)?;
    let file = results::read(&args.from)?;
    let rows = prediction_rows(&file);
    let (vector, mut notes) = vector_part(&p, &rows, &args.from)?;
    let values: Vec<f64> = vector.iter().map(|i| i.value).collect();
    let t_vector_ns = t_vector_ns(&p, &values);
    let t_scalar_ns = p
        .scalar
        .map_or(0.0, |(flop, rate)| hp::scalar_time(rate / 1e9, flop));
    let methods = match &p.method {
        Some(m) => vec![m.clone()],
        None => card_methods(&rows),
    };
    let (s, q) = p.segment_work();
    let mut predictions = Vec::new();
    if q > 0.0 && methods.is_empty() {
        bail!(
            "{} has no hockney-sync rows for the segments: run `halfperf run hockney-sync`",
            args.from.display()
        );
    }
    if q > 0.0 {
        for m in &methods {
            predictions.push(predict_method(
                &p,
                &file,
                &rows,
                m,
                &vector,
                args.efficiency,
                &args.from,
            )?);
        }
    } else if !(args.efficiency > 0.0 && args.efficiency < 1.0) {
        bail!(
            "--efficiency {} must lie strictly between 0 and 1",
            args.efficiency
        );
    }
    if p.scalar.is_some() {
        notes.push("the scalar rate is the one given (the card has none)".into());
    }
    let report = HockneyReport {
        from: args.from.display().to_string(),
        program: describe(&p),
        segment_flop: s,
        segments: q,
        e_p: p.e_p,
        target_efficiency: args.efficiency,
        t_vector_ns,
        t_scalar_ns,
        vector_inputs: vector,
        notes,
        predictions,
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", text(&report));
    }
    Ok(())
}

/// The program in words, one statement a line.
fn describe(p: &Program) -> Vec<String> {
    let mut out: Vec<String> = p
        .vector
        .iter()
        .map(|v| format!("vector {} {} {}", v.level, v.flop, v.count))
        .collect();
    if let Some((flop, rate)) = p.scalar {
        out.push(format!("scalar {flop} {rate}"));
    }
    out.extend(
        p.segments
            .iter()
            .map(|g| format!("segment {} {}", g.grain, g.count)),
    );
    out
}

fn text(r: &HockneyReport) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(out, "Hockney's program time, eqs. 4-9, from {}", r.from);
    let _ = writeln!(out, "program: {}", r.program.join("; "));
    let _ = writeln!(
        out,
        "segments: s = {} flop in q = {}; T_v = {} ns (eq. 4), T_s = {} ns (eq. 5)",
        results::num(r.segment_flop),
        r.segments,
        results::num(r.t_vector_ns),
        results::num(r.t_scalar_ns)
    );
    for i in &r.vector_inputs {
        let _ = writeln!(out, "  input: {}", input_line(i));
    }
    for n in &r.notes {
        let _ = writeln!(out, "  note: {n}");
    }
    if r.predictions.is_empty() {
        let _ = writeln!(
            out,
            "T = {} ns (eq. 6)",
            results::num(r.t_vector_ns + r.t_scalar_ns)
        );
        return out;
    }
    let _ = writeln!(
        out,
        "T = T_v + T_s + (s/E_p + s_1/2 q)/r_inf (eqs. 6, 9), 95 % by Monte Carlo over the inputs' intervals ({} draws, fixed seed); E = s/(s/E_p + s_1/2 q); grain for E = {}:",
        hp::DRAWS,
        r.target_efficiency
    );
    for m in &r.predictions {
        let mark = match m.marks.is_empty() {
            true => String::new(),
            false => format!("  ! from {}", m.marks.join(", ")),
        };
        let _ = writeln!(
            out,
            "{:<14} P = {} T = {} ns {}  E = {:.3} {}  grain = {} flop {}{mark}",
            m.method,
            m.processors,
            results::num(m.t_ns),
            ci(m.ci95_ns),
            m.efficiency,
            ci(m.efficiency_ci95),
            m.grain_flop.map_or("-".into(), results::num),
            m.grain_ci95_flop.map_or(String::new(), ci),
        );
        for i in m.inputs.iter().skip(r.vector_inputs.len()) {
            let _ = writeln!(out, "    input: {}", input_line(i));
        }
    }
    out
}
