// Runtime calls left out of the runtime API records by default (record kind
// `runtime-all` keeps them): they read the runtime's or the driver's
// host-side state and return. None submits GPU work, waits for it,
// allocates, frees or creates anything, so no op, sync, allocation or
// stream needs them, and no analysis reads them. They are most of the API
// records of framework code: PyTorch calls cudaGetDevice and
// cudaGetLastError around every launch (82,022 of 102,533 runtime records in
// a 20k-op loop), each record costing as much as the launch's own.
//
// Kept on purpose although they look like queries: cudaStreamQuery and
// cudaEventQuery (they poll the GPU; a polling loop is host time the
// analyzer attributes), cudaMemGetInfo, cudaSetDevice (may create a context),
// and calls that take a kernel (cudaFuncGetAttributes, cudaGetFuncBySymbol,
// cudaGetKernel, cudaOccupancy*, cudaGetSymbolAddress/Size): with lazy
// module loading they can load a module, which takes time and device memory.
//
// Disabled one by one with cuptiActivityEnableRuntimeApi(cbid, 0) after the
// RUNTIME kind is enabled: a call missing here is recorded, never lost.
#include "collector/runtime_query_cbids.h"

#include <cupti_runtime_cbid.h>

#include <iterator>

namespace streamscope::collector {
namespace {

constexpr uint32_t kIds[] = {
    // Device, version and error state.
    CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetDeviceCount_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetDeviceFlags_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetDeviceProperties_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetDeviceProperties_v12000,
    CUPTI_RUNTIME_TRACE_CBID_cudaDeviceGetAttribute_v5000,
    CUPTI_RUNTIME_TRACE_CBID_cudaDeviceGetByPCIBusId_v4010,
    CUPTI_RUNTIME_TRACE_CBID_cudaDeviceGetPCIBusId_v4010,
    CUPTI_RUNTIME_TRACE_CBID_cudaDeviceGetP2PAttribute_v8000,
    CUPTI_RUNTIME_TRACE_CBID_cudaDeviceGetHostAtomicCapabilities_v13000,
    CUPTI_RUNTIME_TRACE_CBID_cudaDeviceGetP2PAtomicCapabilities_v13000,
    CUPTI_RUNTIME_TRACE_CBID_cudaDeviceGetTexture1DLinearMaxWidth_v11010,
    CUPTI_RUNTIME_TRACE_CBID_cudaDeviceGetStreamPriorityRange_v5050,
    CUPTI_RUNTIME_TRACE_CBID_cudaDeviceGetLimit_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaDeviceGetCacheConfig_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaDeviceGetSharedMemConfig_v4020,
    CUPTI_RUNTIME_TRACE_CBID_cudaDeviceGetGraphMemAttribute_v11040,
    CUPTI_RUNTIME_TRACE_CBID_cudaThreadGetLimit_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaThreadGetCacheConfig_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaDriverGetVersion_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaRuntimeGetVersion_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaPeekAtLastError_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetErrorString_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetErrorName_v6050,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetExportTable_v13000,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetDriverEntryPoint_v11030,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetDriverEntryPoint_ptsz_v11030,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetDriverEntryPointByVersion_v12050,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetDriverEntryPointByVersion_ptsz_v12050,
    // Stream state (capture status, priority, flags, id, device, attributes).
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamIsCapturing_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamIsCapturing_ptsz_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetCaptureInfo_v10010,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetCaptureInfo_ptsz_v10010,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetCaptureInfo_v2_v11030,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetCaptureInfo_v2_ptsz_v11030,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetCaptureInfo_v12030,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetCaptureInfo_ptsz_v12030,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetPriority_v5050,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetPriority_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetFlags_v5050,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetFlags_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetId_v12000,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetId_ptsz_v12000,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetDevice_v12080,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetDevice_ptsz_v12080,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetAttribute_v11000,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetAttribute_ptsz_v11000,
    // Pointer, host-allocation, pool and array attributes.
    CUPTI_RUNTIME_TRACE_CBID_cudaPointerGetAttributes_v4000,
    CUPTI_RUNTIME_TRACE_CBID_cudaHostGetDevicePointer_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaHostGetFlags_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemRangeGetAttribute_v8000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemRangeGetAttributes_v8000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemPoolGetAttribute_v11020,
    CUPTI_RUNTIME_TRACE_CBID_cudaDeviceGetDefaultMemPool_v11020,
    CUPTI_RUNTIME_TRACE_CBID_cudaDeviceGetMemPool_v11020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemGetDefaultMemPool_v13000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemGetMemPool_v13000,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetChannelDesc_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaArrayGetInfo_v4010,
};

}  // namespace

std::span<const uint32_t> RuntimeQueryCallbackIds() { return {kIds, std::size(kIds)}; }

}  // namespace streamscope::collector
