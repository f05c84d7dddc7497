#include "collector/cupti_layer.h"

#include <cupti.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "collector/activity_buffers.h"
#include "collector/capture_gate.h"
#include "collector/capture_switch.h"
#include "collector/cupti_api.h"
#include "collector/cupti_callbacks.h"
#include "collector/cupti_library.h"
#include "collector/cupti_status.h"
#include "collector/driver_submit_cbids.h"
#include "collector/periodic_flusher.h"
#include "collector/runtime_query_cbids.h"
#include "collector/slow_step_trigger.h"

namespace streamscope::collector {
namespace {

uint64_t CUPTIAPI MonotonicRawNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// The trace clock is process-wide: CUPTI takes its timestamp callback once.
std::atomic<bool> g_monotonic_clock{false};
std::atomic<CuptiApi*> g_clock_api{nullptr};
// One session at a time.
std::atomic<bool> g_session_running{false};
// CUPTI's buffer callbacks are registered once per process (the trampolines
// forward to the current session's buffers).
std::atomic<bool> g_buffer_callbacks_registered{false};

uint64_t TraceNow() {
  if (g_monotonic_clock.load()) return MonotonicRawNs();
  uint64_t ts = 0;
  if (CuptiApi* api = g_clock_api.load(); api != nullptr) api->GetTimestamp(&ts);
  return ts;
}

struct KindMap {
  uint32_t our_kind;
  CUpti_ActivityKind cupti_kind;
  const char* name;
};
constexpr KindMap kKindMap[] = {
    {kKindKernel, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "kernel"},
    {kKindMemcpy, CUPTI_ACTIVITY_KIND_MEMCPY, "memcpy"},
    {kKindMemcpy, CUPTI_ACTIVITY_KIND_MEMCPY2, "memcpy2"},
    {kKindMemset, CUPTI_ACTIVITY_KIND_MEMSET, "memset"},
    {kKindSync, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "sync"},
    {kKindRuntime, CUPTI_ACTIVITY_KIND_RUNTIME, "runtime"},
    {kKindDriver, CUPTI_ACTIVITY_KIND_DRIVER, "driver"},
    {kKindNvtx, CUPTI_ACTIVITY_KIND_MARKER, "nvtx"},
    {kKindNvtx, CUPTI_ACTIVITY_KIND_MARKER_DATA, "nvtx_data"},
    {kKindStream, CUPTI_ACTIVITY_KIND_STREAM, "stream"},
    {kKindContext, CUPTI_ACTIVITY_KIND_CONTEXT, "context"},
    {kKindOverhead, CUPTI_ACTIVITY_KIND_OVERHEAD, "overhead"},
    {kKindGraph, CUPTI_ACTIVITY_KIND_GRAPH_TRACE, "graph"},
    // Launches outside any public API function (record kind `submit`).
    {kKindSubmit, CUPTI_ACTIVITY_KIND_INTERNAL_LAUNCH_API, "internal_launch"},
};

// Flight-recorder dumps a trigger asked for, written one at a time on a
// thread of its own (the trigger fires inside an application's NVTX call).
class DumpQueue {
 public:
  using Extra = std::vector<std::pair<std::string, std::string>>;
  explicit DumpQueue(std::function<void(const std::string&, const Extra&)> dump) : dump_(std::move(dump)) {
    thread_ = std::thread([this] {
      std::unique_lock<std::mutex> lock(mu_);
      for (;;) {
        cv_.wait(lock, [this] { return stop_ || !pending_.empty(); });
        if (pending_.empty()) return;
        auto [trigger, extra] = std::move(pending_.front());
        pending_.pop_front();
        lock.unlock();
        dump_(trigger, extra);
        lock.lock();
      }
    });
  }
  ~DumpQueue() { Stop(); }
  // False once `max` dumps were asked for (a flood of slow steps writes no
  // more files) or after Stop.
  bool Queue(std::string trigger, Extra extra, int max) {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_ || queued_ >= max) return false;
    ++queued_;
    pending_.emplace_back(std::move(trigger), std::move(extra));
    cv_.notify_all();
    return true;
  }
  // Writes the dumps still pending, then ends the thread. Idempotent.
  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    std::call_once(join_once_, [this] {
      if (thread_.joinable()) thread_.join();
    });
  }

