// The work queue of persistent_kernel, shared by host and device. It lives in
// mapped pinned memory (cudaHostAlloc(cudaHostAllocMapped)); each field has
// exactly one writer, so only loads and stores cross PCIe (no atomic
// read-modify-write on host memory, which PCIe systems do not guarantee).
//
// Protocol, for item k in slot k % capacity:
//   host:   waits until slot.ack == k - capacity + 1 (the previous item of the
//           slot was taken; skipped for k < capacity), writes slot.seed, then
//           stores slot.seq = k + 1 with release order;
//   device: block k % blocks waits until slot.seq == k + 1 (acquire), reads
//           seed, stores slot.ack = k + 1 (release), computes, then stores its
//           own block_done[b] = items finished so far (release).
// Either side gives up: the device after timeout_ns (then sets timed_out) or
// when the host sets abort; the host after its own deadline (then sets abort).
#ifndef STREAMSCOPE_WORKLOADS_CUDA_PERSISTENT_QUEUE_H_
#define STREAMSCOPE_WORKLOADS_CUDA_PERSISTENT_QUEUE_H_

#include <cstdint>

namespace streamscope::workloads {

struct alignas(16) QueueSlot {
  std::uint32_t seq;   // host writes: item index + 1 once published
  std::uint32_t ack;   // device writes: item index + 1 once its seed was read
  std::uint32_t seed;  // host writes: the item's payload
  std::uint32_t pad;
};

struct alignas(16) QueueControl {
  std::uint32_t abort;         // host writes 1: device blocks exit at once
  std::uint32_t timed_out;     // device writes 1 when a block hit its timeout
  std::uint32_t timeout_item;  // device writes: the item it was waiting for
  std::uint32_t pad;
};

// Device-side view of the queue (device pointers of the mapped memory).
struct PersistentQueueView {
  QueueSlot* slots;
  std::uint32_t capacity;
  QueueControl* control;
  std::uint32_t* block_done;  // one counter per block
};

}  // namespace streamscope::workloads

#endif  // STREAMSCOPE_WORKLOADS_CUDA_PERSISTENT_QUEUE_H_
