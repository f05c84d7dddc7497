#include "collector/activity_buffers.h"

#include <cstdio>
#include <cstdlib>

#include "collector/cupti_api.h"
#include "collector/record_decoder.h"
#include "collector/trace_writer.h"

namespace streamscope::collector {
namespace {

std::atomic<bool> g_unknown_kind_reported{false};

// One completed CUPTI buffer, decoded on the writer thread.
class CuptiBufferItem : public WorkItem {
 public:
  CuptiBufferItem(std::shared_ptr<BufferPool> pool, CuptiApi* api, uint8_t* buffer, size_t valid)
      : pool_(std::move(pool)), api_(api), buffer_(buffer), valid_(valid) {}
  ~CuptiBufferItem() override { pool_->Put(buffer_); }

  void Decode(RecordBatch* out, TraceWriter& writer) override {
    CUpti_Activity* record = nullptr;
    int64_t unknown = 0, ignored = 0;
    uint32_t first_unknown = 0;
    while (api_->ActivityGetNextRecord(buffer_, valid_, &record) == CUPTI_SUCCESS) {
      switch (DecodeActivityRecord(record, out)) {
        case DecodeResult::kDecoded: break;
        case DecodeResult::kIgnored: ++ignored; break;
        case DecodeResult::kUnknownKind:
          if (unknown++ == 0) first_unknown = ActivityKindOf(record);
          break;
      }
    }
    if (ignored) writer.AddStat(Stat::kRecordsIgnored, ignored);
    if (unknown) {
      writer.AddStat(Stat::kRecordsInvalid, unknown);
      if (!g_unknown_kind_reported.exchange(true)) {
        std::fprintf(stderr,
                     "streamscope: CUPTI record kind %u is unknown to this collector; such records "
                     "are not stored (counted in collector_stat 'records_invalid')\n",
                     first_unknown);
      }
    }
  }

  int64_t CountRecords() const override {
    CUpti_Activity* record = nullptr;
    int64_t n = 0;
    while (api_->ActivityGetNextRecord(buffer_, valid_, &record) == CUPTI_SUCCESS) ++n;
    return n;
  }

 private:
  std::shared_ptr<BufferPool> pool_;
  CuptiApi* api_;
  uint8_t* buffer_;
  size_t valid_;
};

}  // namespace

BufferPool::~BufferPool() {
  for (uint8_t* b : all_) std::free(b);
}

uint8_t* BufferPool::Get() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!free_.empty()) {
    uint8_t* b = free_.back();
    free_.pop_back();
    return b;
  }
  if (all_.size() >= max_buffers_) return nullptr;
  auto* b = static_cast<uint8_t*>(std::aligned_alloc(8, bytes_));
  if (b != nullptr) all_.push_back(b);
  return b;
}

void BufferPool::Put(uint8_t* b) {
  std::lock_guard<std::mutex> lock(mu_);
  free_.push_back(b);
}

void BufferPool::Trim() {
  std::lock_guard<std::mutex> lock(mu_);
  for (uint8_t* b : free_) {
    std::erase(all_, b);
    std::free(b);
  }
  free_.clear();
}

bool BufferPool::Owns(const uint8_t* buffer) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const uint8_t* b : all_) {
    if (b == buffer) return true;
  }
  return false;
}

std::atomic<ActivityBuffers*> ActivityBuffers::current_{nullptr};
std::mutex ActivityBuffers::registry_mu_;
std::vector<ActivityBuffers*>* ActivityBuffers::registry_ = nullptr;

ActivityBuffers::ActivityBuffers(CuptiApi* api, TraceWriter* writer, size_t buffer_bytes, size_t max_buffers)
    : api_(api), writer_(writer), pool_(std::make_shared<BufferPool>(buffer_bytes, max_buffers)) {}

ActivityBuffers::~ActivityBuffers() {
  ActivityBuffers* self = this;
  current_.compare_exchange_strong(self, nullptr);
  std::lock_guard<std::mutex> lock(registry_mu_);
  if (registry_ != nullptr) std::erase(*registry_, this);
}

void ActivityBuffers::Request(uint8_t** buffer, size_t* size, size_t* max_records) {
  *max_records = 0;
  *buffer = pool_->Get();
  *size = 0;
  if (*buffer == nullptr) {
    writer_->AddStat(Stat::kBuffersRequestDenied, 1);
    return;
  }
  *size = pool_->bytes();
}

void ActivityBuffers::Complete(CUcontext context, uint32_t stream_id, uint8_t* buffer, size_t valid) {
  size_t dropped = 0;
  if (api_->ActivityGetNumDroppedRecords(context, stream_id, &dropped) == CUPTI_SUCCESS && dropped > 0) {
    writer_->AddStat(Stat::kRecordsDroppedCupti, static_cast<int64_t>(dropped));
  }
  if (buffer == nullptr) return;
  if (valid == 0) {
    pool_->Put(buffer);
    return;
  }
  writer_->AddStat(Stat::kBuffersCompleted, 1);
  writer_->Submit(std::make_unique<CuptiBufferItem>(pool_, api_, buffer, valid));
}

void ActivityBuffers::SetCurrent(ActivityBuffers* buffers) {
  if (buffers != nullptr) {
    std::lock_guard<std::mutex> lock(registry_mu_);
    if (registry_ == nullptr) registry_ = new std::vector<ActivityBuffers*>();
    bool known = false;
    for (ActivityBuffers* b : *registry_) known |= b == buffers;
    if (!known) registry_->push_back(buffers);
  }
  current_.store(buffers);
}

void CUPTIAPI ActivityBuffers::RequestTrampoline(uint8_t** buffer, size_t* size, size_t* max_records) {
  ActivityBuffers* b = current_.load();
  if (b == nullptr) {
    *buffer = nullptr;
    *size = 0;
    *max_records = 0;
    return;
  }
  b->Request(buffer, size, max_records);
}

void CUPTIAPI ActivityBuffers::CompleteTrampoline(CUcontext context, uint32_t stream_id, uint8_t* buffer, size_t,
                                                  size_t valid) {
  ActivityBuffers* owner = current_.load();
  if (buffer != nullptr && (owner == nullptr || !owner->pool_->Owns(buffer))) {
    // Lent by an earlier session (few buffers, few sessions: a short scan).
    owner = nullptr;
    std::lock_guard<std::mutex> lock(registry_mu_);
    for (ActivityBuffers* b : registry_ ? *registry_ : std::vector<ActivityBuffers*>()) {
      if (b->pool_->Owns(buffer)) owner = b;
    }
  }
  if (owner != nullptr) owner->Complete(context, stream_id, buffer, valid);
}

}  // namespace streamscope::collector
