// CUPTI results and names in the collector's terms: the one place a
// CUptiResult becomes a Status, and callback ids become API names.
// Thread-safe.
#ifndef STREAMSCOPE_COLLECTOR_CUPTI_STATUS_H_
#define STREAMSCOPE_COLLECTOR_CUPTI_STATUS_H_

#include <cupti.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "collector/status.h"
#include "collector/trace_records.h"

namespace streamscope::collector {

class CuptiApi;

// OK for CUPTI_SUCCESS; otherwise an error naming `what` and CUPTI's text.
// Another CUPTI client (CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) is
// kFailedPrecondition and says who that may be.
Status CuptiStatus(CuptiApi& api, CUptiResult result, std::string_view what);

// API function name for a CUPTI callback id (runtime names without their
// "_vNNNN" suffix, e.g. "cudaMemcpy", "cudaLaunchKernel_ptsz"); CUPTI's
// internal launches (driver domain, kInternalLaunchCbid) are
// "internal_launch"; empty if unknown.
std::string CallbackApiName(CuptiApi& api, ApiDomain domain, uint32_t cbid);

}  // namespace streamscope::collector

#endif  // STREAMSCOPE_COLLECTOR_CUPTI_STATUS_H_
