//! The `//@ sync` extension: every form read, every error one line naming the
//! file, the line and the construct.

use super::super::{OpKind, SyncOp, check, parse};

/// A meeting of ranks 0, 1 and 2 through `barrier-spin` on tag 9, rank 0 the
/// master, with work before and after; line numbers in comments.
fn three() -> String {
    [
        "num_ranks 3",                                    // 1
        "rank 0 {",                                       // 2
        "c: calc 10",                                     // 3
        "a1: recv 0b from 1 tag 9 //@ sync barrier-spin", // 4
        "a2: recv 0b from 2 tag 9 //@ sync barrier-spin", // 5
        "b1: send 0b to 1 tag 9 //@ sync barrier-spin",   // 6
        "b2: send 0b to 2 tag 9 //@ sync barrier-spin",   // 7
        "d: calc 5",                                      // 8
        "a1 requires c",                                  // 9
        "a2 requires c",                                  // 10
        "b1 requires a1",                                 // 11
        "b1 requires a2",                                 // 12
        "b2 requires a2",                                 // 13
        "b2 requires a1",                                 // 14
        "d requires b1",                                  // 15
        "}",                                              // 16
        "rank 1 {",                                       // 17
        "a: send 0b to 0 tag 9 //@ sync barrier-spin",    // 18
        "b: recv 0b from 0 tag 9 //@ sync barrier-spin",  // 19
        "b requires a",                                   // 20
        "}",                                              // 21
        "rank 2 {",                                       // 22
        "x: calc 3",                                      // 23
        "a: send 0b to 0 tag 9 //@ sync barrier-spin",    // 24
        "b: recv 0b from 0 tag 9 //@ sync barrier-spin",  // 25
        "b requires a",                                   // 26
        "a requires x",                                   // 27
        "}",                                              // 28
    ]
    .join("\n")
        + "\n"
}

fn err(text: &str) -> String {
    let e = parse(text, "s.goal").expect_err("an error").to_string();
    assert!(!e.contains('\n'), "{e}");
    e
}

#[test]
fn a_meeting_reads_onto_its_ops_and_stays_plain_goal() {
    let s = parse(&three(), "s.goal").expect("valid");
    assert_eq!(s.meetings.len(), 1);
    let m = &s.meetings[0];
    assert_eq!(
        (m.method.as_str(), m.tag, m.members.clone(), m.line),
        ("barrier-spin", 9, vec![0, 1, 2], 4)
    );
    let marks =
        |r: usize| -> Vec<Option<SyncOp>> { s.ranks[r].ops.iter().map(|o| o.sync).collect() };
    let arrive = Some(SyncOp {
        meeting: 0,
        arrive: true,
    });
    let leave = Some(SyncOp {
        meeting: 0,
        arrive: false,
    });
    assert_eq!(marks(0), [None, arrive, arrive, leave, leave, None]);
    assert_eq!(marks(1), [arrive, leave]);
    assert_eq!(marks(2), [None, arrive, leave]);
    // The ops are the messages a plain reader sees, and they match.
    assert_eq!(
        s.ranks[1].ops[0].kind,
        OpKind::Send {
            bytes: 0,
            peer: 0,
            tag: 9
        }
    );
    check(&s).expect("a plain reader's messages match");
    // Without the marks, the same ops and no meeting.
    let plain = parse(&three().replace("//@ sync barrier-spin", ""), "p.goal").unwrap();
    assert!(plain.meetings.is_empty());
    for (a, b) in s.ranks.iter().zip(&plain.ranks) {
        let kinds = |r: &super::super::RankSchedule| -> Vec<OpKind> {
            r.ops.iter().map(|o| o.kind).collect()
        };
        assert_eq!(kinds(a), kinds(b));
    }
}

#[test]
fn every_method_reads_and_meetings_are_one_a_tag() {
    for m in super::SYNC_METHODS {
        let s = parse(&three().replace("barrier-spin", m), "s.goal").expect(m);
        assert_eq!(s.meetings[0].method, m);
    }
    // Two meetings, on tags 9 and 10, the second of ranks 1 and 2 only
    // (rank 1 its master).
    let text = three().replace(
        "rank 2 {\n",
        "rank 2 {\ne: send 0b to 1 tag 10 //@ sync locks\nf: recv 0b from 1 tag 10 //@ sync locks\nf requires e\ne requires b\n",
    );
    let text = text.replace(
        "rank 1 {\n",
        "rank 1 {\ng: recv 0b from 2 tag 10 //@ sync locks\nh: send 0b to 2 tag 10 //@ sync locks\nh requires g\ng requires b\n",
    );
    let s = parse(&text, "s.goal").expect("valid");
    assert_eq!(s.meetings.len(), 2);
    assert_eq!(s.meetings[1].members, [1, 2]);
    assert_eq!(s.meetings[1].method, "locks");
    assert_eq!(
        s.ranks[1].ops[0].sync,
        Some(SyncOp {
            meeting: 1,
            arrive: true
        })
    );
    check(&s).expect("consistent");
}

