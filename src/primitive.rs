//! The atomics, cells and spin hint that the lock-free code uses: std's normally,
//! loom's under `--cfg loom`, so that the loom tests model the real code.
//! (The same shim as crossbeam-utils' `primitive` and tokio's `loom` modules.)

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{
    AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering, fence,
};
#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{
    AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering, fence,
};

/// One iteration of a spin-wait: the CPU's spin-loop hint, or a loom yield so that
/// the model checker can schedule the thread being waited for.
#[inline(always)]
pub(crate) fn spin_hint() {
    #[cfg(loom)]
    loom::thread::yield_now();
    #[cfg(not(loom))]
    std::hint::spin_loop();
}

#[cfg(loom)]
pub(crate) use loom::cell::UnsafeCell;

/// `std::cell::UnsafeCell` with loom's closure-based API.
#[cfg(not(loom))]
#[derive(Debug, Default)]
pub(crate) struct UnsafeCell<T>(std::cell::UnsafeCell<T>);

#[cfg(not(loom))]
impl<T> UnsafeCell<T> {
    pub(crate) fn new(value: T) -> UnsafeCell<T> {
        UnsafeCell(std::cell::UnsafeCell::new(value))
    }
    #[inline(always)]
    pub(crate) fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
        f(self.0.get())
    }
    #[inline(always)]
    pub(crate) fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
        f(self.0.get())
    }
}
