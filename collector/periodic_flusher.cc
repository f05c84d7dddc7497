#include "collector/periodic_flusher.h"

namespace streamscope::collector {

PeriodicFlusher::PeriodicFlusher(std::chrono::milliseconds period, std::function<void()> flush) {
  thread_ = std::thread([this, period, flush = std::move(flush)] {
    std::unique_lock<std::mutex> lock(mu_);
    while (!cv_.wait_for(lock, period, [this] { return stop_; })) {
      lock.unlock();
      flush();
      lock.lock();
    }
  });
}

PeriodicFlusher::~PeriodicFlusher() { Stop(); }

void PeriodicFlusher::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  std::call_once(join_once_, [this] {
    if (thread_.joinable()) thread_.join();
  });
}

}  // namespace streamscope::collector
