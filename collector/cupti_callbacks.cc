#include "collector/cupti_callbacks.h"

#include <generated_nvtx_meta.h>
#include <nvtx3/nvToolsExt.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <optional>
#include <string>

#include "collector/cupti_api.h"
#include "collector/cupti_status.h"
#include "collector/device_probe.h"
#include "collector/host_link_probe.h"
#include "collector/kernel_param_layout.h"
#include "collector/trace_writer.h"

namespace streamscope::collector {
namespace {

constexpr CUpti_CallbackId kRuntimeStreamCreate[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreate_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithFlags_v5000,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithPriority_v5050,
};
constexpr CUpti_CallbackId kDriverStreamCreate[] = {
    CUPTI_DRIVER_TRACE_CBID_cuStreamCreate,
    CUPTI_DRIVER_TRACE_CBID_cuStreamCreateWithPriority,
};
constexpr CUpti_CallbackId kNvtxRangeStart[] = {CUPTI_CBID_NVTX_nvtxRangeStartA, CUPTI_CBID_NVTX_nvtxRangeStartW,
                                                CUPTI_CBID_NVTX_nvtxRangeStartEx,
                                                CUPTI_CBID_NVTX_nvtxDomainRangeStartEx};

// NVTX calls that open or close a range: watched for an nvtx:NAME capture range.
constexpr CUpti_CallbackId kNvtxRangeCalls[] = {
    CUPTI_CBID_NVTX_nvtxRangePushA,         CUPTI_CBID_NVTX_nvtxRangePushW,        CUPTI_CBID_NVTX_nvtxRangePushEx,
    CUPTI_CBID_NVTX_nvtxRangePop,           CUPTI_CBID_NVTX_nvtxDomainRangePushEx, CUPTI_CBID_NVTX_nvtxDomainRangePop,
    CUPTI_CBID_NVTX_nvtxRangeStartA,        CUPTI_CBID_NVTX_nvtxRangeStartW,       CUPTI_CBID_NVTX_nvtxRangeStartEx,
    CUPTI_CBID_NVTX_nvtxDomainRangeStartEx, CUPTI_CBID_NVTX_nvtxRangeEnd,          CUPTI_CBID_NVTX_nvtxDomainRangeEnd};

// The message of an NVTX range as text; registered strings are not resolved
// (empty).
std::string NvtxMessage(const nvtxEventAttributes_t* a) {
  if (a == nullptr) return {};
  if (a->messageType == NVTX_MESSAGE_TYPE_ASCII && a->message.ascii != nullptr) return a->message.ascii;
  if (a->messageType == NVTX_MESSAGE_TYPE_UNICODE && a->message.unicode != nullptr) {
    std::string out;
    for (const wchar_t* c = a->message.unicode; *c != 0; ++c) out.push_back(*c < 128 ? static_cast<char>(*c) : '?');
    return out;
  }
  return {};
}

std::string_view Text(const char* s) { return s == nullptr ? std::string_view() : std::string_view(s); }

std::string WideMessage(const wchar_t* w) {
  nvtxEventAttributes_t a = {};
  a.messageType = NVTX_MESSAGE_TYPE_UNICODE;
  a.message.unicode = w;
  return NvtxMessage(&a);
}

// What an NVTX range call did: opened a range (with its message; start/end
// ranges with their id) or closed one.
struct NvtxCall {
  enum Kind { kNone, kPush, kPop, kStart, kEnd } kind = kNone;
  std::string name;
  uint64_t id = 0;
};

NvtxCall ReadNvtxCall(CUpti_CallbackId cbid, const CUpti_NvtxData* nd) {
  NvtxCall c;
  const void* p = nd->functionParams;
  auto returned_id = [&]() -> uint64_t {
    return nd->functionReturnValue == nullptr ? 0 : *static_cast<const nvtxRangeId_t*>(nd->functionReturnValue);
  };
  switch (cbid) {
    case CUPTI_CBID_NVTX_nvtxRangePushA:
      c.kind = NvtxCall::kPush;
      if (p) c.name = std::string(Text(static_cast<const nvtxRangePushA_params*>(p)->message));
      break;
    case CUPTI_CBID_NVTX_nvtxRangePushW:
      c.kind = NvtxCall::kPush;
      if (p) c.name = WideMessage(static_cast<const nvtxRangePushW_params*>(p)->message);
      break;
    case CUPTI_CBID_NVTX_nvtxRangePushEx:
      c.kind = NvtxCall::kPush;
      if (p) c.name = NvtxMessage(static_cast<const nvtxRangePushEx_params*>(p)->eventAttrib);
      break;
    case CUPTI_CBID_NVTX_nvtxDomainRangePushEx:
      c.kind = NvtxCall::kPush;
      if (p) c.name = NvtxMessage(static_cast<const nvtxDomainRangePushEx_params*>(p)->core.eventAttrib);
      break;
    case CUPTI_CBID_NVTX_nvtxRangePop:
    case CUPTI_CBID_NVTX_nvtxDomainRangePop: c.kind = NvtxCall::kPop; break;
    case CUPTI_CBID_NVTX_nvtxRangeStartA:
      c.kind = NvtxCall::kStart;
      if (p) c.name = std::string(Text(static_cast<const nvtxRangeStartA_params*>(p)->message));
      c.id = returned_id();
      break;
    case CUPTI_CBID_NVTX_nvtxRangeStartW:
      c.kind = NvtxCall::kStart;
      if (p) c.name = WideMessage(static_cast<const nvtxRangeStartW_params*>(p)->message);
      c.id = returned_id();
      break;
    case CUPTI_CBID_NVTX_nvtxRangeStartEx:
      c.kind = NvtxCall::kStart;
      if (p) c.name = NvtxMessage(static_cast<const nvtxRangeStartEx_params*>(p)->eventAttrib);
      c.id = returned_id();
      break;
    case CUPTI_CBID_NVTX_nvtxDomainRangeStartEx:
      c.kind = NvtxCall::kStart;
      if (p) c.name = NvtxMessage(static_cast<const nvtxDomainRangeStartEx_params*>(p)->core.eventAttrib);
      c.id = returned_id();
      break;
    case CUPTI_CBID_NVTX_nvtxRangeEnd:
      if (p) c = {NvtxCall::kEnd, {}, static_cast<const nvtxRangeEnd_params*>(p)->id};
      break;
    case CUPTI_CBID_NVTX_nvtxDomainRangeEnd:
      if (p) c = {NvtxCall::kEnd, {}, static_cast<const nvtxDomainRangeEnd_params*>(p)->core.id};
      break;
    default: break;
  }
  return c;
}

template <size_t N>
bool IsOneOf(const CUpti_CallbackId (&ids)[N], CUpti_CallbackId cbid) {
  for (CUpti_CallbackId id : ids) {
    if (id == cbid) return true;
  }
  return false;
}

uint32_t CurrentTid() { return static_cast<uint32_t>(syscall(SYS_gettid)); }

}  // namespace

CuptiCallbacks::CuptiCallbacks(CuptiApi* api, TraceWriter* writer, Options options)
    : api_(api), writer_(writer), options_(std::move(options)) {
  if (options_.memory) StartMemoryTracking();
}

Status CuptiCallbacks::Subscribe() {
  CUpti_SubscriberHandle subscriber = nullptr;
  CUptiResult r = api_->Subscribe(&subscriber, Trampoline, this);
  if (r != CUPTI_SUCCESS) return CuptiStatus(*api_, r, "cuptiSubscribe");
  subscriber_ = subscriber;
  auto enable = [&](CUpti_CallbackDomain d, CUpti_CallbackId id) {
    return api_->EnableCallback(1, subscriber_, d, id) == CUPTI_SUCCESS;
  };
  enable(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
  enable(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
  enable(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020);
  bool stream_tracking = true;
  for (CUpti_CallbackId id : kRuntimeStreamCreate) stream_tracking &= enable(CUPTI_CB_DOMAIN_RUNTIME_API, id);
  for (CUpti_CallbackId id : kDriverStreamCreate) stream_tracking &= enable(CUPTI_CB_DOMAIN_DRIVER_API, id);
  writer_->SetStreamCreationTracked(stream_tracking);
  if (memory_) {
    int failed = 0;
    for (uint32_t id : MemoryTracker::RuntimeCallbackIds()) failed += !enable(CUPTI_CB_DOMAIN_RUNTIME_API, id);
    for (uint32_t id : MemoryTracker::DriverCallbackIds()) failed += !enable(CUPTI_CB_DOMAIN_DRIVER_API, id);
    if (failed > 0) {
      std::fprintf(stderr, "streamscope: %d memory-tracking callbacks could not be enabled\n", failed);
    }
  }
  if (options_.nvtx) {
    for (CUpti_CallbackId id : kNvtxRangeStart) nvtx_start_end_ |= enable(CUPTI_CB_DOMAIN_NVTX, id);
    nvtx_callbacks_ = nvtx_start_end_;
  }
  if ((options_.gate != nullptr && options_.gate->watches_nvtx()) || options_.trigger != nullptr) {
    int watched = 0;
    for (CUpti_CallbackId id : kNvtxRangeCalls) watched += enable(CUPTI_CB_DOMAIN_NVTX, id);
    if (watched == 0)
      std::fprintf(stderr, "streamscope: NVTX ranges cannot be watched: the capture range or trigger never fires\n");
  }
  if (options_.gate != nullptr && options_.gate->watches_profiler_api()) {
    // Each enabled whatever the others gave (no short circuit).
    const bool runtime_start = enable(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000);
    const bool runtime_stop = enable(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000);
    const bool driver_start = enable(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStart);
    const bool driver_stop = enable(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStop);
    if (!(runtime_start && runtime_stop && driver_start && driver_stop))
      std::fprintf(stderr, "streamscope: cudaProfilerStart/Stop may go unseen: a callback could not be enabled\n");
  }
  active_ = true;
  return OkStatus();
}

void CuptiCallbacks::Unsubscribe() {
  active_ = false;
  if (subscriber_ != nullptr) {
    api_->Unsubscribe(subscriber_);
    subscriber_ = nullptr;
  }
}

void CUPTIAPI CuptiCallbacks::Trampoline(void* self, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                         const void* data) {
  static_cast<CuptiCallbacks*>(self)->OnCallback(domain, cbid, data);
}

void CuptiCallbacks::OnCallback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  if (!active_.load()) return;
  switch (domain) {
    case CUPTI_CB_DOMAIN_RESOURCE: OnResource(cbid, data); return;
    case CUPTI_CB_DOMAIN_NVTX: OnNvtx(cbid, static_cast<const CUpti_NvtxData*>(data)); return;
    case CUPTI_CB_DOMAIN_RUNTIME_API: {
      const auto* cd = static_cast<const CUpti_CallbackData*>(data);
      if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000 ||
          cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000) {
        OnProfilerCall(cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000, cd);
      } else if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020) {
        // The device's records must leave CUPTI before the reset.
        if (cd->callbackSite == CUPTI_API_ENTER) options_.flush_activity();
      } else if (IsOneOf(kRuntimeStreamCreate, cbid)) {
        OnStreamCreated(cd);
      } else if (memory_) {
        memory_->OnRuntimeCallback(cbid, data);
      }
      return;
    }
    case CUPTI_CB_DOMAIN_DRIVER_API:
      if (cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart || cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStop) {
        OnProfilerCall(cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart, static_cast<const CUpti_CallbackData*>(data));
      } else if (IsOneOf(kDriverStreamCreate, cbid)) {
        OnStreamCreated(static_cast<const CUpti_CallbackData*>(data));
      } else if (memory_) {
        memory_->OnDriverCallback(cbid, data);
      }
      return;
    default: return;
  }
}

