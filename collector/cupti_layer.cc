#include "collector/cupti_layer.h"

#include "collector/status.h"
#include <cupti.h>
#include <nvtx3/nvToolsExt.h>
#include <dlfcn.h>
#include <link.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <thread>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string_view>
#include <vector>

#include <unordered_set>
#include "collector/callback_buffers.h"
#include "collector/device_probe.h"
#include "collector/memory_tracker.h"
#include "collector/record_decoder.h"

#ifndef STREAMSCOPE_CUPTI_DIR
#define STREAMSCOPE_CUPTI_DIR "/usr/local/cuda/lib64"
#endif

namespace streamscope::collector {
namespace {

// ---- libcupti, resolved at run time ---------------------------------------

struct CuptiApi {
  void* handle = nullptr;
  std::string path;
#define STREAMSCOPE_CUPTI_FN(name) decltype(&::name) name = nullptr;
#define STREAMSCOPE_CUPTI_FUNCTIONS(X)                                                   \
  X(cuptiGetVersion) X(cuptiGetResultString) X(cuptiSubscribe) X(cuptiUnsubscribe)       \
  X(cuptiEnableCallback) X(cuptiActivityEnable) X(cuptiActivityDisable)                  \
  X(cuptiActivityRegisterCallbacks) X(cuptiActivityFlushAll) X(cuptiActivityFlushPeriod) \
  X(cuptiActivityGetNextRecord) X(cuptiActivityGetNumDroppedRecords)                     \
  X(cuptiActivitySetAttribute) X(cuptiActivityRegisterTimestampCallback)                 \
  X(cuptiGetTimestamp) X(cuptiGetStreamIdEx) X(cuptiGetDeviceId) X(cuptiGetCallbackName) \
  X(cuptiSetThreadIdType)
  STREAMSCOPE_CUPTI_FUNCTIONS(STREAMSCOPE_CUPTI_FN)
#undef STREAMSCOPE_CUPTI_FN
};

std::string LoadedLibraryDir(std::string_view needle) {
  std::string found;
  struct Ctx {
    std::string_view needle;
    std::string* found;
  } ctx{needle, &found};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) -> int {
        auto* c = static_cast<Ctx*>(data);
        std::string_view name = info->dlpi_name ? info->dlpi_name : "";
        if (name.find(c->needle) == std::string_view::npos) return 0;
        size_t slash = name.rfind('/');
        if (slash == std::string_view::npos) return 0;
        *c->found = std::string(name.substr(0, slash));
        return 1;
      },
      &ctx);
  return found;
}

