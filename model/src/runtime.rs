//! libtorch version, devices, thread pools and the C allocator's thresholds.
use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

use thiserror::Error;

/// The libtorch version found next to the library at build time (e.g. `2.11.0+cu130`).
pub const LIBTORCH_VERSION: &str = env!("GIPFZERO_LIBTORCH_VERSION");

/// The directory of the libtorch shared libraries the binary was linked against (its rpath).
pub const LIBTORCH_LIB_DIR: &str = env!("GIPFZERO_LIBTORCH_LIB");

/// What the running process sees of libtorch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeInfo {
    pub libtorch_version: &'static str,
    pub libtorch_lib_dir: &'static str,
    pub cuda_available: bool,
    pub cuda_device_count: usize,
    pub cudnn_available: bool,
    /// libtorch's intra-op thread pool (OpenMP): threads used inside one operator.
    pub intra_op_threads: usize,
    /// libtorch's inter-op thread pool: operators run concurrently.
    pub inter_op_threads: usize,
    /// What [`tune_allocator`] did, if it was called.
    pub allocator: Option<AllocatorSetting>,
}

/// Reads the runtime facts (this initialises CUDA when it is present).
pub fn runtime_info() -> RuntimeInfo {
    RuntimeInfo {
        libtorch_version: LIBTORCH_VERSION,
        libtorch_lib_dir: LIBTORCH_LIB_DIR,
        cuda_available: tch::Cuda::is_available(),
        cuda_device_count: tch::Cuda::device_count().max(0) as usize,
        cudnn_available: tch::Cuda::cudnn_is_available(),
        intra_op_threads: tch::get_num_threads().max(0) as usize,
        inter_op_threads: tch::get_num_interop_threads().max(0) as usize,
        allocator: ALLOCATOR.get().copied(),
    }
}

/// The largest block glibc's malloc takes from its heaps rather than from `mmap`, as
/// [`tune_allocator`] sets it: glibc's own upper bound for the threshold it adapts, so every
/// activation and gradient of these networks comes from the heap.
pub const MMAP_THRESHOLD: usize = 32 << 20;

/// Free memory at the top of a malloc heap that glibc keeps before it gives memory back to
/// the system, as [`tune_allocator`] sets it.
pub const TRIM_THRESHOLD: usize = 64 << 20;

/// What [`tune_allocator`] did.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AllocatorSetting {
    /// glibc's malloc now uses [`MMAP_THRESHOLD`] and [`TRIM_THRESHOLD`], and no fastbins.
    Tuned,
    /// `GLIBC_TUNABLES` sets malloc parameters: the user's choice is left alone.
    UserTunables,
    /// Not glibc (or not Linux): nothing to do, or the settings were refused.
    Unchanged,
}

impl fmt::Display for AllocatorSetting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AllocatorSetting::Tuned => write!(
                f,
                "glibc malloc, mmap threshold {} MiB, trim threshold {} MiB, no fastbins",
                MMAP_THRESHOLD >> 20,
                TRIM_THRESHOLD >> 20
            ),
            AllocatorSetting::UserTunables => write!(f, "glibc malloc as GLIBC_TUNABLES sets it"),
            AllocatorSetting::Unchanged => write!(f, "the system's malloc, unchanged"),
        }
    }
}

static ALLOCATOR: OnceLock<AllocatorSetting> = OnceLock::new();

