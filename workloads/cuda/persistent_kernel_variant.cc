// persistent_kernel: ONE PersistentWorker launch of `blocks` blocks x 128
// threads serves `items` work items that the host publishes one by one into a
// queue of `slots` entries in mapped pinned memory (protocol in
// persistent_queue.h). Each item: 128 threads x item-iters dependent steps
// from the item's seed, written to device memory. After the kernel ends, one
// D2H copies all results (items x 512 bytes). So the measured region holds
// exactly 1 kernel and 1 D2H copy, and no launch gaps between items.
//
// It can never hang: the device gives up after timeout-ms (and reports the
// item it waited for), the host gives up timeout-ms + 2 s after the start
// (then sets abort, which every block polls), and the host also stops
// waiting if the kernel is no longer running.
#include <cuda_runtime_api.h>

#include <atomic>
#include <chrono>
#include <cstdint>

#include "workloads/cuda/cuda_resources.h"
#include "workloads/cuda/cuda_status.h"
#include "workloads/cuda/persistent_queue.h"
#include "workloads/cuda/variant_runner.h"
#include "workloads/cuda/workload_kernels.h"
#include "workloads/harness/cpu_reference.h"

namespace streamscope::workloads {
namespace {

using Clock = std::chrono::steady_clock;

std::uint32_t LoadAcquire(std::uint32_t& word) {
  return std::atomic_ref<std::uint32_t>(word).load(std::memory_order_acquire);
}
void StoreRelease(std::uint32_t& word, std::uint32_t value) {
  std::atomic_ref<std::uint32_t>(word).store(value, std::memory_order_release);
}

// Why the host stopped waiting.
enum class WaitResult { kDone, kHostTimeout, kDeviceTimeout, kKernelEnded };

// Polls `done()` until true, the deadline passes, the device reports a
// timeout or the kernel stops running.
template <typename Done>
StatusOr<WaitResult> WaitFor(Done done, Clock::time_point deadline, QueueControl& control, cudaStream_t stream) {
  Clock::time_point next_query = Clock::now() + std::chrono::milliseconds(1);
  for (std::uint64_t polls = 1;; ++polls) {
    if (done()) return WaitResult::kDone;
    if (LoadAcquire(control.timed_out) != 0) return WaitResult::kDeviceTimeout;
    if ((polls & 63) != 0) continue;
    const Clock::time_point now = Clock::now();
    if (now > deadline) return WaitResult::kHostTimeout;
    if (now < next_query) continue;
    // At most once a millisecond, so the trace is not flooded with queries.
    next_query = now + std::chrono::milliseconds(1);
    const cudaError_t query = cudaStreamQuery(stream);
    if (query == cudaSuccess) return done() ? WaitResult::kDone : WaitResult::kKernelEnded;
    if (query != cudaErrorNotReady) SS_CUDA_RETURN_IF_ERROR(query);
  }
}

}  // namespace

StatusOr<VariantOutcome> RunPersistentKernelVariant(const VariantContext& context) {
  const WorkloadOptions& o = context.options;
  SS_ASSIGN_OR_RETURN(const int resident, PersistentWorkerMaxResidentBlocks(context.device.sm_count));
  if (o.blocks > resident) {
    return InvalidArgumentError(
        StringPrintf("--blocks %d exceeds the %d PersistentWorker blocks this GPU holds at once", o.blocks, resident));
  }
  const auto items = std::uint32_t(o.items);
  const auto capacity = std::uint32_t(o.slots);
  const std::uint64_t result_words = std::uint64_t(items) * kPersistentBlockThreads;

  SS_ASSIGN_OR_RETURN(Stream stream, Stream::Create(cudaStreamNonBlocking));
  // Mapped pinned memory: slots, control block, per-block done counters.
  const std::uint64_t slot_words = std::uint64_t(capacity) * sizeof(QueueSlot) / 4;
  const std::uint64_t control_words = sizeof(QueueControl) / 4;
  SS_ASSIGN_OR_RETURN(HostWords mapped, HostWords::Allocate(slot_words + control_words + std::uint64_t(o.blocks),
                                                            HostMemoryKind::kMappedPinned));
  auto* slots = reinterpret_cast<QueueSlot*>(mapped.get());
  auto* control = reinterpret_cast<QueueControl*>(mapped.get() + slot_words);
  std::uint32_t* block_done = mapped.get() + slot_words + control_words;
  std::uint32_t* mapped_device = nullptr;
  SS_CUDA_RETURN_IF_ERROR(cudaHostGetDevicePointer(reinterpret_cast<void**>(&mapped_device), mapped.get(), 0));
  PersistentQueueView view;
  view.slots = reinterpret_cast<QueueSlot*>(mapped_device);
  view.capacity = capacity;
  view.control = reinterpret_cast<QueueControl*>(mapped_device + slot_words);
  view.block_done = mapped_device + slot_words + control_words;

  SS_ASSIGN_OR_RETURN(DeviceWords results, DeviceWords::Allocate(result_words));
  SS_ASSIGN_OR_RETURN(HostWords host_results, HostWords::Allocate(result_words, HostMemoryKind::kPinned));
  // Warm-up with zero items: loads the kernel; every block exits at once.
  SS_RETURN_IF_ERROR(LaunchPersistentWorker(view, results.get(), 0, 1, 1000000, 1, stream.get()));
  SS_CUDA_RETURN_IF_ERROR(cudaDeviceSynchronize());

  const std::uint64_t timeout_ns = std::uint64_t(o.timeout_ms) * 1000000;
  // Whatever path leaves this function (an error included), tell the kernel
  // to stop before the buffers it polls are freed. Declared after them, so it
  // runs first; harmless once the kernel has finished.
  struct AbortOnExit {
    QueueControl* control;
    ~AbortOnExit() { StoreRelease(control->abort, 1); }
  } abort_on_exit{control};
  VariantOutcome outcome;
  MeasuredRegion measured;
  measured.Start();
  const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(o.timeout_ms) + std::chrono::seconds(2);
  SS_RETURN_IF_ERROR(LaunchPersistentWorker(view, results.get(), items, std::uint32_t(o.item_iters), timeout_ns,
                                            o.blocks, stream.get()));
  WaitResult wait = WaitResult::kDone;
  std::uint32_t published = 0;
  for (; published < items && wait == WaitResult::kDone; ++published) {
    QueueSlot& slot = slots[published % capacity];
    if (published >= capacity) {
      const std::uint32_t previous = published - capacity + 1;
      SS_ASSIGN_OR_RETURN(wait,
                          WaitFor([&] { return LoadAcquire(slot.ack) == previous; }, deadline, *control, stream.get()));
      if (wait != WaitResult::kDone) break;
    }
    std::atomic_ref<std::uint32_t>(slot.seed).store(PersistentItemSeed(published), std::memory_order_relaxed);
    StoreRelease(slot.seq, published + 1);
  }
  auto finished = [&] {
    std::uint64_t sum = 0;
    for (int b = 0; b < o.blocks; ++b) sum += LoadAcquire(block_done[b]);
    return sum;
  };
  if (wait == WaitResult::kDone) {
    SS_ASSIGN_OR_RETURN(wait, WaitFor([&] { return finished() == items; }, deadline, *control, stream.get()));
  }
  if (wait != WaitResult::kDone) StoreRelease(control->abort, 1);
  SS_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream.get()));
  SS_CUDA_RETURN_IF_ERROR(
      cudaMemcpyAsync(host_results.get(), results.get(), results.bytes(), cudaMemcpyDeviceToHost, stream.get()));
  SS_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream.get()));
  measured.Stop();
  outcome.measured_ms = measured.milliseconds();

  const std::uint64_t done = finished();
  if (wait != WaitResult::kDone || done != items) {
    const char* why = wait == WaitResult::kHostTimeout     ? "host timeout"
                      : wait == WaitResult::kDeviceTimeout ? "device timeout"
                      : wait == WaitResult::kKernelEnded   ? "kernel ended early"
                                                           : "incomplete";
    outcome.validation.passed = false;
    outcome.validation.detail = StringPrintf(
        "persistent kernel stopped (%s): %llu of %u items done, %u published, device waited for "
        "item %u",
        why, static_cast<unsigned long long>(done), items, published, LoadAcquire(control->timeout_item));
    return outcome;
  }
  const Affine f = AffinePower(Affine{kStepMul, kStepAdd}, std::uint64_t(o.item_iters));
  outcome.validation = CompareWords("persistent item results", host_results.get(), result_words, [&](std::uint64_t i) {
    const auto item = std::uint32_t(i / kPersistentBlockThreads);
    return Mix(Apply(f, Hash2(PersistentItemSeed(item), std::uint32_t(i % kPersistentBlockThreads))));
  });
  outcome.summary = StringPrintf("kernel_launches=1 items=%u", items);
  return outcome;
}

}  // namespace streamscope::workloads
