//! The spread of every headline parameter over the repetitions of `run --repeat K`,
//! with the machine's probe beside each repetition.

use crate::analysis::DEFAULT_FLOOR;
use crate::analysis::{MOVED_ALLOWANCE, RepeatSpread, TARGET_CV, Verdict};
use crate::results::num;
use std::fmt::Write;

/// Two lines per parameter: kernel, transport, name and qualifier, the median, the
/// range, the coefficient of variation over the repetitions, the probe's CV and
/// the verdict; then each repetition's value with its probe beside it.
pub fn repeat_spread(rows: &[RepeatSpread], repeat: u32) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Headline parameters over {repeat} repetitions (median, range, CV = std dev / mean), beside the probe of each repetition (the CPU pair's two-flag round trip, ns; for an r_inf, its kernel's rate probe, P times the serial rate; for a time per byte, the copy probe, ns/B; for a ping-pong's n_half_bytes, the round trip over the copy probe, B; for an s_half_flop, the round trip times the rate probe, flop; beside a sync method's t0, its system-call probe too, ns):"
    );
    let _ = writeln!(
        s,
        "  stable: CV <= {:.0} %; machine moved: CV <= the probe's CV + {:.0} points; mode changed: a sync method's hand-overs slept in some repetitions and not in others (times a segment in brackets); moved with the probe: compare, setting each repetition beside the median one (floor {:.0} %), marks none * and one or more ~; within its intervals: compare marks nothing, every repetition's 95 % interval overlapping the median one's (quote the interval); else unstable. After a value, compare's mark against the median repetition: * differs, ~ moved with the machine or the method's mode",
        TARGET_CV * 100.0,
        MOVED_ALLOWANCE * 100.0,
        DEFAULT_FLOOR * 100.0
    );
    for r in rows {
        let what = what(r);
        let probe_cv = if r.probe_cv.is_finite() {
            format!("{:>5.1} %", r.probe_cv * 100.0)
        } else {
            "    - ".into()
        };
        let _ = writeln!(
            s,
            "  {what:<60} {:>12}  {:>12} .. {:<12} CV {:>5.1} %  probe CV {probe_cv}  {}",
            num(r.median),
            num(r.range[0]),
            num(r.range[1]),
            r.cv * 100.0,
            r.verdict.label()
        );
        let each: Vec<String> = r
            .values
            .iter()
            .zip(&r.probes)
            .enumerate()
            .map(|(i, (v, p))| {
                let slept = r
                    .modes
                    .get(i)
                    .filter(|_| r.modes.len() == r.values.len())
                    .map_or(String::new(), |m| format!(" [slept {:.2}]", m.blocks));
                let mark = r.marks.get(i).map_or(String::new(), |w| match w.mark() {
                    "" => String::new(),
                    m => format!(" {m}"),
                });
                // A t0's system-call probe, where every repetition has one.
                let syscall = r
                    .syscall
                    .get(i)
                    .filter(|_| r.syscall.len() == r.values.len())
                    .map_or(String::new(), |c| format!(", syscall {}", num(*c)));
                if p.is_finite() {
                    format!("{} (probe {}{syscall}){slept}{mark}", num(*v), num(*p))
                } else {
                    format!("{}{slept}{mark}", num(*v))
                }
            })
            .collect();
        let _ = writeln!(s, "      {}", each.join(", "));
    }
    let count = |v: Verdict| rows.iter().filter(|r| r.verdict == v).count();
    let _ = writeln!(
        s,
        "Of {} headline parameters: {} stable, {} machine moved, {} mode changed, {} moved with the probe, {} within their intervals, {} unstable",
        rows.len(),
        count(Verdict::Stable),
        count(Verdict::MachineMoved),
        count(Verdict::ModeChanged),
        count(Verdict::MovedWithProbe),
        count(Verdict::WithinIntervals),
        count(Verdict::Unstable)
    );
    let unstable: Vec<String> = rows
        .iter()
        .filter(|r| r.verdict == Verdict::Unstable)
        .map(what)
        .collect();
    if !unstable.is_empty() {
        let _ = writeln!(s, "Unstable: {}", unstable.join("; "));
    }
    s
}

/// A row's kernel, transport, name and qualifier.
fn what(r: &RepeatSpread) -> String {
    match (&r.transport, &r.of) {
        (Some(t), Some(o)) => format!("{} {t} {} [{o}]", r.kernel, r.name),
        (Some(t), None) => format!("{} {t} {}", r.kernel, r.name),
        (None, Some(o)) => format!("{} {} [{o}]", r.kernel, r.name),
        (None, None) => format!("{} {}", r.kernel, r.name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Why;

    /// A row whose third repetition moved with the probe shows `~` after
    /// that value alone, and the closing line counts each verdict.
    #[test]
    fn marks_follow_the_values_and_the_verdicts_are_counted() {
        let row = |verdict, marks: Vec<Why>| RepeatSpread {
            kernel: "hockney-sync".into(),
            transport: Some("spin-hint".into()),
            name: "t0_ns".into(),
            of: Some("spin-hint".into()),
            values: vec![80.0, 360.0, 81.0],
            probes: vec![129.0, 417.0, 129.0],
            syscall: Vec::new(),
            median: 81.0,
            range: [80.0, 360.0],
            cv: 0.92,
            probe_cv: 0.70,
            modes: Vec::new(),
            marks,
            verdict,
        };
        let moved = vec![
            Why::IntervalsOverlap,
            Why::MachineMoved,
            Why::IntervalsOverlap,
        ];
        let apart = vec![
            Why::WithinFloor,
            Why::IntervalsDisjoint,
            Why::IntervalsOverlap,
        ];
        let overlap = vec![Why::IntervalsOverlap; 3];
        let mut by_syscall = row(Verdict::MovedWithProbe, moved.clone());
        by_syscall.syscall = vec![310.0, 380.0, 312.0];
        let text = repeat_spread(
            &[
                row(Verdict::MovedWithProbe, moved),
                row(Verdict::Unstable, apart),
                row(Verdict::Stable, Vec::new()),
                row(Verdict::WithinIntervals, overlap),
                by_syscall,
            ],
            3,
        );
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[2].ends_with("moved with the probe"), "{}", lines[2]);
        assert_eq!(
            lines[3].trim(),
            "80.000 (probe 129.0), 360.0 (probe 417.0) ~, 81.000 (probe 129.0)"
        );
        assert!(lines[5].contains("360.0 (probe 417.0) *,"), "{}", lines[5]);
        assert!(lines[8].ends_with("within its intervals"), "{}", lines[8]);
        assert!(
            !lines[9].contains('*') && !lines[9].contains('~'),
            "{}",
            lines[9]
        );
        assert_eq!(
            lines[11].trim(),
            "80.000 (probe 129.0, syscall 310.0), 360.0 (probe 417.0, syscall 380.0) ~, 81.000 (probe 129.0, syscall 312.0)"
        );
        let n = lines.len();
        assert_eq!(
            lines[n - 2],
            "Of 5 headline parameters: 1 stable, 0 machine moved, 0 mode changed, 2 moved with the probe, 1 within their intervals, 1 unstable"
        );
        assert_eq!(
            lines[n - 1],
            "Unstable: hockney-sync spin-hint t0_ns [spin-hint]"
        );
    }
}