#[test]
fn every_sync_error_names_file_line_and_construct() {
    let t = three();
    let cases: Vec<(String, &str)> = vec![
        (
            t.replacen(
                "a: send 0b to 0 tag 9 //@ sync barrier-spin",
                "a: send 0b to 0 tag 9 //@ sync barrier-sping",
                1,
            ),
            "s.goal:18: unknown synchronisation method `barrier-sping` in `//@ sync METHOD`",
        ),
        (
            t.replacen("//@ sync barrier-spin", "//@ sync", 1),
            "s.goal:4: `//@ sync METHOD` names no method",
        ),
        (
            t.replacen("//@ sync barrier-spin", "//@ sync barrier-spin now", 1),
            "s.goal:4: unexpected `now` after the method in `//@ sync METHOD`",
        ),
        (
            t.replace("c: calc 10", "c: calc 10 //@ sync locks"),
            "s.goal:3: `//@ sync METHOD` marks a `send` or `recv`, not this op",
        ),
        (
            t.replace("d requires b1", "d requires b1 //@ sync locks"),
            "s.goal:15: `//@ sync METHOD` follows no op",
        ),
        (
            t.replacen("b2: send 0b to 2 tag 9 //@ sync barrier-spin", "b2: send 0b to 2 tag 9 //@ sync locks", 1),
            "s.goal:7: `//@ sync locks` on tag 9, whose meeting (line 4) uses `barrier-spin`: one method a meeting",
        ),
        (
            "num_ranks 2\nrank 0 {\na: send 0b to 1 tag 3 //@ sync locks\n}\nrank 1 {\nb: recv 0b from 0 tag 3\n}\n".into(),
            "s.goal:3: the `//@ sync METHOD` meeting on tag 3 has ops on rank 0 only",
        ),
        (
            t.replace("b: recv 0b from 0 tag 9 //@ sync barrier-spin\nb requires a\n}\nrank 2", "b: recv 8b from 0 tag 9 //@ sync barrier-spin\nb requires a\n}\nrank 2"),
            "s.goal:19: rank 1, the `//@ sync METHOD` meeting on tag 9: a meeting's messages carry 0b, not 8b",
        ),
        (
            t.replace("a: send 0b to 0 tag 9 //@ sync barrier-spin\nb: recv 0b from 0 tag 9 //@ sync barrier-spin\nb requires a\n}\nrank 2",
                      "b: recv 0b from 0 tag 9 //@ sync barrier-spin\na: send 0b to 0 tag 9 //@ sync barrier-spin\nb requires a\n}\nrank 2"),
            "s.goal:19: rank 1, the `//@ sync METHOD` meeting on tag 9: a worker has exactly `send 0b to 0` then `recv 0b from 0`",
        ),
        (
            t.replace("b2: send 0b to 2 tag 9", "b2: send 0b to 1 tag 9"),
            "s.goal:4: rank 0, the `//@ sync METHOD` meeting on tag 9: the master has exactly one `send 0b to 1` for each worker, found 2",
        ),
        // A leaving op without one of its rank's arrivals, or with another op
        // besides them, through either kind of dependency.
        (
            t.replace("b2 requires a1\n", ""),
            "s.goal:7: rank 0 `b2` leaves the `//@ sync METHOD` meeting on tag 9: it requires every arrival op of its rank (a1, a2) and nothing else",
        ),
        (
            t.replace("d requires b1", "d requires a1"),
            "s.goal:8: rank 0 `d` depends on `a1`, an arrival at the `//@ sync METHOD` meeting on tag 9: only the meeting's leaving ops may",
        ),
        (
            t.replace("d: calc 5", "d: send 4b to 1 tag 9"),
            "s.goal:8: tag 9 is the tag of the `//@ sync METHOD` meeting at line 4: an unmarked message needs another tag",
        ),
    ];
    let extra = ["requires", "irequires"].map(|dep| {
        (
            t.replace("b2 requires a1\n", &format!("b2 requires a1\nb2 {dep} c\n")),
            "s.goal:7: rank 0 `b2` leaves",
        )
    });
    for (text, want) in cases.into_iter().chain(extra) {
        let got = err(&text);
        assert!(got.starts_with(want), "want `{want}`\n got `{got}`");
    }
}

#[test]
fn every_truncation_of_a_meeting_is_refused_or_read_never_a_panic() {
    let t = three();
    for end in 0..t.len() {
        if t.is_char_boundary(end) {
            let _ = parse(&t[..end], "s.goal");
        }
    }
}
