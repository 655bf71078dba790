//! The neural-network side of gipfzero, on libtorch through tch.
//!
//! For now this crate holds the runtime layer the rest builds on: which libtorch the binary
//! was linked against, which devices it sees, and explicit control of libtorch's thread
//! pools. Thread counts are explicit because libtorch's intra-op (OpenMP) threads fight
//! rayon's workers on small machines: on a 2-core machine with the other core busy, a small
//! training loop ran 30–60× slower with 2 intra-op threads than with 1.
pub mod runtime;

pub use runtime::{runtime_info, DeviceChoice, RuntimeInfo, ThreadSettings};
