#include "collector/cupti_library.h"

#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "collector/cupti_api.h"

#ifndef STREAMSCOPE_CUPTI_DIR
#define STREAMSCOPE_CUPTI_DIR "/usr/local/cuda/lib64"
#endif

namespace streamscope::collector {
namespace {

#define STREAMSCOPE_CUPTI_REQUIRED(X)       \
  X(cuptiGetVersion)                        \
  X(cuptiGetResultString)                   \
  X(cuptiSubscribe)                         \
  X(cuptiUnsubscribe)                       \
  X(cuptiEnableCallback)                    \
  X(cuptiActivityEnable)                    \
  X(cuptiActivityDisable)                   \
  X(cuptiActivityRegisterCallbacks)         \
  X(cuptiActivityFlushAll)                  \
  X(cuptiActivityFlushPeriod)               \
  X(cuptiActivityGetNextRecord)             \
  X(cuptiActivityGetNumDroppedRecords)      \
  X(cuptiActivitySetAttribute)              \
  X(cuptiActivityRegisterTimestampCallback) \
  X(cuptiGetTimestamp)                      \
  X(cuptiGetStreamIdEx)                     \
  X(cuptiGetDeviceId)                       \
  X(cuptiGetCallbackName)                   \
  X(cuptiSetThreadIdType)
// Newer than the rest: a CUPTI without it still records, without per-call
// driver records.
#define STREAMSCOPE_CUPTI_OPTIONAL(X) X(cuptiActivityEnableDriverApi) X(cuptiActivityEnableRuntimeApi)

// libcupti's functions, resolved with dlsym.
class DlopenedCupti final : public CuptiApi {
 public:
  void* handle = nullptr;
  std::string path;
#define STREAMSCOPE_CUPTI_FN(name) decltype(&::name) name = nullptr;
  STREAMSCOPE_CUPTI_REQUIRED(STREAMSCOPE_CUPTI_FN)
  STREAMSCOPE_CUPTI_OPTIONAL(STREAMSCOPE_CUPTI_FN)
#undef STREAMSCOPE_CUPTI_FN