StatusOr<const CuptiApi*> LoadCupti() {
  static std::once_flag once;
  static CuptiApi api;
  static Status status;
  std::call_once(once, [] {
    std::vector<std::string> tried;
    auto try_open = [&](const std::string& path, int extra) {
      if (api.handle != nullptr || path.empty()) return;
      tried.push_back(path);
      api.handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | extra);
      if (api.handle != nullptr) api.path = path;
    };
    if (const char* env = std::getenv("STREAMSCOPE_CUPTI_LIB"); env && *env) {
      // Named explicitly: use that one or none.
      try_open(env, 0);
      if (api.handle == nullptr) {
        status = NotFoundError(StrCat("CUPTI library not found: STREAMSCOPE_CUPTI_LIB=", env,
                                      " cannot be loaded (", dlerror() ? "dlopen failed" : "?", ")"));
        return;
      }
    }
    // A copy the process already has (e.g. PyTorch's): one CUPTI per process.
    try_open("libcupti.so.13", RTLD_NOLOAD);
    try_open("libcupti.so", RTLD_NOLOAD);
    try_open("libcupti.so.13", 0);
    std::string cudart_dir = LoadedLibraryDir("libcudart.so");
    if (!cudart_dir.empty()) try_open(cudart_dir + "/libcupti.so.13", 0);
    try_open(STREAMSCOPE_CUPTI_DIR "/libcupti.so.13", 0);
    try_open("/usr/local/cuda/lib64/libcupti.so.13", 0);
    try_open("/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13", 0);
    if (api.handle == nullptr) {
      status = NotFoundError(StrCat(
          "CUPTI library not found (tried ", StrJoin(tried, ", "),
          "; set STREAMSCOPE_CUPTI_LIB to libcupti.so.13)"));
      return;
    }
    std::vector<std::string> missing;
#define STREAMSCOPE_CUPTI_SYM(name)                                              \
  api.name = reinterpret_cast<decltype(api.name)>(dlsym(api.handle, #name)); \
  if (api.name == nullptr) missing.push_back(#name);
    STREAMSCOPE_CUPTI_FUNCTIONS(STREAMSCOPE_CUPTI_SYM)
#undef STREAMSCOPE_CUPTI_SYM
    if (!missing.empty()) {
      status = FailedPreconditionError(StrCat(
          "CUPTI at ", api.path, " lacks ", StrJoin(missing, ", "), " (too old?)"));
    }
  });
  if (!status.ok()) return status;
  return &api;
}

// The one place CUPTI results become Status.
Status CuptiStatus(const CuptiApi& api, CUptiResult r, std::string_view what) {
  if (r == CUPTI_SUCCESS) return OkStatus();
  const char* text = nullptr;
  if (api.cuptiGetResultString == nullptr || api.cuptiGetResultString(r, &text) != CUPTI_SUCCESS ||
      text == nullptr) {
    text = "unknown CUPTI error";
  }
  std::string msg = StrCat(what, ": ", text, " (", static_cast<int>(r), ")");
  switch (r) {
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
      return FailedPreconditionError(StrCat(
          "another CUPTI client (torch.profiler, Nsight Systems/Compute, compute-sanitizer, ...) "
          "is already attached to this process; ", msg));
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
      return PermissionDeniedError(msg);
    case CUPTI_ERROR_NOT_COMPATIBLE:
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED:
      return UnimplementedError(msg);
    default:
      return InternalError(msg);
  }
}

uint64_t CUPTIAPI MonotonicRawNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

uint32_t CurrentTid() { return static_cast<uint32_t>(syscall(SYS_gettid)); }

// ---- activity buffers -------------------------------------------------------

// Fixed-size, 8-byte aligned buffers; at most `max_buffers` exist at once
// (held by CUPTI or queued for the writer). Beyond that CUPTI gets no buffer
// and counts the records it drops.
class BufferPool {
 public:
  BufferPool(size_t bytes, size_t max_buffers) : bytes_(bytes), max_buffers_(max_buffers) {}
  ~BufferPool() {
    for (uint8_t* b : free_) std::free(b);
  }
  uint8_t* Get() {
    std::lock_guard<std::mutex> lock(mu_);
    if (!free_.empty()) {
      uint8_t* b = free_.back();
      free_.pop_back();
      return b;
    }
    if (allocated_ >= max_buffers_) return nullptr;
    auto* b = static_cast<uint8_t*>(std::aligned_alloc(8, bytes_));
    if (b != nullptr) ++allocated_;
    return b;
  }
  void Put(uint8_t* b) {
    std::lock_guard<std::mutex> lock(mu_);
    free_.push_back(b);
  }
  size_t bytes() const { return bytes_; }

 private:
  const size_t bytes_;
  const size_t max_buffers_;
  std::mutex mu_;
  std::vector<uint8_t*> free_;
  size_t allocated_ = 0;
};

struct TracerState {
  const CuptiApi* api = nullptr;
  TraceWriter* writer = nullptr;
  std::shared_ptr<BufferPool> pool;
  CUpti_SubscriberHandle subscriber = nullptr;
  std::vector<CUpti_ActivityKind> enabled;
  std::mutex probe_mu;
  std::unordered_set<uint32_t> probed_devices;
  std::atomic<bool> unknown_kind_reported{false};
  std::atomic<bool> active{false};
  bool verbose = false;
  // Record kind `memory`: callback records from application threads.
  std::unique_ptr<CallbackBuffers> buffers;
  std::unique_ptr<MemoryTracker> memory;
  bool nvtx_callbacks = false;
  // Periodic forced flush: CUPTI's own flush period does not return
  // partly filled buffers, so without this a killed process would lose
  // everything since the last full buffer.
  std::mutex flusher_mu;
  std::condition_variable flusher_cv;
  bool flusher_stop = false;
  std::thread flusher;
};

// Set once by Start; callbacks read it. Never freed while CUPTI may call us.
std::atomic<TracerState*> g_state{nullptr};

std::atomic<bool> g_monotonic_clock{false};

// The trace clock, as CUPTI's records use it.
uint64_t TraceNow() {
  if (g_monotonic_clock.load()) return MonotonicRawNs();
  TracerState* s = g_state.load();
  uint64_t ts = 0;
  if (s != nullptr) s->api->cuptiGetTimestamp(&ts);
  return ts;
}

// One completed CUPTI buffer, decoded on the writer thread.
class CuptiBufferItem : public WorkItem {
 public:
  CuptiBufferItem(std::shared_ptr<BufferPool> pool, const CuptiApi* api, uint8_t* buffer,
                  size_t valid)
      : pool_(std::move(pool)), api_(api), buffer_(buffer), valid_(valid) {}
  ~CuptiBufferItem() override { pool_->Put(buffer_); }

  void Decode(RecordBatch* out, TraceWriter& writer) override {
    CUpti_Activity* record = nullptr;
    int64_t unknown = 0, ignored = 0;
    uint32_t first_unknown = 0;
    while (api_->cuptiActivityGetNextRecord(buffer_, valid_, &record) == CUPTI_SUCCESS) {
      switch (DecodeActivityRecord(record, out)) {
        case DecodeResult::kDecoded:
          break;
        case DecodeResult::kIgnored:
          ++ignored;
          break;
        case DecodeResult::kUnknownKind:
          if (unknown++ == 0) first_unknown = ActivityKindOf(record);
          break;
      }
    }
    if (ignored) writer.AddStat(Stat::kRecordsIgnored, ignored);
    if (unknown) {
      writer.AddStat(Stat::kRecordsInvalid, unknown);
      TracerState* s = g_state.load();
      if (s != nullptr && !s->unknown_kind_reported.exchange(true)) {
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
    while (api_->cuptiActivityGetNextRecord(buffer_, valid_, &record) == CUPTI_SUCCESS) ++n;
    return n;
  }

 private:
  std::shared_ptr<BufferPool> pool_;
  const CuptiApi* api_;
  uint8_t* buffer_;
  size_t valid_;
};

void CUPTIAPI BufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *max_records = 0;
  *buffer = nullptr;
  *size = 0;
  TracerState* s = g_state.load();
  if (s == nullptr) return;
  *buffer = s->pool->Get();
  if (*buffer == nullptr) {
    s->writer->AddStat(Stat::kBuffersRequestDenied, 1);
    return;
  }
  *size = s->pool->bytes();
}

void CUPTIAPI BufferCompleted(CUcontext context, uint32_t stream_id, uint8_t* buffer, size_t,
                              size_t valid) {
  TracerState* s = g_state.load();
  if (s == nullptr) return;  // never happens: the state lives as long as the process
  size_t dropped = 0;
  if (s->api->cuptiActivityGetNumDroppedRecords(context, stream_id, &dropped) == CUPTI_SUCCESS &&
      dropped > 0) {
    s->writer->AddStat(Stat::kRecordsDroppedCupti, static_cast<int64_t>(dropped));
  }
  if (buffer == nullptr) return;
  if (valid == 0) {
    s->pool->Put(buffer);
    return;
  }
  s->writer->AddStat(Stat::kBuffersCompleted, 1);
  s->writer->Submit(std::make_unique<CuptiBufferItem>(s->pool, s->api, buffer, valid));
}

// ---- callbacks (few, rare events only) --------------------------------------

constexpr CUpti_CallbackId kRuntimeStreamCreate[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreate_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithFlags_v5000,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithPriority_v5050,
};
constexpr CUpti_CallbackId kDriverStreamCreate[] = {
    CUPTI_DRIVER_TRACE_CBID_cuStreamCreate,
    CUPTI_DRIVER_TRACE_CBID_cuStreamCreateWithPriority,
};

void ProbeContextDevice(TracerState* s, CUcontext context) {
  uint32_t device = 0;
  if (s->api->cuptiGetDeviceId(context, &device) != CUPTI_SUCCESS) return;
  {
    std::lock_guard<std::mutex> lock(s->probe_mu);
    if (!s->probed_devices.insert(device).second) return;
  }
  StatusOr<DeviceRecord> rec = ProbeDevice(static_cast<int>(device));
  if (!rec.ok()) {
    std::fprintf(stderr, "streamscope: device %u properties not recorded: %s\n", device,
                 std::string(rec.status().message()).c_str());
    return;
  }
  RecordBatch batch;
  batch.emplace_back(std::move(*rec));
  s->writer->Submit(std::move(batch));
}

void OnStreamCreated(TracerState* s, const CUpti_CallbackData* cd) {
  if (cd->callbackSite != CUPTI_API_EXIT || cd->functionParams == nullptr) return;
  // Every stream-creating call returns its status as an int-sized enum where
  // 0 is success, and takes the out-pointer to the new stream first.
  if (cd->functionReturnValue != nullptr && *static_cast<const int*>(cd->functionReturnValue) != 0)
    return;
  CUstream* out = *static_cast<CUstream* const*>(cd->functionParams);
  if (out == nullptr || *out == nullptr) return;
  uint32_t id = 0;
  if (s->api->cuptiGetStreamIdEx(cd->context, *out, 0, &id) != CUPTI_SUCCESS) return;
  RecordBatch batch;
  batch.emplace_back(StreamCreatedRecord{id, CurrentTid()});
  s->writer->Submit(std::move(batch));
}

template <size_t N>
bool IsStreamCreate(const CUpti_CallbackId (&ids)[N], CUpti_CallbackId cbid) {
  for (CUpti_CallbackId id : ids) {
    if (id == cbid) return true;
  }
  return false;
}

// nvtxRangeStart*: CUPTI's MARKER records do not tell start/end ranges from
// push/pop ones; this callback (issued when the call returns, with the
// range id) does. Submitted at once so that it reaches the writer before
// the range's START marker (which travels in a later activity buffer).
void OnNvtxStartEnd(TracerState* s, const CUpti_NvtxData* nd) {
  if (nd == nullptr) return;
  uint64_t now = TraceNow();
  NvtxStartEndRecord r;
  if (nd->functionReturnValue != nullptr) {
    r.id = static_cast<uint32_t>(*static_cast<const nvtxRangeId_t*>(nd->functionReturnValue));
  }
  r.tid = CurrentTid();
  r.call_start_ns = now;
  r.call_end_ns = now;
  RecordBatch batch;
  batch.emplace_back(r);
  s->writer->Submit(std::move(batch));
}

void CUPTIAPI OnCallback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                         const void* data) {
  TracerState* s = g_state.load();
  if (s == nullptr || !s->active.load()) return;
  if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
    const auto* rd = static_cast<const CUpti_ResourceData*>(data);
    if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) {
      ProbeContextDevice(s, rd->context);
    } else if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
      // The context's records must leave CUPTI before the context is gone.
      s->api->cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
      s->writer->AddStat(Stat::kFlushes, 1);
    }
    return;
  }
  if (domain == CUPTI_CB_DOMAIN_NVTX) {
    OnNvtxStartEnd(s, static_cast<const CUpti_NvtxData*>(data));
    return;
  }
  const auto* cd = static_cast<const CUpti_CallbackData*>(data);
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020) {
      if (cd->callbackSite == CUPTI_API_ENTER) {
        if (s->buffers) s->buffers->FlushAll();
        s->api->cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
        s->writer->AddStat(Stat::kFlushes, 1);
      }
      return;
    }
    if (IsStreamCreate(kRuntimeStreamCreate, cbid)) {
      OnStreamCreated(s, cd);
      return;
    }
    if (s->memory) s->memory->OnRuntimeCallback(cbid, data);
    return;
  }
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
    if (IsStreamCreate(kDriverStreamCreate, cbid)) {
      OnStreamCreated(s, cd);
      return;
    }
    if (s->memory) s->memory->OnDriverCallback(cbid, data);
  }
}

