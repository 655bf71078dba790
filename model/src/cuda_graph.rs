//! Forward passes in fixed-size buckets, captured as CUDA graphs on a GPU and replayed.
//!
//! Why: on an H200 a pass of the 6 × 64 network cost about 1.7 ms at any batch from 8 to 512
//! positions (docs/PERFORMANCE.md, "GPU"): the pass is about a hundred small kernels, each
//! launched through libtorch's dispatcher from the CPU, and at these sizes the launches, not
//! the arithmetic, set the pace. A CUDA graph records a pass's kernels once and launches them
//! all in one call, so a pass should cost little more than its arithmetic, a fraction of
//! that. lc0's and KataGo's CUDA back ends take the same care over launches for the same
//! reason (their own fused kernels); libtorch's graphs are the way to it through tch.
//!
//! How: a graph replays the same kernels on the same memory, so a pass's size must be fixed
//! in advance. A pass of `n` positions runs in the smallest bucket that holds it, a power of
//! two from [`SMALLEST_BUCKET`] up to the largest pass the server gathers ([`Buckets::new`]);
//! larger passes run as they are. Each bucket owns an input tensor on the device; the first
//! pass of that size runs three times on a side stream (libtorch's and cuDNN's lazy set-up
//! happens outside the capture) and is then captured, its outputs becoming the bucket's
//! output tensors. Every later pass copies its observations into the first `n` rows of the
//! input, replays the graph on the current stream, and reads the first `n` rows of the
//! outputs back to the CPU. The rows beyond `n` keep what an earlier pass left there:
//! positions never mix in this network (convolutions and group norms compute each position
//! on its own, the linear layers each row on its own), so those rows only cost arithmetic,
//! which a pass this small has to spare. A bucket is a multiple of 16 rows, so the linear
//! layers' padding to [`crate::inference::DEFAULT_PAD_ROWS`] adds nothing inside a graph.
//!
//! On the CPU there is no graph to capture: the buckets then run their passes eagerly on the
//! same static buffers. That is slower than a plain pass (a bucket may double the positions)
//! and nobody should want it, except the tests: it checks everything but the capture itself,
//! and answers the same as a plain pass to the bit (a position's bits do not depend on its
//! batch: see `crate::inference`).
//!
//! The capture runs through libtorch's own `at::cuda::CUDAGraph` (a C++ shim, csrc/, built
//! when the libtorch in use is a CUDA build whose headers are at hand; see build.rs), which
//! also hands the captured pass's memory to a private pool of libtorch's caching allocator.
//! A build without it refuses graphs on a CUDA device with [`GraphError::NotBuilt`]. The
//! capture is thread-local: other threads (another replica, the trainer's SGD) may use the
//! device meanwhile.
//!
//! **Not yet measured on a GPU** (no CUDA machine was lent since this was written), so the
//! servers run plain passes unless asked (`threads.cuda_graphs`, `bench model|selfplay
//! --cuda-graphs`); `scripts/gpu-check.sh` measures both.
use std::collections::BTreeMap;

use tch::{Device, Kind, Tensor};
use thiserror::Error;

use crate::network::{Network, NetworkOutput};

/// The smallest bucket: a multiple of every row block the linear layers' padding knows
/// ([`crate::inference::DEFAULT_PAD_ROWS`]), and below it a pass is cheap however it runs.
pub const SMALLEST_BUCKET: usize = 16;

/// What can go wrong with the buckets' graphs.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum GraphError {
    #[error("this build has no CUDA graphs (its libtorch is not a CUDA build, or the CUDA headers were missing when it was built: see model/build.rs)")]
    NotBuilt,
    #[error("CUDA graph {stage} failed: {message}")]
    Cuda { stage: &'static str, message: String },
    #[error("the pass in a bucket of {bucket} failed: {message}")]
    Pass { bucket: usize, message: String },
}

/// One bucket's buffers, and on a GPU its captured graph.
struct Bucket {
    input: Tensor,
    output: NetworkOutput,
    /// None on the CPU (the pass runs again on the buffers instead of a replay).
    graph: Option<raw::Graph>,
}

/// The buckets of one network copy, created on first use; one server thread owns them.
pub struct Buckets {
    largest: usize,
    pad_rows: usize,
    buckets: BTreeMap<usize, Bucket>,
}

