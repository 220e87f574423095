//! A short soak of both transports through the CLI: every size class, both
//! directions at once, and nothing lost, reordered or corrupted. The long soak
//! (`halfperf run soak --messages 100000000`) is run by hand; see the README.

use std::process::Command;

#[test]
fn a_short_soak_loses_reorders_and_corrupts_nothing() {
    let out = Command::new(env!("CARGO_BIN_EXE_halfperf"))
        .args(["run", "soak", "--messages", "24002", "--json"])
        .output()
        .expect("halfperf runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc =
        halfperf::results::parse(&String::from_utf8_lossy(&out.stdout)).expect("a result document");
    assert_eq!(doc.kernels.len(), 2, "one result per transport");
    // 24002 messages over 2 transports x 3 classes: 4000 each, the first two 4001.
    let mut sent = Vec::new();
    for k in &doc.kernels {
        assert_eq!(k.points.len(), 3, "inline, one slot, many slots");
        for p in &k.points {
            sent.push(p.number("messages_sent").expect("messages_sent"));
            assert_eq!(p.number("messages_received"), p.number("messages_sent"));
            for bad in ["lost", "reordered", "corrupted"] {
                assert_eq!(
                    p.number(bad),
                    Some(0.0),
                    "{bad} in {:?} {:?}",
                    k.transport,
                    p
                );
            }
        }
    }
    assert_eq!(sent, [4001.0, 4001.0, 4000.0, 4000.0, 4000.0, 4000.0]);
}