void CuptiCallbacks::OnResource(CUpti_CallbackId cbid, const void* data) {
  const auto* rd = static_cast<const CUpti_ResourceData*>(data);
  if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) {
    uint32_t device = 0;
    if (api_->GetDeviceId(rd->context, &device) == CUPTI_SUCCESS) ProbeDeviceOnce(device);
  } else if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
    // The context's records must leave CUPTI before the context is gone.
    options_.flush_activity();
  }
}

void CuptiCallbacks::ProbeDeviceOnce(uint32_t device) {
  {
    std::lock_guard<std::mutex> lock(probe_mu_);
    if (!probed_devices_.insert(device).second) return;
  }
  StatusOr<DeviceRecord> rec = ProbeDevice(static_cast<int>(device));
  if (!rec.ok()) {
    std::fprintf(stderr, "streamscope: device %u properties not recorded: %s\n", device,
                 std::string(rec.status().message()).c_str());
    return;
  }
  RecordBatch batch;
  batch.emplace_back(std::move(*rec));
  writer_->Submit(std::move(batch));
  // The host link, on a thread of its own: NVML's initialization can take
  // a while and this runs inside the application's context creation.
  StatusOr<std::string> bus_id = DevicePciBusId(static_cast<int>(device));
  ProbeHostLinkInBackground(writer_, device, bus_id.ok() ? *bus_id : std::string());
}

