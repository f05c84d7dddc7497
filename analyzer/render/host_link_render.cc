#include "analyzer/render/host_link_render.h"

#include "absl/strings/str_cat.h"

namespace streamscope {

std::string HostLinkName(const HostLinkRate& link) {
  if (link.nvlink_c2c) return "NVLink-C2C";
  return absl::StrCat("PCIe ", link.pcie_gen, ".0 x", link.pcie_width);
}

}  // namespace streamscope