std::string ApiName(const CuptiApi* api, ApiDomain domain, uint32_t cbid) {
  const char* name = nullptr;
  CUpti_CallbackDomain d =
      domain == ApiDomain::kRuntime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API;
  if (api->cuptiGetCallbackName(d, cbid, &name) != CUPTI_SUCCESS || name == nullptr) return {};
  std::string s = name;
  if (domain == ApiDomain::kRuntime) {
    // Runtime callback names carry the API version ("cudaMemcpy_v3020");
    // store the function's name ("cudaMemcpy", "cudaLaunchKernel_ptsz").
    size_t v = s.rfind("_v");
    if (v != std::string::npos && v + 2 < s.size() &&
        s.find_first_not_of("0123456789", v + 2) == std::string::npos) {
      s.resize(v);
    }
  }
  return s;
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
};

void Undo(TracerState* s) {
  for (CUpti_ActivityKind k : s->enabled) s->api->cuptiActivityDisable(k);
  s->enabled.clear();
  if (s->subscriber != nullptr) {
    s->api->cuptiUnsubscribe(s->subscriber);
    s->subscriber = nullptr;
  }
  s->active = false;
}

}  // namespace

Status CuptiAvailable() { return LoadCupti().status(); }

std::string CuptiApiName(ApiDomain domain, uint32_t cbid) {
  StatusOr<const CuptiApi*> api = LoadCupti();
  if (!api.ok()) return {};
  return ApiName(*api, domain, cbid);
}

