#include "analyzer/render/rank_facts_json.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "analyzer/render/window_label.h"

namespace streamscope {
namespace {

nlohmann::json Optional(const std::optional<int64_t>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

std::optional<int64_t> OptionalFrom(const nlohmann::json& j) {
  if (j.is_null()) return std::nullopt;
  return j.get<int64_t>();
}

const char* const kDeviceColumns[] = {"device_id", "window_ns",  "busy_ns",      "idle_ns",
                                      "comm_ns",   "compute_ns", "overlapped_ns"};
const char* const kKernelColumns[] = {"name", "device_id", "start_ns", "end_ns"};

RankFacts ProcessFromJson(const nlohmann::json& p) {
  RankFacts f;
  f.path = p.at("path").get<std::string>();
  f.format = p.at("format").get<std::string>();
  f.pid = p.at("pid").get<int64_t>();
  f.rank = OptionalFrom(p.at("rank"));
  f.host = p.at("host").get<std::string>();
  f.clock_domain = p.at("clock_domain").get<std::string>();
  f.start_wall_time_ns = OptionalFrom(p.at("start_wall_time_ns"));
  f.start_trace_ns = OptionalFrom(p.at("start_trace_ns"));
  f.windows_are_steps = p.at("windows_are_steps").get<bool>();
  for (const nlohmann::json& w : p.at("windows")) {
    RankWindowFacts wf;
    wf.origin.kind = WindowKind::kNamed;
    wf.origin.name = w.at("label").get<std::string>();
    wf.start_ns = w.at("start_ns").get<int64_t>();
    wf.end_ns = w.at("end_ns").get<int64_t>();
    for (const nlohmann::json& d : w.at("devices")) {
      if (d.size() != std::size(kDeviceColumns)) throw std::invalid_argument("a device row has the wrong length");
      wf.devices.push_back({d.at(0).get<int32_t>(), d.at(1).get<int64_t>(), d.at(2).get<int64_t>(),
                            d.at(3).get<int64_t>(), d.at(4).get<int64_t>(), d.at(5).get<int64_t>(),
                            d.at(6).get<int64_t>()});
    }
    f.windows.push_back(std::move(wf));
  }
  f.comm_names = p.at("comm_names").get<std::vector<std::string>>();
  for (const nlohmann::json& k : p.at("comm_kernels")) {
    if (k.size() != std::size(kKernelColumns)) throw std::invalid_argument("a kernel row has the wrong length");
    CommKernelFact x{k.at(0).get<int32_t>(), k.at(1).get<int32_t>(), k.at(2).get<int64_t>(), k.at(3).get<int64_t>()};
    if (x.name < 0 || static_cast<size_t>(x.name) >= f.comm_names.size()) {
      throw std::invalid_argument("a kernel's name index is out of range");
    }
    f.comm_kernels.push_back(x);
  }
  return f;
}

}  // namespace

nlohmann::json RankFactsToJson(const std::vector<RankFacts>& processes) {
  nlohmann::json list = nlohmann::json::array();
  for (const RankFacts& f : processes) {
    nlohmann::json windows = nlohmann::json::array();
    for (const RankWindowFacts& w : f.windows) {
      nlohmann::json devices = nlohmann::json::array();
      for (const RankDeviceFigures& d : w.devices) {
        devices.push_back({d.device_id, d.window_ns, d.busy_ns, d.idle_ns, d.comm_ns, d.compute_ns, d.overlapped_ns});
      }
      windows.push_back(
          {{"label", WindowLabel(w.origin)}, {"start_ns", w.start_ns}, {"end_ns", w.end_ns}, {"devices", devices}});
    }
    nlohmann::json collectives = nlohmann::json::array();
    for (const std::string& name : f.comm_names) collectives.push_back(CollectiveOf(name));
    nlohmann::json kernels = nlohmann::json::array();
    for (const CommKernelFact& k : f.comm_kernels) kernels.push_back({k.name, k.device_id, k.start_ns, k.end_ns});
    list.push_back({{"path", f.path},
                    {"format", f.format},
                    {"pid", f.pid},
                    {"rank", Optional(f.rank)},
                    {"host", f.host},
                    {"clock_domain", f.clock_domain},
                    {"start_wall_time_ns", Optional(f.start_wall_time_ns)},
                    {"start_trace_ns", Optional(f.start_trace_ns)},
                    {"windows_are_steps", f.windows_are_steps},
                    {"device_columns", kDeviceColumns},
                    {"windows", windows},
                    {"comm_names", f.comm_names},
                    {"comm_collectives", collectives},
                    {"comm_kernel_columns", kKernelColumns},
                    {"comm_kernels", kernels}});
  }
  return {{"generator", "streamscope facts"}, {"facts_version", kRankFactsVersion}, {"processes", list}};
}

absl::StatusOr<std::vector<RankFacts>> RankFactsFromJson(const std::string& text, const std::string& source) {
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return absl::InvalidArgumentError(absl::StrCat(source, ": not a JSON document"));
  try {
    if (!doc.is_object() || doc.value("generator", "") != "streamscope facts") {
      return absl::InvalidArgumentError(
          absl::StrCat(source,
                       ": not rank facts (no \"generator\": \"streamscope facts\"); write them with "
                       "`streamscope facts TRACE`"));
    }
    int version = doc.at("facts_version").get<int>();
    if (version != kRankFactsVersion) {
      return absl::InvalidArgumentError(
          absl::StrCat(source, ": facts version ", version, "; this streamscope reads ", kRankFactsVersion));
    }
    std::vector<RankFacts> out;
    for (const nlohmann::json& p : doc.at("processes")) out.push_back(ProcessFromJson(p));
    return out;
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": malformed rank facts: ", e.what()));
  }
}

}  // namespace streamscope
