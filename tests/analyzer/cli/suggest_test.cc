#include "analyzer/cli/suggest.h"

#include <gtest/gtest.h>

namespace streamscope {
namespace {

TEST(EditDistance, CountsInsertionsDeletionsAndSubstitutions) {
  EXPECT_EQ(EditDistance("report", "report"), 0u);
  EXPECT_EQ(EditDistance("", "run"), 3u);
  EXPECT_EQ(EditDistance("--fromm", "--from"), 1u);
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
}

TEST(EditDistance, AnAdjacentTranspositionIsOneEdit) { EXPECT_EQ(EditDistance("reprot", "report"), 1u); }

TEST(ClosestMatch, AMisspelledCommandGetsTheNearestName) {
  const std::vector<std::string> commands = {"run", "report", "compare", "diagnose", "export", "convert", "workloads"};
  EXPECT_EQ(ClosestMatch("reprot", commands), "report");
  EXPECT_EQ(ClosestMatch("comapre", commands), "compare");
  EXPECT_EQ(ClosestMatch("exprot", commands), "export");
}

TEST(ClosestMatch, AUniquePrefixWinsOverEditDistance) {
  const std::vector<std::string> options = {"--top", "--gap-threshold", "--to"};
  EXPECT_EQ(ClosestMatch("--gap", options), "--gap-threshold");
}

TEST(ClosestMatch, NothingCloseGivesNoSuggestion) {
  EXPECT_EQ(ClosestMatch("frobnicate", {"run", "report"}), std::nullopt);
  EXPECT_EQ(ClosestMatch("", {"run"}), std::nullopt);
}

TEST(ClosestMatch, AnExactNameIsNoSuggestion) { EXPECT_EQ(ClosestMatch("run", {"run"}), std::nullopt); }

}  // namespace
}  // namespace streamscope
