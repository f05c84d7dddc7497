// Per-thread record batches for records made on application threads (the
// callback API), handed to the writer in batches.
//
// Add() appends to the calling thread's own batch under that batch's own
// mutex (uncontended except while FlushAll swaps it out) and submits it to
// the writer when it holds `batch_records`; FlushAll() (the periodic flush
// thread, the end of capture) submits every thread's partial batch. A batch
// outlives its thread (records of an exited thread are still flushed).
// Thread-safe.
#ifndef STREAMSCOPE_COLLECTOR_CALLBACK_BUFFERS_H_
#define STREAMSCOPE_COLLECTOR_CALLBACK_BUFFERS_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "collector/memory_tracker.h"
#include "collector/trace_writer.h"

namespace streamscope::collector {

class CallbackBuffers : public RecordSink {
 public:
  explicit CallbackBuffers(TraceWriter* writer, size_t batch_records = 512)
      : writer_(writer), batch_records_(batch_records), instance_(NextInstance()) {}
  ~CallbackBuffers() override;

  void Add(TraceRecord record) override;
  void FlushAll();

 private:
  struct Slot {
    std::mutex mu;
    RecordBatch records;
  };
  Slot* ThreadSlot();
  static uint64_t NextInstance();

  TraceWriter* writer_;
  const size_t batch_records_;
  const uint64_t instance_;  // unique per object: thread bindings never dangle
  std::mutex slots_mu_;
  std::vector<std::unique_ptr<Slot>> slots_;
};

}  // namespace streamscope::collector

#endif  // STREAMSCOPE_COLLECTOR_CALLBACK_BUFFERS_H_
