#include "collector/memory_tracker.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti_callbacks.h>
#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>
#include <generated_cuda_runtime_api_meta.h>

#include <array>
#include <cstring>

namespace streamscope::collector {
namespace {

// Driver API parameter structs, as in CUPTI's generated_cuda_meta.h (which
// does not compile outside the driver's own build: it names the internal
// CUdeviceptr_v1 types).
struct cuMemcpyPeer_params {
  CUdeviceptr dstDevice;
  CUcontext dstContext;
  CUdeviceptr srcDevice;
  CUcontext srcContext;
  size_t ByteCount;
};
struct cuMemcpy2D_v2_params {
  const CUDA_MEMCPY2D* pCopy;
};
struct cuMemsetD32_v2_params {  // also D8/D16: the value is padded to 8 bytes
  CUdeviceptr dstDevice;
  unsigned int ui;
  size_t N;
};
struct cuMemsetD2D32_v2_params {  // also D2D8/D2D16
  CUdeviceptr dstDevice;
  size_t dstPitch;
  unsigned int ui;
  size_t Width;
  size_t Height;
};
struct cuLaunchKernel_params {
  CUfunction f;
  unsigned int gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes;
  CUstream hStream;
  void** kernelParams;
  void** extra;
};
struct cuLaunchKernelEx_params {
  const CUlaunchConfig* config;
  CUfunction f;
  void** kernelParams;
  void** extra;
};
struct cuLaunchCooperativeKernel_params {
  CUfunction f;
  unsigned int gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes;
  CUstream hStream;
  void** kernelParams;
};

// What a callback id does to memory; parameters are read through the
// generated_*_meta.h struct of the first id listed for each operation
// (variants such as _ptsz/_ptds/Async share its leading fields).
enum class Op : uint8_t {
  kNone,
  kAllocPtrSize,    // {T** out; size_t bytes; ...}
  kAllocPitch,      // {T** out; size_t* pitch; size_t width; size_t height; ...}
  kAllocAsync,      // {T** out; size_t bytes; stream}
  kAllocFromPool,   // {T** out; size_t bytes; pool; stream}
  kHostRegister,    // {void* p; size_t bytes; flags}
  kFree,            // {T p}
  kFreeAsync,       // {T p; stream}
  kCopy,            // {dst; src; size_t bytes; ...}
  kCopy2D,          // runtime 2D
  kCopy3D,          // runtime 3D (linear memory only)
  kCopyPeer,        // runtime peer
  kDriverCopyPeer,  // driver peer
  kDriverCopy2D,    // CUDA_MEMCPY2D
  kCopyToSymbol,
  kCopyFromSymbol,
  kSet,  // runtime {dst; int value; size_t bytes; ...}
  kSet2D,
  kSet3D,
  kDriverSet,  // cuMemsetD{8,16,32}: N elements
  kDriverSet2D,
  kEventRecord,    // {event; stream; ...}
  kStreamWait,     // {stream; event; flags}
  kEventSync,      // {event}
  kEventQuery,     // {event}
  kElapsed,        // {float* ms; start; end}
  kRuntimeLaunch,  // marks the enclosing runtime call only
  kLaunch,         // cuLaunchKernel
  kLaunchEx,       // cuLaunchKernelEx
  kLaunchCooperative,
};

struct CbInfo {
  Op op = Op::kNone;
  AllocationKind kind = AllocationKind::kDevice;
  uint8_t elem = 1;         // driver memset element size
  bool per_thread = false;  // a _ptsz/_ptds entry point: NULL stream = per-thread stream
};

bool NeedsTime(Op op) {
  switch (op) {
    case Op::kAllocPtrSize:
    case Op::kAllocPitch:
    case Op::kAllocAsync:
    case Op::kAllocFromPool:
    case Op::kHostRegister:
    case Op::kFree:
    case Op::kFreeAsync:
    case Op::kEventRecord:
    case Op::kStreamWait:
    case Op::kEventSync:
    case Op::kEventQuery:
    case Op::kElapsed: return true;
    default: return false;
  }
}
bool IsDriverLaunch(Op op) { return op == Op::kLaunch || op == Op::kLaunchEx || op == Op::kLaunchCooperative; }

struct Entry {
  uint32_t cbid;
  CbInfo info;
};
constexpr CbInfo I(Op op, AllocationKind kind = AllocationKind::kDevice) { return {op, kind, 1, false}; }
constexpr CbInfo P(Op op, AllocationKind kind = AllocationKind::kDevice) { return {op, kind, 1, true}; }
constexpr CbInfo E(Op op, uint8_t elem, bool per_thread = false) {
  return {op, AllocationKind::kDevice, elem, per_thread};
}
using K = AllocationKind;

constexpr Entry kRuntime[] = {
#define R(name) CUPTI_RUNTIME_TRACE_CBID_##name
    {R(cudaMalloc_v3020), I(Op::kAllocPtrSize, K::kDevice)},
    {R(cudaMallocHost_v3020), I(Op::kAllocPtrSize, K::kPinnedHost)},
    {R(cudaHostAlloc_v3020), I(Op::kAllocPtrSize, K::kPinnedHost)},
    {R(cudaMallocManaged_v6000), I(Op::kAllocPtrSize, K::kManaged)},
    {R(cudaMallocPitch_v3020), I(Op::kAllocPitch, K::kDevice)},
    {R(cudaMallocAsync_v11020), I(Op::kAllocAsync, K::kAsync)},
    {R(cudaMallocAsync_ptsz_v11020), P(Op::kAllocAsync, K::kAsync)},
    {R(cudaMallocFromPoolAsync_v11020), I(Op::kAllocFromPool, K::kPool)},
    {R(cudaMallocFromPoolAsync_ptsz_v11020), P(Op::kAllocFromPool, K::kPool)},
    {R(cudaHostRegister_v4000), I(Op::kHostRegister, K::kRegisteredHost)},
    {R(cudaFree_v3020), I(Op::kFree)},
    {R(cudaFreeHost_v3020), I(Op::kFree)},
    {R(cudaHostUnregister_v4000), I(Op::kFree)},
    {R(cudaFreeAsync_v11020), I(Op::kFreeAsync)},
    {R(cudaFreeAsync_ptsz_v11020), P(Op::kFreeAsync)},
    {R(cudaMemcpy_v3020), I(Op::kCopy)},
    {R(cudaMemcpy_ptds_v7000), P(Op::kCopy)},
    {R(cudaMemcpyAsync_v3020), I(Op::kCopy)},
    {R(cudaMemcpyAsync_ptsz_v7000), P(Op::kCopy)},
    {R(cudaMemcpy2D_v3020), I(Op::kCopy2D)},
    {R(cudaMemcpy2D_ptds_v7000), P(Op::kCopy2D)},
    {R(cudaMemcpy2DAsync_v3020), I(Op::kCopy2D)},
    {R(cudaMemcpy2DAsync_ptsz_v7000), P(Op::kCopy2D)},
    {R(cudaMemcpy3D_v3020), I(Op::kCopy3D)},
    {R(cudaMemcpy3D_ptds_v7000), P(Op::kCopy3D)},
    {R(cudaMemcpy3DAsync_v3020), I(Op::kCopy3D)},
    {R(cudaMemcpy3DAsync_ptsz_v7000), P(Op::kCopy3D)},
    {R(cudaMemcpyPeer_v4000), I(Op::kCopyPeer)},
    {R(cudaMemcpyPeerAsync_v4000), I(Op::kCopyPeer)},
    {R(cudaMemcpyToSymbol_v3020), I(Op::kCopyToSymbol)},
    {R(cudaMemcpyToSymbol_ptds_v7000), P(Op::kCopyToSymbol)},
    {R(cudaMemcpyToSymbolAsync_v3020), I(Op::kCopyToSymbol)},
    {R(cudaMemcpyToSymbolAsync_ptsz_v7000), P(Op::kCopyToSymbol)},
    {R(cudaMemcpyFromSymbol_v3020), I(Op::kCopyFromSymbol)},
    {R(cudaMemcpyFromSymbol_ptds_v7000), P(Op::kCopyFromSymbol)},
    {R(cudaMemcpyFromSymbolAsync_v3020), I(Op::kCopyFromSymbol)},
    {R(cudaMemcpyFromSymbolAsync_ptsz_v7000), P(Op::kCopyFromSymbol)},
    {R(cudaMemset_v3020), I(Op::kSet)},
    {R(cudaMemset_ptds_v7000), P(Op::kSet)},
    {R(cudaMemsetAsync_v3020), I(Op::kSet)},
    {R(cudaMemsetAsync_ptsz_v7000), P(Op::kSet)},
    {R(cudaMemset2D_v3020), I(Op::kSet2D)},
    {R(cudaMemset2D_ptds_v7000), P(Op::kSet2D)},
    {R(cudaMemset2DAsync_v3020), I(Op::kSet2D)},
    {R(cudaMemset2DAsync_ptsz_v7000), P(Op::kSet2D)},
    {R(cudaMemset3D_v3020), I(Op::kSet3D)},
    {R(cudaMemset3D_ptds_v7000), P(Op::kSet3D)},
    {R(cudaMemset3DAsync_v3020), I(Op::kSet3D)},
    {R(cudaMemset3DAsync_ptsz_v7000), P(Op::kSet3D)},
    {R(cudaEventRecord_v3020), I(Op::kEventRecord)},
    {R(cudaEventRecord_ptsz_v7000), P(Op::kEventRecord)},
    {R(cudaEventRecordWithFlags_v11010), I(Op::kEventRecord)},
    {R(cudaEventRecordWithFlags_ptsz_v11010), P(Op::kEventRecord)},
    {R(cudaStreamWaitEvent_v3020), I(Op::kStreamWait)},
    {R(cudaStreamWaitEvent_ptsz_v7000), P(Op::kStreamWait)},
    {R(cudaEventSynchronize_v3020), I(Op::kEventSync)},
    {R(cudaEventQuery_v3020), I(Op::kEventQuery)},
    {R(cudaEventElapsedTime_v3020), I(Op::kElapsed)},
    {R(cudaEventElapsedTime_v12080), I(Op::kElapsed)},
    {R(cudaLaunchKernel_v7000), I(Op::kRuntimeLaunch)},
    {R(cudaLaunchKernel_ptsz_v7000), P(Op::kRuntimeLaunch)},
    {R(cudaLaunchKernelExC_v11060), I(Op::kRuntimeLaunch)},
    {R(cudaLaunchKernelExC_ptsz_v11060), P(Op::kRuntimeLaunch)},
    {R(cudaLaunchCooperativeKernel_v9000), I(Op::kRuntimeLaunch)},
    {R(cudaLaunchCooperativeKernel_ptsz_v9000), P(Op::kRuntimeLaunch)},
#undef R
};

constexpr Entry kDriver[] = {
#define D(name) CUPTI_DRIVER_TRACE_CBID_##name
    {D(cuMemAlloc_v2), I(Op::kAllocPtrSize, K::kDevice)},
    {D(cuMemAllocManaged), I(Op::kAllocPtrSize, K::kManaged)},
    {D(cuMemAllocHost_v2), I(Op::kAllocPtrSize, K::kPinnedHost)},
    {D(cuMemHostAlloc), I(Op::kAllocPtrSize, K::kPinnedHost)},
    {D(cuMemAllocPitch_v2), I(Op::kAllocPitch, K::kDevice)},
    {D(cuMemAllocAsync), I(Op::kAllocAsync, K::kAsync)},
    {D(cuMemAllocAsync_ptsz), P(Op::kAllocAsync, K::kAsync)},
    {D(cuMemAllocFromPoolAsync), I(Op::kAllocFromPool, K::kPool)},
    {D(cuMemAllocFromPoolAsync_ptsz), P(Op::kAllocFromPool, K::kPool)},
    {D(cuMemHostRegister_v2), I(Op::kHostRegister, K::kRegisteredHost)},
    {D(cuMemFree_v2), I(Op::kFree)},
    {D(cuMemFreeHost), I(Op::kFree)},
    {D(cuMemHostUnregister), I(Op::kFree)},
    {D(cuMemFreeAsync), I(Op::kFreeAsync)},
    {D(cuMemFreeAsync_ptsz), P(Op::kFreeAsync)},
    {D(cuMemcpy), I(Op::kCopy)},
    {D(cuMemcpy_ptds), P(Op::kCopy)},
    {D(cuMemcpyAsync), I(Op::kCopy)},
    {D(cuMemcpyAsync_ptsz), P(Op::kCopy)},
    {D(cuMemcpyHtoD_v2), I(Op::kCopy)},
    {D(cuMemcpyHtoD_v2_ptds), P(Op::kCopy)},
    {D(cuMemcpyHtoDAsync_v2), I(Op::kCopy)},
    {D(cuMemcpyHtoDAsync_v2_ptsz), P(Op::kCopy)},
    {D(cuMemcpyDtoH_v2), I(Op::kCopy)},
    {D(cuMemcpyDtoH_v2_ptds), P(Op::kCopy)},
    {D(cuMemcpyDtoHAsync_v2), I(Op::kCopy)},
    {D(cuMemcpyDtoHAsync_v2_ptsz), P(Op::kCopy)},
    {D(cuMemcpyDtoD_v2), I(Op::kCopy)},
    {D(cuMemcpyDtoD_v2_ptds), P(Op::kCopy)},
    {D(cuMemcpyDtoDAsync_v2), I(Op::kCopy)},
    {D(cuMemcpyDtoDAsync_v2_ptsz), P(Op::kCopy)},
    {D(cuMemcpyPeer), I(Op::kDriverCopyPeer)},
    {D(cuMemcpyPeer_ptds), P(Op::kDriverCopyPeer)},
    {D(cuMemcpyPeerAsync), I(Op::kDriverCopyPeer)},
    {D(cuMemcpyPeerAsync_ptsz), P(Op::kDriverCopyPeer)},
    {D(cuMemcpy2D_v2), I(Op::kDriverCopy2D)},
    {D(cuMemcpy2D_v2_ptds), P(Op::kDriverCopy2D)},
    {D(cuMemcpy2DUnaligned_v2), I(Op::kDriverCopy2D)},
    {D(cuMemcpy2DUnaligned_v2_ptds), P(Op::kDriverCopy2D)},
    {D(cuMemcpy2DAsync_v2), I(Op::kDriverCopy2D)},
    {D(cuMemcpy2DAsync_v2_ptsz), P(Op::kDriverCopy2D)},
    {D(cuMemsetD8_v2), E(Op::kDriverSet, 1)},
    {D(cuMemsetD8_v2_ptds), E(Op::kDriverSet, 1, true)},
    {D(cuMemsetD8Async), E(Op::kDriverSet, 1)},
    {D(cuMemsetD8Async_ptsz), E(Op::kDriverSet, 1, true)},
    {D(cuMemsetD16_v2), E(Op::kDriverSet, 2)},
    {D(cuMemsetD16_v2_ptds), E(Op::kDriverSet, 2, true)},
    {D(cuMemsetD16Async), E(Op::kDriverSet, 2)},
    {D(cuMemsetD16Async_ptsz), E(Op::kDriverSet, 2, true)},
    {D(cuMemsetD32_v2), E(Op::kDriverSet, 4)},
    {D(cuMemsetD32_v2_ptds), E(Op::kDriverSet, 4, true)},
    {D(cuMemsetD32Async), E(Op::kDriverSet, 4)},
    {D(cuMemsetD32Async_ptsz), E(Op::kDriverSet, 4, true)},
    {D(cuMemsetD2D8_v2), E(Op::kDriverSet2D, 1)},
    {D(cuMemsetD2D8_v2_ptds), E(Op::kDriverSet2D, 1, true)},
    {D(cuMemsetD2D8Async), E(Op::kDriverSet2D, 1)},
    {D(cuMemsetD2D8Async_ptsz), E(Op::kDriverSet2D, 1, true)},
    {D(cuMemsetD2D16_v2), E(Op::kDriverSet2D, 2)},
    {D(cuMemsetD2D16_v2_ptds), E(Op::kDriverSet2D, 2, true)},
    {D(cuMemsetD2D16Async), E(Op::kDriverSet2D, 2)},
    {D(cuMemsetD2D16Async_ptsz), E(Op::kDriverSet2D, 2, true)},
    {D(cuMemsetD2D32_v2), E(Op::kDriverSet2D, 4)},
    {D(cuMemsetD2D32_v2_ptds), E(Op::kDriverSet2D, 4, true)},
    {D(cuMemsetD2D32Async), E(Op::kDriverSet2D, 4)},
    {D(cuMemsetD2D32Async_ptsz), E(Op::kDriverSet2D, 4, true)},
    {D(cuLaunchKernel), I(Op::kLaunch)},
    {D(cuLaunchKernel_ptsz), P(Op::kLaunch)},
    {D(cuLaunchKernelEx), I(Op::kLaunchEx)},
    {D(cuLaunchKernelEx_ptsz), P(Op::kLaunchEx)},
    {D(cuLaunchCooperativeKernel), I(Op::kLaunchCooperative)},
    {D(cuLaunchCooperativeKernel_ptsz), P(Op::kLaunchCooperative)},
    {D(cuEventRecord), I(Op::kEventRecord)},
    {D(cuEventRecord_ptsz), P(Op::kEventRecord)},
    {D(cuEventRecordWithFlags), I(Op::kEventRecord)},
    {D(cuEventRecordWithFlags_ptsz), P(Op::kEventRecord)},
    {D(cuStreamWaitEvent), I(Op::kStreamWait)},
    {D(cuStreamWaitEvent_ptsz), P(Op::kStreamWait)},
    {D(cuEventSynchronize), I(Op::kEventSync)},
    {D(cuEventQuery), I(Op::kEventQuery)},
    {D(cuEventElapsedTime), I(Op::kElapsed)},
    {D(cuEventElapsedTime_v2), I(Op::kElapsed)},
#undef D
};

template <size_t N, size_t M>
std::array<CbInfo, N> BuildTable(const Entry (&entries)[M]) {
  std::array<CbInfo, N> t{};
  for (const Entry& e : entries) {
    if (e.cbid < N) t[e.cbid] = e.info;
  }
  return t;
}
const auto kRuntimeTable = BuildTable<CUPTI_RUNTIME_TRACE_CBID_SIZE>(kRuntime);
const auto kDriverTable = BuildTable<CUPTI_DRIVER_TRACE_CBID_SIZE>(kDriver);

// The runtime call this thread is inside (0: none), between its enter and
// exit callbacks.
thread_local uint32_t tl_runtime_correlation = 0;

bool Succeeded(const CUpti_CallbackData* cd) {
  return cd->functionReturnValue != nullptr && *static_cast<const int*>(cd->functionReturnValue) == 0;
}

uint64_t U(const void* p) { return reinterpret_cast<uint64_t>(p); }

// Bytes spanned by `rows` rows of `width` bytes, `pitch` apart.
uint64_t Span2D(uint64_t pitch, uint64_t width, uint64_t rows) {
  if (width == 0 || rows == 0) return 0;
  return pitch * (rows - 1) + width;
}

}  // namespace

struct MemoryTracker::Call {
  const CUpti_CallbackData* cd;
  CbInfo info;
  uint32_t correlation_id;
  uint64_t start_ns;
  const void* params() const { return cd->functionParams; }
};

MemoryTracker::MemoryTracker(Hooks hooks, RecordSink* sink)
    : hooks_(std::move(hooks)), sink_(sink), layouts_(hooks_.param_layout) {}

std::vector<uint32_t> MemoryTracker::RuntimeCallbackIds() {
  std::vector<uint32_t> ids;
  for (const Entry& e : kRuntime) ids.push_back(e.cbid);
  return ids;
}

std::vector<uint32_t> MemoryTracker::DriverCallbackIds() {
  std::vector<uint32_t> ids;
  for (const Entry& e : kDriver) ids.push_back(e.cbid);
  return ids;
}

void MemoryTracker::OnRuntimeCallback(uint32_t cbid, const void* data) {
  if (cbid >= kRuntimeTable.size() || kRuntimeTable[cbid].op == Op::kNone) return;
  const auto* cd = static_cast<const CUpti_CallbackData*>(data);
  const CbInfo& info = kRuntimeTable[cbid];
  if (cd->callbackSite == CUPTI_API_ENTER) {
    if (tl_runtime_correlation == 0) tl_runtime_correlation = cd->correlationId;
    if (NeedsTime(info.op) && cd->correlationData != nullptr) *cd->correlationData = hooks_.now();
    return;
  }
  if (tl_runtime_correlation == cd->correlationId) tl_runtime_correlation = 0;
  if (info.op == Op::kRuntimeLaunch || !Succeeded(cd)) return;
  Call call{cd, info, cd->correlationId, cd->correlationData ? *cd->correlationData : 0};
  Handle(true, cbid, call);
}

void MemoryTracker::OnDriverCallback(uint32_t cbid, const void* data) {
  if (cbid >= kDriverTable.size() || kDriverTable[cbid].op == Op::kNone) return;
  const auto* cd = static_cast<const CUpti_CallbackData*>(data);
  const CbInfo& info = kDriverTable[cbid];
  uint32_t outer = tl_runtime_correlation;
  // Inside a runtime call the runtime callback already saw the operation;
  // only launches need the driver's view (function handle, arguments).
  if (outer != 0 && !IsDriverLaunch(info.op)) return;
  if (cd->callbackSite == CUPTI_API_ENTER) {
    if (NeedsTime(info.op) && cd->correlationData != nullptr) *cd->correlationData = hooks_.now();
    return;
  }
  if (!Succeeded(cd)) return;
  Call call{cd, info, outer != 0 ? outer : cd->correlationId, cd->correlationData ? *cd->correlationData : 0};
  if (IsDriverLaunch(info.op) && outer != 0) counters_.launches_in_runtime.fetch_add(1, std::memory_order_relaxed);
  Handle(false, cbid, call);
}

std::optional<uint32_t> MemoryTracker::StreamId(const Call& call, void* stream) {
  if (!hooks_.stream_id) return std::nullopt;
  // cudaStreamLegacy (0x1) and cudaStreamPerThread (0x2) are handles with
  // a fixed meaning, not streams CUPTI knows by address.
  bool per_thread = call.info.per_thread;
  if (stream == reinterpret_cast<void*>(0x1)) {
    stream = nullptr;
    per_thread = false;
  } else if (stream == reinterpret_cast<void*>(0x2)) {
    stream = nullptr;
    per_thread = true;
  }
  return hooks_.stream_id(call.cd->context, stream, per_thread);
}

void MemoryTracker::Alloc(const Call& call, AllocationKind kind, uint64_t address, uint64_t bytes, void* stream) {
  if (address == 0 || bytes == 0) return;
  AllocationRecord r;
  r.id = next_allocation_id_.fetch_add(1, std::memory_order_relaxed);
  r.kind = kind;
  r.address = address;
  r.bytes = bytes;
  if (kind != AllocationKind::kPinnedHost && kind != AllocationKind::kRegisteredHost && hooks_.device_id) {
    r.device_id = hooks_.device_id(call.cd->context);
  }
  if (kind == AllocationKind::kAsync || kind == AllocationKind::kPool) r.stream_id = StreamId(call, stream);
  r.alloc_ns = call.start_ns;
  r.correlation_id = call.correlation_id;
  live_.Insert(r.id, address, bytes);
  sink_->Add(std::move(r));
}

void MemoryTracker::Free(const Call& call, uint64_t address, void* stream) {
  if (address == 0) return;
  std::optional<LiveAllocation> a = live_.Remove(address);
  if (!a.has_value()) {
    counters_.untracked_frees.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  FreeRecord r;
  r.id = a->id;
  r.free_ns = call.start_ns;
  r.correlation_id = call.correlation_id;
  if (call.info.op == Op::kFreeAsync) r.stream_id = StreamId(call, stream);
  sink_->Add(std::move(r));
}

void MemoryTracker::Touch(const Call& call, uint64_t address, uint64_t bytes, Access access) {
  if (address == 0 || bytes == 0) return;
  MemoryAccessRecord r;
  r.correlation_id = call.correlation_id;
  r.address = address;
  r.bytes = bytes;
  r.access = access;
  if (std::optional<LiveAllocation> a = live_.Find(address)) r.allocation_id = a->id;
  sink_->Add(std::move(r));
}

void MemoryTracker::Event(const Call& call, EventOpKind op, const void* event, void* stream, const void* other,
                          std::optional<double> ms) {
  EventOpRecord r;
  r.op = op;
  r.event_handle = U(event);
  if (other != nullptr) r.other_event = U(other);
  if (op == EventOpKind::kRecord || op == EventOpKind::kWait) r.stream_id = StreamId(call, stream);
  r.tid = hooks_.tid ? hooks_.tid() : 0;
  r.ts_ns = call.start_ns;
  r.correlation_id = call.correlation_id;
  r.elapsed_ms = ms;
  sink_->Add(std::move(r));
}

void MemoryTracker::Launch(const Call& call, const void* function, void* const* params, void* const* extra) {
  counters_.launches.fetch_add(1, std::memory_order_relaxed);
  if (function == nullptr || (params == nullptr && extra == nullptr)) return;
  const ParamLayout* layout = layouts_.Get(function);
  if (layout == nullptr) {
    counters_.launches_without_layout.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  AttributeKernelArgs(*layout, params, extra, live_, call.correlation_id,
                      [this](MemoryAccessRecord r) { sink_->Add(std::move(r)); });
}

// Kept whole: one short case per callback kind, a dispatch table read top to bottom.
void MemoryTracker::Handle(bool runtime, uint32_t, const Call& call) {
  const void* p = call.params();
  if (p == nullptr) return;
  switch (call.info.op) {
    case Op::kNone:
    case Op::kRuntimeLaunch: return;
    case Op::kAllocPtrSize: {
      const auto* a = static_cast<const cudaMalloc_v3020_params*>(p);
      if (a->devPtr != nullptr) Alloc(call, call.info.kind, U(*a->devPtr), a->size, nullptr);
      return;
    }
    case Op::kAllocPitch: {
      const auto* a = static_cast<const cudaMallocPitch_v3020_params*>(p);
      if (a->devPtr != nullptr && a->pitch != nullptr)
        Alloc(call, call.info.kind, U(*a->devPtr), *a->pitch * a->height, nullptr);
      return;
    }
    case Op::kAllocAsync: {
      const auto* a = static_cast<const cudaMallocAsync_v11020_params*>(p);
      if (a->devPtr != nullptr) Alloc(call, call.info.kind, U(*a->devPtr), a->size, a->hStream);
      return;
    }
    case Op::kAllocFromPool: {
      const auto* a = static_cast<const cudaMallocFromPoolAsync_v11020_params*>(p);
      if (a->ptr != nullptr) Alloc(call, call.info.kind, U(*a->ptr), a->size, a->stream);
      return;
    }
    case Op::kHostRegister: {
      const auto* a = static_cast<const cudaHostRegister_v4000_params*>(p);
      Alloc(call, call.info.kind, U(a->ptr), a->size, nullptr);
      return;
    }
    case Op::kFree: Free(call, U(static_cast<const cudaFree_v3020_params*>(p)->devPtr), nullptr); return;
    case Op::kFreeAsync: {
      const auto* a = static_cast<const cudaFreeAsync_v11020_params*>(p);
      Free(call, U(a->devPtr), a->hStream);
      return;
    }
    case Op::kCopy: {
      const auto* a = static_cast<const cudaMemcpy_v3020_params*>(p);
      Touch(call, U(a->src), a->count, Access::kRead);
      Touch(call, U(a->dst), a->count, Access::kWrite);
      return;
    }
    case Op::kCopy2D: {
      const auto* a = static_cast<const cudaMemcpy2D_v3020_params*>(p);
      Touch(call, U(a->src), Span2D(a->spitch, a->width, a->height), Access::kRead);
      Touch(call, U(a->dst), Span2D(a->dpitch, a->width, a->height), Access::kWrite);
      return;
    }
    case Op::kCopy3D: {
      const cudaMemcpy3DParms* m = static_cast<const cudaMemcpy3D_v3020_params*>(p)->p;
      // Arrays have no linear range; with one array side, extent.width is
      // in elements, so neither side's byte range is known.
      if (m == nullptr || m->srcArray != nullptr || m->dstArray != nullptr) return;
      const cudaExtent& e = m->extent;
      auto side = [&](const cudaPitchedPtr& ptr, const cudaPos& pos, Access access) {
        if (ptr.ptr == nullptr || e.depth == 0) return;
        uint64_t start = U(ptr.ptr) + (pos.z * ptr.ysize + pos.y) * ptr.pitch + pos.x;
        uint64_t rows = (e.depth - 1) * ptr.ysize + e.height;
        Touch(call, start, Span2D(ptr.pitch, e.width, rows), access);
      };
      side(m->srcPtr, m->srcPos, Access::kRead);
      side(m->dstPtr, m->dstPos, Access::kWrite);
      return;
    }
    case Op::kCopyPeer: {
      const auto* a = static_cast<const cudaMemcpyPeer_v4000_params*>(p);
      Touch(call, U(a->src), a->count, Access::kRead);
      Touch(call, U(a->dst), a->count, Access::kWrite);
      return;
    }
    case Op::kDriverCopyPeer: {
      const auto* a = static_cast<const cuMemcpyPeer_params*>(p);
      Touch(call, a->srcDevice, a->ByteCount, Access::kRead);
      Touch(call, a->dstDevice, a->ByteCount, Access::kWrite);
      return;
    }
    case Op::kDriverCopy2D: {
      const CUDA_MEMCPY2D* m = static_cast<const cuMemcpy2D_v2_params*>(p)->pCopy;
      if (m == nullptr) return;
      auto base = [](CUmemorytype type, const void* host, CUdeviceptr device) -> uint64_t {
        if (type == CU_MEMORYTYPE_HOST) return U(host);
        if (type == CU_MEMORYTYPE_DEVICE || type == CU_MEMORYTYPE_UNIFIED) return device;
        return 0;  // array
      };
      uint64_t src = base(m->srcMemoryType, m->srcHost, m->srcDevice);
      uint64_t dst = base(m->dstMemoryType, m->dstHost, m->dstDevice);
      if (src != 0)
        Touch(call, src + m->srcY * m->srcPitch + m->srcXInBytes, Span2D(m->srcPitch, m->WidthInBytes, m->Height),
              Access::kRead);
      if (dst != 0)
        Touch(call, dst + m->dstY * m->dstPitch + m->dstXInBytes, Span2D(m->dstPitch, m->WidthInBytes, m->Height),
              Access::kWrite);
      return;
    }
    case Op::kCopyToSymbol: {
      const auto* a = static_cast<const cudaMemcpyToSymbol_v3020_params*>(p);
      // The symbol's device side would need cudaGetSymbolAddress inside
      // the callback, which CUPTI records as a second api_call under this
      // call's correlation id: only the host side is recorded.
      Touch(call, U(a->src), a->count, Access::kRead);
      return;
    }
    case Op::kCopyFromSymbol: {
      const auto* a = static_cast<const cudaMemcpyFromSymbol_v3020_params*>(p);
      Touch(call, U(a->dst), a->count, Access::kWrite);
      return;
    }
    case Op::kSet: {
      const auto* a = static_cast<const cudaMemset_v3020_params*>(p);
      Touch(call, U(a->devPtr), a->count, Access::kWrite);
      return;
    }
    case Op::kSet2D: {
      const auto* a = static_cast<const cudaMemset2D_v3020_params*>(p);
      Touch(call, U(a->devPtr), Span2D(a->pitch, a->width, a->height), Access::kWrite);
      return;
    }
    case Op::kSet3D: {
      const auto* a = static_cast<const cudaMemset3D_v3020_params*>(p);
      const cudaPitchedPtr& ptr = a->pitchedDevPtr;
      const cudaExtent& e = a->extent;
      if (e.depth == 0) return;
      Touch(call, U(ptr.ptr), Span2D(ptr.pitch, e.width, (e.depth - 1) * ptr.ysize + e.height), Access::kWrite);
      return;
    }
    case Op::kDriverSet: {
      // cuMemsetD8/D16/D32 share {dst; value; size_t N} at the same offsets.
      const auto* a = static_cast<const cuMemsetD32_v2_params*>(p);
      Touch(call, a->dstDevice, a->N * call.info.elem, Access::kWrite);
      return;
    }
    case Op::kDriverSet2D: {
      const auto* a = static_cast<const cuMemsetD2D32_v2_params*>(p);
      Touch(call, a->dstDevice, Span2D(a->dstPitch, a->Width * call.info.elem, a->Height), Access::kWrite);
      return;
    }
    case Op::kEventRecord: {
      const auto* a = static_cast<const cudaEventRecord_v3020_params*>(p);
      Event(call, EventOpKind::kRecord, a->event, a->stream);
      return;
    }
    case Op::kStreamWait: {
      const auto* a = static_cast<const cudaStreamWaitEvent_v3020_params*>(p);
      Event(call, EventOpKind::kWait, a->event, a->stream);
      return;
    }
    case Op::kEventSync:
      Event(call, EventOpKind::kSynchronize, static_cast<const cudaEventSynchronize_v3020_params*>(p)->event, nullptr);
      return;
    case Op::kEventQuery:
      Event(call, EventOpKind::kQuery, static_cast<const cudaEventQuery_v3020_params*>(p)->event, nullptr);
      return;
    case Op::kElapsed: {
      const auto* a = static_cast<const cudaEventElapsedTime_v12080_params*>(p);
      std::optional<double> ms;
      if (a->ms != nullptr) ms = *a->ms;
      Event(call, EventOpKind::kElapsed, a->start, nullptr, a->end, ms);
      return;
    }
    case Op::kLaunch: {
      const auto* a = static_cast<const cuLaunchKernel_params*>(p);
      Launch(call, a->f, a->kernelParams, a->extra);
      return;
    }
    case Op::kLaunchEx: {
      const auto* a = static_cast<const cuLaunchKernelEx_params*>(p);
      Launch(call, a->f, a->kernelParams, a->extra);
      return;
    }
    case Op::kLaunchCooperative: {
      const auto* a = static_cast<const cuLaunchCooperativeKernel_params*>(p);
      Launch(call, a->f, a->kernelParams, nullptr);
      return;
    }
  }
  (void)runtime;
}

}  // namespace streamscope::collector
