//! How often the process's threads blocked: the kernel's count of voluntary
//! context switches (`getrusage(RUSAGE_SELF)`'s `ru_nvcsw`), summed over every
//! thread of the process, those that ended included.
//!
//! A thread switches voluntarily when it sleeps in the kernel: a futex wait
//! (a parked thread, a condition variable, a mutex's slow path, the std
//! barrier), `sched_yield` that found another thread to run, a join. Read
//! before and after a batch of synchronisations, the difference says how many
//! of them slept, for any method, without a counter in the method's own code
//! (which the std barrier, for one, does not allow).

/// The process's voluntary context switches so far; 0 where the kernel does
/// not say.
pub fn voluntary_switches() -> u64 {
    // SAFETY: `usage` is valid for writes of one `rusage`, which all zeroes
    // initialise; RUSAGE_SELF is a valid target.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    let ok = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } == 0;
    if ok { usage.ru_nvcsw.max(0) as u64 } else { 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A thread that sleeps 20 times adds at least 20 voluntary switches;
    /// a loop that does not sleep adds (almost) none.
    #[test]
    fn sleeping_counts_and_spinning_does_not() {
        let before = voluntary_switches();
        std::thread::spawn(|| {
            for _ in 0..20 {
                std::thread::sleep(std::time::Duration::from_micros(200));
            }
        })
        .join()
        .unwrap();
        let slept = voluntary_switches() - before;
        assert!(slept >= 20, "{slept} switches for 20 sleeps");
        let before = voluntary_switches();
        let mut x = 0u64;
        for i in 0..1_000_000u64 {
            x = std::hint::black_box(x.wrapping_add(i));
        }
        let spun = voluntary_switches() - before;
        // Other tests' threads run in the same process; a few of theirs may
        // fall in the window, never thousands.
        assert!(spun < 1000, "{spun} switches while spinning");
    }
}