void CuptiCallbacks::ProbeAllDevices() {
  StatusOr<int> count = DeviceCount();
  if (!count.ok()) return;  // CUDA not initialized yet: the callback does it later
  for (int d = 0; d < *count; ++d) ProbeDeviceOnce(static_cast<uint32_t>(d));
}

void CuptiCallbacks::OnStreamCreated(const CUpti_CallbackData* cd) {
  if (cd->callbackSite != CUPTI_API_EXIT || cd->functionParams == nullptr) return;
  // Every stream-creating call returns its status as an int-sized enum where
  // 0 is success, and takes the out-pointer to the new stream first.
  if (cd->functionReturnValue != nullptr && *static_cast<const int*>(cd->functionReturnValue) != 0) return;
  CUstream* out = *static_cast<CUstream* const*>(cd->functionParams);
  if (out == nullptr || *out == nullptr) return;
  uint32_t id = 0;
  if (api_->GetStreamIdEx(cd->context, *out, 0, &id) != CUPTI_SUCCESS) return;
  RecordBatch batch;
  batch.emplace_back(StreamCreatedRecord{id, CurrentTid()});
  writer_->Submit(std::move(batch));
}

// cudaProfilerStart/Stop (and the driver's, which the runtime's may call):
// at entry, so the window holds what follows the call.
void CuptiCallbacks::OnProfilerCall(bool start, const CUpti_CallbackData* cd) {
  if (options_.gate == nullptr || cd == nullptr || cd->callbackSite != CUPTI_API_ENTER) return;
  uint64_t now = options_.now ? options_.now() : 0;
  CaptureGate::Edge e = start ? options_.gate->ProfilerStart(now) : options_.gate->ProfilerStop(now);
  if (e != CaptureGate::Edge::kNone && options_.on_edge) options_.on_edge(e);
}

