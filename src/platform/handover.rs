//! The cost of one turn of a CPU between two threads that wait by yielding:
//! two threads pinned to one CPU pass a token back and forth, each polling it
//! and calling `sched_yield` between polls, which is how the replay's ranks
//! that share a CPU wait (`replay --oversubscribe`). A turn is the time from
//! one thread's store of the token to the other's load of it: the storing
//! thread polls once more, yields, and the scheduler runs the other.
//!
//! No kernel measures this: `hockney-sync`'s `t_wake` is a wake-up of a thread
//! asleep on another CPU (a futex wake and an idle CPU's exit, tens of
//! microseconds on a virtual machine), and a ping-pong with both ranks on one
//! CPU parks its waiter (a futex wait and wake a turn). On a CPU that always has
//! a runnable thread, a turn is a system call and a context switch.

use super::pin::{PinError, pin_current_thread};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Times `batches` batches of `turns` turns of `cpu` between two threads that
/// wait by yielding; returns each batch's time a turn, ns. A batch that does
/// not end within `deadline` (the other thread never ran) ends the
/// measurement with an error.
pub fn yield_turns(
    cpu: usize,
    batches: usize,
    turns: u64,
    deadline: Duration,
) -> Result<Vec<f64>, String> {
    let token = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let until = Instant::now() + deadline * batches as u32;
    // Waits until `token` holds `want`, yielding between polls; false once
    // `stop` is set or the deadline passed. Relaxed: the token carries no
    // other data, and the coherence of one word orders its values; `stop`
    // only ends the loops.
    let wait = |want: u64| {
        let mut n = 0u32;
        while token.load(Ordering::Relaxed) != want {
            std::thread::yield_now();
            n = n.wrapping_add(1);
            if n.is_multiple_of(64) && (stop.load(Ordering::Relaxed) || Instant::now() > until) {
                return false;
            }
        }
        true
    };
    // Two turns a round: there and back.
    let rounds = (turns / 2).max(1);
    let total = batches as u64 * rounds;
    std::thread::scope(|s| {
        let peer = s.spawn(|| -> Result<(), PinError> {
            pin_current_thread(cpu)?;
            for i in 0..total {
                if !wait(2 * i + 1) {
                    return Ok(());
                }
                token.store(2 * i + 2, Ordering::Relaxed);
            }
            Ok(())
        });
        let timed = s.spawn(|| -> Result<Vec<f64>, String> {
            pin_current_thread(cpu).map_err(|e| e.to_string())?;
            let mut out = Vec::with_capacity(batches);
            for b in 0..batches as u64 {
                let start = Instant::now();
                for i in b * rounds..(b + 1) * rounds {
                    token.store(2 * i + 1, Ordering::Relaxed);
                    // The batch's deadline is read every 64th turn only: a
                    // clock read a turn would add its cost to every turn timed.
                    let late = i % 64 == 63 && start.elapsed() > deadline;
                    if !wait(2 * i + 2) || late {
                        stop.store(true, Ordering::Relaxed);
                        return Err(format!(
                            "CPU {cpu}: no turn between two yielding threads within {} ms",
                            deadline.as_millis()
                        ));
                    }
                }
                out.push(start.elapsed().as_nanos() as f64 / (2 * rounds) as f64);
            }
            stop.store(true, Ordering::Relaxed);
            Ok(out)
        });
        let out = timed
            .join()
            .unwrap_or_else(|_| Err("the timing thread panicked".into()));
        stop.store(true, Ordering::Relaxed);
        match peer.join() {
            Ok(Err(e)) => Err(e.to_string()),
            Err(_) => Err("the peer thread panicked".into()),
            Ok(Ok(())) => out,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A turn takes a system call at least (more than 50 ns) and, on a CPU
    /// with the two threads, well under a millisecond; every batch is timed.
    #[test]
    fn a_turn_between_yielding_threads_takes_a_switch() {
        let cpu = crate::platform::allowed_cpus()[0];
        let t = yield_turns(cpu, 5, 400, Duration::from_secs(5)).unwrap();
        assert_eq!(t.len(), 5);
        let mut s = t.clone();
        s.sort_by(f64::total_cmp);
        assert!(s[2] > 50.0 && s[2] < 1e6, "{t:?}");
    }
}