impl std::fmt::Debug for Buckets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Buckets")
            .field("largest", &self.largest)
            .field("captured", &self.buckets.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl Buckets {
    /// Buckets for passes of up to `max_batch` positions (the largest bucket is the power of
    /// two that holds `max_batch`, at least [`SMALLEST_BUCKET`]), their linear layers padded
    /// to `pad_rows` as a plain pass would be.
    pub fn new(max_batch: usize, pad_rows: usize) -> Buckets {
        let largest = max_batch.max(1).next_power_of_two().max(SMALLEST_BUCKET);
        Buckets { largest, pad_rows, buckets: BTreeMap::new() }
    }

    /// The bucket a pass of `positions` runs in; None when it is larger than the largest.
    pub fn bucket_for(&self, positions: usize) -> Option<usize> {
        let bucket = positions.max(1).next_power_of_two().max(SMALLEST_BUCKET);
        (bucket <= self.largest).then_some(bucket)
    }

    /// The pass of `model` over `observations` (`[n, observation_len]` values in `f32`, on
    /// the CPU), through its bucket: the policy logits `[n, action_count]` and values `[n]`,
    /// in `f32` on the CPU. None when `n` exceeds the largest bucket (the caller runs a plain
    /// pass). `model` must be the same network on every call (the graphs hold its weights).
    pub fn forward(&mut self, model: &Network, observations: &Tensor) -> Result<Option<NetworkOutput>, GraphError> {
        let n = observations.size()[0] as usize;
        let Some(size) = self.bucket_for(n) else { return Ok(None) };
        if !self.buckets.contains_key(&size) {
            let bucket = build(model, size, observations.size()[1], self.pad_rows)?;
            self.buckets.insert(size, bucket);
        }
        let bucket = self.buckets.get_mut(&size).expect("inserted above");
        let pass = |message: String| GraphError::Pass { bucket: size, message };
        let mut rows = bucket.input.narrow(0, 0, n as i64);
        rows.f_copy_(observations).map_err(|e| pass(e.to_string()))?;
        match &bucket.graph {
            Some(graph) => graph.replay()?,
            None => {
                bucket.output = tch::no_grad(|| model.forward_rows(&bucket.input, self.pad_rows));
            }
        }
        let read = |tensor: &Tensor| -> Result<Tensor, GraphError> {
            tensor
                .f_narrow(0, 0, n as i64)
                .and_then(|t| t.f_to_kind(Kind::Float))
                .and_then(|t| t.f_to_device(Device::Cpu))
                .map_err(|e| pass(e.to_string()))
        };
        Ok(Some(NetworkOutput { policy_logits: read(&bucket.output.policy_logits)?, value: read(&bucket.output.value)? }))
    }
}

/// A bucket of `size` rows of `observation_len` values for `model`: its buffers, and on a
/// CUDA device the captured pass.
fn build(model: &Network, size: usize, observation_len: i64, pad_rows: usize) -> Result<Bucket, GraphError> {
    let pass = |message: String| GraphError::Pass { bucket: size, message };
    let input = Tensor::f_zeros([size as i64, observation_len], (model.parameter_kind(), model.device()))
        .map_err(|e| pass(e.to_string()))?;
    let run = || tch::no_grad(|| model.forward_rows(&input, pad_rows));
    let Device::Cuda(index) = model.device() else {
        return Ok(Bucket { output: run(), input, graph: None });
    };
    let graph = raw::Graph::new(index)?;
    let output = {
        // Warm-up passes on the side stream, then the capture; the stream before is made
        // current again however this ends (a panic inside libtorch, which tch raises on a C++
        // error, reaches the server's catch).
        let side = OnSideStream::enter(&graph)?;
        for _ in 0..3 {
            drop(run());
        }
        graph.capture_begin()?;
        let output = run();
        graph.capture_end()?;
        side.leave()?;
        output
    };
    Ok(Bucket { input, output, graph: Some(graph) })
}

/// The graph's side stream made current until [`OnSideStream::leave`] or drop.
struct OnSideStream<'a> {
    graph: &'a raw::Graph,
    left: bool,
}

impl<'a> OnSideStream<'a> {
    fn enter(graph: &'a raw::Graph) -> Result<OnSideStream<'a>, GraphError> {
        graph.enter()?;
        Ok(OnSideStream { graph, left: false })
    }

    fn leave(mut self) -> Result<(), GraphError> {
        self.left = true;
        self.graph.leave()
    }
}

impl Drop for OnSideStream<'_> {
    fn drop(&mut self) {
        if !self.left {
            let _ = self.graph.leave();
        }
    }
}

/// The shim's calls (csrc/cuda_graph.cpp), or their refusal in a build without it.
mod raw {
    use super::GraphError;

    #[cfg(gipfzero_cuda_graphs)]
    mod ffi {
        use std::os::raw::{c_char, c_int};

        #[repr(C)]
        pub struct GzCudaGraph {
            _private: [u8; 0],
        }