void CuptiCallbacks::OnNvtx(CUpti_CallbackId cbid, const CUpti_NvtxData* nd) {
  if (nd == nullptr) return;
  if (nvtx_start_end_ && IsOneOf(kNvtxRangeStart, cbid)) OnNvtxStartEnd(nd);
  if ((options_.gate != nullptr && options_.gate->watches_nvtx()) || options_.trigger != nullptr) {
    OnNvtxRange(cbid, nd);
  }
}

void CuptiCallbacks::OnNvtxRange(CUpti_CallbackId cbid, const CUpti_NvtxData* nd) {
  NvtxCall call = ReadNvtxCall(cbid, nd);
  if (call.kind == NvtxCall::kNone) return;
  uint64_t now = options_.now ? options_.now() : 0;
  uint32_t tid = call.kind == NvtxCall::kPush || call.kind == NvtxCall::kPop ? CurrentTid() : 0;
  if (options_.gate != nullptr && options_.gate->watches_nvtx()) {
    CaptureGate& gate = *options_.gate;
    CaptureGate::Edge e = CaptureGate::Edge::kNone;
    switch (call.kind) {
      case NvtxCall::kPush: e = gate.NvtxPush(tid, call.name, now); break;
      case NvtxCall::kPop: e = gate.NvtxPop(tid, now); break;
      case NvtxCall::kStart: e = gate.NvtxStart(call.id, call.name, now); break;
      case NvtxCall::kEnd: e = gate.NvtxEnd(call.id, now); break;
      case NvtxCall::kNone: break;
    }
    if (e != CaptureGate::Edge::kNone && options_.on_edge) options_.on_edge(e);
  }
  if (options_.trigger != nullptr) {
    SlowStepTrigger& trigger = *options_.trigger;
    std::optional<SlowInstance> slow;
    switch (call.kind) {
      case NvtxCall::kPush: trigger.NvtxPush(tid, call.name, now); break;
      case NvtxCall::kPop: slow = trigger.NvtxPop(tid, now); break;
      case NvtxCall::kStart: trigger.NvtxStart(call.id, call.name, now); break;
      case NvtxCall::kEnd: slow = trigger.NvtxEnd(call.id, now); break;
      case NvtxCall::kNone: break;
    }
    if (slow.has_value() && options_.on_slow) options_.on_slow(*slow);
  }
}

