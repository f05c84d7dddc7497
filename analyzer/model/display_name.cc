#include "analyzer/model/display_name.h"

#include <mutex>
#include <string>

#include "absl/container/node_hash_map.h"
#include "analyzer/base/demangle.h"

namespace streamscope {

std::string_view DisplayName(const StringPool& pool, StringId id) {
  std::string_view recorded = pool.Get(id);
  if (!LooksMangled(recorded)) return recorded;
  // Keyed by the text, not the id, so that one cache serves every model;
  // it holds one entry per distinct kernel name the process has shown.
  static std::mutex mu;
  static auto* demangled = new absl::node_hash_map<std::string, std::string>();  // values never move
  std::lock_guard<std::mutex> lock(mu);
  auto [it, inserted] = demangled->try_emplace(std::string(recorded));
  if (inserted) it->second = Demangle(recorded);
  return it->second;
}

}  // namespace streamscope
