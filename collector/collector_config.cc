#include "collector/collector_config.h"

#include <array>
#include <cctype>
#include <cstdio>
#include <map>
#include <utility>
#include "collector/status.h"

namespace streamscope::collector {
namespace {

constexpr std::array<std::pair<std::string_view, uint32_t>, 14> kKindNames = {{
    {"kernel", kKindKernel},
    {"memcpy", kKindMemcpy},
    {"memset", kKindMemset},
    {"sync", kKindSync},
    {"runtime", kKindRuntime},
    {"driver", kKindDriver},
    {"nvtx", kKindNvtx},
    {"stream", kKindStream},
    {"context", kKindContext},
    {"overhead", kKindOverhead},
    {"graph", kKindGraph},
    {"memory", kKindMemory},
    {"submit", kKindSubmit},
    {"runtime-all", kKindRuntimeAll},
}};

StatusOr<uint32_t> KindByName(std::string_view name) {
  if (name == "default") return kDefaultKinds;
  if (name == "all") return kAllKinds;
  for (const auto& [n, bit] : kKindNames) {
    if (n == name) return bit;
  }
  std::vector<std::string_view> names;
  for (const auto& [n, bit] : kKindNames) names.push_back(n);
  return InvalidArgumentError(
      StrCat("unknown record kind '", name, "' (known: default, all, ", StrJoin(names, ", "), ")"));
}

StatusOr<uint32_t> ParseUint(const EnvLookup& env, std::string_view var, uint32_t fallback, uint32_t min,
                             uint32_t max) {
  std::optional<std::string> v = env(var);
  if (!v.has_value() || v->empty()) return fallback;
  uint32_t out = 0;
  if (!ParseInt(std::string_view(*v), &out) || out < min || out > max) {
    return InvalidArgumentError(StrCat(var, "='", *v, "' is not an integer in [", min, ", ", max, "]"));
  }
  return out;
}

bool ParseBool(const EnvLookup& env, std::string_view var) {
  std::optional<std::string> v = env(var);
  if (!v.has_value()) return false;
  std::string s = *v;
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s == "1" || s == "true" || s == "yes" || s == "on";
}

std::string JsonString(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char hex[8];
          std::snprintf(hex, sizeof(hex), "\\u%04x", static_cast<unsigned char>(c));
          out += hex;
        } else {
          out.push_back(c);
        }
    }
  }
  out += "\"";
  return out;
}

}  // namespace

StatusOr<uint32_t> ParseKinds(std::string_view spec) {
  std::vector<std::string_view> items = SplitNonEmpty(spec, ", ");
  if (items.empty()) return InvalidArgumentError("empty record kind list");
  bool all_edits = true;
  for (std::string_view item : items) {
    if (item[0] != '+' && item[0] != '-') all_edits = false;
  }
  uint32_t kinds = all_edits ? kDefaultKinds : 0;
  for (std::string_view item : items) {
    char sign = item[0];
    if (sign == '+' || sign == '-') item.remove_prefix(1);
    StatusOr<uint32_t> bits = KindByName(item);
    if (!bits.ok()) return bits.status();
    if (sign == '-') {
      kinds &= ~*bits;
    } else {
      kinds |= *bits;
    }
  }
  if (kinds == 0) return InvalidArgumentError("record kind list selects nothing");
  // Every runtime call is a widening of the runtime records.
  if (kinds & kKindRuntimeAll) kinds |= kKindRuntime;
  return kinds;
}

std::string KindsToString(uint32_t kinds) {
  std::vector<std::string_view> names;
  for (const auto& [n, bit] : kKindNames) {
    if (kinds & bit) names.push_back(n);
  }
  return StrJoin(names, ",");
}

std::string CollectorConfig::ToJson() const {
  return StrCat("{\"output\":", JsonString(output_template), ",\"overwrite\":", overwrite ? "true" : "false",
                ",\"flush_ms\":", flush_ms, ",\"buffer_kb\":", buffer_kb, ",\"max_buffer_mb\":", max_buffer_mb,
                ",\"device_buffer_kb\":", device_buffer_kb, ",\"kinds\":", JsonString(KindsToString(kinds)),
                ",\"clock\":", JsonString(clock), ",\"capture_range\":", JsonString(capture.ToString()),
                ",\"start_paused\":", capture.start_paused ? "true" : "false",
                ",\"flight_recorder\":", flight_recorder ? JsonString(flight_recorder->ToString()) : "null",
                ",\"trigger\":", trigger ? JsonString(trigger->ToString()) : "null", "}");
}

