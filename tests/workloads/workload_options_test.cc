#include "workloads/harness/workload_options.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace streamscope::workloads {
namespace {

using ::testing::HasSubstr;
using ::testing::Pair;

StatusOr<WorkloadOptions> Parse(std::vector<std::string> args) {
  std::vector<const char*> argv = {"streamscope_workloads"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  return ParseWorkloadOptions(int(argv.size()), argv.data());
}

TEST(WorkloadOptions, SmallDefaultsOfOverlappedAreEightChunksOfSixteenMib) {
  StatusOr<WorkloadOptions> o = Parse({"--variant", "overlapped"});
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->chunks, 8);
  EXPECT_EQ(o->chunk_mib, 16);
  EXPECT_EQ(o->iterations, 1);
  EXPECT_EQ(o->streams, 4);
  EXPECT_EQ(o->kernel_iters, 1024);
  EXPECT_EQ(o->chunk_bytes(), 16u << 20);
  EXPECT_EQ(o->chunk_words(), 4u << 20);
}

TEST(WorkloadOptions, LargePresetIsBigger) {
  StatusOr<WorkloadOptions> o = Parse({"--variant=overlapped", "--size=large"});
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->chunks, 32);
  EXPECT_EQ(o->chunk_mib, 32);
  EXPECT_EQ(o->iterations, 4);
}

TEST(WorkloadOptions, ExplicitParametersOverrideThePreset) {
  StatusOr<WorkloadOptions> o = Parse({"--variant", "overlapped", "--chunks", "4", "--chunk-mib=2", "--size", "large"});
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->chunks, 4);
  EXPECT_EQ(o->chunk_mib, 2);
  EXPECT_EQ(o->iterations, 4);  // still from the large preset
}

TEST(WorkloadOptions, VariantDefaultsDiffer) {
  EXPECT_EQ(Parse({"--variant", "racy"})->kernel_iters, 4096);
  EXPECT_EQ(Parse({"--variant", "legacy_default"})->streams, 2);
  EXPECT_EQ(Parse({"--variant", "cpu_starved"})->host_prepare_us, 3000);
  EXPECT_EQ(Parse({"--variant", "launch_graph"})->kernels, 2000);
  EXPECT_EQ(Parse({"--variant", "concurrent_kernels"})->kernel_iters, 100000);
  EXPECT_EQ(Parse({"--variant", "persistent_kernel"})->items, 256);
}

TEST(WorkloadOptions, ParameterOfAnotherVariantIsRejected) {
  StatusOr<WorkloadOptions> o = Parse({"--variant", "sequential", "--streams", "4"});
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(o.status().message(), HasSubstr("--streams does not apply to variant sequential"));
}

TEST(WorkloadOptions, BadValuesAreRejectedWithTheFlagName) {
  EXPECT_THAT(Parse({"--variant", "overlapped", "--chunks", "x"}).status().message(),
              HasSubstr("--chunks needs an integer"));
  EXPECT_THAT(Parse({"--variant", "overlapped", "--chunks", "12abc"}).status().message(),
              HasSubstr("--chunks needs an integer"));
  EXPECT_THAT(Parse({"--variant", "overlapped", "--chunks", "0"}).status().message(),
              HasSubstr("--chunks must be in [1, 4096], got 0"));
  EXPECT_THAT(Parse({"--variant", "overlapped", "--chunks"}).status().message(), HasSubstr("--chunks needs a value"));
  EXPECT_THAT(Parse({"--variant", "overlapped", "--bogus", "1"}).status().message(), HasSubstr("unknown flag --bogus"));
  EXPECT_THAT(Parse({"--variant", "nope"}).status().message(), HasSubstr("unknown variant 'nope'"));
  EXPECT_THAT(Parse({"overlapped"}).status().message(), HasSubstr("unexpected argument"));
  EXPECT_THAT(Parse({}).status().message(), HasSubstr("--variant NAME is required"));
  EXPECT_THAT(Parse({"--variant", "overlapped", "--size", "huge"}).status().message(), HasSubstr("--size must be"));
}

TEST(WorkloadOptions, PropertiesNeedingTwoStreamsRejectOne) {
  EXPECT_THAT(Parse({"--variant", "overlapped", "--streams", "1"}).status().message(),
              HasSubstr("needs --streams >= 2"));
  EXPECT_THAT(Parse({"--variant", "misleading_timing", "--chunks", "1"}).status().message(),
              HasSubstr("needs --chunks >= 2"));
  EXPECT_TRUE(Parse({"--variant", "cpu_starved", "--streams", "1"}).ok());
}

TEST(WorkloadOptions, TotalSizeIsBounded) {
  EXPECT_THAT(Parse({"--variant", "overlapped", "--chunks", "1024", "--chunk-mib", "1024"}).status().message(),
              HasSubstr("exceeds 8192 MiB per direction"));
}

TEST(WorkloadOptions, ModesNeedNoVariant) {
  EXPECT_TRUE(Parse({"--list"})->list);
  EXPECT_TRUE(Parse({"--help"})->help);
  EXPECT_TRUE(Parse({"--check-device"})->check_device);
  EXPECT_FALSE(Parse({"--list=1"}).ok());
}

TEST(WorkloadOptions, ParamsListOnlyWhatTheVariantTakesInFixedOrder) {
  StatusOr<WorkloadOptions> o = Parse({"--variant", "cpu_starved", "--chunks", "4"});
  ASSERT_TRUE(o.ok());
  EXPECT_THAT(VariantParams(*o), ::testing::ElementsAre(Pair("chunks", "4"), Pair("chunk_mib", "16"),
                                                        Pair("iterations", "1"), Pair("streams", "4"),
                                                        Pair("kernel_iters", "1024"), Pair("host_prepare_us", "3000")));
}

TEST(WorkloadOptions, EveryVariantParsesWithItsDefaults) {
  for (const VariantInfo& v : kVariants) {
    StatusOr<WorkloadOptions> o = Parse({"--variant", std::string(v.name)});
    EXPECT_TRUE(o.ok()) << v.name << ": " << o.status().message();
    StatusOr<WorkloadOptions> large = Parse({"--variant", std::string(v.name), "--size", "large"});
    EXPECT_TRUE(large.ok()) << v.name << ": " << large.status().message();
    EXPECT_FALSE(v.property.empty());
  }
}

TEST(WorkloadOptions, ListAndUsageNameEveryVariant) {
  const std::string list = VariantListText();
  const std::string usage = UsageText();
  for (const VariantInfo& v : kVariants) {
    EXPECT_THAT(list, HasSubstr(std::string(v.name)));
    EXPECT_THAT(usage, HasSubstr(std::string(v.name)));
  }
}

}  // namespace
}  // namespace streamscope::workloads
