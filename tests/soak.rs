//! A short soak of both transports through the CLI: every size class, both
//! directions at once, and nothing lost, reordered or corrupted. The long soak
//! (`halfperf run soak --messages 20000000`) is run by hand; see the README.

use std::process::Command;

#[test]
fn a_short_soak_loses_reorders_and_corrupts_nothing() {
    let out = Command::new(env!("CARGO_BIN_EXE_halfperf"))
        .args(["run", "soak", "--messages", "2000", "--json"])
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
    for k in &doc.kernels {
        assert_eq!(k.points.len(), 3, "inline, one slot, many slots");
        for p in &k.points {
            assert_eq!(p.number("messages_sent"), Some(4000.0));
            assert_eq!(p.number("messages_received"), Some(4000.0));
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
}
