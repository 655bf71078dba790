// CUDA graphs for the inference server (see model/src/cuda_graph.rs for why and how).
//
// tch binds no CUDA graph API, so this shim exposes the few calls the server needs from
// libtorch's own `at::cuda::CUDAGraph`, whose capture also routes the pass's allocations to a
// private memory pool of libtorch's caching allocator (a raw cudaStreamBeginCapture would not).
// It calls libtorch and c10 only, never the CUDA runtime itself, so the binaries need no
// libcudart of their own: whatever libtorch_cuda loads is used.
//
// Every call catches C++ exceptions (a capture libtorch refuses, an out-of-memory) and returns
// 1 with the message in `error` (at most `len` bytes, NUL-terminated); 0 is success.
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAStream.h>

#include <cstring>
#include <exception>

struct GzCudaGraph {
  at::cuda::CUDAGraph graph;
  // The side stream the warm-up passes and the capture run on (capture needs a stream other
  // than the default one), and the device and stream that were current before `enter`.
  c10::cuda::CUDAStream stream;
  c10::cuda::CUDAStream previous;
  c10::DeviceIndex previous_device = 0;
  explicit GzCudaGraph(c10::cuda::CUDAStream side) : stream(side), previous(side) {}
};

namespace {

int fail(const char* message, char* error, size_t len) {
  if (error != nullptr && len > 0) {
    std::strncpy(error, message, len - 1);
    error[len - 1] = '\0';
  }
  return 1;
}

template <typename Body>
int guarded(Body&& body, char* error, size_t len) {
  try {
    body();
    return 0;
  } catch (const std::exception& e) {
    return fail(e.what(), error, len);
  } catch (...) {
    return fail("an unknown C++ exception", error, len);
  }
}

}  // namespace

extern "C" {

// A graph to capture on CUDA device `device`; null on failure.
GzCudaGraph* gz_cuda_graph_new(int device, char* error, size_t len) {
  GzCudaGraph* graph = nullptr;
  guarded(
      [&] {
        auto index = static_cast<c10::DeviceIndex>(device);
        auto side = c10::cuda::getStreamFromPool(false, index);
        // CUDAGraph's constructor reads the current device's current stream: make it this
        // device while it runs.
        auto before = c10::cuda::current_device();
        c10::cuda::set_device(index);
        try {
          graph = new GzCudaGraph(side);
        } catch (...) {
          c10::cuda::set_device(before);
          throw;
        }
        c10::cuda::set_device(before);
      },
      error, len);
  return graph;
}

// Makes the graph's device this thread's current device (CUDAGraph captures on the current
// device's current stream) and its side stream that device's current stream, once the device
// has finished what was queued before (the static input's contents among it).
int gz_cuda_graph_enter(GzCudaGraph* graph, char* error, size_t len) {
  return guarded(
      [&] {
        graph->previous_device = c10::cuda::current_device();
        c10::cuda::set_device(graph->stream.device_index());
        c10::cuda::device_synchronize();
        graph->previous = c10::cuda::getCurrentCUDAStream(graph->stream.device_index());
        c10::cuda::setCurrentCUDAStream(graph->stream);
      },
      error, len);
}

// Waits for the side stream's work and makes the device and stream current before `enter`
// current again.
int gz_cuda_graph_leave(GzCudaGraph* graph, char* error, size_t len) {
  return guarded(
      [&] {
        c10::cuda::device_synchronize();
        c10::cuda::setCurrentCUDAStream(graph->previous);
        c10::cuda::set_device(graph->previous_device);
      },
      error, len);
}

// Starts capturing this thread's work on the current (side) stream. Thread-local mode: other
// threads (a training step, another replica) may go on using the device meanwhile.
int gz_cuda_graph_capture_begin(GzCudaGraph* graph, char* error, size_t len) {
  return guarded([&] { graph->graph.capture_begin({0, 0}, cudaStreamCaptureModeThreadLocal); },
                 error, len);
}

int gz_cuda_graph_capture_end(GzCudaGraph* graph, char* error, size_t len) {
  return guarded([&] { graph->graph.capture_end(); }, error, len);
}

// Launches the captured work on this thread's current stream.
int gz_cuda_graph_replay(GzCudaGraph* graph, char* error, size_t len) {
  return guarded([&] { graph->graph.replay(); }, error, len);
}

void gz_cuda_graph_free(GzCudaGraph* graph) { delete graph; }

}  // extern "C"
