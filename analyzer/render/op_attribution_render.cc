#include "analyzer/render/op_attribution_render.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "analyzer/base/units.h"
#include "analyzer/model/display_name.h"
#include "analyzer/render/op_ref.h"

namespace streamscope {
namespace {

nlohmann::json NameJson(const TraceModel& model, StringId name) {
  return name == kNoString ? nlohmann::json() : nlohmann::json(std::string(DisplayName(model.strings, name)));
}

nlohmann::json LauncherTotalsJson(const std::vector<LauncherTotal>& totals, const TraceModel& model, int64_t gpu_ns) {
  nlohmann::json out = nlohmann::json::array();
  for (const LauncherTotal& t : totals) {
    out.push_back({{"name", NameJson(model, t.name)},
                   {"gpu_ns", t.gpu_ns},
                   {"share", gpu_ns > 0 ? static_cast<double>(t.gpu_ns) / static_cast<double>(gpu_ns) : 0.0},
                   {"op_count", t.op_count},
                   {"kernel_count", t.kernel_count},
                   {"copy_count", t.copy_count},
                   {"memset_count", t.memset_count},
                   {"instance_count", t.instance_count}});
  }
  return out;
}

void TotalsText(const std::vector<LauncherTotal>& totals, const TraceModel& model, int64_t gpu_ns, int top,
                std::string_view none, std::ostream& out) {
  const size_t shown = std::min(totals.size(), static_cast<size_t>(std::max(top, 0)));
  for (size_t i = 0; i < shown; ++i) {
    const LauncherTotal& t = totals[i];
    std::string name = t.name == kNoString ? std::string(none) : ShortName(DisplayName(model.strings, t.name), 48);
    out << "    " << name << std::string(name.size() < 48 ? 48 - name.size() : 1, ' ') << FormatDuration(t.gpu_ns)
        << " (" << FormatShare(t.gpu_ns, gpu_ns) << "), " << t.op_count << (t.op_count == 1 ? " op" : " ops");
    if (t.copy_count + t.memset_count > 0) {
      auto count = [](int64_t n, const char* one, const char* many) {
        return absl::StrCat(n, " ", n == 1 ? one : many);
      };
      out << " (" << count(t.kernel_count, "kernel", "kernels") << ", " << count(t.copy_count, "copy", "copies") << ", "
          << count(t.memset_count, "memset", "memsets") << ")";
    }
    if (t.name != kNoString) out << " from " << t.instance_count << (t.instance_count == 1 ? " call" : " calls");
    out << "\n";
  }
  if (totals.size() > shown) out << "    ... " << totals.size() - shown << " more\n";
}

}  // namespace

bool ShouldRenderOpAttribution(const OpAttributionResult& result) { return result.any_ranges(); }

nlohmann::json OpAttributionToJson(const OpAttributionResult& r, const TraceModel& model) {
  return {{"has_cpu_ops", r.has_cpu_ops},
          {"has_annotations", r.has_annotations},
          {"op_count", r.op_count},
          {"gpu_ns", r.gpu_ns},
          {"ops_without_call", r.without_call},
          {"ops_in_cpu_op", r.in_cpu_op},
          {"ops_in_annotation", r.in_annotation},
          {"by_operator", LauncherTotalsJson(r.by_operator, model, r.gpu_ns)},
          {"by_top_operator", LauncherTotalsJson(r.by_top_operator, model, r.gpu_ns)},
          {"by_annotation", LauncherTotalsJson(r.by_annotation, model, r.gpu_ns)}};
}

void RenderOpAttributionText(const OpAttributionResult& r, const TraceModel& model, const RenderOptions& options,
                             std::ostream& out) {
  if (!ShouldRenderOpAttribution(r) || r.op_count == 0) return;
  out << "\nWho launched the GPU work: " << r.op_count << " GPU ops, " << FormatDuration(r.gpu_ns)
      << " of GPU time (op durations summed)";
  if (r.without_call > 0) out << "; " << r.without_call << " ops without a known launching call";
  out << "\n";
  if (r.has_cpu_ops) {
    out << "  GPU time by PyTorch operator (innermost CPU op around the launch; " << r.in_cpu_op << " of " << r.op_count
        << " ops inside one):\n";
    TotalsText(r.by_operator, model, r.gpu_ns, options.top, "(no operator)", out);
    out << "  GPU time by top-level operator (outermost CPU op):\n";
    TotalsText(r.by_top_operator, model, r.gpu_ns, options.top, "(no operator)", out);
  }
  if (r.has_annotations) {
    out << "  GPU time by annotation (innermost user annotation or NVTX range around the launch; " << r.in_annotation
        << " of " << r.op_count << " ops inside one):\n";
    TotalsText(r.by_annotation, model, r.gpu_ns, options.top, "(no annotation)", out);
  }
}

std::vector<ResultTable> OpAttributionToTables(const OpAttributionResult& r, const TraceModel& model) {
  if (!ShouldRenderOpAttribution(r)) return {};
  ResultTable totals{
      "analysis_gpu_time_by_launcher",
      {"level", "name", "gpu_ns", "op_count", "kernel_count", "copy_count", "memset_count", "instance_count"}};
  auto add = [&](const char* level, const std::vector<LauncherTotal>& v) {
    for (const LauncherTotal& t : v) {
      totals.rows.push_back(
          {std::string(level),
           t.name == kNoString ? ResultValue() : ResultValue(std::string(DisplayName(model.strings, t.name))), t.gpu_ns,
           t.op_count, t.kernel_count, t.copy_count, t.memset_count, t.instance_count});
    }
  };
  if (r.has_cpu_ops) {
    add("operator", r.by_operator);
    add("top_operator", r.by_top_operator);
  }
  if (r.has_annotations) add("annotation", r.by_annotation);

  ResultTable per_op{"analysis_op_launcher",
                     {"op_table", "op_id", "category", "name", "mangled_name", "start_ns", "end_ns", "api_id",
                      "operator", "top_operator", "annotation"}};
  const OpAttributionResult* result = &r;
  const TraceModel* m = &model;
  per_op.sources.push_back(
      {{}, [result, m](const RowSink& sink) {
         auto range_name = [m](int32_t range) {
           return range < 0 ? ResultValue()
                            : ResultValue(std::string(DisplayName(m->strings, m->nvtx_ranges[range].name)));
         };
         const GpuOps& g = m->ops;
         std::vector<ResultValue> row;
         for (const OpLaunchers& l : result->ops) {
           const OpCategory c = g.category[l.op];
           row = {std::string(OpTable(c)),
                  g.source_id[l.op],
                  std::string(OpCategoryName(c)),
                  c == OpCategory::kKernel ? ResultValue(std::string(DisplayName(m->strings, g.name[l.op])))
                                           : ResultValue(),
                  c == OpCategory::kKernel ? ResultValue(std::string(m->strings.Get(g.name[l.op]))) : ResultValue(),
                  g.start_ns[l.op],
                  g.end_ns[l.op],
                  l.api >= 0 ? ResultValue(m->api.source_id[l.api]) : ResultValue(),
                  range_name(l.innermost_op),
                  range_name(l.outermost_op),
                  range_name(l.annotation)};
           sink(row);
         }
       }});
  std::vector<ResultTable> out;
  out.push_back(std::move(totals));
  out.push_back(std::move(per_op));
  return out;
}

}  // namespace streamscope