 private:
  std::function<void(const std::string&, const Extra&)> dump_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::pair<std::string, Extra>> pending_;
  int queued_ = 0;
  bool stop_ = false;
  std::once_flag join_once_;
  std::thread thread_;
};

// Slow instances that write a dump, at most (per session).
constexpr int kMaxTriggeredDumps = 20;

}  // namespace

struct CuptiTracer::State {
  CuptiApi* api = nullptr;
  TraceWriter* writer = nullptr;
  std::unique_ptr<ActivityBuffers> buffers;
  std::unique_ptr<CuptiCallbacks> callbacks;
  std::unique_ptr<PeriodicFlusher> flusher;
  std::vector<CUpti_ActivityKind> enabled;
  std::vector<uint32_t> driver_cbids;  // enabled one by one (`submit`)
  bool runtime_all = false;
  // Capture ranges: the gate decides what reaches the trace; the switch
  // turns the per-op kinds off while it is closed (not for an every-instance
  // NVTX range: instances follow each other too closely to toggle).
  std::shared_ptr<CaptureGate> gate;
  std::unique_ptr<CaptureSwitch> capture_switch;
  bool edges_toggle_kinds = false;
  // Flight recorder: the slow-step trigger and the dumps it queues.
  std::unique_ptr<SlowStepTrigger> trigger;
  std::unique_ptr<DumpQueue> dumps;
  std::atomic<bool> active{false};
  std::atomic<bool> stopped{false};

  // Everything CUPTI holds, incomplete records included: only where the
  // session or a context ends.
  void ForcedFlush() {
    if (!active.load()) return;
    callbacks->FlushRecords();
    api->ActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    writer->AddStat(Stat::kFlushes, 1);
  }
  // Not forced: a forced flush hands over buffers whose records are still
  // incomplete, and a kernel queued or running at that moment arrives with
  // start = end = 0, lost for good (2 of 15,262 kernels of a PyTorch run on
  // the H200). Flag 0 returns every buffer whose records are all complete,
  // partly filled ones included.
  void PeriodicFlush() {
    if (!active.load()) return;
    callbacks->FlushRecords();
    api->ActivityFlushAll(0);
    writer->AddStat(Stat::kFlushes, 1);
  }
  // Runtime calls that only read host-side state: left out one by one, after
  // the RUNTIME kind (enabling it turns every id back on). Returns how many
  // CUPTI refused to leave out.
  size_t LeaveOutRuntimeQueries() {
    size_t refused = 0;
    for (uint32_t cbid : RuntimeQueryCallbackIds()) refused += api->ActivityEnableRuntimeApi(cbid, 0) != CUPTI_SUCCESS;
    return refused;
  }
  // Kinds that describe things rather than per-op events (streams,
  // contexts) stay on while capture is paused, as do NVTX markers (a range
  // that opens a window must keep its end).
  static bool IsOpKind(CUpti_ActivityKind k) {
    return k != CUPTI_ACTIVITY_KIND_STREAM && k != CUPTI_ACTIVITY_KIND_CONTEXT && k != CUPTI_ACTIVITY_KIND_MARKER &&
           k != CUPTI_ACTIVITY_KIND_MARKER_DATA;
  }
  void SetOpKinds(bool on) {
    for (CUpti_ActivityKind k : enabled) {
      if (!IsOpKind(k)) continue;
      if (on) {
        api->ActivityEnable(k);
      } else {
        api->ActivityDisable(k);
      }
      if (on && k == CUPTI_ACTIVITY_KIND_RUNTIME && !runtime_all) LeaveOutRuntimeQueries();
    }
    for (uint32_t cbid : driver_cbids) api->ActivityEnableDriverApi(cbid, on ? 1 : 0);
  }
  // Completed buffers to the writer, then the ring to a file.
  StatusOr<std::string> Dump(const std::string& why, const DumpQueue::Extra& extra) {
    PeriodicFlush();
    return writer->Dump(why, extra);
  }
  void OnSlowInstance(const SlowInstance& slow) {
    if (dumps == nullptr) return;
    std::string name = trigger->spec().nvtx_name;
    DumpQueue::Extra extra = {{"trigger_nvtx_name", name},
                              {"trigger_instance", StrCat(slow.index)},
                              {"trigger_start_ns", StrCat(slow.start_ns)},
                              {"trigger_end_ns", StrCat(slow.end_ns)},
                              {"trigger_median_ns", StrCat(slow.median_ns)}};
    dumps->Queue(trigger->spec().ToString(), std::move(extra), kMaxTriggeredDumps);
  }
  void OnEdge(CaptureGate::Edge e) {
    if (!edges_toggle_kinds || capture_switch == nullptr || e == CaptureGate::Edge::kNone) return;
    // Opening waits (bounded) so the window's first ops are recorded.
    bool on = e == CaptureGate::Edge::kOn;
    capture_switch->Request(on, std::chrono::milliseconds(on ? 50 : 0));
  }
  void DisableAll() {
    for (CUpti_ActivityKind k : enabled) api->ActivityDisable(k);
    enabled.clear();
    for (uint32_t cbid : driver_cbids) api->ActivityEnableDriverApi(cbid, 0);
    driver_cbids.clear();
  }
  // Undoes a Start that failed half-way.
  void Undo() {
    DisableAll();
    active = false;
    callbacks->Unsubscribe();
    ActivityBuffers::SetCurrent(nullptr);
  }

