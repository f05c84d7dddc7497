#include "collector/cupti_status.h"

#include "collector/cupti_api.h"

namespace streamscope::collector {

Status CuptiStatus(CuptiApi& api, CUptiResult r, std::string_view what) {
  if (r == CUPTI_SUCCESS) return OkStatus();
  const char* text = nullptr;
  if (api.GetResultString(r, &text) != CUPTI_SUCCESS || text == nullptr) {
    text = "unknown CUPTI error";
  }
  std::string msg = StrCat(what, ": ", text, " (", static_cast<int>(r), ")");
  switch (r) {
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
      return FailedPreconditionError(
          StrCat("another CUPTI client (torch.profiler, Nsight Systems/Compute, compute-sanitizer, ...) "
                 "is already attached to this process; ",
                 msg));
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES: return PermissionDeniedError(msg);
    case CUPTI_ERROR_NOT_COMPATIBLE:
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED: return UnimplementedError(msg);
    default: return InternalError(msg);
  }
}

std::string CallbackApiName(CuptiApi& api, ApiDomain domain, uint32_t cbid) {
  if (domain == ApiDomain::kDriver && cbid == kInternalLaunchCbid) return "internal_launch";
  const char* name = nullptr;
  CUpti_CallbackDomain d = domain == ApiDomain::kRuntime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API;
  if (api.GetCallbackName(d, cbid, &name) != CUPTI_SUCCESS || name == nullptr) return {};
  std::string s = name;
  if (domain == ApiDomain::kRuntime) {
    // Runtime callback names carry the API version ("cudaMemcpy_v3020");
    // store the function's name ("cudaMemcpy", "cudaLaunchKernel_ptsz").
    size_t v = s.rfind("_v");
    if (v != std::string::npos && v + 2 < s.size() && s.find_first_not_of("0123456789", v + 2) == std::string::npos) {
      s.resize(v);
    }
  }
  return s;
}

}  // namespace streamscope::collector
