#include "analyzer/cli/suggest.h"

#include <algorithm>

namespace streamscope {

size_t EditDistance(std::string_view a, std::string_view b) {
  // Optimal string alignment distance over three rows.
  std::vector<size_t> before(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        current[j] = std::min(current[j], before[j - 2] + 1);
      }
    }
    before.swap(previous);
    previous.swap(current);
  }
  return previous[b.size()];
}

std::optional<std::string> ClosestMatch(std::string_view word, const std::vector<std::string>& candidates) {
  if (word.empty()) return std::nullopt;
  // A unique prefix first ("--gap" for "--gap-threshold").
  const std::string* prefixed = nullptr;
  int prefix_count = 0;
  for (const std::string& c : candidates) {
    if (c.size() > word.size() && c.compare(0, word.size(), word) == 0) {
      prefixed = &c;
      ++prefix_count;
    }
  }
  if (prefix_count == 1) return *prefixed;
  const std::string* best = nullptr;
  size_t best_distance = 0;
  for (const std::string& c : candidates) {
    const size_t d = EditDistance(word, c);
    if (best == nullptr || d < best_distance) {
      best = &c;
      best_distance = d;
    }
  }
  const size_t limit = std::max<size_t>(2, word.size() / 3);
  if (best != nullptr && best_distance > 0 && best_distance <= limit) return *best;
  return std::nullopt;
}

}  // namespace streamscope
