#include "analyzer/render/graph_memory_render.h"

#include "absl/strings/str_cat.h"
#include "analyzer/base/units.h"

namespace streamscope {

std::string GraphOverMemoryText(const GraphOverMemory& m) {
  return absl::StrCat("the dependency graph of this window (", m.items, " GPU ops and API calls) needs about ",
                      FormatBytes(m.need_bytes), " and ", FormatBytes(m.room_bytes),
                      m.limit_set ? " is left under the memory limit" : " of memory is available",
                      ": not built. --memory-limit MIB sets the budget (0: no limit); ",
                      m.fits_from_ns < m.window_end_ns
                          ? absl::StrCat("the window's last ", FormatDuration(m.window_end_ns - m.fits_from_ns),
                                         " fits: --from ", m.fits_from_ns, " --to ", m.window_end_ns, " --absolute")
                          : "a shorter window (--from/--to, --nvtx) needs less");
}

nlohmann::json GraphOverMemoryJson(const GraphOverMemory& m) {
  return {{"items", m.items},
          {"need_bytes", m.need_bytes},
          {"room_bytes", m.room_bytes},
          {"room", m.limit_set ? "memory_limit" : "available"},
          {"fits_from_ns", m.fits_from_ns < m.window_end_ns ? nlohmann::json(m.fits_from_ns) : nlohmann::json(nullptr)},
          {"window_end_ns", m.window_end_ns}};
}

}  // namespace streamscope