  CUptiResult GetVersion(uint32_t* v) override { return cuptiGetVersion(v); }
  CUptiResult GetResultString(CUptiResult r, const char** t) override { return cuptiGetResultString(r, t); }
  CUptiResult GetCallbackName(CUpti_CallbackDomain d, uint32_t cbid, const char** n) override {
    return cuptiGetCallbackName(d, cbid, n);
  }
  CUptiResult GetTimestamp(uint64_t* ts) override { return cuptiGetTimestamp(ts); }
  CUptiResult GetStreamIdEx(CUcontext c, CUstream s, uint8_t pt, uint32_t* id) override {
    return cuptiGetStreamIdEx(c, s, pt, id);
  }
  CUptiResult GetDeviceId(CUcontext c, uint32_t* d) override { return cuptiGetDeviceId(c, d); }
  CUptiResult SetThreadIdType(CUpti_ActivityThreadIdType t) override { return cuptiSetThreadIdType(t); }
  CUptiResult Subscribe(CUpti_SubscriberHandle* s, CUpti_CallbackFunc f, void* u) override {
    return cuptiSubscribe(s, f, u);
  }
  CUptiResult Unsubscribe(CUpti_SubscriberHandle s) override { return cuptiUnsubscribe(s); }
  CUptiResult EnableCallback(uint32_t e, CUpti_SubscriberHandle s, CUpti_CallbackDomain d,
                             CUpti_CallbackId id) override {
    return cuptiEnableCallback(e, s, d, id);
  }
  CUptiResult ActivityEnable(CUpti_ActivityKind k) override { return cuptiActivityEnable(k); }
  CUptiResult ActivityDisable(CUpti_ActivityKind k) override { return cuptiActivityDisable(k); }
  CUptiResult ActivityEnableDriverApi(CUpti_CallbackId cbid, uint8_t e) override {
    if (cuptiActivityEnableDriverApi == nullptr) return CUPTI_ERROR_NOT_SUPPORTED;
    return cuptiActivityEnableDriverApi(cbid, e);
  }
  CUptiResult ActivityEnableRuntimeApi(CUpti_CallbackId cbid, uint8_t e) override {
    if (cuptiActivityEnableRuntimeApi == nullptr) return CUPTI_ERROR_NOT_SUPPORTED;
    return cuptiActivityEnableRuntimeApi(cbid, e);
  }
  CUptiResult ActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc r,
                                        CUpti_BuffersCallbackCompleteFunc c) override {
    return cuptiActivityRegisterCallbacks(r, c);
  }
  CUptiResult ActivityRegisterTimestampCallback(CUpti_TimestampCallbackFunc f) override {
    return cuptiActivityRegisterTimestampCallback(f);
  }
  CUptiResult ActivitySetAttribute(CUpti_ActivityAttribute a, size_t* s, void* v) override {
    return cuptiActivitySetAttribute(a, s, v);
  }
  CUptiResult ActivityFlushAll(uint32_t flag) override { return cuptiActivityFlushAll(flag); }
  CUptiResult ActivityFlushPeriod(uint32_t ms) override { return cuptiActivityFlushPeriod(ms); }
  CUptiResult ActivityGetNextRecord(uint8_t* b, size_t n, CUpti_Activity** r) override {
    return cuptiActivityGetNextRecord(b, n, r);
  }
  CUptiResult ActivityGetNumDroppedRecords(CUcontext c, uint32_t s, size_t* d) override {
    return cuptiActivityGetNumDroppedRecords(c, s, d);
  }
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

StatusOr<DlopenedCupti*> LoadCupti() {
  static std::once_flag once;
  static DlopenedCupti* api = new DlopenedCupti();  // never freed: CUPTI outlives us
  static Status status;
  std::call_once(once, [] {
    std::vector<std::string> tried;
    auto try_open = [&](const std::string& path, int extra) {
      if (api->handle != nullptr || path.empty()) return;
      tried.push_back(path);
      api->handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | extra);
      if (api->handle != nullptr) api->path = path;
    };
    if (const char* env = std::getenv("STREAMSCOPE_CUPTI_LIB"); env && *env) {
      // Named explicitly: use that one or none.
      try_open(env, 0);
      if (api->handle == nullptr) {
        status = NotFoundError(StrCat("CUPTI library not found: STREAMSCOPE_CUPTI_LIB=", env, " cannot be loaded (",
                                      dlerror() ? "dlopen failed" : "?", ")"));
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
    if (api->handle == nullptr) {
      status = NotFoundError(StrCat("CUPTI library not found (tried ", StrJoin(tried, ", "),
                                    "; set STREAMSCOPE_CUPTI_LIB to libcupti.so.13)"));
      return;
    }
    std::vector<std::string> missing;
#define STREAMSCOPE_CUPTI_SYM(name) api->name = reinterpret_cast<decltype(api->name)>(dlsym(api->handle, #name));
#define STREAMSCOPE_CUPTI_NEED(name) STREAMSCOPE_CUPTI_SYM(name) if (api->name == nullptr) missing.push_back(#name);
    STREAMSCOPE_CUPTI_REQUIRED(STREAMSCOPE_CUPTI_NEED)
    STREAMSCOPE_CUPTI_OPTIONAL(STREAMSCOPE_CUPTI_SYM)
#undef STREAMSCOPE_CUPTI_NEED
#undef STREAMSCOPE_CUPTI_SYM
    if (!missing.empty()) {
      status =
          FailedPreconditionError(StrCat("CUPTI at ", api->path, " lacks ", StrJoin(missing, ", "), " (too old?)"));
    }
  });
  if (!status.ok()) return status;
  return api;
}

}  // namespace

StatusOr<CuptiApi*> SystemCupti() {
  StatusOr<DlopenedCupti*> api = LoadCupti();
  if (!api.ok()) return api.status();
  return static_cast<CuptiApi*>(*api);
}

Status CuptiAvailable() { return LoadCupti().status(); }

int ForwardNvtxInjection(const void* get_export_table) {
  StatusOr<DlopenedCupti*> api = LoadCupti();
  if (!api.ok()) return 0;
  using InitFn = int (*)(const void*);
  auto init = reinterpret_cast<InitFn>(dlsym((*api)->handle, "InitializeInjectionNvtx2"));
  if (init == nullptr) return 0;
  // Start/end ranges are learned through CUPTI's NVTX callback domain
  // (cupti_callbacks.cc), not by wrapping NVTX's function table: after
  // CUPTI's InitializeInjectionNvtx2 its slots do not hold CUPTI functions
  // (see CUPTI_NOTES.md).
  return init(get_export_table);
}

}  // namespace streamscope::collector