StatusOr<CollectorConfig> ConfigFromEnv(const EnvLookup& env) {
  CollectorConfig c;
  if (auto v = env("STREAMSCOPE_OUTPUT"); v.has_value() && !v->empty()) c.output_template = *v;
  c.overwrite = ParseBool(env, "STREAMSCOPE_OVERWRITE");
  c.verbose = ParseBool(env, "STREAMSCOPE_VERBOSE");
  auto flush = ParseUint(env, "STREAMSCOPE_FLUSH_MS", c.flush_ms, 0, 60000);
  if (!flush.ok()) return flush.status();
  c.flush_ms = *flush;
  auto buffer = ParseUint(env, "STREAMSCOPE_BUFFER_KB", c.buffer_kb, 64, 256 * 1024);
  if (!buffer.ok()) return buffer.status();
  c.buffer_kb = *buffer;
  auto max_mb = ParseUint(env, "STREAMSCOPE_MAX_BUFFER_MB", c.max_buffer_mb, 1, 64 * 1024);
  if (!max_mb.ok()) return max_mb.status();
  c.max_buffer_mb = *max_mb;
  auto dev = ParseUint(env, "STREAMSCOPE_DEVICE_BUFFER_KB", c.device_buffer_kb, 0, 4 * 1024 * 1024);
  if (!dev.ok()) return dev.status();
  c.device_buffer_kb = *dev;
  if (auto v = env("STREAMSCOPE_KINDS"); v.has_value() && !v->empty()) {
    auto kinds = ParseKinds(*v);
    if (!kinds.ok()) {
      return InvalidArgumentError(StrCat("STREAMSCOPE_KINDS: ", kinds.status().message()));
    }
    c.kinds = *kinds;
  }
  if (auto v = env("STREAMSCOPE_CLOCK"); v.has_value() && !v->empty()) {
    if (*v != "monotonic-raw" && *v != "cupti-default") {
      return InvalidArgumentError(StrCat("STREAMSCOPE_CLOCK='", *v, "' is not 'monotonic-raw' or 'cupti-default'"));
    }
    c.clock = *v;
  }
  if (auto v = env("STREAMSCOPE_MANIFEST"); v.has_value()) c.manifest = *v;
  if (auto v = env("STREAMSCOPE_CAPTURE_RANGE"); v.has_value() && !v->empty()) {
    auto range = ParseCaptureRange(*v);
    if (!range.ok()) return InvalidArgumentError(StrCat("STREAMSCOPE_CAPTURE_RANGE: ", range.status().message()));
    c.capture = *range;
  }
  c.capture.start_paused = ParseBool(env, "STREAMSCOPE_START_PAUSED");
  if (auto v = env("STREAMSCOPE_FLIGHT_RECORDER"); v.has_value() && !v->empty()) {
    auto bound = RingBound::Parse(*v);
    if (!bound.ok()) return InvalidArgumentError(StrCat("STREAMSCOPE_FLIGHT_RECORDER: ", bound.status().message()));
    c.flight_recorder = *bound;
  }
  if (auto v = env("STREAMSCOPE_TRIGGER"); v.has_value() && !v->empty()) {
    auto trigger = TriggerSpec::Parse(*v);
    if (!trigger.ok()) return InvalidArgumentError(StrCat("STREAMSCOPE_TRIGGER: ", trigger.status().message()));
    c.trigger = *trigger;
  }
  if (c.trigger && !c.flight_recorder) {
    return InvalidArgumentError("STREAMSCOPE_TRIGGER needs STREAMSCOPE_FLIGHT_RECORDER (a trigger dumps the ring)");
  }
  if (c.flight_recorder && (c.capture.kind != CaptureRange::Kind::kWhole || c.capture.start_paused)) {
    return InvalidArgumentError("the flight recorder keeps the most recent activity: use it without a capture range");
  }
  return c;
}

}  // namespace streamscope::collector

namespace streamscope::collector {

StatusOr<CollectorConfig> ConfigFromOptions(std::string_view options) {
  static constexpr std::string_view kKeys[] = {
      "STREAMSCOPE_KINDS",         "STREAMSCOPE_FLUSH_MS",         "STREAMSCOPE_BUFFER_KB",
      "STREAMSCOPE_MAX_BUFFER_MB", "STREAMSCOPE_DEVICE_BUFFER_KB", "STREAMSCOPE_CLOCK",
      "STREAMSCOPE_OVERWRITE",     "STREAMSCOPE_VERBOSE",          "STREAMSCOPE_CAPTURE_RANGE",
      "STREAMSCOPE_START_PAUSED",  "STREAMSCOPE_FLIGHT_RECORDER",  "STREAMSCOPE_TRIGGER"};
  std::map<std::string, std::string, std::less<>> values;
  for (std::string_view item : SplitNonEmpty(options, ";\n")) {
    auto trim = [](std::string_view v) {
      while (!v.empty() && std::isspace(static_cast<unsigned char>(v.front()))) v.remove_prefix(1);
      while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.remove_suffix(1);
      return v;
    };
    item = trim(item);
    if (item.empty()) continue;
    size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      return InvalidArgumentError(StrCat("option '", item, "' is not KEY=VALUE"));
    }
    std::string key(trim(item.substr(0, eq)));
    for (char& ch : key) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    if (key.rfind("STREAMSCOPE_", 0) != 0) key = "STREAMSCOPE_" + key;
    bool known = false;
    for (std::string_view k : kKeys) known |= k == key;
    if (!known) {
      std::vector<std::string_view> names;
      for (std::string_view k : kKeys) names.push_back(k.substr(12));
      return InvalidArgumentError(
          StrCat("unknown option '", trim(item.substr(0, eq)), "' (known: ", StrJoin(names, ", "), ")"));
    }
    values[key] = std::string(trim(item.substr(eq + 1)));
  }
  return ConfigFromEnv([&](std::string_view name) -> std::optional<std::string> {
    auto it = values.find(name);
    if (it == values.end()) return std::nullopt;
    return it->second;
  });
}

}  // namespace streamscope::collector
