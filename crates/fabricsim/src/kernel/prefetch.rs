//! A hint that a cache line will be read soon: the driver names the next
//! event's state while the current event runs, so that on a model larger
//! than the caches its misses overlap the current event's work instead of
//! following it. A hint only: it changes no result.

/// Asks for the line holding `*at` in every cache level (a no-op where the
/// target has no prefetch instruction).
#[inline(always)]
pub fn prefetch<T>(at: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults, whatever the address.
    unsafe {
        core::arch::x86_64::_mm_prefetch(at as *const i8, core::arch::x86_64::_MM_HINT_T0);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}
