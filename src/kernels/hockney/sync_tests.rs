//! Tests of [`super`]: sub-batches, the grains, the vectors' alignment.

use super::*;
use crate::kernels::hockney::sync_work::ALIGN_BYTES;
use crate::platform::LineAligned;

/// 10,000 segments: 7 sub-batches of 1,428 (4 left out); 3 segments: 3 of
/// one; none still times one segment.
#[test]
fn a_batch_splits_into_at_most_seven_equal_sub_batches() {
    assert_eq!(sub_batches(10_000), (7, 1_428));
    assert_eq!(sub_batches(14), (7, 2));
    assert_eq!(sub_batches(3), (3, 1));
    assert_eq!(sub_batches(0), (1, 1));
}

/// An awake grain splits as `sub_batches`; an asleep one (the bit set) is
/// timed a segment a sub-batch, whatever the batch: 42 segments are 42
/// sub-batches of one, none still one.
#[test]
fn an_asleep_batch_is_timed_a_segment_at_a_time() {
    use super::super::sync_plan::ASLEEP;
    assert_eq!(grain_sub_batches(64, 10_000), (7, 1_428));
    assert_eq!(grain_sub_batches(64 | ASLEEP, 42), (42, 1));
    assert_eq!(grain_sub_batches(64 | ASLEEP, 3), (3, 1));
    assert_eq!(grain_sub_batches(16 | ASLEEP, 0), (1, 1));
}

/// Ten short grains at P = 2 (unit 16 flop) up to 1600: a spinning method
/// gets 16, 32, 48, 64 and then seven evenly from 16 (so 16 once) to
/// 1600, every 264 flop rounded to the nearest 16 (280 to 288, halves
/// up), as do the events; a new thread's start ten evenly, every 176 flop.
#[test]
fn spinning_methods_get_four_near_zero_grains() {
    let spin = short_grains(Method::SpinHint, 16, 1600, 10);
    assert_eq!(
        spin,
        [16, 32, 48, 64, 288, 544, 816, 1072, 1344, 1600],
        "{spin:?}"
    );
    assert_eq!(short_grains(Method::EventsPark, 16, 1600, 10), spin);
    let spawn = short_grains(Method::TasksSpawn, 16, 1600, 10);
    assert_eq!(spawn.len(), 10);
    assert_eq!(spawn[..3], [16, 192, 368], "{spawn:?}");
    assert_eq!(spawn[9], 1600);
    for m in Method::ALL {
        let g = short_grains(m, 16, 1600, 10);
        assert!(g.windows(2).all(|w| w[0] < w[1] && w[0] % 16 == 0), "{m:?}");
        assert_eq!(g.len(), 10, "{m:?}: {g:?}");
    }
}

/// Whatever the allocator returns (allocations of odd sizes between them
/// move the next one's address), the vector starts on a 128-byte
/// boundary and holds the values asked for.
#[test]
fn the_vectors_start_on_a_128_byte_boundary() {
    let mut keep = Vec::new();
    for n in [1, 3, 17, 1000, 4097] {
        keep.push(vec![0u8; n * 8 + 24]);
        let mut v = LineAligned::from_fn_on(ALIGN_BYTES, n, |i| i as f64 * 0.5);
        assert_eq!(v.as_ptr() as usize % ALIGN_BYTES, 0, "{n}");
        assert_eq!(v.as_mut_ptr().cast_const(), v.as_ptr());
        assert_eq!(v.len(), n);
        assert_eq!(v[n - 1], (n - 1) as f64 * 0.5);
    }
}
