// SpillBuffer: a writer part's bytes held in memory, then in an unnamed
// temporary file, and appended to the output in the order written.
#include "analyzer/export/spill_buffer.h"

#include <filesystem>
#include <string>

#include "analyzer/export/output_file.h"
#include "gtest/gtest.h"
#include "tests/analyzer/export/export_test_util.h"

namespace streamscope {
namespace {

using testing::ReadFile;
using testing::TempDir;

// Distinct bytes at every offset, so a block out of place shows.
std::string Pattern(size_t n, int seed) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 131 + static_cast<size_t>(seed) * 17) % 251);
  return s;
}

TEST(SpillBuffer, SmallPartsStayInMemoryAndAppendInOrder) {
  TempDir dir;
  auto out = OutputFile::Create(dir / "o.bin", false);
  ASSERT_TRUE(out.ok()) << out.status();
  SpillBuffer part((dir / ""));
  part.Write("held ");
  part.Write("bytes");
  EXPECT_FALSE(part.spilled());
  (*out)->Write("head ");
  ASSERT_TRUE(part.AppendTo(out->get()).ok());
  ASSERT_TRUE((*out)->Commit().ok());
  EXPECT_EQ(ReadFile(dir / "o.bin"), "head held bytes");
}

TEST(SpillBuffer, ALargePartGoesToAnUnnamedFileAndComesBackWhole) {
  TempDir dir;
  auto out = OutputFile::Create(dir / "o.bin", false);
  ASSERT_TRUE(out.ok()) << out.status();
  SpillBuffer part((dir / ""));
  std::string expected = "head";
  (*out)->Write("head");
  for (int k = 0; k < 5; ++k) {  // 5 x 3 MiB: spilled several times, with a held tail
    std::string block = Pattern(3 << 20, k);
    part.Write(block);
    expected += block;
  }
  EXPECT_TRUE(part.spilled());
  EXPECT_EQ(part.bytes(), int64_t{15} << 20);
  // Nothing named is left in the folder while it is held.
  int entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir / "")) {
    entries += e.path().filename().string().starts_with(".streamscope-part") ? 1 : 0;
  }
  EXPECT_EQ(entries, 0);
  ASSERT_TRUE(part.AppendTo(out->get()).ok());
  (*out)->Write("tail");
  expected += "tail";
  ASSERT_TRUE((*out)->Commit().ok());
  EXPECT_EQ(ReadFile(dir / "o.bin"), expected);
}

TEST(SpillBuffer, NoRoomForTheTemporaryFileIsAClearErrorAndTheOutputIsNotCommitted) {
  TempDir dir;
  auto out = OutputFile::Create(dir / "o.bin", false);
  ASSERT_TRUE(out.ok()) << out.status();
  const std::string missing = dir / "no-such-folder";
  SpillBuffer part(missing);
  part.Write(Pattern(SpillBuffer::kKeepBytes + 1, 1));  // must spill, and cannot
  absl::Status s = part.AppendTo(out->get());
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("temporary file"), std::string::npos) << s;
  EXPECT_NE(s.message().find(missing), std::string::npos) << s;
  // The writer returns that error without committing: no file appears.
  out->reset();
  EXPECT_FALSE(std::filesystem::exists(dir / "o.bin"));
}

}  // namespace
}  // namespace streamscope
