// The CUPTI functions the collector calls, behind an interface: production
// code gets the libcupti loaded at run time (cupti_library.h); CPU tests
// inject a fake that hands recorded activity buffers to the collector.
//
// Part of the CUPTI layer (with cupti_library, cupti_status, activity_buffers,
// cupti_callbacks, cupti_layer and record_decoder: the only files that include
// CUPTI headers). Methods mirror the CUPTI function of the same name.
// Thread-safety: as CUPTI's own functions.
#ifndef STREAMSCOPE_COLLECTOR_CUPTI_API_H_
#define STREAMSCOPE_COLLECTOR_CUPTI_API_H_

#include <cupti.h>

#include <cstddef>
#include <cstdint>

namespace streamscope::collector {

class CuptiApi {
 public:
  virtual ~CuptiApi() = default;

  virtual CUptiResult GetVersion(uint32_t* version) = 0;
  virtual CUptiResult GetResultString(CUptiResult result, const char** text) = 0;
  virtual CUptiResult GetCallbackName(CUpti_CallbackDomain domain, uint32_t cbid, const char** name) = 0;
  virtual CUptiResult GetTimestamp(uint64_t* timestamp) = 0;
  virtual CUptiResult GetStreamIdEx(CUcontext context, CUstream stream, uint8_t per_thread, uint32_t* stream_id) = 0;
  virtual CUptiResult GetDeviceId(CUcontext context, uint32_t* device_id) = 0;
  virtual CUptiResult SetThreadIdType(CUpti_ActivityThreadIdType type) = 0;

  // Callback API.
  virtual CUptiResult Subscribe(CUpti_SubscriberHandle* subscriber, CUpti_CallbackFunc callback, void* userdata) = 0;
  virtual CUptiResult Unsubscribe(CUpti_SubscriberHandle subscriber) = 0;
  virtual CUptiResult EnableCallback(uint32_t enable, CUpti_SubscriberHandle subscriber, CUpti_CallbackDomain domain,
                                     CUpti_CallbackId cbid) = 0;

  // Activity API.
  virtual CUptiResult ActivityEnable(CUpti_ActivityKind kind) = 0;
  virtual CUptiResult ActivityDisable(CUpti_ActivityKind kind) = 0;
  virtual CUptiResult ActivityEnableDriverApi(CUpti_CallbackId cbid, uint8_t enable) = 0;
  virtual CUptiResult ActivityEnableRuntimeApi(CUpti_CallbackId cbid, uint8_t enable) = 0;
  virtual CUptiResult ActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc requested,
                                                CUpti_BuffersCallbackCompleteFunc completed) = 0;
  virtual CUptiResult ActivityRegisterTimestampCallback(CUpti_TimestampCallbackFunc now) = 0;
  virtual CUptiResult ActivitySetAttribute(CUpti_ActivityAttribute attribute, size_t* size, void* value) = 0;
  virtual CUptiResult ActivityFlushAll(uint32_t flag) = 0;
  virtual CUptiResult ActivityFlushPeriod(uint32_t ms) = 0;
  virtual CUptiResult ActivityGetNextRecord(uint8_t* buffer, size_t valid_bytes, CUpti_Activity** record) = 0;
  virtual CUptiResult ActivityGetNumDroppedRecords(CUcontext context, uint32_t stream_id, size_t* dropped) = 0;
};

}  // namespace streamscope::collector

#endif  // STREAMSCOPE_COLLECTOR_CUPTI_API_H_