  // The clock of the trace's timestamps: the config's, or CUPTI's default.
  std::string SelectClock(const CollectorConfig& config) {
    if (config.clock != "monotonic-raw") return "cupti-default";
    // Once per process: a later session keeps the clock of the first.
    Status st = g_monotonic_clock.load() ? OkStatus()
                                         : CuptiStatus(*api, api->ActivityRegisterTimestampCallback(MonotonicRawNs),
                                                       "cuptiActivityRegisterTimestampCallback");
    if (!st.ok()) {
      std::fprintf(stderr, "streamscope: keeping CUPTI's default clock: %s\n", std::string(st.message()).c_str());
      return "cupti-default";
    }
    g_monotonic_clock = true;
    return "monotonic-raw";
  }
  // What the callbacks record and whom they tell: the capture gate and, in
  // ring mode with a trigger, the flight recorder.
  CuptiCallbacks::Options CallbackOptions(const CollectorConfig& config) {
    State* s = this;
    CuptiCallbacks::Options cb;
    cb.nvtx = (config.kinds & kKindNvtx) != 0;
    cb.memory = (config.kinds & kKindMemory) != 0;
    cb.now = TraceNow;
    cb.flush_activity = [s] { s->ForcedFlush(); };
    cb.gate = gate.get();
    cb.on_edge = [s](CaptureGate::Edge e) { s->OnEdge(e); };
    if (config.trigger.has_value() && writer->ring_mode()) {
      trigger = std::make_unique<SlowStepTrigger>(*config.trigger);
      dumps = std::make_unique<DumpQueue>([s](const std::string& why, const DumpQueue::Extra& extra) {
        StatusOr<std::string> path = s->Dump(why, extra);
        if (!path.ok())
          std::fprintf(stderr, "streamscope: flight recorder dump failed: %s\n",
                       std::string(path.status().message()).c_str());
      });
      cb.trigger = trigger.get();
      cb.on_slow = [s](const SlowInstance& slow) { s->OnSlowInstance(slow); };
    }
    return cb;
  }
  // The device buffer size, and the activity buffers' callbacks.
  Status RegisterBuffers(const CollectorConfig& config) {
    if (config.device_buffer_kb > 0) {
      size_t bytes = static_cast<size_t>(config.device_buffer_kb) * 1024;
      size_t size = sizeof(bytes);
      if (Status st =
              CuptiStatus(*api, api->ActivitySetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, &size, &bytes),
                          "device buffer size");
          !st.ok()) {
        std::fprintf(stderr, "streamscope: %s\n", std::string(st.message()).c_str());
      }
    }
    ActivityBuffers::SetCurrent(buffers.get());
    if (Status st = CuptiStatus(
            *api,
            api->ActivityRegisterCallbacks(ActivityBuffers::RequestTrampoline, ActivityBuffers::CompleteTrampoline),
            "cuptiActivityRegisterCallbacks");
        !st.ok() && !g_buffer_callbacks_registered.load()) {
      return st;  // (a later session keeps the trampolines registered before)
    }
    g_buffer_callbacks_registered = true;
    active = true;
    return OkStatus();
  }
  // The activity kinds of the config; fails where CUPTI is taken or kernels
  // cannot be recorded.
  Status EnableKinds(const CollectorConfig& config, std::vector<std::string>& enabled_names) {
    for (const KindMap& k : kKindMap) {
      if (!(config.kinds & k.our_kind)) continue;
      Status st = CuptiStatus(*api, api->ActivityEnable(k.cupti_kind), StrCat("enabling ", k.name, " records"));
      if (st.ok()) {
        enabled.push_back(k.cupti_kind);
        enabled_names.push_back(k.name);
        continue;
      }
      // Another client took CUPTI, or no kernels: nothing worth recording.
      if (st.code() == StatusCode::kFailedPrecondition || k.our_kind == kKindKernel) return st;
      if (k.our_kind == kKindSubmit) {  // counted, not worth a line in every traced program
        writer->AddStat(Stat::kSubmitApisRefused, 1);
        continue;
      }
      std::fprintf(stderr, "streamscope: %s records not recorded: %s\n", k.name, std::string(st.message()).c_str());
    }
    return OkStatus();
  }
  // With runtime records: the host-side queries left out unless asked for.
  void TrimRuntimeQueries(const CollectorConfig& config, std::vector<std::string>& enabled_names) {
    if (std::find(enabled.begin(), enabled.end(), CUPTI_ACTIVITY_KIND_RUNTIME) == enabled.end()) return;
    size_t kept = RuntimeQueryCallbackIds().size();
    if (!(config.kinds & kKindRuntimeAll)) kept = LeaveOutRuntimeQueries();
    // A CUPTI without per-id control records these calls: more records, nothing lost.
    writer->AddStat(Stat::kRuntimeQueriesKept, static_cast<int64_t>(kept));
    if (kept == RuntimeQueryCallbackIds().size()) enabled_names.push_back("runtime-all");
  }
  // The driver calls that submit GPU work, one by one (the whole DRIVER
  // kind would also record every driver call under each runtime call).
  void EnableDriverSubmits(const CollectorConfig& config, std::vector<std::string>& enabled_names) {
    if (!(config.kinds & kKindSubmit) || (config.kinds & kKindDriver)) return;
    CUptiResult first_error = CUPTI_SUCCESS;
    for (uint32_t cbid : DriverSubmitCallbackIds()) {
      CUptiResult r = api->ActivityEnableDriverApi(cbid, 1);
      if (r == CUPTI_SUCCESS) {
        driver_cbids.push_back(cbid);
      } else if (first_error == CUPTI_SUCCESS) {
        first_error = r;
      }
    }
    // A few ids may be unknown to an older or newer CUPTI: counted; one
    // line only when none could be enabled.
    writer->AddStat(Stat::kSubmitApisRefused,
                    static_cast<int64_t>(DriverSubmitCallbackIds().size() - driver_cbids.size()));
    if (driver_cbids.empty()) {
      Status st = CuptiStatus(*api, first_error, "cuptiActivityEnableDriverApi");
      std::fprintf(stderr,
                   "streamscope: submitting driver calls not recorded (ops launched through the "
                   "driver API have no submitter): %s\n",
                   std::string(st.message()).c_str());
    }
    if (!driver_cbids.empty()) enabled_names.push_back("submit");
  }
  // Records handed to the writer every flush_ms, by us and by CUPTI.
  void StartPeriodicFlush(const CollectorConfig& config) {
    if (config.flush_ms <= 0) return;
    State* s = this;
    flusher =
        std::make_unique<PeriodicFlusher>(std::chrono::milliseconds(config.flush_ms), [s] { s->PeriodicFlush(); });
    if (Status st = CuptiStatus(*api, api->ActivityFlushPeriod(config.flush_ms), "cuptiActivityFlushPeriod");
        !st.ok()) {
      std::fprintf(stderr, "streamscope: no periodic flush (a killed process loses more): %s\n",
                   std::string(st.message()).c_str());
    }
  }
};