int ForwardNvtxInjection(const void* get_export_table) {
  StatusOr<const CuptiApi*> api = LoadCupti();
  if (!api.ok()) return 0;
  using InitFn = int (*)(const void*);
  auto init = reinterpret_cast<InitFn>(dlsym((*api)->handle, "InitializeInjectionNvtx2"));
  if (init == nullptr) return 0;
  // Start/end ranges are learned through CUPTI's NVTX callback domain
  // (OnNvtxStartEnd), not by wrapping NVTX's function table: after CUPTI's
  // InitializeInjectionNvtx2 its slots do not hold CUPTI functions (see
  // CUPTI_NOTES.md).
  return init(get_export_table);
}

namespace {

// Parameter layouts from the driver already loaded (CUDA >= 12.4). The
// runtime launches with a CUkernel handle cast to CUfunction (observed:
// cuFuncGetParamInfo rejects every runtime-launched handle), so a handle
// cuFuncGetParamInfo refuses is tried as a CUkernel.
using FuncGetParamInfoFn = CUresult (*)(CUfunction, size_t, size_t*, size_t*);
using KernelGetParamInfoFn = CUresult (*)(CUkernel, size_t, size_t*, size_t*);
struct LayoutApi {
  FuncGetParamInfoFn func = nullptr;
  KernelGetParamInfoFn kernel = nullptr;
};
const LayoutApi& GetLayoutApi() {
  static const LayoutApi api = [] {
    LayoutApi a;
    void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (cuda != nullptr) {
      a.func = reinterpret_cast<FuncGetParamInfoFn>(dlsym(cuda, "cuFuncGetParamInfo"));
      a.kernel = reinterpret_cast<KernelGetParamInfoFn>(dlsym(cuda, "cuKernelGetParamInfo"));
    }
    return a;
  }();
  return api;
}
std::atomic<int64_t> g_layouts_func{0}, g_layouts_kernel{0}, g_layout_error{0};

// Reads parameters 0, 1, ... until the driver says the index is past the
// end (CUDA_ERROR_INVALID_VALUE). A kernel without parameters fails at 0
// with that same error, which also means "not this kind of handle" for
// some handles: the caller treats an empty layout from index 0 as unknown
// unless no other reading works.
template <typename Get>
CUresult ReadLayout(Get get, ParamLayout* layout) {
  layout->clear();
  constexpr size_t kMaxParams = 4096;
  for (size_t i = 0; i < kMaxParams; ++i) {
    size_t offset = 0, size = 0;
    CUresult r = get(i, &offset, &size);
    if (r == CUDA_ERROR_INVALID_VALUE && i > 0) return CUDA_SUCCESS;
    if (r != CUDA_SUCCESS) return r;
    layout->push_back(ParamSlot{static_cast<uint32_t>(offset), static_cast<uint32_t>(size)});
  }
  return CUDA_SUCCESS;
}

bool KernelParamLayout(const void* function, ParamLayout* layout) {
  const LayoutApi& api = GetLayoutApi();
  CUresult r = CUDA_ERROR_NOT_SUPPORTED, rk = CUDA_ERROR_NOT_SUPPORTED;
  if (api.func != nullptr) {
    auto f = static_cast<CUfunction>(const_cast<void*>(function));
    r = ReadLayout([&](size_t i, size_t* o, size_t* n) { return api.func(f, i, o, n); }, layout);
    if (r == CUDA_SUCCESS) {
      g_layouts_func.fetch_add(1);
      return true;
    }
  }
  if (api.kernel != nullptr) {
    auto k = static_cast<CUkernel>(const_cast<void*>(function));
    rk = ReadLayout([&](size_t i, size_t* o, size_t* n) { return api.kernel(k, i, o, n); }, layout);
    if (rk == CUDA_SUCCESS) {
      g_layouts_kernel.fetch_add(1);
      return true;
    }
  }
  layout->clear();
  // Both refused index 0 as out of range: a kernel without parameters.
  if (r == CUDA_ERROR_INVALID_VALUE && (rk == CUDA_ERROR_INVALID_VALUE || api.kernel == nullptr)) {
    return true;
  }
  int64_t expected = 0;
  g_layout_error.compare_exchange_strong(expected, static_cast<int64_t>(r));
  return false;
}

void StartMemoryTracking(TracerState* s) {
  s->buffers = std::make_unique<CallbackBuffers>(s->writer);
  MemoryTracker::Hooks hooks;
  hooks.now = TraceNow;
  hooks.tid = CurrentTid;
  const CuptiApi* api = s->api;
  hooks.stream_id = [api](void* context, void* stream,
                          bool per_thread) -> std::optional<uint32_t> {
    uint32_t id = 0;
    if (api->cuptiGetStreamIdEx(static_cast<CUcontext>(context), static_cast<CUstream>(stream),
                                per_thread ? 1 : 0, &id) != CUPTI_SUCCESS) {
      return std::nullopt;
    }
    return id;
  };
  hooks.device_id = [api](void* context) -> std::optional<uint32_t> {
    uint32_t device = 0;
    if (context == nullptr ||
        api->cuptiGetDeviceId(static_cast<CUcontext>(context), &device) != CUPTI_SUCCESS) {
      return std::nullopt;
    }
    return device;
  };
  hooks.param_layout = KernelParamLayout;
  s->memory = std::make_unique<MemoryTracker>(std::move(hooks), s->buffers.get());
}

void FlushCallbackRecords(TracerState* s) {
  if (s->buffers) s->buffers->FlushAll();
}

}  // namespace

