#include "collector/capture_switch.h"

namespace streamscope::collector {

CaptureSwitch::CaptureSwitch(bool on, std::function<void(bool)> apply) : apply_(std::move(apply)), want_(on), is_(on) {
  thread_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      cv_.wait(lock, [this] { return stop_ || want_ != is_; });
      if (want_ != is_) {
        bool target = want_;
        lock.unlock();
        apply_(target);
        lock.lock();
        is_ = target;
        ++switches_;
        cv_.notify_all();
        continue;
      }
      if (stop_) return;
    }
  });
}

CaptureSwitch::~CaptureSwitch() { Stop(); }

void CaptureSwitch::Request(bool on, std::chrono::milliseconds wait) {
  std::unique_lock<std::mutex> lock(mu_);
  if (stop_) return;
  want_ = on;
  cv_.notify_all();
  if (wait.count() > 0) cv_.wait_for(lock, wait, [&] { return is_ == on || want_ != on || stop_; });
}

bool CaptureSwitch::on() const {
  std::lock_guard<std::mutex> lock(mu_);
  return is_;
}

int64_t CaptureSwitch::switches() const {
  std::lock_guard<std::mutex> lock(mu_);
  return switches_;
}

void CaptureSwitch::Stop() {
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