StatusOr<std::unique_ptr<CuptiTracer>> CuptiTracer::Start(const CollectorConfig& config, TraceWriter* writer) {
  StatusOr<CuptiApi*> api = SystemCupti();
  if (!api.ok()) return api.status();
  // The real CUPTI may call into the session's objects until the process
  // ends: they are never freed.
  return StartWith(config, writer, *api, /*owns_state=*/false);
}

StatusOr<std::unique_ptr<CuptiTracer>> CuptiTracer::Start(const CollectorConfig& config, TraceWriter* writer,
                                                          CuptiApi* api) {
  return StartWith(config, writer, api, /*owns_state=*/true);
}

StatusOr<std::unique_ptr<CuptiTracer>> CuptiTracer::StartWith(const CollectorConfig& config, TraceWriter* writer,
                                                              CuptiApi* api, bool owns_state) {
  if (g_session_running.exchange(true)) {
    return AlreadyExistsError("a recording session is already running in this process");
  }
  std::unique_ptr<CuptiTracer> tracer(new CuptiTracer());
  tracer->owns_state_ = owns_state;
  uint32_t version = 0;
  api->GetVersion(&version);
  tracer->cupti_version_ = StrCat(version);
  g_clock_api.store(api);

  auto* s = new State();
  tracer->state_ = s;
  s->api = api;
  s->writer = writer;
  size_t buffer_bytes = static_cast<size_t>(config.buffer_kb) * 1024;
  size_t max_buffers = std::max<size_t>(2, static_cast<size_t>(config.max_buffer_mb) * 1024 * 1024 / buffer_bytes);
  s->buffers = std::make_unique<ActivityBuffers>(api, writer, buffer_bytes, max_buffers);
  tracer->clock_domain_ = s->SelectClock(config);
  s->runtime_all = (config.kinds & kKindRuntimeAll) != 0;
  s->gate = std::make_shared<CaptureGate>(config.capture, TraceNow());
  const CaptureRange& range = config.capture;
  s->edges_toggle_kinds = !(range.kind == CaptureRange::Kind::kNvtx && range.first == 0);
  writer->SetCaptureGate(s->gate);
  // Thread ids as the OS knows them (gettid), matching /proc and debuggers.
  api->SetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
  s->callbacks = std::make_unique<CuptiCallbacks>(api, writer, s->CallbackOptions(config));

  // Failing from here on: the tracer's destructor frees or keeps the state.
  auto fail = [&](Status st) -> StatusOr<std::unique_ptr<CuptiTracer>> {
    s->Undo();
    s->stopped = true;
    g_session_running = false;
    return st;
  };
  if (Status st = s->callbacks->Subscribe(); !st.ok()) return fail(st);
  if (Status st = s->RegisterBuffers(config); !st.ok()) return fail(st);
  std::vector<std::string> enabled_names;
  if (Status st = s->EnableKinds(config, enabled_names); !st.ok()) return fail(st);
  s->TrimRuntimeQueries(config, enabled_names);
  s->EnableDriverSubmits(config, enabled_names);
  if (s->callbacks->memory_tracking()) enabled_names.push_back("memory");
  // Outside a capture window only the kinds that describe things stay on.
  if (!s->gate->on()) s->SetOpKinds(false);
  s->capture_switch = std::make_unique<CaptureSwitch>(s->gate->on(), [s](bool on) { s->SetOpKinds(on); });
  tracer->enabled_kinds_ = StrJoin(enabled_names, ",");
  s->StartPeriodicFlush(config);
  return tracer;
}