// nvtxRangeStart*: CUPTI's MARKER records do not tell start/end ranges from
// push/pop ones; this callback (issued when the call returns, with the
// range id) does. Submitted at once so that it reaches the writer before
// the range's START marker (which travels in a later activity buffer).
void CuptiCallbacks::OnNvtxStartEnd(const CUpti_NvtxData* nd) {
  uint64_t now = options_.now ? options_.now() : 0;
  NvtxStartEndRecord r;
  if (nd->functionReturnValue != nullptr) {
    r.id = static_cast<uint32_t>(*static_cast<const nvtxRangeId_t*>(nd->functionReturnValue));
  }
  r.tid = CurrentTid();
  r.call_start_ns = now;
  r.call_end_ns = now;
  RecordBatch batch;
  batch.emplace_back(r);
  writer_->Submit(std::move(batch));
}

void CuptiCallbacks::StartMemoryTracking() {
  buffers_ = std::make_unique<CallbackBuffers>(writer_);
  MemoryTracker::Hooks hooks;
  hooks.now = options_.now;
  hooks.tid = CurrentTid;
  CuptiApi* api = api_;
  hooks.stream_id = [api](void* context, void* stream, bool per_thread) -> std::optional<uint32_t> {
    uint32_t id = 0;
    if (api->GetStreamIdEx(static_cast<CUcontext>(context), static_cast<CUstream>(stream), per_thread ? 1 : 0, &id) !=
        CUPTI_SUCCESS) {
      return std::nullopt;
    }
    return id;
  };
  hooks.device_id = [api](void* context) -> std::optional<uint32_t> {
    uint32_t device = 0;
    if (context == nullptr || api->GetDeviceId(static_cast<CUcontext>(context), &device) != CUPTI_SUCCESS) {
      return std::nullopt;
    }
    return device;
  };
  hooks.param_layout = KernelParamLayout;
  memory_ = std::make_unique<MemoryTracker>(std::move(hooks), buffers_.get());
}

void CuptiCallbacks::FlushRecords() {
  if (buffers_) buffers_->FlushAll();
}

void CuptiCallbacks::AddMemoryStats() {
  if (!memory_) return;
  const MemoryTracker::Counters& c = memory_->counters();
  writer_->AddStat(Stat::kMemoryLaunches, c.launches.load());
  writer_->AddStat(Stat::kMemoryLaunchesInRuntime, c.launches_in_runtime.load());
  writer_->AddStat(Stat::kMemoryLaunchesWithoutLayout, c.launches_without_layout.load());
  writer_->AddStat(Stat::kMemoryUntrackedFrees, c.untracked_frees.load());
  ParamLayoutCounts layouts = KernelParamLayoutCounts();
  writer_->AddStat(Stat::kMemoryLayoutsFunction, layouts.read_as_function);
  writer_->AddStat(Stat::kMemoryLayoutsKernel, layouts.read_as_kernel);
  writer_->AddStat(Stat::kMemoryLayoutError, layouts.first_error);
}

}  // namespace streamscope::collector
