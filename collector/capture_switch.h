// Turns the per-op activity kinds on and off at capture edges, on a thread of
// its own: an edge seen inside a CUPTI callback (cudaProfilerStart, an NVTX
// push) never calls CUPTI from that callback. An application thread that
// opens a window waits a bounded time for the kinds to be on, so the
// window's first ops are recorded; closing never waits (the writer drops
// what comes after the edge). No CUPTI here: `apply` does the work.
// Thread-safe: Request from any thread; Stop from any thread but the
// switching one.
#ifndef STREAMSCOPE_COLLECTOR_CAPTURE_SWITCH_H_
#define STREAMSCOPE_COLLECTOR_CAPTURE_SWITCH_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

namespace streamscope::collector {

class CaptureSwitch {
 public:
  // `on`: whether the kinds are on now.
  CaptureSwitch(bool on, std::function<void(bool on)> apply);
  ~CaptureSwitch();  // Stop()
  CaptureSwitch(const CaptureSwitch&) = delete;
  CaptureSwitch& operator=(const CaptureSwitch&) = delete;

  // Asks for the kinds on or off; returns once they are, or after `wait`.
  void Request(bool on, std::chrono::milliseconds wait);
  // Whether the last applied state is on.
  bool on() const;
  // Number of times `apply` ran.
  int64_t switches() const;
  // Ends the thread (a pending request is applied first). Idempotent.
  void Stop();

 private:
  std::function<void(bool)> apply_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool want_ = false, is_ = false, stop_ = false;
  int64_t switches_ = 0;
  std::once_flag join_once_;
  std::thread thread_;
};

}  // namespace streamscope::collector

#endif  // STREAMSCOPE_COLLECTOR_CAPTURE_SWITCH_H_