CuptiTracer::~CuptiTracer() {
  Stop();
  if (owns_state_) delete state_;
}

uint64_t CuptiTracer::Now() const { return TraceNow(); }

bool CuptiTracer::CaptureStart() {
  State* s = state_;
  if (s == nullptr || s->stopped.load() || s->gate == nullptr) return false;
  CaptureGate::Edge e = s->gate->ExternalStart(TraceNow());
  if (e == CaptureGate::Edge::kNone) return false;
  // From outside: the kinds follow the switch whatever the range kind.
  if (s->capture_switch) s->capture_switch->Request(true, std::chrono::milliseconds(0));
  return true;
}

bool CuptiTracer::CaptureStop() {
  State* s = state_;
  if (s == nullptr || s->stopped.load() || s->gate == nullptr) return false;
  CaptureGate::Edge e = s->gate->ExternalStop(TraceNow());
  if (e == CaptureGate::Edge::kNone) return false;
  if (s->capture_switch) s->capture_switch->Request(false, std::chrono::milliseconds(0));
  return true;
}

std::string CuptiTracer::CaptureWindowsJson() const {
  return state_ != nullptr && state_->gate != nullptr ? state_->gate->WindowsJson() : std::string("[]");
}

StatusOr<std::string> CuptiTracer::Dump(std::string trigger) {
  State* s = state_;
  if (s == nullptr || s->stopped.load()) return FailedPreconditionError("not recording");
  if (!s->writer->ring_mode()) return FailedPreconditionError("not a flight recorder (run --flight-recorder)");
  return s->Dump(trigger, {});
}

