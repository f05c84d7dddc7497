// Fuzz-replay style: hundreds of damaged variants of a valid torch.profiler
// trace (every truncation, random byte changes with a fixed seed, each
// field's value replaced by every wrong type and extreme number, plain and
// gzip). Each must load or fail with DATA_LOSS / INVALID_ARGUMENT, never
// crash (run under ASan+UBSan in CI); what loads must go through the whole
// report (text, JSON, CSV) with a valid exit code, and its JSON must parse.
#include <random>
#include <regex>
#include <sstream>

#include "analyzer/cli/exit_codes.h"
#include "analyzer/commands/report_runner.h"
#include "analyzer/importers/trace_loader.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/analyzer/importers/torch/torch_test_util.h"

namespace streamscope {
namespace {

using testing::kSyntheticTorchTrace;
using testing::ReadFile;
using testing::TempPath;
using testing::WriteGzip;
using testing::WriteText;

struct Tally {
  int loaded = 0, refused = 0;
};

// Loads `path`; on success also runs the report in `formats`.
void Check(const std::string& path, const std::string& what, Tally& tally, bool all_formats) {
  auto models = LoadTraceFile(path);
  if (!models.ok()) {
    const absl::StatusCode code = models.status().code();
    EXPECT_TRUE(code == absl::StatusCode::kDataLoss || code == absl::StatusCode::kInvalidArgument)
        << what << ": " << models.status();
    EXPECT_FALSE(models.status().message().empty()) << what;
    ++tally.refused;
    return;
  }
  ++tally.loaded;
  std::vector<ReportOptions::Format> formats = {ReportOptions::Format::kJson};
  if (all_formats) formats = {ReportOptions::Format::kJson, ReportOptions::Format::kText, ReportOptions::Format::kCsv};
  for (ReportOptions::Format format : formats) {
    ReportOptions options;
    options.traces = {path};
    options.format = format;
    std::ostringstream out, err;
    int code = ExitWith(RunReport(options, out, err), err);
    EXPECT_EQ(code, kExitOk) << what << ": " << err.str();
    if (code == kExitOk && format == ReportOptions::Format::kJson) {
      EXPECT_TRUE(nlohmann::json::accept(out.str())) << what;
    }
  }
}

TEST(TorchTraceMalformed, EveryTruncationIsRefusedOrLoadsNeverCrashes) {
  const std::string good = ReadFile(kSyntheticTorchTrace);
  ASSERT_GT(good.size(), 1000u);
  const std::string path = TempPath("cut.json");
  Tally tally;
  const size_t last_brace = good.rfind('}');  // every shorter prefix is incomplete
  for (size_t n = 1; n <= last_brace; n += 5) {
    WriteText(path, good.substr(0, n));
    Check(path, "first " + std::to_string(n) + " bytes", tally, false);
  }
  EXPECT_GT(tally.refused, 1000);  // a JSON trace cut short is never complete
  EXPECT_EQ(tally.loaded, 0);
}

TEST(TorchTraceMalformed, EveryTruncationOfAGzipTraceIsRefused) {
  const std::string whole = TempPath("whole.json.gz");
  ASSERT_TRUE(WriteGzip(whole, ReadFile(kSyntheticTorchTrace)));
  const std::string packed = ReadFile(whole);
  const std::string path = TempPath("cut.json.gz");
  Tally tally;
  for (size_t n = 1; n < packed.size(); n += 3) {
    WriteText(path, packed.substr(0, n));
    auto models = LoadTraceFile(path);
    ASSERT_FALSE(models.ok()) << n;
    EXPECT_TRUE(models.status().code() == absl::StatusCode::kDataLoss ||
                models.status().code() == absl::StatusCode::kInvalidArgument)
        << n << ": " << models.status();
    ++tally.refused;
  }
  EXPECT_GT(tally.refused, 100);
}

TEST(TorchTraceMalformed, RandomByteChangesNeverCrash) {
  const std::string good = ReadFile(kSyntheticTorchTrace);
  const std::string path = TempPath("flipped.json");
  const std::string alphabet = "{}[],:\"0123456789.eE-+ntfx\\\x01\xff";
  std::mt19937 rng(18);
  Tally tally;
  for (int variant = 0; variant < 400; ++variant) {
    std::string bad = good;
    const int changes = 1 + variant % 4;
    for (int c = 0; c < changes; ++c) {
      bad[rng() % bad.size()] = alphabet[rng() % alphabet.size()];
    }
    WriteText(path, bad);
    Check(path, "variant " + std::to_string(variant), tally, variant % 10 == 0);
  }
  EXPECT_GT(tally.loaded, 0);  // some changes only touch names or digits
  EXPECT_GT(tally.refused, 0);
}

TEST(TorchTraceMalformed, EveryFieldWithEveryWrongValueIsCountedOrRefused) {
  const std::string good = ReadFile(kSyntheticTorchTrace);
  const std::vector<std::string> keys = {"ph",
                                         "cat",
                                         "name",
                                         "pid",
                                         "tid",
                                         "ts",
                                         "dur",
                                         "id",
                                         "args",
                                         "correlation",
                                         "device",
                                         "stream",
                                         "bytes",
                                         "cbid",
                                         "grid",
                                         "block",
                                         "traceEvents",
                                         "deviceProperties",
                                         "baseTimeNanoseconds",
                                         "numSms",
                                         "totalGlobalMem",
                                         "registers per thread"};
  const std::vector<std::string> values = {"\"x\"",
                                           "\"\"",
                                           "null",
                                           "true",
                                           "[]",
                                           "{}",
                                           "[1, [2], {}]",
                                           "-1",
                                           "0",
                                           "1e400",
                                           "-1e400",
                                           "1.5e-9",
                                           "9223372036854775807",
                                           "-9223372036854775808",
                                           "18446744073709551616",
                                           "4611686018427387904",
                                           "\"stream 7\"",
                                           "\"\\u0000\\ud800\""};
  const std::string path = TempPath("typed.json");
  Tally tally;
  for (const std::string& key : keys) {
    // The key's value: a number, a string, or a flat array/object.
    const std::regex field("\"" + key +
                           "\": *(-?[0-9][0-9.eE+-]*|\"[^\"]*\"|\\[[^\\]\\[]*\\]|\\{[^{}\\[\\]]*\\}|true|false|null)");
    for (const std::string& value : values) {
      std::string bad = std::regex_replace(good, field, "\"" + key + "\": " + value);
      WriteText(path, bad);
      Check(path, key + " = " + value, tally, key == "ts" || key == "args");
    }
  }
  EXPECT_GT(tally.loaded, 100);
  EXPECT_GT(tally.refused, 10);
}

}  // namespace
}  // namespace streamscope
