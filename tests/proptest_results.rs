//! Property tests: any result document the types can hold survives the JSON round
//! trip through the checked reader unchanged, and garbage never panics the reader.

use halfperf::control::Placement;
use halfperf::model::stats::Summary;
use halfperf::results::{FitResult, KernelResult, Point, parse};
use proptest::prelude::*;

fn finite() -> impl Strategy<Value = f64> {
    -1e12f64..1e12f64
}

fn summary() -> impl Strategy<Value = Summary> {
    (1usize..1000, proptest::collection::vec(0.0f64..1e9, 7)).prop_map(|(count, mut v)| {
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        Summary {
            count,
            min: v[0],
            median: v[3],
            mean: v[3],
            max: v[6],
            std_dev: v[1],
            p90: v[4],
            p99: v[5],
        }
    })
}

fn point() -> impl Strategy<Value = Point> {
    (
        proptest::collection::btree_map("[a-z_]{1,12}_bytes", finite(), 0..3),
        proptest::collection::btree_map("[a-z_]{1,12}_ns", summary(), 0..3),
    )
        .prop_map(|(numbers, stats)| {
            let mut p = Point::new();
            for (k, v) in numbers {
                p = p.with(&k, v);
            }
            for (k, s) in stats {
                p = p.with_stats(&k, s);
            }
            p
        })
}

fn kernel() -> impl Strategy<Value = KernelResult> {
    (
        "[a-z-]{1,16}",
        proptest::option::of("[a-z]{1,8}"),
        proptest::collection::vec(point(), 0..4),
        proptest::collection::btree_map("[a-z_]{1,10}_ns", finite(), 0..3),
        0.0f64..1.0,
        proptest::collection::vec(".{0,40}", 0..3),
        prop_oneof![
            Just(Placement::Pinned),
            Just(Placement::Virtual),
            Just(Placement::Oversubscribed)
        ],
    )
        .prop_map(
            |(kernel, transport, points, params, r2, warnings, placement)| KernelResult {
                kernel,
                method: "test".into(),
                transport,
                cpus: vec![0, 1],
                distance_class: None,
                placement,
                ranks: 2,
                points,
                fits: vec![FitResult {
                    model: "t_startup + N t_per_byte".into(),
                    x: "size_bytes".into(),
                    y: "one_way_ns.min".into(),
                    std_errors: params.clone(),
                    params,
                    r2,
                    n_points: 3,
                    flagged: r2 < 0.9,
                }],
                warnings,
                load: None,
                elapsed_s: 1.0,
                headline: Vec::new(),
                repetition: None,
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn result_documents_round_trip_through_the_checked_reader(kernels in proptest::collection::vec(kernel(), 0..4)) {
        let fixture = std::fs::read_to_string("tests/data/fixture-quick.json").expect("fixture");
        let mut doc = parse(&fixture).expect("fixture parses");
        doc.kernels = kernels;
        let text = serde_json::to_string(&doc).unwrap();
        prop_assert_eq!(parse(&text).unwrap(), doc);
    }

    #[test]
    fn the_reader_never_panics_on_garbage(text in ".{0,200}") {
        let _ = parse(&text);
    }

    #[test]
    fn the_reader_never_panics_on_mangled_documents(cut in 0usize..4000, byte in any::<u8>()) {
        let fixture = std::fs::read_to_string("tests/data/fixture-quick.json").expect("fixture");
        let mut bytes = fixture.into_bytes();
        let at = cut % bytes.len();
        bytes[at] = byte;
        bytes.truncate(at + 1 + cut % 7);
        let _ = parse(&String::from_utf8_lossy(&bytes));
    }
}
