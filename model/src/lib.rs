//! The neural-network side of gipfzero, on libtorch through tch.
//!
//! Layered like candle (tensor runtime < layers < models), each module using only those
//! before it:
//! - [`runtime`]: which libtorch the binary was linked against, which devices it sees, and
//!   explicit control of libtorch's thread pools. Thread counts are explicit because
//!   libtorch's intra-op (OpenMP) threads fight rayon's workers on small machines: on a
//!   2-core machine with the other core busy, a small training loop ran 30–60× slower with 2
//!   intra-op threads than with 1. And glibc malloc's thresholds, fixed once at start-up
//!   ([`runtime::tune_allocator`]): its adaptive ones hand libtorch's freed activations back
//!   to the system after every step, and an SGD step ran a quarter slower for it.
//! - [`layers`]: convolution + group norm, global pooling bias, the residual block.
//! - [`network`]: the one policy/value network, sized by a [`NetConfig`] and shaped by a
//!   variant's [`gipfzero_games::Spec`], with stable parameter names.
//! - [`cuda_graph`]: the server's passes in fixed-size buckets, captured as CUDA graphs on a
//!   GPU (one launch a pass instead of a hundred).
//! - [`inference`]: the inference server: copies of the network that answer searching
//!   threads, on threads of their own that batch requests (a GPU) or on the asking threads
//!   (CPU self-play).
//! - [`evaluator`]: [`NetworkEvaluator`], the search's evaluator on the server's batch API.
//! - [`checkpoint`]: safetensors weights with a JSON sidecar, written crash-safely and checked
//!   on load.
//! - [`bench`]: throughput measurements for the benches and the `bench model` command.
//!
//! The network and the server know nothing of files; only `checkpoint` touches the disk.
pub mod bench;
pub mod checkpoint;
pub mod cuda_graph;
pub mod evaluator;
pub mod inference;
pub mod layers;
pub mod network;
pub mod runtime;

pub use checkpoint::{Checkpoint, CheckpointError, CheckpointInfo, TrainingState};
pub use evaluator::NetworkEvaluator;
pub use inference::{
    Batch, BatchEvaluation, Evaluation, InferenceError, InferenceHandle, InferenceServer,
    Precision, ServerConfig,
};
pub use network::{legal_mask, masked_softmax, NetConfig, NetConfigError, Network, NetworkOutput};
pub use runtime::{runtime_info, tune_allocator, AllocatorSetting, DeviceChoice, RuntimeInfo, ThreadSettings};

#[cfg(test)]
mod tests;
