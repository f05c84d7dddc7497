// Owning wrappers for CUDA resources (device and host memory, streams,
// events, graphs): released in destructors so that every error path frees
// what it allocated. Creation returns StatusOr; destruction ignores errors
// (a sticky CUDA error must not hide the original one). Not thread-safe.
#ifndef STREAMSCOPE_WORKLOADS_CUDA_CUDA_RESOURCES_H_
#define STREAMSCOPE_WORKLOADS_CUDA_CUDA_RESOURCES_H_

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "workloads/cuda/cuda_status.h"

namespace streamscope::workloads {

// Device memory of `words` 32-bit words.
class DeviceWords {
 public:
  DeviceWords() = default;
  DeviceWords(DeviceWords&& other) noexcept { *this = std::move(other); }
  DeviceWords& operator=(DeviceWords&& other) noexcept {
    std::swap(ptr_, other.ptr_);
    std::swap(words_, other.words_);
    return *this;
  }
  ~DeviceWords() {
    if (ptr_ != nullptr) cudaFree(ptr_);
  }
  static StatusOr<DeviceWords> Allocate(std::uint64_t words) {
    DeviceWords b;
    SS_CUDA_RETURN_IF_ERROR(cudaMalloc(reinterpret_cast<void**>(&b.ptr_), words * sizeof(std::uint32_t)));
    b.words_ = words;
    return b;
  }
  std::uint32_t* get() const { return ptr_; }
  std::uint64_t words() const { return words_; }
  std::uint64_t bytes() const { return words_ * sizeof(std::uint32_t); }

 private:
  std::uint32_t* ptr_ = nullptr;
  std::uint64_t words_ = 0;
};

enum class HostMemoryKind { kPinned, kPageable, kMappedPinned };

// Host memory of `words` words: pinned (cudaHostAlloc), pinned and mapped
// into the device's address space, or pageable (aligned_alloc). Zeroed, so
// every page is touched before any measured region.
class HostWords {
 public:
  HostWords() = default;
  HostWords(HostWords&& other) noexcept { *this = std::move(other); }
  HostWords& operator=(HostWords&& other) noexcept {
    std::swap(ptr_, other.ptr_);
    std::swap(words_, other.words_);
    std::swap(kind_, other.kind_);
    return *this;
  }
  ~HostWords() {
    if (ptr_ == nullptr) return;
    if (kind_ == HostMemoryKind::kPageable) {
      std::free(ptr_);
    } else {
      cudaFreeHost(ptr_);
    }
  }
  static StatusOr<HostWords> Allocate(std::uint64_t words, HostMemoryKind kind) {
    HostWords b;
    const std::uint64_t bytes = words * sizeof(std::uint32_t);
    b.kind_ = kind;
    if (kind == HostMemoryKind::kPageable) {
      constexpr std::uint64_t kPage = 4096;
      b.ptr_ = static_cast<std::uint32_t*>(std::aligned_alloc(kPage, (bytes + kPage - 1) / kPage * kPage));
      if (b.ptr_ == nullptr) return ResourceExhaustedError("aligned_alloc of pageable host memory failed");
    } else {
      const unsigned flags = kind == HostMemoryKind::kMappedPinned ? cudaHostAllocMapped : cudaHostAllocDefault;
      SS_CUDA_RETURN_IF_ERROR(cudaHostAlloc(reinterpret_cast<void**>(&b.ptr_), bytes, flags));
    }
    b.words_ = words;
    std::memset(b.ptr_, 0, bytes);
    return b;
  }
  std::uint32_t* get() const { return ptr_; }
  std::uint64_t words() const { return words_; }
  std::uint64_t bytes() const { return words_ * sizeof(std::uint32_t); }

 private:
  std::uint32_t* ptr_ = nullptr;
  std::uint64_t words_ = 0;
  HostMemoryKind kind_ = HostMemoryKind::kPinned;
};

// A created stream (never the legacy default stream).
class Stream {
 public:
  Stream() = default;
  Stream(Stream&& other) noexcept { std::swap(stream_, other.stream_); }
  Stream& operator=(Stream&& other) noexcept {
    std::swap(stream_, other.stream_);
    return *this;
  }
  ~Stream() {
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }
  // cudaStreamNonBlocking, or cudaStreamDefault for a blocking stream that
  // synchronizes with the legacy default stream.
  static StatusOr<Stream> Create(unsigned flags) {
    Stream s;
    SS_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&s.stream_, flags));
    return s;
  }
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

class Event {
 public:
  Event() = default;
  Event(Event&& other) noexcept { std::swap(event_, other.event_); }
  Event& operator=(Event&& other) noexcept {
    std::swap(event_, other.event_);
    return *this;
  }
  ~Event() {
    if (event_ != nullptr) cudaEventDestroy(event_);
  }
  static StatusOr<Event> Create(unsigned flags) {
    Event e;
    SS_CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&e.event_, flags));
    return e;
  }
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

class Graph {
 public:
  Graph() = default;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  ~Graph() {
    if (graph_ != nullptr) cudaGraphDestroy(graph_);
  }
  cudaGraph_t* out() { return &graph_; }
  cudaGraph_t get() const { return graph_; }

 private:
  cudaGraph_t graph_ = nullptr;
};

class GraphExec {
 public:
  GraphExec() = default;
  GraphExec(const GraphExec&) = delete;
  GraphExec& operator=(const GraphExec&) = delete;
  ~GraphExec() {
    if (exec_ != nullptr) cudaGraphExecDestroy(exec_);
  }
  cudaGraphExec_t* out() { return &exec_; }
  cudaGraphExec_t get() const { return exec_; }

 private:
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace streamscope::workloads

#endif  // STREAMSCOPE_WORKLOADS_CUDA_CUDA_RESOURCES_H_
