// "Did you mean X?" for misspelled subcommands and options: the candidate
// closest in edit distance, when it is close enough to be a likely typo.
#ifndef STREAMSCOPE_ANALYZER_CLI_SUGGEST_H_
#define STREAMSCOPE_ANALYZER_CLI_SUGGEST_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace streamscope {

// Levenshtein distance (insertions, deletions, substitutions; an adjacent
// transposition counts as one edit, the commonest typo).
size_t EditDistance(std::string_view a, std::string_view b);

// The one candidate that `word` is a prefix of; else the candidate nearest
// to `word`, if it is at most max(2, |word| / 3) edits away (ties go to the
// first candidate).
std::optional<std::string> ClosestMatch(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_CLI_SUGGEST_H_
