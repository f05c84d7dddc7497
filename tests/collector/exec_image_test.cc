// A process that exec'd itself keeps its pid: TraceWriter::IsEarlierImageTrace
// tells its earlier image's trace from a stale file of another process.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "collector/trace_writer.h"

namespace streamscope::collector {
namespace {

class ExecImageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/streamscope-exec-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }
  // A finished trace whose metadata says `pid` began it at `start_wall_ns`.
  std::string Trace(const std::string& name, int64_t pid, int64_t start_wall_ns) {
    WriterOptions o;
    o.path = dir_ + "/" + name;
    auto w = TraceWriter::Open(o);
    EXPECT_TRUE(w.ok()) << w.status().message();
    if (!w.ok()) return o.path;
    (*w)->SetMetadata("pid", std::to_string(pid));
    (*w)->SetMetadata("start_wall_time_ns", std::to_string(start_wall_ns));
    EXPECT_TRUE((*w)->Finish("normal_exit", 1).ok());
    return o.path;
  }
  std::string dir_;
};

constexpr int64_t kSecond = 1'000'000'000;

TEST_F(ExecImageTest, TraceOfThisPidBegunAfterTheProcessStartedIsAnEarlierImage) {
  std::string path = Trace("a.sqlite", 4242, 100 * kSecond);
  EXPECT_TRUE(TraceWriter::IsEarlierImageTrace(path, 4242, 100 * kSecond));
  EXPECT_TRUE(TraceWriter::IsEarlierImageTrace(path, 4242, 101 * kSecond)) << "2 s of clock granularity";
}

TEST_F(ExecImageTest, StaleTraceOfAnEarlierProcessWithTheSamePidIsNot) {
  std::string path = Trace("a.sqlite", 4242, 100 * kSecond);
  EXPECT_FALSE(TraceWriter::IsEarlierImageTrace(path, 4242, 200 * kSecond));
}

TEST_F(ExecImageTest, TraceOfAnotherPidIsNot) {
  std::string path = Trace("a.sqlite", 4242, 100 * kSecond);
  EXPECT_FALSE(TraceWriter::IsEarlierImageTrace(path, 4243, 100 * kSecond));
}

TEST_F(ExecImageTest, MissingFilesSymlinksAndNonTracesAreNot) {
  EXPECT_FALSE(TraceWriter::IsEarlierImageTrace(dir_ + "/missing.sqlite", 1, 0));
  std::string path = Trace("a.sqlite", 4242, 100 * kSecond);
  std::string link = dir_ + "/link.sqlite";
  ASSERT_EQ(symlink(path.c_str(), link.c_str()), 0);
  EXPECT_FALSE(TraceWriter::IsEarlierImageTrace(link, 4242, 100 * kSecond)) << "never through a symlink";
  std::string text = dir_ + "/text.sqlite";
  std::ofstream(text) << "not a database";
  EXPECT_FALSE(TraceWriter::IsEarlierImageTrace(text, 4242, 100 * kSecond));
}

}  // namespace
}  // namespace streamscope::collector
