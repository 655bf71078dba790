//! `tune_allocator` in a process of its own (malloc's parameters are process-wide). What the
//! fixed thresholds do for speed is measured in benchmarks (docs/PERFORMANCE.md, "The C
//! allocator"), not here: whether a given block is mapped depends on what the process did
//! before (libtorch's start-up leaves a large free top on the heap that serves even a 33 MiB
//! block without a new mapping), so a test cannot observe the thresholds through it.
#![cfg(all(target_os = "linux", target_env = "gnu"))]

use gipfzero_model::{runtime_info, tune_allocator, AllocatorSetting};

#[test]
fn glibc_takes_the_thresholds_once_and_info_reports_them() {
    assert_eq!(runtime_info().allocator, None, "nothing done before the call");
    let expected = if std::env::var("GLIBC_TUNABLES").is_ok_and(|tunables| tunables.contains("glibc.malloc.")) {
        AllocatorSetting::UserTunables
    } else {
        AllocatorSetting::Tuned
    };
    // Tuned only when glibc accepted all three mallopt calls.
    assert_eq!(tune_allocator(), expected);
    assert_eq!(tune_allocator(), expected, "the answer of the first call stays");
    assert_eq!(runtime_info().allocator, Some(expected));
    // The heap still serves after the change.
    let block = vec![7u8; 20 << 20];
    assert_eq!(block.iter().map(|&b| b as usize).sum::<usize>(), 7 * (20 << 20));
}
