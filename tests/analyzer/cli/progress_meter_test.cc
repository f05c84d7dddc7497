#include "analyzer/cli/progress_meter.h"

#include <gtest/gtest.h>

#include <sstream>

namespace streamscope {
namespace {

TEST(ProgressMeter, IsOffWithoutATerminalUnlessAskedFor) {
  EXPECT_EQ(ProgressMeter::ModeFor(false, false), ProgressMeter::Mode::kOff);
  EXPECT_EQ(ProgressMeter::ModeFor(false, true), ProgressMeter::Mode::kTerminal);
  EXPECT_EQ(ProgressMeter::ModeFor(true, false), ProgressMeter::Mode::kLines);
}

TEST(ProgressMeter, WithProgressEachPhaseIsALineAndTheEndSaysDone) {
  std::ostringstream err;
  {
    ProgressMeter meter(ProgressMeter::Mode::kLines, err, std::chrono::milliseconds(0));
    ProgressPhase("loading a.sqlite");
    ProgressPhase("analyzing a.sqlite", 1, 4);
    ProgressIdle();
  }
  const std::string text = err.str();
  EXPECT_EQ(text.rfind("streamscope: loading a.sqlite (", 0), 0u) << text;
  EXPECT_NE(text.find("\nstreamscope: analyzing a.sqlite 1/4 ("), std::string::npos) << text;
  EXPECT_NE(text.find("\nstreamscope: done in "), std::string::npos) << text;
}

TEST(ProgressMeter, AfterItEndsPhasesGoNowhere) {
  std::ostringstream err;
  { ProgressMeter meter(ProgressMeter::Mode::kLines, err, std::chrono::milliseconds(0)); }
  ProgressPhase("loading b.sqlite");
  EXPECT_EQ(err.str(), "");
}

TEST(ProgressMeter, OffPrintsNothing) {
  std::ostringstream err;
  {
    ProgressMeter meter(ProgressMeter::Mode::kOff, err, std::chrono::milliseconds(0));
    ProgressPhase("loading a.sqlite");
  }
  EXPECT_EQ(err.str(), "");
}

}  // namespace
}  // namespace streamscope
