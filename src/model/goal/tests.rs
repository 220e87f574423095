//! Reader tests: LogGOPSim's own example, Schedgen's schedules, every construct and
//! every error of the subset.

use super::*;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/goal");

fn data(name: &str) -> Schedule {
    read(&Path::new(DATA).join(name)).expect("a valid schedule")
}

fn err(text: &str) -> String {
    parse(text, "t.goal").expect_err("an error").to_string()
}

#[test]
fn loggopsim_example_binary_tree_32() {
    let s = data("binary_tree_32.goal");
    assert_eq!(s.num_ranks, 32);
    assert_eq!(s.ranks.len(), 32);
    let r0 = &s.ranks[0].ops;
    assert_eq!(r0.len(), 5);
    assert_eq!(r0[0].label, "l1");
    assert_eq!(
        r0[4].kind,
        OpKind::Send {
            bytes: 1,
            peer: 16,
            tag: 0
        }
    );
    assert_eq!(r0[0].line, 4);
    let r1 = &s.ranks[1].ops;
    assert_eq!(
        r1[0].kind,
        OpKind::Recv {
            bytes: 1,
            peer: 0,
            tag: 0
        }
    );
    assert_eq!(r1[1].requires, vec![0]);
    // A binary tree: 31 messages, each rank but 0 receives once.
    let recvs = s
        .ranks
        .iter()
        .flat_map(|r| &r.ops)
        .filter(|o| matches!(o.kind, OpKind::Recv { .. }));
    assert_eq!(recvs.count(), 31);
    check(&s).expect("LogGOPSim's example is consistent");
    assert_eq!(s.hash.len(), 32);
}

#[test]
fn every_schedgen_schedule_reads_and_checks() {
    let mut n = 0;
    for entry in std::fs::read_dir(DATA).expect("the data folder") {
        let path = entry.expect("an entry").path();
        if path.extension().is_some_and(|e| e == "goal") {
            let s = read(&path).expect("a valid schedule");
            check(&s).unwrap_or_else(|e| panic!("{e}"));
            assert!(s.op_count() > 0);
            n += 1;
        }
    }
    assert!(n >= 10, "{n} schedules");
}

#[test]
fn every_construct() {
    let text = "\
/* header
   comment */ num_ranks 3
rank 1 {
  l1: send 8 b to 0 tag 7 cpu 0 nic 0 // trailing comment
  recv 16b from 2
  x_2: calc 250 cpu 0
  x_2 requires l1
  x_2 irequires l1
  l1 requires later
  later: calc 0
}
rank 0 { l9: recv 8b from 1 tag 7
}
rank 2 {
send 16b to 1
}
";
    let s = parse(text, "t.goal").expect("valid");
    assert_eq!(s.num_ranks, 3);
    assert_eq!(s.name, "t.goal");
    let ops = &s.ranks[1].ops;
    assert_eq!(ops.len(), 4);
    assert_eq!(
        ops[0].kind,
        OpKind::Send {
            bytes: 8,
            peer: 0,
            tag: 7
        }
    );
    assert_eq!(
        ops[1].kind,
        OpKind::Recv {
            bytes: 16,
            peer: 2,
            tag: 0
        }
    );
    assert_eq!(ops[1].label, "#1");
    assert_eq!(ops[2].kind, OpKind::Calc { ns: 250 });
    assert_eq!(ops[2].requires, vec![0]);
    assert_eq!(ops[2].irequires, vec![0]);
    assert_eq!(ops[0].requires, vec![3], "a forward reference");
    assert_eq!(ops[0].line, 4);
    assert_eq!(s.ranks[0].ops[0].label, "l9");
    assert_eq!(s.ranks[2].ops[0].line, 15);
    check(&s).expect("consistent");
    // The hash is of the bytes: one changed character changes it.
    let other = parse(&text.replace("250", "251"), "t.goal").expect("valid");
    assert_ne!(s.hash, other.hash);
}

#[test]
fn missing_ranks_are_empty() {
    let s = parse("num_ranks 4\nrank 2 {\ncalc 5\n}\n", "t").expect("valid");
    assert_eq!(s.ranks.len(), 4);
    assert!(s.ranks[0].ops.is_empty());
    assert_eq!(s.ranks[2].ops.len(), 1);
}

