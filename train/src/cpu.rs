//! CPU time of this process, for the `cpu_s` of the metrics ([`crate::metrics::IterationMetrics`]):
//! the measure of a run's cost on shared machines, where wall time is not.
//!
//! A module of its own because it is the crate's one call into the C library (`getrusage`,
//! behind `unsafe`) and the one thing here that depends on the platform; the metrics schema
//! stays plain data, and the loop ([`crate::pipeline`]) reads the clock once per iteration.

/// CPU time (user + system, all threads) of this process so far, in seconds; `None` where
/// the platform does not tell.
pub fn process_cpu_seconds() -> Option<f64> {
    #[cfg(unix)]
    {
        let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
        // SAFETY: getrusage writes a `rusage` into the pointer it is given, which points to
        // one; the zeroed value is a valid `rusage` (plain integers) should it not.
        let status = unsafe { libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) };
        if status != 0 {
            return None;
        }
        // SAFETY: initialised (zeroed, then filled by getrusage).
        let usage = unsafe { usage.assume_init() };
        let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
        Some(seconds(usage.ru_utime) + seconds(usage.ru_stime))
    }
    #[cfg(not(unix))]
    {
        None
    }
}
