// CUPTI activity buffers: a bounded pool of fixed-size buffers that CUPTI
// fills, and the hand-over of completed buffers to the writer (decoded on the
// writer thread, returned to the pool after their records are written).
//
// CUPTI's buffer callbacks carry no user data, so one instance per process is
// "current" (SetCurrent) and the two static trampolines forward to it. A
// buffer completed after its tracing session ended still goes back to the
// instance that lent it (a later session may use another buffer size).
// Thread-safe: Request/Complete run on CUPTI's threads, concurrently with
// each other and with flushes.
#ifndef STREAMSCOPE_COLLECTOR_ACTIVITY_BUFFERS_H_
#define STREAMSCOPE_COLLECTOR_ACTIVITY_BUFFERS_H_

#include <cupti.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace streamscope::collector {

class CuptiApi;
class TraceWriter;

// Fixed-size, 8-byte aligned buffers; at most `max_buffers` exist at once
// (held by CUPTI or queued for the writer). Beyond that Get returns null.
// Buffers are freed when the pool is destroyed.
class BufferPool {
 public:
  BufferPool(size_t bytes, size_t max_buffers) : bytes_(bytes), max_buffers_(max_buffers) {}
  ~BufferPool();
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;
  uint8_t* Get();  // null when `max_buffers` are out
  void Put(uint8_t* buffer);
  bool Owns(const uint8_t* buffer);  // whether Get returned it (and Trim did not free it)
  void Trim();                       // frees the buffers not lent out
  size_t bytes() const { return bytes_; }

 private:
  const size_t bytes_;
  const size_t max_buffers_;
  std::mutex mu_;
  std::vector<uint8_t*> free_;
  std::vector<uint8_t*> all_;
};

class ActivityBuffers {
 public:
  // `api` and `writer` must outlive every buffer lent out.
  ActivityBuffers(CuptiApi* api, TraceWriter* writer, size_t buffer_bytes, size_t max_buffers);
  ~ActivityBuffers();  // no longer current nor registered
  ActivityBuffers(const ActivityBuffers&) = delete;
  ActivityBuffers& operator=(const ActivityBuffers&) = delete;

  // CUPTI asks for an empty buffer; a null buffer (pool exhausted) makes
  // CUPTI drop records and count them, and is counted here.
  void Request(uint8_t** buffer, size_t* size, size_t* max_records);
  // CUPTI hands back a buffer holding `valid` bytes of records: queued for the
  // writer; CUPTI's dropped-record count is added to the trace's stats.
  void Complete(CUcontext context, uint32_t stream_id, uint8_t* buffer, size_t valid);
  // Frees the buffers back in the pool (after a session: the instance itself
  // stays, in case CUPTI hands back a late one).
  void ReleaseIdle() { pool_->Trim(); }

  // The instance the request trampoline lends from (null: none). Every
  // instance ever made current stays registered: the complete trampoline
  // returns a buffer to the instance that lent it.
  static void SetCurrent(ActivityBuffers* buffers);
  static void CUPTIAPI RequestTrampoline(uint8_t** buffer, size_t* size, size_t* max_records);
  static void CUPTIAPI CompleteTrampoline(CUcontext context, uint32_t stream_id, uint8_t* buffer, size_t size,
                                          size_t valid);

 private:
  CuptiApi* api_;
  TraceWriter* writer_;
  std::shared_ptr<BufferPool> pool_;
  static std::atomic<ActivityBuffers*> current_;
  static std::mutex registry_mu_;
  static std::vector<ActivityBuffers*>* registry_;  // never freed
};

}  // namespace streamscope::collector

#endif  // STREAMSCOPE_COLLECTOR_ACTIVITY_BUFFERS_H_