#[test]
fn every_error_names_file_line_and_construct() {
    let cases: &[(&str, &str)] = &[
        ("rank 0 {\n}\n", "t.goal:1: `rank N {` before `num_ranks`"),
        ("num_ranks 0\n", "t.goal:1: `num_ranks 0`"),
        (
            "num_ranks 2\nnum_ranks 2\n",
            "t.goal:2: `num_ranks` given twice",
        ),
        (
            "num_ranks 99999999999\n",
            "t.goal:1: a rank count `99999999999` is too large",
        ),
        (
            "num_ranks 2\nrank 2 {\n}\n",
            "t.goal:2: `rank 2` but `num_ranks 2`",
        ),
        (
            "num_ranks 2\nrank 0 {\n}\nrank 0 {\n}\n",
            "t.goal:4: `rank 0 {` appears twice",
        ),
        (
            "num_ranks 2\nrank 0\n}\n",
            "t.goal:2: expected `{` after `rank 0`",
        ),
        (
            "num_ranks 2\nrank 0 {\nrank 1 {\n",
            "t.goal:3: `rank` inside the block of rank 0",
        ),
        ("num_ranks 2\n}\n", "t.goal:2: `}` outside a rank block"),
        (
            "num_ranks 2\ncalc 5\n",
            "t.goal:2: `calc` outside a rank block",
        ),
        (
            "num_ranks 2\nrank 0 {\ncalc 5\n",
            "t.goal:2: `rank 0 {` is never closed (is the file truncated?)",
        ),
        (
            "num_ranks 2\n/* open\n",
            "t.goal:2: unterminated `/*` comment",
        ),
        ("", "t.goal:0: no `num_ranks` statement"),
        (
            "num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag -1\n}\n",
            "t.goal:3: a tag `-1` (any source / any tag) is outside",
        ),
        (
            "num_ranks 2\nrank 0 {\nl1: recv 8b from -1\n}\n",
            "t.goal:3: a rank `-1` (any source / any tag) is outside",
        ),
        (
            "num_ranks 2\nrank 0 {\nl1: send 8b to 2\n}\n",
            "t.goal:3: rank 0: peer 2 in `send Nb to R tag T` but `num_ranks 2`",
        ),
        (
            "num_ranks 2\nrank 0 {\nl1: send 8 to 1\n}\n",
            "t.goal:3: expected `b` after the size in `send Nb to R tag T`",
        ),
        (
            "num_ranks 2\nrank 0 {\nl1: send 8b from 1\n}\n",
            "t.goal:3: expected `to` in `send Nb to R tag T`",
        ),
        (
            "num_ranks 2\nrank 0 {\nl1: recv 8b to 1\n}\n",
            "t.goal:3: expected `from` in `recv Nb from R tag T`",
        ),
        (
            "num_ranks 2\nrank 0 {\nl1: send 99999999999999999999b to 1\n}\n",
            "t.goal:3: a size `99999999999999999999` is too large",
        ),
        (
            "num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag 4294967296\n}\n",
            "t.goal:3: a tag `4294967296` is too large",
        ),
        (
            "num_ranks 2\nrank 0 {\nl1: calc x\n}\n",
            "t.goal:3: expected a time in ns, found `x` in `calc N`",
        ),
        (
            "num_ranks 2\nrank 0 {\nl1: calc 5 cpu 1\n}\n",
            "t.goal:3: `cpu 1`: several CPUs or NICs per rank are outside",
        ),
        (
            "num_ranks 2\nrank 0 {\nl1: send 1b to 1 nic 2\n}\n",
            "t.goal:3: `nic 2`: several CPUs",
        ),
        (
            "num_ranks 2\nrank 0 {\nl1: calc 5 nic 0\n}\n",
            "t.goal:3: unexpected `nic` at the end of the op",
        ),
        (
            "num_ranks 2\nrank 0 {\nl1: calc 5 7\n}\n",
            "t.goal:3: unexpected `7` at the end of the op",
        ),
        (
            "num_ranks 2\nrank 0 {\nl1: wait 5\n}\n",
            "t.goal:3: expected `send`, `recv` or `calc` after the label, found `wait`",
        ),
        (
            "num_ranks 2\nrank 0 {\nl1:\n}\n",
            "t.goal:3: expected an op after the label",
        ),
        (
            "num_ranks 2\nrank 0 {\n5 requires 4\n}\n",
            "t.goal:3: expected `send`, `recv`, `calc`",
        ),
        ("num_ranks 2\nrank 0 {\n$ calc 5\n}\n", "found `$`"),
        (
            "num_ranks 2\nrank 0 {\nl1: calc 5\nl1: calc 6\n}\n",
            "t.goal:4: rank 0: label `l1` defined twice",
        ),
        (
            "num_ranks 2\nrank 0 {\nl1: calc 5\nl1 requires l2\n}\n",
            "t.goal:4: rank 0: label `l2` is not defined in this rank",
        ),
        (
            "num_ranks 2\nrank 0 {\nl1: calc 5\nl1 requires l1 extra\n}\n",
            "t.goal:4: unexpected `extra` after `l1 requires l1`",
        ),
    ];
    for (text, want) in cases {
        let got = err(text);
        assert!(
            got.starts_with(want) || got.contains(want),
            "for {text:?}:\n got {got}\nwant {want}"
        );
    }
}

