//! Pinning a thread to one logical CPU, and reading the affinity back.
//!
//! `core_affinity` sets the affinity but does not say whether it took (a cpuset or
//! `taskset` can forbid a CPU). Every pin here is checked by reading the calling
//! thread's affinity mask back with `sched_getaffinity`: a pin that did not take is
//! an error, never a silently unpinned thread.

/// Why a thread could not be pinned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PinError {
    /// The kernel refused the affinity request.
    #[error(
        "cannot pin to CPU {cpu}: the kernel refused it (is CPU {cpu} outside this process's allowed set {allowed:?}? see taskset/cpuset)"
    )]
    Refused {
        /// The CPU asked for.
        cpu: usize,
        /// The CPUs this process may use.
        allowed: Vec<usize>,
    },
    /// The affinity read back differs from what was asked.
    #[error("pinned to CPU {cpu} but the affinity read back is {read_back:?}")]
    NotTaken {
        /// The CPU asked for.
        cpu: usize,
        /// What `sched_getaffinity` returned.
        read_back: Vec<usize>,
    },
}

/// The CPUs the calling thread may run on (its affinity mask), ascending.
///
/// Call it from the main thread before pinning anything to learn which CPUs the
/// process was given (a `taskset -c 0` run gives `[0]`).
pub fn current_affinity() -> Vec<usize> {
    // SAFETY: cpu_set_t is a plain bit array; all-zero is a valid (empty) set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: pid 0 means the calling thread; the size and pointer describe `set`,
    // which lives for the whole call.
    let rc =
        unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
    if rc != 0 {
        return Vec::new();
    }
    (0..libc::CPU_SETSIZE as usize)
        // SAFETY: `i` is below CPU_SETSIZE, the capacity of `set`.
        .filter(|&i| unsafe { libc::CPU_ISSET(i, &set) })
        .collect()
}

/// The CPUs this process may use; an alias of [`current_affinity`] named for the
/// question the CLI asks at start.
pub fn allowed_cpus() -> Vec<usize> {
    current_affinity()
}

/// Pins the calling thread to logical CPU `cpu` and checks that it took.
pub fn pin_current_thread(cpu: usize) -> Result<(), PinError> {
    let allowed_before = current_affinity();
    if !core_affinity::set_for_current(core_affinity::CoreId { id: cpu }) {
        return Err(PinError::Refused {
            cpu,
            allowed: allowed_before,
        });
    }
    let read_back = current_affinity();
    if read_back != [cpu] {
        return Err(PinError::NotTaken { cpu, read_back });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinning_reads_back_and_refuses_missing_cpus() {
        let allowed = current_affinity();
        assert!(!allowed.is_empty());
        let cpu = *allowed.last().unwrap();
        std::thread::spawn(move || {
            pin_current_thread(cpu).unwrap();
            assert_eq!(current_affinity(), vec![cpu]);
            // SAFETY: sched_getcpu has no preconditions.
            let now = unsafe { libc::sched_getcpu() };
            assert_eq!(now as usize, cpu);
        })
        .join()
        .unwrap();
        let err = std::thread::spawn(|| pin_current_thread(1000).unwrap_err())
            .join()
            .unwrap();
        assert!(
            matches!(err, PinError::Refused { cpu: 1000, .. }),
            "{err:?}"
        );
    }
}
