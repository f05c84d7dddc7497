#include "analyzer/analysis/api_names.h"

#include <algorithm>

namespace streamscope {

std::string_view BaseApiName(std::string_view n) {
  for (std::string_view suffix : {"_ptsz", "_ptds"}) {
    if (n.size() > suffix.size() && n.ends_with(suffix)) n.remove_suffix(suffix.size());
  }
  size_t v = n.rfind("_v");
  if (v != std::string_view::npos && v + 2 < n.size() &&
      std::all_of(n.begin() + static_cast<std::ptrdiff_t>(v + 2), n.end(),
                  [](char c) { return c >= '0' && c <= '9'; })) {
    n = n.substr(0, v);
  }
  return n;
}

}  // namespace streamscope