#[test]
fn labels_are_local_to_their_rank() {
    let text = "num_ranks 2\nrank 0 {\nl1: calc 1\n}\nrank 1 {\nl2: calc 1\nl2 requires l1\n}\n";
    assert_eq!(
        err(text),
        "t.goal:7: rank 1: label `l1` is not defined in this rank"
    );
}

#[test]
fn check_finds_unmatched_messages() {
    let no_send = "num_ranks 2\nrank 0 {\nl1: recv 8b from 1 tag 3\n}\n";
    let s = parse(no_send, "u.goal").expect("valid");
    assert_eq!(
        check(&s).expect_err("unmatched").to_string(),
        "u.goal:3: rank 0 `l1`: receive from 1 tag 3 has no matching send (0 sends, 1 receives)"
    );
    let no_recv = "num_ranks 2\nrank 0 {\nl1: send 8b to 1\nl2: send 8b to 1\n}\nrank 1 {\nr: recv 8b from 0\n}\n";
    let s = parse(no_recv, "u.goal").expect("valid");
    assert_eq!(
        check(&s).expect_err("unmatched").to_string(),
        "u.goal:4: rank 0 `l2`: send to 1 tag 0 has no matching receive (2 sends, 1 receives)"
    );
    let sizes = "num_ranks 2\nrank 0 {\nl1: send 8b to 1\n}\nrank 1 {\nr: recv 16b from 0\n}\n";
    let s = parse(sizes, "u.goal").expect("valid");
    assert_eq!(
        check(&s).expect_err("sizes differ").to_string(),
        "u.goal:6: rank 1 `r`: receive 1 of 0 -> 1 tag 0 expects 16 B but send 1 sends 8 B"
    );
    // A different tag does not match.
    let tags =
        "num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag 1\n}\nrank 1 {\nr: recv 8b from 0 tag 2\n}\n";
    assert!(matches!(
        check(&parse(tags, "u").expect("valid")),
        Err(GoalError::Unmatched { .. })
    ));
}

#[test]
fn check_finds_cycles_local_and_through_messages() {
    let local = "num_ranks 1\nrank 0 {\na: calc 1\nb: calc 1\nc: calc 1\na requires c\nb requires a\nc irequires b\n}\n";
    let e = check(&parse(local, "c.goal").expect("valid")).expect_err("a cycle");
    let text = e.to_string();
    assert!(text.starts_with("c.goal:"), "{text}");
    assert!(text.contains("is on a dependency cycle"), "{text}");
    for step in ["0:a", "0:b", "0:c"] {
        assert!(text.contains(step), "{text}");
    }
    // Both ranks receive before they send: a head-to-head deadlock.
    let deadlock = "num_ranks 2\n\
        rank 0 {\nr: recv 8b from 1\ns: send 8b to 1\ns requires r\n}\n\
        rank 1 {\nr: recv 8b from 0\ns: send 8b to 0\ns requires r\n}\n";
    let e = check(&parse(deadlock, "d.goal").expect("valid")).expect_err("a deadlock");
    match e {
        GoalError::Cycle { what, .. } => {
            assert_eq!(what.matches("->").count(), 4, "{what}");
            assert!(what.contains("0:r") && what.contains("1:s"), "{what}");
        }
        other => panic!("{other}"),
    }
    // The same exchange with the sends first is fine.
    let fine = deadlock.replace("s requires r", "r requires s");
    check(&parse(&fine, "f.goal").expect("valid")).expect("no cycle");
}

#[test]
fn read_refuses_huge_and_binary_files() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let big = dir.path().join("big.goal");
    let f = std::fs::File::create(&big).expect("create");
    f.set_len(MAX_FILE_BYTES + 1).expect("a sparse file");
    let e = read(&big).expect_err("too large");
    assert!(
        e.to_string().contains("exceed the GOAL reader's limit"),
        "{e}"
    );
    let bin = dir.path().join("bin.goal");
    std::fs::write(&bin, b"num_ranks 1\n\xff\xfe\n").expect("write");
    assert!(
        read(&bin)
            .expect_err("binary")
            .to_string()
            .ends_with("bin.goal:2: the file is not UTF-8 text")
    );
    let missing = dir.path().join("none.goal");
    assert!(
        read(&missing)
            .expect_err("missing")
            .to_string()
            .contains("none.goal: cannot read")
    );
}

