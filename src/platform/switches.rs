//! How often the process's threads blocked: the kernel's count of voluntary
//! context switches (`getrusage(RUSAGE_SELF)`'s `ru_nvcsw`), summed over every
//! thread of the process, those that ended included.
//!
//! A thread switches voluntarily when it sleeps in the kernel: a futex wait
//! (a parked thread, a condition variable, a mutex's slow path, the std
//! barrier), `sched_yield` that found another thread to run, a join. Read
//! before and after a batch of synchronisations, the difference says how many
//! of them slept, for any method, without a counter in the method's own code
//! (which the std barrier, for one, does not allow). The involuntary ones
//! (`ru_nivcsw`) say the other thing a hand-over's time depends on: whether
//! another task took the CPU from a runnable thread.

/// The process's context switches so far, both kinds (zeroes where the
/// kernel does not say).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Switches {
    /// A thread slept in the kernel (a futex wait, a join, a sleep).
    pub voluntary: u64,
    /// A runnable thread was taken off its CPU for another task: on pinned
    /// threads with a CPU each, the sign of another task on their CPUs.
    pub involuntary: u64,
}

impl Switches {
    /// What happened between `earlier` and `self`.
    pub fn since(self, earlier: Switches) -> Switches {
        Switches {
            voluntary: self.voluntary.saturating_sub(earlier.voluntary),
            involuntary: self.involuntary.saturating_sub(earlier.involuntary),
        }
    }
}

/// The process's context switches so far.
pub fn context_switches() -> Switches {
    // SAFETY: `usage` is valid for writes of one `rusage`, which all zeroes
    // initialise; RUSAGE_SELF is a valid target.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return Switches::default();
    }
    Switches {
        voluntary: usage.ru_nvcsw.max(0) as u64,
        involuntary: usage.ru_nivcsw.max(0) as u64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A thread that sleeps 20 times adds at least 20 voluntary switches;
    /// a loop that does not sleep adds (almost) none.
    #[test]
    fn sleeping_counts_and_spinning_does_not() {
        let before = context_switches().voluntary;
        std::thread::spawn(|| {
            for _ in 0..20 {
                std::thread::sleep(std::time::Duration::from_micros(200));
            }
        })
        .join()
        .unwrap();
        let slept = context_switches().voluntary - before;
        assert!(slept >= 20, "{slept} switches for 20 sleeps");
        let before = context_switches().voluntary;
        let mut x = 0u64;
        for i in 0..1_000_000u64 {
            x = std::hint::black_box(x.wrapping_add(i));
        }
        let spun = context_switches().voluntary - before;
        // Other tests' threads run in the same process; a few of theirs may
        // fall in the window, never thousands.
        assert!(spun < 1000, "{spun} switches while spinning");
    }
}
