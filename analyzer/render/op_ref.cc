#include "analyzer/render/op_ref.h"

#include "absl/strings/str_cat.h"
#include "analyzer/base/units.h"
#include "analyzer/render/text_layout.h"

namespace streamscope {

std::string_view OpTable(OpCategory c) {
  switch (c) {
    case OpCategory::kKernel: return "kernel";
    case OpCategory::kMemset: return "memset";
    default: return "memcpy";
  }
}

int64_t StreamSourceId(const TraceModel& model, int32_t stream) {
  return stream >= 0 && static_cast<size_t>(stream) < model.streams.size() ? model.streams[stream].id : -1;
}

std::string ShortName(std::string_view name, size_t max_chars) { return ShortenMiddle(name, max_chars); }

std::string OpLabel(const TraceModel& model, int32_t op) {
  const GpuOps& g = model.ops;
  OpCategory c = g.category[op];
  std::string out = absl::StrCat(std::string(OpTable(c)), "#", g.source_id[op]);
  if (c == OpCategory::kKernel) {
    absl::StrAppend(&out, " '", ShortName(model.strings.Get(g.name[op])), "'");
  } else if (c == OpCategory::kMemset) {
    absl::StrAppend(&out, " ", FormatBytes(g.bytes[op]));
  } else {
    absl::StrAppend(&out, " ", std::string(OpCategoryName(c)), " ", FormatBytes(g.bytes[op]), " ",
                    std::string(MemoryKindName(g.src_kind[op])), "->",
                    std::string(MemoryKindName(g.dst_kind[op])));
    // A named copy is a unified-memory migration (Nsight Systems imports).
    if (g.name[op] != kNoString) absl::StrAppend(&out, " ", std::string(model.strings.Get(g.name[op])));
  }
  absl::StrAppend(&out, " (stream ", StreamSourceId(model, g.stream[op]), ")");
  return out;
}

nlohmann::json OpRefJson(const TraceModel& model, int32_t op) {
  const GpuOps& g = model.ops;
  OpCategory c = g.category[op];
  nlohmann::json j = {
      {"table", OpTable(c)},
      {"id", g.source_id[op]},
      {"category", OpCategoryName(c)},
      {"stream_id", StreamSourceId(model, g.stream[op])},
      {"start_ns", g.start_ns[op]},
      {"end_ns", g.end_ns[op]},
  };
  if (c == OpCategory::kKernel) j["name"] = model.strings.Get(g.name[op]);
  else j["bytes"] = g.bytes[op];
  if (c != OpCategory::kKernel && g.name[op] != kNoString) j["detail"] = model.strings.Get(g.name[op]);
  return j;
}

}  // namespace streamscope