#[test]
fn digest_is_fnv1a_128() {
    // FNV-1a 128 of the empty string is its offset basis; of "a" a known value.
    assert_eq!(digest(b""), "6c62272e07bb014262b821756295c58d");
    assert_eq!(digest(b"a"), "d228cb696f1a8caf78912b704e4a8964");
}

#[test]
fn every_truncation_is_refused_or_read_never_a_panic() {
    // What the fuzz target (fuzz/fuzz_targets/read_goal.rs) does at random, done
    // here exhaustively on a file with every construct: each prefix either parses
    // (it ends on a statement boundary after the last `}`) or is one error line.
    let text = std::fs::read_to_string(Path::new(DATA).join("hand_mixed_3.goal")).expect("file");
    let mut refused = 0;
    for end in (0..text.len()).filter(|&i| text.is_char_boundary(i)) {
        match parse(&text[..end], "cut.goal") {
            Ok(s) => {
                let _ = check(&s);
            }
            Err(e) => {
                let line = e.to_string();
                assert!(
                    line.starts_with("cut.goal:") && !line.contains('\n'),
                    "{line}"
                );
                refused += 1;
            }
        }
    }
    assert!(
        refused > text.len() / 2,
        "{refused} of {} prefixes refused",
        text.len()
    );
}

#[test]
fn the_vector_extension_reads_onto_its_calc() {
    let s = parse(
        "num_ranks 1\nrank 0 {\na: calc 500 //@ vector triad-f64 l2 4096\nb: calc 7 // a plain comment\n\
         c: calc 9 //@ vector  scalar-f32   memory 3\n}\n",
        "v.goal",
    )
    .expect("valid");
    let ops = &s.ranks[0].ops;
    // A plain reader's time stays; the level is spelled as the kernel does.
    assert_eq!(ops[0].kind, OpKind::Calc { ns: 500 });
    let v = ops[0].vector.clone().expect("the extension");
    assert_eq!(
        (v.operation.as_str(), v.level.as_str(), v.flop),
        ("triad-f64", "L2", 4096)
    );
    // Triad: 2 flop an element, 2 vector instructions of 2048 elements each:
    // (4096 + 2 x 100) / 4e9 flop/s = 1074 ns.
    assert_eq!(
        (v.flop_per_element(), v.elements(), v.is_f32()),
        (2, 2048, false)
    );
    assert!((v.time_ns(4e9, 100.0) - 1074.0).abs() < 1e-9);
    assert!(ops[1].vector.is_none());
    let c = ops[2].vector.clone().expect("the extension");
    assert_eq!(
        (c.level.as_str(), c.elements(), c.is_f32()),
        ("memory", 3, true)
    );
}

#[test]
fn every_vector_extension_error_names_file_line_and_construct() {
    let head = "num_ranks 2\nrank 0 {\n";
    for (line, want) in [
        (
            "a: calc 5 //@ vector triad-f64 L1",
            "v.goal:3: expected `//@ vector OP LEVEL FLOP`",
        ),
        (
            "a: calc 5 //@ barrier spin",
            "v.goal:3: unknown extension `//@ barrier`",
        ),
        ("a: calc 5 //@", "v.goal:3: an empty `//@`"),
        (
            "a: calc 5 //@ vector axpy-f64 L1 8",
            "unknown vector operation `axpy-f64`",
        ),
        (
            "a: calc 5 //@ vector triad-f16 L1 8",
            "unknown vector operation `triad-f16`",
        ),
        (
            "a: calc 5 //@ vector triad-f64 L4 8",
            "unknown memory level `L4`",
        ),
        (
            "a: calc 5 //@ vector triad-f64 L1 0",
            "FLOP `0` in `//@ vector OP LEVEL FLOP`",
        ),
        ("a: calc 5 //@ vector triad-f64 L1 -3", "FLOP `-3`"),
        (
            "a: send 8b to 1 //@ vector triad-f64 L1 8",
            "annotates a `calc`, not this op",
        ),
        ("a requires b //@ vector triad-f64 L1 8", "follows no op"),
        (
            "//@ vector triad-f64 L1 8",
            "v.goal:3: `//@ vector OP LEVEL FLOP` follows no op",
        ),
    ] {
        let got = err(&format!("{head}{line}\n}}\n").replace("t.goal", "v.goal"));
        let got = got.replace("t.goal", "v.goal");
        assert!(got.contains(want), "{line}: {got}");
        assert!(!got.contains('\n'), "{got}");
    }
    // Inside a block comment the marker is a comment like any other.
    let s = parse(
        "num_ranks 1\nrank 0 {\n/* a: calc 5 //@ nonsense */ b: calc 1\n}\n",
        "v.goal",
    )
    .expect("valid");
    assert!(s.ranks[0].ops[0].vector.is_none());
}

