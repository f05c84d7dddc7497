#include "workloads/harness/validation.h"

#include "workloads/harness/workload_status.h"

namespace streamscope::workloads {

std::string MismatchDetail(std::string_view what, std::uint64_t mismatches, std::uint64_t count,
                           std::uint64_t first_index, std::uint32_t got, std::uint32_t want) {
  return StringPrintf("%s: %llu of %llu words differ; first at word %llu (got 0x%08x, want 0x%08x)",
                      std::string(what).c_str(), static_cast<unsigned long long>(mismatches),
                      static_cast<unsigned long long>(count), static_cast<unsigned long long>(first_index), got, want);
}

}  // namespace streamscope::workloads
