// Calls a flush function every `period` on a thread of its own until
// stopped. The CUPTI layer uses it because CUPTI's own flush period does not
// return partly filled buffers, so without it a killed process would lose
// everything since the last full buffer. No CUPTI here.
// Thread-safe: Stop may be called from any thread except the flushing one.
#ifndef STREAMSCOPE_COLLECTOR_PERIODIC_FLUSHER_H_
#define STREAMSCOPE_COLLECTOR_PERIODIC_FLUSHER_H_

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace streamscope::collector {

class PeriodicFlusher {
 public:
  PeriodicFlusher(std::chrono::milliseconds period, std::function<void()> flush);
  ~PeriodicFlusher();  // Stop()
  PeriodicFlusher(const PeriodicFlusher&) = delete;
  PeriodicFlusher& operator=(const PeriodicFlusher&) = delete;

  // Waits for a flush in progress, then ends the thread. Idempotent.
  void Stop();

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::once_flag join_once_;
  std::thread thread_;
};

}  // namespace streamscope::collector

#endif  // STREAMSCOPE_COLLECTOR_PERIODIC_FLUSHER_H_