StatusOr<std::unique_ptr<CuptiTracer>> CuptiTracer::Start(const CollectorConfig& config,
                                                                TraceWriter* writer) {
  StatusOr<const CuptiApi*> loaded = LoadCupti();
  if (!loaded.ok()) return loaded.status();
  const CuptiApi& api = **loaded;
  if (g_state.load() != nullptr) return AlreadyExistsError("tracer already started");

  std::unique_ptr<CuptiTracer> tracer(new CuptiTracer());
  uint32_t version = 0;
  api.cuptiGetVersion(&version);
  tracer->cupti_version_ = StrCat(version);

  // Leaked on purpose: CUPTI may call back until the process ends.
  auto* s = new TracerState();
  s->api = &api;
  s->writer = writer;
  s->verbose = config.verbose;
  size_t buffer_bytes = static_cast<size_t>(config.buffer_kb) * 1024;
  size_t max_buffers = std::max<size_t>(
      2, static_cast<size_t>(config.max_buffer_mb) * 1024 * 1024 / buffer_bytes);
  s->pool = std::make_shared<BufferPool>(buffer_bytes, max_buffers);

  tracer->clock_domain_ = "cupti-default";
  if (config.clock == "monotonic-raw") {
    Status st = CuptiStatus(api, api.cuptiActivityRegisterTimestampCallback(MonotonicRawNs),
                                  "cuptiActivityRegisterTimestampCallback");
    if (st.ok()) {
      tracer->clock_domain_ = "monotonic-raw";
      g_monotonic_clock = true;
    } else {
      std::fprintf(stderr, "streamscope: keeping CUPTI's default clock: %s\n",
                   std::string(st.message()).c_str());
    }
  }
  // Thread ids as the OS knows them (gettid), matching /proc and debuggers.
  api.cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);

  if (auto st = CuptiStatus(api, api.cuptiSubscribe(&s->subscriber, OnCallback, nullptr),
                            "cuptiSubscribe");
      !st.ok()) {
    s->subscriber = nullptr;
    delete s;
    return st;
  }
  g_state.store(s);
  bool stream_tracking = true;
  auto enable_cb = [&](CUpti_CallbackDomain d, CUpti_CallbackId id) {
    return api.cuptiEnableCallback(1, s->subscriber, d, id) == CUPTI_SUCCESS;
  };
  enable_cb(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
  enable_cb(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
  enable_cb(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020);
  for (CUpti_CallbackId id : kRuntimeStreamCreate)
    stream_tracking &= enable_cb(CUPTI_CB_DOMAIN_RUNTIME_API, id);
  for (CUpti_CallbackId id : kDriverStreamCreate)
    stream_tracking &= enable_cb(CUPTI_CB_DOMAIN_DRIVER_API, id);
  writer->SetStreamCreationTracked(stream_tracking);
  if (config.kinds & kKindMemory) {
    StartMemoryTracking(s);
    int failed = 0;
    for (uint32_t id : MemoryTracker::RuntimeCallbackIds())
      failed += !enable_cb(CUPTI_CB_DOMAIN_RUNTIME_API, id);
    for (uint32_t id : MemoryTracker::DriverCallbackIds())
      failed += !enable_cb(CUPTI_CB_DOMAIN_DRIVER_API, id);
    if (failed > 0) {
      std::fprintf(stderr, "streamscope: %d memory-tracking callbacks could not be enabled\n",
                   failed);
    }
  }
  if (config.kinds & kKindNvtx) {
    for (CUpti_CallbackId id :
         {CUPTI_CBID_NVTX_nvtxRangeStartA, CUPTI_CBID_NVTX_nvtxRangeStartW,
          CUPTI_CBID_NVTX_nvtxRangeStartEx, CUPTI_CBID_NVTX_nvtxDomainRangeStartEx}) {
      s->nvtx_callbacks |= enable_cb(CUPTI_CB_DOMAIN_NVTX, id);
    }
  }

  if (config.device_buffer_kb > 0) {
    size_t bytes = static_cast<size_t>(config.device_buffer_kb) * 1024;
    size_t size = sizeof(bytes);
    if (auto st = CuptiStatus(api,
                              api.cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE,
                                                            &size, &bytes),
                              "device buffer size");
        !st.ok()) {
      std::fprintf(stderr, "streamscope: %s\n", std::string(st.message()).c_str());
    }
  }
  if (auto st = CuptiStatus(api, api.cuptiActivityRegisterCallbacks(BufferRequested, BufferCompleted),
                            "cuptiActivityRegisterCallbacks");
      !st.ok()) {
    Undo(s);
    return st;
  }
  s->active = true;
  std::vector<std::string> enabled_names;
  for (const KindMap& k : kKindMap) {
    if (!(config.kinds & k.our_kind)) continue;
    Status st = CuptiStatus(api, api.cuptiActivityEnable(k.cupti_kind),
                                  StrCat("enabling ", k.name, " records"));
    if (st.ok()) {
      s->enabled.push_back(k.cupti_kind);
      enabled_names.push_back(k.name);
      continue;
    }
    if (!st.ok() && st.code() == StatusCode::kFailedPrecondition) {  // another client took CUPTI
      Undo(s);
      return st;
    }
    if (k.our_kind == kKindKernel) {
      Undo(s);
      return st;
    }
    std::fprintf(stderr, "streamscope: %s records not recorded: %s\n", k.name,
                 std::string(st.message()).c_str());
  }
  if (s->memory) enabled_names.push_back("memory");
  tracer->enabled_kinds_ = StrJoin(enabled_names, ",");
  if (config.flush_ms > 0) {
    uint32_t period = config.flush_ms;
    s->flusher = std::thread([s, period] {
      std::unique_lock<std::mutex> lock(s->flusher_mu);
      while (!s->flusher_cv.wait_for(lock, std::chrono::milliseconds(period),
                                     [s] { return s->flusher_stop; })) {
        lock.unlock();
        if (s->active.load()) {
          FlushCallbackRecords(s);
          // Not forced: a forced flush hands over buffers whose records are
          // still incomplete, and a kernel queued or running at that moment
          // arrives with start = end = 0, lost for good (2 of 15,262 kernels
          // of a PyTorch run on the H200). Flag 0 returns every buffer whose
          // records are all complete, partly filled ones included.
          s->api->cuptiActivityFlushAll(0);
          s->writer->AddStat(Stat::kFlushes, 1);
        }
        lock.lock();
      }
    });
    if (auto st = CuptiStatus(api, api.cuptiActivityFlushPeriod(config.flush_ms),
                              "cuptiActivityFlushPeriod");
        !st.ok()) {
      std::fprintf(stderr, "streamscope: no periodic flush (a killed process loses more): %s\n",
                   std::string(st.message()).c_str());
    }
  }
  return tracer;
}