        extern "C" {
            pub fn gz_cuda_graph_new(device: c_int, error: *mut c_char, len: usize) -> *mut GzCudaGraph;
            pub fn gz_cuda_graph_enter(graph: *mut GzCudaGraph, error: *mut c_char, len: usize) -> c_int;
            pub fn gz_cuda_graph_leave(graph: *mut GzCudaGraph, error: *mut c_char, len: usize) -> c_int;
            pub fn gz_cuda_graph_capture_begin(graph: *mut GzCudaGraph, error: *mut c_char, len: usize) -> c_int;
            pub fn gz_cuda_graph_capture_end(graph: *mut GzCudaGraph, error: *mut c_char, len: usize) -> c_int;
            pub fn gz_cuda_graph_replay(graph: *mut GzCudaGraph, error: *mut c_char, len: usize) -> c_int;
            pub fn gz_cuda_graph_free(graph: *mut GzCudaGraph);
        }
    }

    /// A libtorch `CUDAGraph` with the side stream it is captured on; freed on drop.
    pub struct Graph {
        #[cfg(gipfzero_cuda_graphs)]
        pointer: *mut ffi::GzCudaGraph,
    }

    #[cfg(gipfzero_cuda_graphs)]
    fn call(stage: &'static str, body: impl FnOnce(*mut std::os::raw::c_char, usize) -> std::os::raw::c_int) -> Result<(), GraphError> {
        let mut error = [0u8; 1024];
        if body(error.as_mut_ptr().cast(), error.len()) == 0 {
            return Ok(());
        }
        let end = error.iter().position(|&b| b == 0).unwrap_or(error.len());
        Err(GraphError::Cuda { stage, message: String::from_utf8_lossy(&error[..end]).into_owned() })
    }

    #[cfg(gipfzero_cuda_graphs)]
    impl Graph {
        pub fn new(device: usize) -> Result<Graph, GraphError> {
            let mut pointer = std::ptr::null_mut();
            call("creation", |error, len| {
                // SAFETY: the shim writes at most `len` bytes of message into `error`.
                pointer = unsafe { ffi::gz_cuda_graph_new(device as i32, error, len) };
                i32::from(pointer.is_null())
            })?;
            Ok(Graph { pointer })
        }

        // SAFETY (every call below): `pointer` came from gz_cuda_graph_new and is freed only
        // on drop; the shim catches every C++ exception.
        pub fn enter(&self) -> Result<(), GraphError> {
            call("stream switch", |error, len| unsafe { ffi::gz_cuda_graph_enter(self.pointer, error, len) })
        }

        pub fn leave(&self) -> Result<(), GraphError> {
            call("stream restore", |error, len| unsafe { ffi::gz_cuda_graph_leave(self.pointer, error, len) })
        }

        pub fn capture_begin(&self) -> Result<(), GraphError> {
            call("capture", |error, len| unsafe { ffi::gz_cuda_graph_capture_begin(self.pointer, error, len) })
        }

        pub fn capture_end(&self) -> Result<(), GraphError> {
            call("capture end", |error, len| unsafe { ffi::gz_cuda_graph_capture_end(self.pointer, error, len) })
        }

        pub fn replay(&self) -> Result<(), GraphError> {
            call("replay", |error, len| unsafe { ffi::gz_cuda_graph_replay(self.pointer, error, len) })
        }
    }

    #[cfg(gipfzero_cuda_graphs)]
    impl Drop for Graph {
        fn drop(&mut self) {
            // SAFETY: as above; the pointer is not used after this.
            unsafe { ffi::gz_cuda_graph_free(self.pointer) }
        }
    }

    #[cfg(not(gipfzero_cuda_graphs))]
    impl Graph {
        pub fn new(_device: usize) -> Result<Graph, GraphError> {
            Err(GraphError::NotBuilt)
        }

        pub fn enter(&self) -> Result<(), GraphError> {
            Err(GraphError::NotBuilt)
        }

        pub fn leave(&self) -> Result<(), GraphError> {
            Err(GraphError::NotBuilt)
        }

        pub fn capture_begin(&self) -> Result<(), GraphError> {
            Err(GraphError::NotBuilt)
        }

        pub fn capture_end(&self) -> Result<(), GraphError> {
            Err(GraphError::NotBuilt)
        }

        pub fn replay(&self) -> Result<(), GraphError> {
            Err(GraphError::NotBuilt)
        }
    }

    /// Whether this build can capture CUDA graphs.
    pub const BUILT: bool = cfg!(gipfzero_cuda_graphs);
}

/// Whether this build has the CUDA graph shim (a CUDA libtorch with its headers at build
/// time); without it [`Buckets`] refuse a CUDA device.
pub const GRAPHS_BUILT: bool = raw::BUILT;
