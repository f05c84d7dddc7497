#include "analyzer/render/op_ref.h"

#include "absl/strings/str_cat.h"
#include "analyzer/base/units.h"
#include "analyzer/model/display_name.h"
#include "analyzer/render/text_layout.h"

namespace streamscope {
namespace {

std::string StreamPart(const TraceModel& model, int32_t stream, bool with_kind = false) {
  std::optional<int64_t> id = StreamSourceIdOrNull(model, stream);
  if (!id) return " (no stream)";
  if (!with_kind) return absl::StrCat(" (stream ", *id, ")");
  return absl::StrCat(" (stream ", *id, ", ", std::string(StreamKindName(model.streams[stream].kind)), ")");
}

}  // namespace

std::string_view OpTable(OpCategory c) {
  switch (c) {
    case OpCategory::kKernel: return "kernel";
    case OpCategory::kMemset: return "memset";
    default: return "memcpy";
  }
}

std::string_view OpKind(OpCategory c) {
  switch (c) {
    case OpCategory::kKernel: return "kernel";
    case OpCategory::kMemset: return "memset";
    default: return "copy";
  }
}

int64_t StreamSourceId(const TraceModel& model, int32_t stream) {
  return StreamSourceIdOrNull(model, stream).value_or(-1);
}

std::optional<int64_t> StreamSourceIdOrNull(const TraceModel& model, int32_t stream) {
  if (IsProgramStream(model, stream)) return model.streams[static_cast<size_t>(stream)].id;
  return std::nullopt;
}

ResultValue StreamIdCell(const TraceModel& model, int32_t stream) {
  std::optional<int64_t> id = StreamSourceIdOrNull(model, stream);
  return id ? ResultValue(*id) : ResultValue();
}

nlohmann::json StreamIdJson(const TraceModel& model, int32_t stream) {
  std::optional<int64_t> id = StreamSourceIdOrNull(model, stream);
  return id ? nlohmann::json(*id) : nlohmann::json(nullptr);
}

std::string ShortName(std::string_view name, size_t max_chars) { return ShortenName(name, max_chars); }

std::string OpRef(const TraceModel& model, int32_t op) {
  const GpuOps& g = model.ops;
  return absl::StrCat(std::string(OpKind(g.category[op])), " ", g.source_id[op], StreamPart(model, g.stream[op]));
}

std::string OpNamedRef(const TraceModel& model, int32_t op, bool with_stream_kind) {
  const GpuOps& g = model.ops;
  std::string out = absl::StrCat(std::string(OpKind(g.category[op])), " ", g.source_id[op]);
  // Kernels, and copies with a name (unified-memory migrations).
  if (g.name[op] != kNoString) absl::StrAppend(&out, " '", ShortName(DisplayName(model.strings, g.name[op])), "'");
  absl::StrAppend(&out, StreamPart(model, g.stream[op], with_stream_kind));
  return out;
}

std::string OpLabel(const TraceModel& model, int32_t op) {
  const GpuOps& g = model.ops;
  OpCategory c = g.category[op];
  std::string out = absl::StrCat(std::string(OpKind(c)), " ", g.source_id[op]);
  if (c == OpCategory::kKernel) {
    absl::StrAppend(&out, " '", ShortName(DisplayName(model.strings, g.name[op])), "'");
  } else if (c == OpCategory::kMemset) {
    absl::StrAppend(&out, " ", FormatBytes(g.bytes[op]));
  } else {
    absl::StrAppend(&out, " ", std::string(OpCategoryName(c)), " ", FormatBytes(g.bytes[op]), " ",
                    std::string(MemoryKindName(g.src_kind[op])), "->", std::string(MemoryKindName(g.dst_kind[op])));
    // A named copy is a unified-memory migration (Nsight Systems imports).
    if (g.name[op] != kNoString) absl::StrAppend(&out, " ", std::string(DisplayName(model.strings, g.name[op])));
  }
  absl::StrAppend(&out, StreamPart(model, g.stream[op]));
  return out;
}

std::string CallRef(const TraceModel& model, int32_t api) {
  return absl::StrCat("call ", model.api.source_id[api], " ",
                      std::string(DisplayName(model.strings, model.api.name[api])), " (thread ", model.api.tid[api],
                      ")");
}

nlohmann::json OpRefJson(const TraceModel& model, int32_t op) {
  const GpuOps& g = model.ops;
  OpCategory c = g.category[op];
  nlohmann::json j = {
      {"table", OpTable(c)},           {"id", g.source_id[op]},
      {"category", OpCategoryName(c)}, {"stream_id", StreamIdJson(model, g.stream[op])},
      {"start_ns", g.start_ns[op]},    {"end_ns", g.end_ns[op]},
  };
  if (c == OpCategory::kKernel) {
    j["name"] = DisplayName(model.strings, g.name[op]);
    j["mangled_name"] = model.strings.Get(g.name[op]);
  } else {
    j["bytes"] = g.bytes[op];
  }
  if (c != OpCategory::kKernel && g.name[op] != kNoString) j["name"] = DisplayName(model.strings, g.name[op]);
  return j;
}

}  // namespace streamscope
