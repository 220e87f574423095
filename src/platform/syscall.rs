//! The cost of entering the kernel: a batch of `FUTEX_WAKE` calls on a private
//! word that no thread waits on, timed on the calling thread.
//!
//! A wake that finds no waiter is the cheapest futex call there is, and the
//! call that every blocking hand-over makes at least once (an unpark, a
//! condition variable's notify, the std barrier's last arrival). Nothing
//! crosses between CPUs: what it measures is the calling CPU's own way into
//! the kernel and back, which a virtual machine's host slows now and then
//! while the cache-line round trip between two CPUs stays where it was; the
//! blocking hand-overs' `t0`, and the spin barrier's, were found to follow it
//! rather than the round trip (the measurements are in the commit history).
//! `hockney-sync` times it once a round beside each method
//! ([`crate::results::SYSCALL_PROBE_PARAM`]).

use std::time::{Duration, Instant};

/// Times `reps` `FUTEX_WAKE` calls on a word no thread waits on (where there
/// is no futex, as many `sched_yield` calls).
pub fn futex_wakes(reps: u64) -> Duration {
    let word = std::hint::black_box(0u32);
    let start = Instant::now();
    for _ in 0..reps {
        wake_nobody(&word);
    }
    start.elapsed()
}

#[cfg(any(target_os = "linux", target_os = "android"))]
#[inline(always)]
fn wake_nobody(word: &u32) {
    // SAFETY: FUTEX_WAKE only reads the address to find its waiters; `word`
    // is a live, aligned u32 for the whole call, and no thread waits on it,
    // so the call wakes nobody and returns 0.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word as *const u32,
            libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG,
            1,
        );
    }
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
#[inline(always)]
fn wake_nobody(_: &u32) {
    std::thread::yield_now();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A call into the kernel costs more than nothing and less than a
    /// millisecond on any machine this runs on; twice the calls take longer.
    #[test]
    fn a_wake_of_nobody_takes_a_system_call() {
        let per_call = |reps: u64| {
            (0..5)
                .map(|_| futex_wakes(reps).as_nanos() as f64 / reps as f64)
                .fold(f64::INFINITY, f64::min)
        };
        let one = per_call(2000);
        assert!(one > 5.0 && one < 1e6, "{one} ns a call");
        assert!(futex_wakes(4000) > futex_wakes(1) * 100);
    }
}
