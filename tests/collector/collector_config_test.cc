// The options string of streamscope_record_start and the default kinds.
#include "collector/collector_config.h"

#include <gtest/gtest.h>

#include <string>

namespace streamscope::collector {
namespace {

TEST(ConfigFromOptions, NoOptionsAreTheDefaults) {
  auto c = ConfigFromOptions("");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->kinds, kDefaultKinds);
  EXPECT_EQ(c->flush_ms, 500u);
}

TEST(ConfigFromOptions, ShortAndFullKeysInAnyCase) {
  auto c = ConfigFromOptions(" kinds=+memory ; FLUSH_MS = 100\nSTREAMSCOPE_BUFFER_KB=128;");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->kinds, kDefaultKinds | kKindMemory);
  EXPECT_EQ(c->flush_ms, 100u);
  EXPECT_EQ(c->buffer_kb, 128u);
}

TEST(ConfigFromOptions, KindListsKeepTheirCommas) {
  auto c = ConfigFromOptions("kinds=kernel,memcpy");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->kinds, kKindKernel | kKindMemcpy);
}

TEST(ConfigFromOptions, OutputIsAnArgumentNotAnOption) {
  auto c = ConfigFromOptions("output=/tmp/x.sqlite");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(std::string(c.status().message()).find("unknown option 'output'"), std::string::npos);
}

TEST(ConfigFromOptions, BadValuesNameTheVariable) {
  auto c = ConfigFromOptions("flush_ms=soon");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(std::string(c.status().message()).find("STREAMSCOPE_FLUSH_MS"), std::string::npos);
  EXPECT_FALSE(ConfigFromOptions("kinds").ok()) << "no '='";
}

TEST(CollectorOptions, CaptureRangeAndStartPausedAreReadAndRecorded) {
  auto c = ConfigFromOptions("capture_range=nvtx:step@100-110; start_paused=1");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->capture.kind, CaptureRange::Kind::kNvtx);
  EXPECT_EQ(c->capture.first, 100u);
  EXPECT_TRUE(c->capture.start_paused);
  EXPECT_NE(c->ToJson().find("\"capture_range\":\"nvtx:step@100-110\",\"start_paused\":true"), std::string::npos);
  EXPECT_FALSE(ConfigFromOptions("capture_range=nvtx:").ok());
}

TEST(CollectorOptions, FlightRecorderAndTriggerAreReadAndChecked) {
  auto c = ConfigFromOptions("flight_recorder=30s; trigger=nvtx:step>2x");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->flight_recorder->span_ns, 30'000'000'000u);
  EXPECT_EQ(c->trigger->nvtx_name, "step");
  EXPECT_NE(c->ToJson().find("\"flight_recorder\":\"30s, at most 500000 records\",\"trigger\":\"nvtx:step>2x\""),
            std::string::npos);
  EXPECT_FALSE(ConfigFromOptions("trigger=nvtx:step>2x").ok()) << "a trigger needs the ring";
  EXPECT_FALSE(ConfigFromOptions("flight_recorder=30s; capture_range=cudaProfilerApi").ok());
  EXPECT_FALSE(ConfigFromOptions("flight_recorder=forever").ok());
}

TEST(RecordKinds, RuntimeAllIsOptInAndImpliesRuntime) {
  EXPECT_FALSE(kDefaultKinds & kKindRuntimeAll);
  EXPECT_EQ(*ParseKinds("+runtime-all"), kDefaultKinds | kKindRuntimeAll);
  EXPECT_EQ(*ParseKinds("kernel,runtime-all"), kKindKernel | kKindRuntime | kKindRuntimeAll);
  EXPECT_TRUE(kAllKinds & kKindRuntimeAll);
}

TEST(RecordKinds, SubmittingDriverCallsAreRecordedByDefault) {
  EXPECT_TRUE(kDefaultKinds & kKindSubmit);
  EXPECT_FALSE(kDefaultKinds & kKindDriver) << "the whole driver API doubles API records";
  EXPECT_EQ(*ParseKinds("-submit"), kDefaultKinds & ~kKindSubmit);
  EXPECT_NE(KindsToString(kDefaultKinds).find("submit"), std::string::npos);
}

}  // namespace
}  // namespace streamscope::collector
