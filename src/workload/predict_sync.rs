//! The `//@ sync` meetings of a schedule costed from the card: a meeting
//! through method `M` lets its members go at the last arrival plus
//! `hockney-sync`'s `t_0` of `M` (the `t0_ns` row, with its interval, so the
//! Monte Carlo draws it too), the time a segment's synchronisation costs the
//! master with no work between (Hockney's eq. (10b) at `s = 0`).
//!
//! Mode: awake. `t0_ns` is timed with every waiter kept polling the method's
//! own test before it waits, which is how the replay waits at a meeting; the
//! asleep regime's `t0_asleep_ns` holds every post back 100 µs to make the
//! waiter sleep, which no replay does. `t_0` is measured at the kernel's `P`
//! (2 unless `--cpus` names more); a meeting of more ranks gets a note.
#![forbid(unsafe_code)]

use super::predict_inputs::{Input, Inputs, PredictError};
use crate::model::goal::Schedule;
use crate::results::{ResultFile, Trust};

/// The kernel whose rows cost a meeting.
pub(super) const SYNC_KERNEL: &str = "hockney-sync";
/// The row: the awake regime's `t_0`.
pub(super) const T0: &str = "t0_ns";

/// Appends to `inputs` the `t_0` of every method the schedule's meetings use,
/// from the last of `files` that has it (card row, else the headline).
pub fn gather_syncs(
    files: &[(&str, &ResultFile)],
    schedule: &Schedule,
    inputs: &mut Inputs,
) -> Result<(), PredictError> {
    let mut methods: Vec<&str> = schedule
        .meetings
        .iter()
        .map(|m| m.method.as_str())
        .collect();
    methods.sort_unstable();
    methods.dedup();
    for method in methods {
        let kernel = format!("{SYNC_KERNEL}/{method}");
        let found = files.iter().rev().find_map(|(file, doc)| {
            let card = crate::analysis::card_of(doc);
            let row = card
                .rows
                .iter()
                .find(|r| r.kernel == kernel && r.name == T0)
                .map(|r| (r.value, r.ci95, r.trust.mark().to_owned()));
            let row = row.or_else(|| {
                let k = doc
                    .kernels
                    .iter()
                    .find(|k| crate::analysis::kernel_key(k) == kernel)?;
                let p = k.headline.iter().find(|p| p.name == T0)?;
                let busy = k.load.as_ref().is_some_and(|l| l.busy);
                let trust = if busy { Trust::Busy } else { Trust::Ok };
                Some((p.value, p.ci95, trust.mark().to_owned()))
            })?;
            Some(Input {
                symbol: "t0",
                kernel: kernel.clone(),
                name: T0.into(),
                value: row.0,
                unit: "ns".into(),
                ci95: row.1,
                trust: row.2,
                file: (*file).into(),
            })
        });
        match found.filter(|i| i.value.is_finite()) {
            Some(row) => inputs.rows.push(row),
            None => {
                return Err(PredictError::Missing {
                    files: files.iter().map(|f| f.0).collect::<Vec<_>>().join(", "),
                    name: T0.into(),
                    kernel,
                    symbol: "t0",
                    run: SYNC_KERNEL.into(),
                });
            }
        }
    }
    Ok(())
}

/// The row of each meeting's `t_0` in `inputs`, meeting order; empty when
/// the schedule has no meeting. A method without a row costs 0
/// ([`gather_syncs`] refuses that before).
pub(super) fn meeting_rows(schedule: &Schedule, inputs: &Inputs) -> Vec<Option<usize>> {
    schedule
        .meetings
        .iter()
        .map(|m| {
            let kernel = format!("{SYNC_KERNEL}/{}", m.method);
            inputs
                .rows
                .iter()
                .position(|r| r.symbol == "t0" && r.kernel == kernel)
        })
        .collect()
}

/// Each meeting's cost at the draw `x` of the rows, ns (at least 0).
pub(super) fn meeting_costs(rows: &[Option<usize>], x: &[f64]) -> Vec<f64> {
    rows.iter()
        .map(|r| r.map_or(0.0, |i| x[i].max(0.0)))
        .collect()
}

/// The note on a prediction with meetings: the mode, and the `P` of `t_0`.
pub(super) fn meeting_note(schedule: &Schedule) -> Option<String> {
    let largest = schedule.meetings.iter().map(|m| m.members.len()).max()?;
    let mut note = format!(
        "{} `//@ sync` meeting(s): each member leaves at the last arrival plus {SYNC_KERNEL}'s t_0 of its method (awake: the waiter polls the method's test, as the replay waits)",
        schedule.meetings.len()
    );
    if largest > 2 {
        note.push_str(&format!(
            "; a meeting of {largest} ranks costed by the t_0 of the kernel's P (2 unless it ran with --cpus)"
        ));
    }
    Some(note)
}
