#include "collector/collector_config.h"

#include "collector/status.h"
#include <array>
#include <cctype>
#include <cstdio>
#include <utility>


namespace streamscope::collector {
namespace {

constexpr std::array<std::pair<std::string_view, uint32_t>, 12> kKindNames = {{
    {"kernel", kKindKernel},   {"memcpy", kKindMemcpy},   {"memset", kKindMemset},
    {"sync", kKindSync},       {"runtime", kKindRuntime}, {"driver", kKindDriver},
    {"nvtx", kKindNvtx},       {"stream", kKindStream},   {"context", kKindContext},
    {"overhead", kKindOverhead}, {"graph", kKindGraph}, {"memory", kKindMemory},
}};

StatusOr<uint32_t> KindByName(std::string_view name) {
  if (name == "default") return kDefaultKinds;
  if (name == "all") return kAllKinds;
  for (const auto& [n, bit] : kKindNames) {
    if (n == name) return bit;
  }
  std::vector<std::string_view> names;
  for (const auto& [n, bit] : kKindNames) names.push_back(n);
  return InvalidArgumentError(StrCat("unknown record kind '", name,
                                                 "' (known: default, all, ",
                                                 StrJoin(names, ", "), ")"));
}

StatusOr<uint32_t> ParseUint(const EnvLookup& env, std::string_view var,
                                   uint32_t fallback, uint32_t min, uint32_t max) {
  std::optional<std::string> v = env(var);
  if (!v.has_value() || v->empty()) return fallback;
  uint32_t out = 0;
  if (!ParseInt(std::string_view(*v), &out) || out < min || out > max) {
    return InvalidArgumentError(StrCat(var, "='", *v, "' is not an integer in [",
                                                   min, ", ", max, "]"));
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
  std::vector<std::string_view> items =
      SplitNonEmpty(spec, ", ");
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
  return StrCat("{\"output\":", JsonString(output_template),
                      ",\"overwrite\":", overwrite ? "true" : "false",
                      ",\"flush_ms\":", flush_ms, ",\"buffer_kb\":", buffer_kb,
                      ",\"max_buffer_mb\":", max_buffer_mb,
                      ",\"device_buffer_kb\":", device_buffer_kb,
                      ",\"kinds\":", JsonString(KindsToString(kinds)),
                      ",\"clock\":", JsonString(clock), "}");
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
      return InvalidArgumentError(StrCat(
          "STREAMSCOPE_CLOCK='", *v, "' is not 'monotonic-raw' or 'cupti-default'"));
    }
    c.clock = *v;
  }
  if (auto v = env("STREAMSCOPE_MANIFEST"); v.has_value()) c.manifest = *v;
  return c;
}

}  // namespace streamscope::collector
