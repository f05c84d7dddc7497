#include "collector/callback_buffers.h"

#include <atomic>
#include <utility>

namespace streamscope::collector {
namespace {
struct ThreadBinding {
  uint64_t owner = 0;
  void* slot = nullptr;
};
thread_local ThreadBinding tl_binding;
std::atomic<uint64_t> g_instances{0};
}  // namespace

uint64_t CallbackBuffers::NextInstance() { return ++g_instances; }

CallbackBuffers::~CallbackBuffers() { FlushAll(); }

CallbackBuffers::Slot* CallbackBuffers::ThreadSlot() {
  if (tl_binding.owner == instance_) return static_cast<Slot*>(tl_binding.slot);
  auto slot = std::make_unique<Slot>();
  Slot* raw = slot.get();
  {
    std::lock_guard<std::mutex> lock(slots_mu_);
    slots_.push_back(std::move(slot));
  }
  tl_binding = {instance_, raw};
  return raw;
}

void CallbackBuffers::Add(TraceRecord record) {
  Slot* slot = ThreadSlot();
  RecordBatch full;
  {
    std::lock_guard<std::mutex> lock(slot->mu);
    if (slot->records.capacity() == 0) slot->records.reserve(batch_records_);
    slot->records.push_back(std::move(record));
    if (slot->records.size() < batch_records_) return;
    full.swap(slot->records);
  }
  writer_->Submit(std::move(full));  // never waits for SQLite
}

void CallbackBuffers::FlushAll() {
  std::vector<RecordBatch> batches;
  {
    std::lock_guard<std::mutex> lock(slots_mu_);
    for (auto& slot : slots_) {
      std::lock_guard<std::mutex> slot_lock(slot->mu);
      if (slot->records.empty()) continue;
      batches.emplace_back();
      batches.back().swap(slot->records);
    }
  }
  for (RecordBatch& b : batches) writer_->Submit(std::move(b));
}

}  // namespace streamscope::collector
