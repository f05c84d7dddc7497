// Track layout rules and the safe output file of the exporters.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "analyzer/export/output_file.h"
#include "analyzer/export/trace_event_writer.h"
#include "analyzer/export/track_layout.h"
#include "gtest/gtest.h"

namespace streamscope {
namespace {

TEST(LaneAssigner, DisjointSlicesStayOnTheTrack) {
  LaneAssigner lanes;
  EXPECT_EQ(lanes.Place(0, 10), 0);
  EXPECT_EQ(lanes.Place(10, 20), 0);  // touching is fine
  EXPECT_EQ(lanes.Place(25, 25), 0);
  EXPECT_EQ(lanes.moved(), 0);
  EXPECT_EQ(lanes.lanes(), 1);
}

TEST(LaneAssigner, OverlappingSliceGoesToAnOverflowLaneAndIsCounted) {
  LaneAssigner lanes;
  EXPECT_EQ(lanes.Place(0, 100), 0);
  EXPECT_EQ(lanes.Place(95, 150), 1);  // 5 ns of jitter
  EXPECT_EQ(lanes.Place(99, 120), 2);
  EXPECT_EQ(lanes.Place(150, 160), 0);  // lane 0 free again
  EXPECT_EQ(lanes.Place(130, 140), 2);  // lanes 0 and 1 busy; lane 2 free since 120
  EXPECT_EQ(lanes.moved(), 3);
  EXPECT_EQ(lanes.lanes(), 3);
}

TEST(NestingClipper, NestedSlicesAreKept) {
  NestingClipper clip;
  EXPECT_EQ(clip.Place(0, 100), 100);
  EXPECT_EQ(clip.Place(10, 50), 50);
  EXPECT_EQ(clip.Place(20, 30), 30);
  EXPECT_EQ(clip.Place(60, 100), 100);   // ends with its parent
  EXPECT_EQ(clip.Place(100, 120), 120);  // after the parent
  EXPECT_EQ(clip.clipped(), 0);
}

TEST(NestingClipper, ChildOutlivingItsParentIsClippedAndCounted) {
  NestingClipper clip;
  clip.Place(0, 100);
  EXPECT_EQ(clip.Place(90, 130), 100);
  EXPECT_EQ(clip.clipped(), 1);
}

TEST(AppendMicros, KeepsNanosecondsAsThreeDecimals) {
  std::string s;
  AppendMicros(1234567, &s);
  EXPECT_EQ(s, "1234.567");
  s.clear();
  AppendMicros(5, &s);
  EXPECT_EQ(s, "0.005");
  s.clear();
  AppendMicros(-1500, &s);
  EXPECT_EQ(s, "-1.500");
  s.clear();
  AppendMicros(1'700'000'000'000'000'123, &s);
  EXPECT_EQ(s, "1700000000000000.123");
}

class OutputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("streamscope_export_out_" + std::to_string(getpid()) + "_" +
                                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Read(const std::filesystem::path& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  size_t Entries() { return static_cast<size_t>(std::distance(std::filesystem::directory_iterator(dir_), {})); }
  std::filesystem::path dir_;
};

TEST_F(OutputFileTest, WritesANewFileOnCommit) {
  auto f = OutputFile::Create((dir_ / "a.json").string(), false);
  ASSERT_TRUE(f.ok()) << f.status();
  (*f)->Write("hello");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "a.json"));  // not before commit
  ASSERT_TRUE((*f)->Commit().ok());
  EXPECT_EQ(Read(dir_ / "a.json"), "hello");
  f->reset();
  EXPECT_EQ(Entries(), 1u);  // no temporary left
}

TEST_F(OutputFileTest, RefusesToClobberAnExistingFile) {
  std::ofstream(dir_ / "a.json") << "keep";
  auto f = OutputFile::Create((dir_ / "a.json").string(), false);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(Read(dir_ / "a.json"), "keep");
}

TEST_F(OutputFileTest, RefusesASymlinkEvenWithOverwrite) {
  std::ofstream(dir_ / "target") << "keep";
  std::filesystem::create_symlink(dir_ / "target", dir_ / "link.json");
  auto f = OutputFile::Create((dir_ / "link.json").string(), true);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(Read(dir_ / "target"), "keep");
}

TEST_F(OutputFileTest, OverwriteReplacesARegularFile) {
  std::ofstream(dir_ / "a.json") << "old";
  auto f = OutputFile::Create((dir_ / "a.json").string(), true);
  ASSERT_TRUE(f.ok());
  (*f)->Write("new");
  ASSERT_TRUE((*f)->Commit().ok());
  EXPECT_EQ(Read(dir_ / "a.json"), "new");
}

TEST_F(OutputFileTest, AbandonedFileLeavesNothingBehind) {
  {
    auto f = OutputFile::Create((dir_ / "a.json").string(), false);
    ASSERT_TRUE(f.ok());
    (*f)->Write(std::string(3 << 20, 'x'));  // forces flushes to the temporary
  }
  EXPECT_EQ(Entries(), 0u);
}

TEST_F(OutputFileTest, FileThatAppearsBeforeCommitIsNotClobbered) {
  auto f = OutputFile::Create((dir_ / "a.json").string(), false);
  ASSERT_TRUE(f.ok());
  std::ofstream(dir_ / "a.json") << "theirs";
  (*f)->Write("mine");
  EXPECT_EQ((*f)->Commit().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(Read(dir_ / "a.json"), "theirs");
}

}  // namespace
}  // namespace streamscope
