// A device's host link in words, from its rate's data
// (analysis/causes/host_link_rate.h): used by the trace summary's device line and
// JSON and by the copy findings.
#ifndef STREAMSCOPE_ANALYZER_RENDER_HOST_LINK_RENDER_H_
#define STREAMSCOPE_ANALYZER_RENDER_HOST_LINK_RENDER_H_

#include <string>

#include "analyzer/analysis/causes/host_link_rate.h"

namespace streamscope {

// "PCIe 5.0 x16", "NVLink-C2C".
std::string HostLinkName(const HostLinkRate& link);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_RENDER_HOST_LINK_RENDER_H_
