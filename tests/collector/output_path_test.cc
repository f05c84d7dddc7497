#include "collector/output_path.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>

#include "collector/collector_config.h"

namespace streamscope::collector {
namespace {

EnvLookup FakeEnv(std::map<std::string, std::string> vars) {
  return [vars](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

TEST(OutputTemplate, ExpandsPidHostAndEnvironment) {
  auto path = ExpandOutputTemplate("/tmp/t-%h-%p-r%q{RANK}-100%%.sqlite", 4242, "gpu7", FakeEnv({{"RANK", "3"}}));
  ASSERT_TRUE(path.ok()) << path.status().message();
  EXPECT_EQ(*path, "/tmp/t-gpu7-4242-r3-100%.sqlite");
}

TEST(OutputTemplate, UnsetVariableIsAnError) {
  auto path = ExpandOutputTemplate("t-%q{RANK}.sqlite", 1, "h", FakeEnv({}));
  ASSERT_FALSE(path.ok());
  EXPECT_NE(path.status().message().find("RANK"), std::string::npos);
}

TEST(OutputTemplate, UnknownEscapeAndLonePercentAreErrors) {
  EXPECT_FALSE(ExpandOutputTemplate("t-%x", 1, "h", FakeEnv({})).ok());
  EXPECT_FALSE(ExpandOutputTemplate("t-%", 1, "h", FakeEnv({})).ok());
  EXPECT_FALSE(ExpandOutputTemplate("t-%q{", 1, "h", FakeEnv({})).ok());
  EXPECT_FALSE(ExpandOutputTemplate("t-%qRANK", 1, "h", FakeEnv({})).ok());
  EXPECT_FALSE(ExpandOutputTemplate("", 1, "h", FakeEnv({})).ok());
}

class TempDir : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/streamscope-path-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }
  std::string dir_;
};

using CreateTraceFileTest = TempDir;

TEST_F(CreateTraceFileTest, CreatesAFreshFile) {
  std::string p = dir_ + "/a.sqlite";
  ASSERT_TRUE(CreateTraceFile(p, false).ok());
  struct stat st;
  EXPECT_EQ(lstat(p.c_str(), &st), 0);
}

TEST_F(CreateTraceFileTest, RefusesToClobberWithoutOverwrite) {
  std::string p = dir_ + "/a.sqlite";
  std::ofstream(p) << "precious";
  Status st = CreateTraceFile(p, false);
  EXPECT_EQ(st.code(), StatusCode::kAlreadyExists);
  std::ifstream in(p);
  std::string content;
  in >> content;
  EXPECT_EQ(content, "precious");
}

TEST_F(CreateTraceFileTest, OverwriteReplacesARegularFileAndItsWal) {
  std::string p = dir_ + "/a.sqlite";
  std::ofstream(p) << "old";
  std::ofstream(p + "-wal") << "old wal";
  ASSERT_TRUE(CreateTraceFile(p, true).ok());
  struct stat st;
  ASSERT_EQ(stat(p.c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 0);
  EXPECT_NE(stat((p + "-wal").c_str(), &st), 0);
}

TEST_F(CreateTraceFileTest, NeverFollowsOrRemovesASymlink) {
  std::string target = dir_ + "/target";
  std::ofstream(target) << "victim";
  std::string link = dir_ + "/trace.sqlite";
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  EXPECT_FALSE(CreateTraceFile(link, false).ok());
  EXPECT_FALSE(CreateTraceFile(link, true).ok());
  std::ifstream in(target);
  std::string content;
  in >> content;
  EXPECT_EQ(content, "victim");
  struct stat st;
  EXPECT_EQ(lstat(link.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
}

TEST_F(CreateTraceFileTest, DanglingSymlinkIsNotFollowed) {
  std::string link = dir_ + "/trace.sqlite";
  ASSERT_EQ(symlink((dir_ + "/would-be-created").c_str(), link.c_str()), 0);
  EXPECT_FALSE(CreateTraceFile(link, false).ok());
  struct stat st;
  EXPECT_NE(stat((dir_ + "/would-be-created").c_str(), &st), 0);
}

TEST_F(CreateTraceFileTest, UnwritableDirectoryIsAClearError) {
  Status st = CreateTraceFile(dir_ + "/no/such/dir/t.sqlite", false);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("cannot create trace"), std::string::npos);
}

TEST(CollectorConfig, KindEditsApplyToTheDefaultSet) {
  auto k = ParseKinds("+driver,-overhead");
  ASSERT_TRUE(k.ok());
  EXPECT_TRUE(*k & kKindDriver);
  EXPECT_FALSE(*k & kKindOverhead);
  EXPECT_TRUE(*k & kKindKernel);
}

TEST(CollectorConfig, KindListReplacesTheDefaultSet) {
  auto k = ParseKinds("kernel, memcpy");
  ASSERT_TRUE(k.ok());
  EXPECT_EQ(*k, kKindKernel | kKindMemcpy);
  EXPECT_EQ(KindsToString(*k), "kernel,memcpy");
  EXPECT_EQ(*ParseKinds("all"), kAllKinds);
}

TEST(CollectorConfig, UnknownKindIsAnErrorNamingIt) {
  auto k = ParseKinds("kernel,bogus");
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.status().message().find("bogus"), std::string::npos);
  EXPECT_FALSE(ParseKinds("-kernel,-memcpy,-memset,-sync,-runtime,-nvtx,-stream,-context,-overhead,"
                          "-memory,-submit")
                   .ok());
}

TEST(CollectorConfig, MemoryIsOptInAndPartOfAll) {
  EXPECT_FALSE(kDefaultKinds & kKindMemory) << "opt-in: over the overhead budget";
  EXPECT_FALSE(*ParseKinds("default") & kKindMemory);
  EXPECT_TRUE(*ParseKinds("all") & kKindMemory);
  EXPECT_EQ(*ParseKinds("+memory"), kDefaultKinds | kKindMemory);
  auto off = ParseKinds("-memory");
  ASSERT_TRUE(off.ok());
  EXPECT_EQ(*off, kDefaultKinds & ~kKindMemory);
  auto only = ParseKinds("kernel,memory");
  ASSERT_TRUE(only.ok());
  EXPECT_EQ(*only, kKindKernel | kKindMemory);
  EXPECT_EQ(KindsToString(*only), "kernel,memory");
  EXPECT_NE(KindsToString(kAllKinds).find("memory"), std::string::npos);
}

TEST(CollectorConfig, ReadsEnvironmentAndRejectsBadNumbers) {
  auto c = ConfigFromEnv(FakeEnv({{"STREAMSCOPE_OUTPUT", "x-%p.sqlite"},
                                  {"STREAMSCOPE_FLUSH_MS", "200"},
                                  {"STREAMSCOPE_OVERWRITE", "1"},
                                  {"STREAMSCOPE_KINDS", "+driver"}}));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->output_template, "x-%p.sqlite");
  EXPECT_EQ(c->flush_ms, 200u);
  EXPECT_TRUE(c->overwrite);
  EXPECT_TRUE(c->kinds & kKindDriver);
  EXPECT_NE(c->ToJson().find("\"flush_ms\":200"), std::string::npos);
  auto bad = ConfigFromEnv(FakeEnv({{"STREAMSCOPE_FLUSH_MS", "soon"}}));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("STREAMSCOPE_FLUSH_MS"), std::string::npos);
  EXPECT_FALSE(ConfigFromEnv(FakeEnv({{"STREAMSCOPE_CLOCK", "sundial"}})).ok());
}

TEST(CollectorConfig, DefaultsNeedNoEnvironment) {
  auto c = ConfigFromEnv(FakeEnv({}));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->output_template, "streamscope-%p.sqlite");
  EXPECT_LE(c->flush_ms, 1000u);
  EXPECT_FALSE(c->kinds & kKindDriver);
  EXPECT_TRUE(c->kinds & kKindRuntime);
}

}  // namespace
}  // namespace streamscope::collector
