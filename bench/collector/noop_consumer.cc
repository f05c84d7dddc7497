// A no-op CUPTI consumer, injected like the collector (CUDA_INJECTION64_PATH):
// enables the same activity kinds and returns every buffer untouched. It
// measures what CUPTI itself costs, so the collector's own cost is the
// difference. NOOP_KINDS: comma list of kernel,memcpy,memset,sync,runtime,
// driver,nvtx,stream,context,overhead (the collector's default set without
// `memory` when unset), plus `memory`: subscribe to the callback API and
// enable the same runtime/driver callback ids the collector's memory
// tracking enables, with an empty callback (CUPTI's cost of calling back),
// and `launch_cb`: the runtime's launch and async-copy calls through the
// callback API instead of runtime-API records, each call's correlation id,
// id and enter/exit timestamps kept per thread (what a submitter needs),
// the count printed at exit (one subscriber: not with `memory`).
#include <cupti.h>

#include "collector/memory_tracker.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr size_t kBufferBytes = 4 << 20;

void CUPTIAPI Request(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = kBufferBytes;
  *max_records = 0;
}

void CUPTIAPI Complete(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t) { std::free(buffer); }

void AtExit() { cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED); }

void CUPTIAPI EmptyCallback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

// One submitting call as a callback sees it.
struct LaunchCall {
  uint32_t correlation, cbid;
  uint64_t start, end;
};
struct ThreadCalls {
  std::vector<LaunchCall> calls;
  uint64_t start = 0;
};
thread_local ThreadCalls* thread_calls = nullptr;
std::atomic<uint64_t> launch_calls{0};

void CUPTIAPI LaunchCallback(void*, CUpti_CallbackDomain, CUpti_CallbackId cbid, const void* data) {
  const auto* info = static_cast<const CUpti_CallbackData*>(data);
  if (thread_calls == nullptr) {
    thread_calls = new ThreadCalls;  // kept to the end: the records stay readable
    thread_calls->calls.reserve(1 << 20);
  }
  uint64_t now = 0;
  cuptiGetTimestamp(&now);
  if (info->callbackSite == CUPTI_API_ENTER) {
    thread_calls->start = now;
  } else {
    thread_calls->calls.push_back({info->correlationId, cbid, thread_calls->start, now});
    launch_calls.fetch_add(1, std::memory_order_relaxed);
  }
}

void PrintLaunchCalls() {
  std::fprintf(stderr, "noop_consumer: launch_cb calls=%llu\n", static_cast<unsigned long long>(launch_calls.load()));
}

bool Want(const std::string& kinds, const char* name) {
  return ("," + kinds + ",").find(std::string(",") + name + ",") != std::string::npos;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  const char* env = std::getenv("NOOP_KINDS");
  std::string kinds = env ? env : "kernel,memcpy,memset,sync,runtime,nvtx,stream,context,overhead";
  cuptiActivityRegisterCallbacks(Request, Complete);
  struct {
    const char* name;
    CUpti_ActivityKind kind;
  } map[] = {
      {"kernel", CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL},
      {"memcpy", CUPTI_ACTIVITY_KIND_MEMCPY},
      {"memcpy", CUPTI_ACTIVITY_KIND_MEMCPY2},
      {"memset", CUPTI_ACTIVITY_KIND_MEMSET},
      {"sync", CUPTI_ACTIVITY_KIND_SYNCHRONIZATION},
      {"runtime", CUPTI_ACTIVITY_KIND_RUNTIME},
      {"driver", CUPTI_ACTIVITY_KIND_DRIVER},
      {"nvtx", CUPTI_ACTIVITY_KIND_MARKER},
      {"stream", CUPTI_ACTIVITY_KIND_STREAM},
      {"context", CUPTI_ACTIVITY_KIND_CONTEXT},
      {"overhead", CUPTI_ACTIVITY_KIND_OVERHEAD},
  };
  for (auto& m : map) {
    if (Want(kinds, m.name)) cuptiActivityEnable(m.kind);
  }
  if (Want(kinds, "memory")) {
    CUpti_SubscriberHandle subscriber = nullptr;
    if (cuptiSubscribe(&subscriber, EmptyCallback, nullptr) == CUPTI_SUCCESS) {
      using streamscope::collector::MemoryTracker;
      for (uint32_t id : MemoryTracker::RuntimeCallbackIds())
        cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, id);
      for (uint32_t id : MemoryTracker::DriverCallbackIds())
        cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id);
    }
  }
  if (Want(kinds, "launch_cb")) {
    CUpti_SubscriberHandle subscriber = nullptr;
    if (cuptiSubscribe(&subscriber, LaunchCallback, nullptr) == CUPTI_SUCCESS) {
      for (CUpti_CallbackId id :
           {CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
            CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
            CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
            CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,
            CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000}) {
        cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, id);
      }
      std::atexit(PrintLaunchCalls);
    }
  }
  std::atexit(AtExit);
  return 1;
}
