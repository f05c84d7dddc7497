// A CUPTI stand-in for CPU tests of the CUPTI layer: it keeps the callbacks
// the collector registers and, when a test "records" activity structs, lends
// buffers through the collector's request callback, fills them, and hands
// them back through its complete callback (on a buffer switch or a flush),
// as CUPTI's own threads would. Records are stored back to back, each behind
// an 8-byte size; ActivityGetNextRecord walks that format.
//
// ActivityFlushAll(0) keeps a buffer holding a record whose end is still 0
// (not complete yet), as CUPTI does; a forced flush hands over everything.
// Thread-safe.
#ifndef STREAMSCOPE_TESTS_COLLECTOR_FAKE_CUPTI_H_
#define STREAMSCOPE_TESTS_COLLECTOR_FAKE_CUPTI_H_

#include <cupti.h>

#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <set>
#include <type_traits>
#include <utility>
#include <vector>

#include "collector/cupti_api.h"

namespace streamscope::collector {

class FakeCupti : public CuptiApi {
 public:
  // ---- what a test does ----
  // Appends one activity struct; false if no buffer could be had (CUPTI
  // then drops the record and counts it). A runtime API record of an id left
  // out (ActivityEnableRuntimeApi(cbid, 0)) is not produced, as in CUPTI.
  template <typename T>
  bool Record(const T& record, bool complete = true) {
    if constexpr (std::is_same_v<T, CUpti_ActivityAPI>) {
      std::lock_guard<std::mutex> lock(mu_);
      if (record.kind == CUPTI_ACTIVITY_KIND_RUNTIME && runtime_apis_off_.count(record.cbid)) return true;
    }
    return Append(&record, sizeof(T), complete);
  }
  // Hands the buffer being filled back now (CUPTI does when it is full) and
  // asks for a new one at the next record; `cut` bytes fewer than filled
  // are reported valid (a record cut short).
  void CompleteCurrent(size_t cut = 0) {
    Held done;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (current_.data == nullptr) return;
      done = current_;
      current_ = Held{};
    }
    complete_(nullptr, 0, done.data, done.size, done.used - cut);
  }
  // Keeps the buffer being filled (not complete) and starts another one.
  void SwitchBuffer() {
    std::lock_guard<std::mutex> lock(mu_);
    if (current_.data != nullptr) held_.push_back(current_);
    current_ = Held{};
  }
  // The next buffer handed back reports `n` dropped records.
  void AddDropped(size_t n) {
    std::lock_guard<std::mutex> lock(mu_);
    dropped_ += n;
  }
  void FailSubscribeWith(CUptiResult r) { subscribe_result_ = r; }
  // CUPTI's clock (cuptiGetTimestamp): the trace clock of a session with
  // clock 'cupti-default'.
  void SetNow(uint64_t t) { now_ = t; }
  // Issues a callback to the subscriber, as CUPTI does on the calling thread
  // (the test's) when the callback id is enabled; false when it is not.
  bool Callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
    CUpti_CallbackFunc fn;
    void* user;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!subscribed_ || !callbacks_.count({domain, cbid})) return false;
      fn = callback_;
      user = userdata_;
    }
    fn(user, domain, cbid, data);
    return true;
  }
  int flushes(uint32_t flag) {
    std::lock_guard<std::mutex> lock(mu_);
    return flushes_[flag == 0 ? 0 : 1];
  }
  // Waits until ActivityFlushAll(flag) has run `n` times in all.
  void WaitForFlushes(uint32_t flag, int n) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return flushes_[flag == 0 ? 0 : 1] >= n; });
  }
  std::set<CUpti_ActivityKind> enabled_kinds() {
    std::lock_guard<std::mutex> lock(mu_);
    return kinds_;
  }
  // Runtime ids left out one by one (ActivityEnableRuntimeApi(cbid, 0)
  // since the RUNTIME kind was last enabled, which resets them, as in CUPTI).
  std::set<CUpti_CallbackId> disabled_runtime_apis() {
    std::lock_guard<std::mutex> lock(mu_);
    return runtime_apis_off_;
  }
  std::set<CUpti_CallbackId> enabled_driver_apis() {
    std::lock_guard<std::mutex> lock(mu_);
    return driver_apis_;
  }
  bool subscribed() {
    std::lock_guard<std::mutex> lock(mu_);
    return subscribed_;
  }

  // ---- CuptiApi ----
  CUptiResult GetVersion(uint32_t* v) override {
    *v = 130001;
    return CUPTI_SUCCESS;
  }
  CUptiResult GetResultString(CUptiResult, const char** t) override {
    *t = "fake CUPTI error";
    return CUPTI_SUCCESS;
  }
  CUptiResult GetCallbackName(CUpti_CallbackDomain d, uint32_t cbid, const char** n) override {
    if (d == CUPTI_CB_DOMAIN_RUNTIME_API && cbid == 211) {
      *n = "cudaLaunchKernel_v7000";
    } else if (d == CUPTI_CB_DOMAIN_DRIVER_API && cbid == 307) {
      *n = "cuLaunchKernel";
    } else {
      return CUPTI_ERROR_INVALID_PARAMETER;
    }
    return CUPTI_SUCCESS;
  }
  CUptiResult GetTimestamp(uint64_t* ts) override {
    *ts = now_.load();
    return CUPTI_SUCCESS;
  }
  CUptiResult GetStreamIdEx(CUcontext, CUstream, uint8_t, uint32_t* id) override {
    *id = 7;
    return CUPTI_SUCCESS;
  }
  CUptiResult GetDeviceId(CUcontext, uint32_t* d) override {
    *d = 0;
    return CUPTI_SUCCESS;
  }
  CUptiResult SetThreadIdType(CUpti_ActivityThreadIdType) override { return CUPTI_SUCCESS; }
  CUptiResult Subscribe(CUpti_SubscriberHandle* s, CUpti_CallbackFunc fn, void* user) override {
    if (subscribe_result_ != CUPTI_SUCCESS) return subscribe_result_;
    std::lock_guard<std::mutex> lock(mu_);
    subscribed_ = true;
    callback_ = fn;
    userdata_ = user;
    callbacks_.clear();
    *s = reinterpret_cast<CUpti_SubscriberHandle>(this);
    return CUPTI_SUCCESS;
  }
  CUptiResult Unsubscribe(CUpti_SubscriberHandle) override {
    std::lock_guard<std::mutex> lock(mu_);
    subscribed_ = false;
    return CUPTI_SUCCESS;
  }
  CUptiResult EnableCallback(uint32_t enable, CUpti_SubscriberHandle, CUpti_CallbackDomain d,
                             CUpti_CallbackId cbid) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (enable) {
      callbacks_.insert({d, cbid});
    } else {
      callbacks_.erase({d, cbid});
    }
    return CUPTI_SUCCESS;
  }
  CUptiResult ActivityEnable(CUpti_ActivityKind k) override {
    std::lock_guard<std::mutex> lock(mu_);
    kinds_.insert(k);
    if (k == CUPTI_ACTIVITY_KIND_RUNTIME) runtime_apis_off_.clear();
    return CUPTI_SUCCESS;
  }
  CUptiResult ActivityDisable(CUpti_ActivityKind k) override {
    std::lock_guard<std::mutex> lock(mu_);
    kinds_.erase(k);
    return CUPTI_SUCCESS;
  }
  CUptiResult ActivityEnableDriverApi(CUpti_CallbackId cbid, uint8_t enable) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (enable) {
      driver_apis_.insert(cbid);
    } else {
      driver_apis_.erase(cbid);
    }
    return CUPTI_SUCCESS;
  }
  CUptiResult ActivityEnableRuntimeApi(CUpti_CallbackId cbid, uint8_t enable) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (enable) {
      runtime_apis_off_.erase(cbid);
    } else {
      runtime_apis_off_.insert(cbid);
    }
    return CUPTI_SUCCESS;
  }
  CUptiResult ActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc r,
                                        CUpti_BuffersCallbackCompleteFunc c) override {
    request_ = r;
    complete_ = c;
    return CUPTI_SUCCESS;
  }
  CUptiResult ActivityRegisterTimestampCallback(CUpti_TimestampCallbackFunc) override { return CUPTI_SUCCESS; }
  CUptiResult ActivitySetAttribute(CUpti_ActivityAttribute, size_t*, void*) override { return CUPTI_SUCCESS; }
  CUptiResult ActivityFlushAll(uint32_t flag) override {
    std::vector<Held> done;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (current_.data != nullptr) held_.push_back(current_);
      current_ = Held{};
      std::deque<Held> keep;
      for (const Held& h : held_) {
        if (flag == 0 && !h.complete) {
          keep.push_back(h);
        } else {
          done.push_back(h);
        }
      }
      held_ = std::move(keep);
    }
    for (const Held& h : done) complete_(nullptr, 0, h.data, h.size, h.used);
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++flushes_[flag == 0 ? 0 : 1];
    }
    cv_.notify_all();
    return CUPTI_SUCCESS;
  }
  CUptiResult ActivityFlushPeriod(uint32_t) override { return CUPTI_SUCCESS; }
  CUptiResult ActivityGetNextRecord(uint8_t* buffer, size_t valid, CUpti_Activity** record) override {
    size_t at = 0;
    if (*record != nullptr) {
      uint8_t* prev = reinterpret_cast<uint8_t*>(*record);
      uint64_t size = 0;
      std::memcpy(&size, prev - kHeader, kHeader);
      at = static_cast<size_t>(prev - buffer) + Padded(size);
    }
    if (at + kHeader > valid) return CUPTI_ERROR_MAX_LIMIT_REACHED;
    uint64_t size = 0;
    std::memcpy(&size, buffer + at, kHeader);
    if (at + kHeader + size > valid) return CUPTI_ERROR_INVALID_KIND;  // cut short
    *record = reinterpret_cast<CUpti_Activity*>(buffer + at + kHeader);
    return CUPTI_SUCCESS;
  }
  CUptiResult ActivityGetNumDroppedRecords(CUcontext, uint32_t, size_t* dropped) override {
    std::lock_guard<std::mutex> lock(mu_);
    *dropped = dropped_;
    dropped_ = 0;
    return CUPTI_SUCCESS;
  }

 private:
  static constexpr size_t kHeader = 8;
  static size_t Padded(size_t n) { return (n + 7) / 8 * 8; }
  struct Held {
    uint8_t* data = nullptr;
    size_t size = 0, used = 0;
    bool complete = true;
  };

  bool Append(const void* record, size_t size, bool complete) {
    std::lock_guard<std::mutex> lock(mu_);
    if (current_.data != nullptr && current_.used + kHeader + Padded(size) > current_.size) {
      held_.push_back(current_);  // full: CUPTI hands it back at the next flush
      current_ = Held{};
    }
    if (current_.data == nullptr) {
      size_t max_records = 0;
      request_(&current_.data, &current_.size, &max_records);
      if (current_.data == nullptr) {
        ++dropped_;
        return false;
      }
    }
    uint64_t n = size;
    std::memcpy(current_.data + current_.used, &n, kHeader);
    std::memcpy(current_.data + current_.used + kHeader, record, size);
    current_.used += kHeader + Padded(size);
    current_.complete = current_.complete && complete;
    return true;
  }

  std::mutex mu_;
  std::condition_variable cv_;
  CUpti_BuffersCallbackRequestFunc request_ = nullptr;
  CUpti_BuffersCallbackCompleteFunc complete_ = nullptr;
  Held current_;
  std::deque<Held> held_;
  size_t dropped_ = 0;
  int flushes_[2] = {0, 0};
  CUptiResult subscribe_result_ = CUPTI_SUCCESS;
  bool subscribed_ = false;
  std::set<CUpti_ActivityKind> kinds_;
  std::set<CUpti_CallbackId> driver_apis_;
  std::set<CUpti_CallbackId> runtime_apis_off_;
  std::atomic<uint64_t> now_{1};
  CUpti_CallbackFunc callback_ = nullptr;
  void* userdata_ = nullptr;
  std::set<std::pair<CUpti_CallbackDomain, CUpti_CallbackId>> callbacks_;
};

}  // namespace streamscope::collector

#endif  // STREAMSCOPE_TESTS_COLLECTOR_FAKE_CUPTI_H_