/// Fixes glibc malloc's `mmap` and trim thresholds, and turns its fastbins off, for libtorch's
/// CPU work. Call it once at start-up, before other threads run (the binary does, before it
/// sizes the thread pools).
///
/// Why: libtorch allocates every activation, gradient and optimiser temporary with
/// `posix_memalign` and frees it again within the step, and glibc's adaptive thresholds hand
/// much of that memory back to the system between steps, so the next step faults it in
/// again. Fixed thresholds keep it: measured on a 2-core AMD EPYC (docs/PERFORMANCE.md, "The
/// C allocator"), an SGD step of the 3 × 32 LYNGK network at batch 128 took 32 ms instead of
/// 40–41 with less than half the page faults, and forward passes at batch 256 and more ran
/// 1.2–1.3 × as fast; small batches (the search's passes of 1–16) are unchanged. The cost is
/// memory kept: a process holds on to up to [`TRIM_THRESHOLD`] of free heap that it would
/// fault back in anyway.
///
/// Fastbins off (`M_MXFAST` 0): with them, every large block libtorch asks for or frees
/// (a pass's activations) first merges all the small chunks parked in the thread's fastbins
/// (`malloc_consolidate`), which took about a tenth of the inference threads' time in a
/// profile of two-worker self-play; without them small blocks still go through glibc's
/// per-thread cache. Measured the same way (docs/PERFORMANCE.md, "Fastbins"), self-play
/// evaluated 5–15 % more positions a second.
///
/// `GLIBC_TUNABLES` naming a `glibc.malloc.` parameter wins: then nothing is changed.
pub fn tune_allocator() -> AllocatorSetting {
    *ALLOCATOR.get_or_init(|| {
        let user_set = std::env::var("GLIBC_TUNABLES").is_ok_and(|tunables| tunables.contains("glibc.malloc."));
        if user_set {
            AllocatorSetting::UserTunables
        } else {
            set_parameters()
        }
    })
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn set_parameters() -> AllocatorSetting {
    // SAFETY: mallopt only changes the allocator's parameters; called before other threads
    // allocate (see tune_allocator), and glibc takes its own lock anyway.
    let set = unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD as libc::c_int) == 1
            && libc::mallopt(libc::M_TRIM_THRESHOLD, TRIM_THRESHOLD as libc::c_int) == 1
            && libc::mallopt(libc::M_MXFAST, 0) == 1
    };
    if set {
        AllocatorSetting::Tuned
    } else {
        AllocatorSetting::Unchanged
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn set_parameters() -> AllocatorSetting {
    AllocatorSetting::Unchanged
}

/// libtorch thread-pool sizes. Apply them once, at start-up, before any tensor work:
/// libtorch refuses to resize the inter-op pool after it has been used.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ThreadSettings {
    pub intra_op: usize,
    pub inter_op: usize,
}

impl Default for ThreadSettings {
    /// One thread each: the search and self-play already keep every core busy with rayon, and
    /// on small machines extra OpenMP threads only contend with them (see the crate docs).
    fn default() -> Self {
        ThreadSettings { intra_op: 1, inter_op: 1 }
    }
}

impl ThreadSettings {
    pub fn apply(self) {
        tch::set_num_threads(self.intra_op.max(1) as i32);
        tch::set_num_interop_threads(self.inter_op.max(1) as i32);
    }
}

/// Where to run the network.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum DeviceChoice {
    /// The first CUDA device when there is one, else the CPU.
    #[default]
    Auto,
    Cpu,
    Cuda(usize),
}

impl DeviceChoice {
    /// The tch device this choice means on this machine.
    pub fn resolve(self) -> tch::Device {
        match self {
            DeviceChoice::Auto => tch::Device::cuda_if_available(),
            DeviceChoice::Cpu => tch::Device::Cpu,
            DeviceChoice::Cuda(index) => tch::Device::Cuda(index),
        }
    }
}

/// A device name that is not `auto`, `cpu`, `cuda` or `cuda:N`.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("unknown device \"{0}\": expected auto, cpu, cuda or cuda:N")]
pub struct DeviceError(pub String);

impl FromStr for DeviceChoice {
    type Err = DeviceError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "auto" => Ok(DeviceChoice::Auto),
            "cpu" => Ok(DeviceChoice::Cpu),
            "cuda" => Ok(DeviceChoice::Cuda(0)),
            _ => text
                .strip_prefix("cuda:")
                .and_then(|index| index.parse().ok())
                .map(DeviceChoice::Cuda)
                .ok_or_else(|| DeviceError(text.to_string())),
        }
    }
}

impl fmt::Display for DeviceChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeviceChoice::Auto => f.write_str("auto"),
            DeviceChoice::Cpu => f.write_str("cpu"),
            DeviceChoice::Cuda(index) => write!(f, "cuda:{index}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_names_parse_and_print_back() {
        for name in ["auto", "cpu", "cuda:0", "cuda:3"] {
            let device: DeviceChoice = name.parse().unwrap();
            assert_eq!(device.to_string(), name);
        }
        assert_eq!("cuda".parse::<DeviceChoice>().unwrap(), DeviceChoice::Cuda(0));
        for bad in ["gpu", "cuda:", "cuda:x", ""] {
            assert!(bad.parse::<DeviceChoice>().is_err(), "{bad} accepted");
        }
    }

    #[test]
    fn linked_libtorch_is_the_pinned_version() {
        assert!(
            LIBTORCH_VERSION.starts_with("2.11.0"),
            "linked libtorch {LIBTORCH_VERSION}, tch 0.24 needs 2.11.0"
        );
    }

    #[test]
    fn thread_settings_take_effect() {
        ThreadSettings { intra_op: 1, inter_op: 1 }.apply();
        let info = runtime_info();
        assert_eq!(info.intra_op_threads, 1);
        // A tensor operation runs on the configured pool.
        let sum = tch::Tensor::from_slice(&[1.0f32, 2.0, 3.0]).sum(tch::Kind::Float);
        assert_eq!(f32::try_from(sum).unwrap(), 6.0);
    }
}