CuptiTracer::~CuptiTracer() { Stop(); }

uint64_t CuptiTracer::Now() const {
  if (clock_domain_ == "monotonic-raw") return MonotonicRawNs();
  TracerState* s = g_state.load();
  uint64_t ts = 0;
  if (s != nullptr) s->api->cuptiGetTimestamp(&ts);
  return ts;
}

void CuptiTracer::Flush() {
  TracerState* s = g_state.load();
  if (s == nullptr || !s->active.load()) return;
  FlushCallbackRecords(s);
  s->api->cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  s->writer->AddStat(Stat::kFlushes, 1);
}

void CuptiTracer::Stop() {
  if (stopped_) return;
  stopped_ = true;
  TracerState* s = g_state.load();
  if (s == nullptr || !s->active.load()) return;
  {
    std::lock_guard<std::mutex> lock(s->flusher_mu);
    s->flusher_stop = true;
  }
  s->flusher_cv.notify_all();
  if (s->flusher.joinable()) s->flusher.join();
  s->api->cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  for (CUpti_ActivityKind k : s->enabled) s->api->cuptiActivityDisable(k);
  s->enabled.clear();
  s->api->cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  s->writer->AddStat(Stat::kFlushes, 1);
  s->active = false;
  if (s->subscriber != nullptr) {
    s->api->cuptiUnsubscribe(s->subscriber);
    s->subscriber = nullptr;
  }
  // No callback adds records after the unsubscribe.
  FlushCallbackRecords(s);
  if (s->memory) {
    const MemoryTracker::Counters& c = s->memory->counters();
    s->writer->AddStat(Stat::kMemoryLaunches, c.launches.load());
    s->writer->AddStat(Stat::kMemoryLaunchesInRuntime, c.launches_in_runtime.load());
    s->writer->AddStat(Stat::kMemoryLaunchesWithoutLayout, c.launches_without_layout.load());
    s->writer->AddStat(Stat::kMemoryUntrackedFrees, c.untracked_frees.load());
    s->writer->AddStat(Stat::kMemoryLayoutsFunction, g_layouts_func.load());
    s->writer->AddStat(Stat::kMemoryLayoutsKernel, g_layouts_kernel.load());
    s->writer->AddStat(Stat::kMemoryLayoutError, g_layout_error.load());
  }
}

}  // namespace streamscope::collector