uint64_t CuptiTracer::CaptureInstances() const {
  return state_ != nullptr && state_->gate != nullptr ? state_->gate->instances() : 0;
}

void CuptiTracer::Flush() {
  if (state_ != nullptr) state_->ForcedFlush();
}

void CuptiTracer::ReleaseBuffers() {
  if (state_ != nullptr && state_->stopped.load()) state_->buffers->ReleaseIdle();
}

void CuptiTracer::RecordDevices() {
  if (state_ != nullptr && state_->active.load()) state_->callbacks->ProbeAllDevices();
}

void CuptiTracer::Stop() {
  State* s = state_;
  if (s == nullptr || s->stopped.exchange(true)) return;
  if (s->flusher) s->flusher->Stop();
  if (s->capture_switch) s->capture_switch->Stop();
  if (s->dumps) s->dumps->Stop();  // dumps asked for before the end are written
  s->api->ActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  s->DisableAll();
  s->api->ActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  s->writer->AddStat(Stat::kFlushes, 1);
  s->active = false;
  s->callbacks->Unsubscribe();
  // No callback adds records after the unsubscribe.
  s->callbacks->FlushRecords();
  s->callbacks->AddMemoryStats();
  g_session_running = false;
}

std::string CuptiApiName(ApiDomain domain, uint32_t cbid) {
  StatusOr<CuptiApi*> api = SystemCupti();
  if (!api.ok()) return {};
  return CallbackApiName(**api, domain, cbid);
}

}  // namespace streamscope::collector