/// The same schedule with every line through the comment reader (a trailing
/// block comment), with CRLF line ends, and without the last newline.
fn variants(text: &str) -> [String; 3] {
    let commented: String = text.lines().map(|l| format!("{l} /* c */\n")).collect();
    let crlf: String = text.lines().map(|l| format!("{l}\r\n")).collect();
    [commented, crlf, text.trim_end_matches('\n').to_owned()]
}

#[test]
fn the_line_scan_and_the_comment_reader_read_alike() {
    // A line without a `/` is tokenised as it is scanned; one with a `/` goes
    // through the comment reader. Both must give the same ops, labels and
    // dependencies, and the same error on the same line.
    let mut files = 0;
    for entry in std::fs::read_dir(DATA).expect("data dir") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|e| e != "goal") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("text");
        let plain = parse(&text, "f.goal");
        for v in variants(&text) {
            let other = parse(&v, "f.goal");
            match (&plain, &other) {
                (Ok(a), Ok(b)) => {
                    assert_eq!(format!("{:?}", a.ranks), format!("{:?}", b.ranks));
                    assert_eq!(a.meetings, b.meetings);
                }
                (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
                _ => panic!("{}: one reading failed, the other not", path.display()),
            }
        }
        files += 1;
    }
    assert!(files >= 5, "{files} files");
    let bad = "num_ranks 2\nrank 0 {\na: send 8b to 1\nb: recv 8b from 7\n}\n";
    for v in variants(bad) {
        assert_eq!(
            err(&v),
            "t.goal:4: rank 0: peer 7 in `recv Nb from R tag T` but `num_ranks 2`"
        );
    }
}

#[test]
fn labels_resolve_by_their_number_or_by_the_map() {
    // `a2` is op 0, `l0` op 1, `b1` op 2: the guess from each label's number
    // finds the wrong op or none, and the map must answer.
    let s = parse(
        "num_ranks 1\nrank 0 {\na2: calc 1\nl0: calc 2\nb1: calc 3\nl3: calc 4\ncalc 5\n\
         b1 requires a2\nl0 irequires b1\nl3 requires l0\nl3 requires a2\n}\n",
        "t.goal",
    )
    .expect("reads");
    let ops = &s.ranks[0].ops;
    assert_eq!(ops[2].requires, vec![0]);
    assert_eq!(ops[1].irequires, vec![2]);
    assert_eq!(ops[3].requires, vec![1, 0]);
    assert_eq!(ops[4].label, "#4");
    assert_eq!(
        err("num_ranks 1\nrank 0 {\nl1: calc 1\nl1 requires l0\n}\n"),
        "t.goal:4: rank 0: label `l0` is not defined in this rank"
    );
    // A label its number finds is not in the map; its twin is still found.
    for (twin, line) in [("l1", 5), ("x", 5)] {
        let text = format!(
            "num_ranks 1\nrank 0 {{\nl1: calc 1\nx: calc 2\n{twin}: calc 3\nx: calc 4\n}}\n"
        );
        assert_eq!(
            err(&text),
            format!("t.goal:{line}: rank 0: label `{twin}` defined twice")
        );
    }
}

#[test]
fn inline_labels_and_dependency_lists() {
    assert_eq!(Label::unnamed(0).as_str(), "#0");
    assert_eq!(Label::unnamed(u32::MAX).as_str(), "#4294967295");
    let long = "a_label_of_thirty_bytes_long_x";
    assert_eq!(Label::from(long).as_str(), long);
    assert!(matches!(Label::from(long), Label::Long(_)));
    assert_eq!(Label::from("l12").to_string(), "l12");
    let mut d = Deps::default();
    for id in [9, 3, 7, 1, 5, 2, 8] {
        d.push(id);
    }
    assert_eq!(d, vec![9, 3, 7, 1, 5, 2, 8]);
    assert!(matches!(d, Deps::Heap(_)));
    let few = Deps::from(vec![4, 2]);
    assert_eq!((few.len(), few[1]), (2, 2));
    assert_eq!(serde_json::to_string(&few).expect("json"), "[4,2]");
}
