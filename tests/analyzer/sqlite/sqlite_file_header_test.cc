// An SQLite file's header as SQLite reads it: the page size (65536 stored
// as 1), the size in pages only while the header is current, and a file
// too short for a header.
#include "analyzer/sqlite/sqlite_file_header.h"

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "analyzer/sqlite/sqlite_db.h"
#include "gtest/gtest.h"

namespace streamscope {
namespace {

std::string NewDb(const std::string& name, int page_size) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::remove(path.c_str());
  std::ofstream(path).close();
  auto db = SqliteDb::OpenReadWrite(path);
  EXPECT_TRUE(db.ok()) << db.status();
  EXPECT_TRUE((*db)->Exec(absl::StrCat("PRAGMA page_size = ", page_size)).ok());
  EXPECT_TRUE((*db)->Exec("CREATE TABLE t (v INTEGER); INSERT INTO t VALUES (1)").ok());
  return path;
}

TEST(SqliteFileHeader, PageSizeAndPagesOfACurrentHeader) {
  for (int page_size : {512, 65536}) {
    const std::string path = NewDb(absl::StrCat("header", page_size, ".sqlite"), page_size);
    std::optional<SqliteFileHeader> h = ReadSqliteFileHeader(path);
    ASSERT_TRUE(h.has_value());
    EXPECT_TRUE(h->complete);
    EXPECT_TRUE(h->magic);
    EXPECT_EQ(h->page_size, static_cast<uint32_t>(page_size));
    EXPECT_EQ(h->reserved_bytes, 0);
    EXPECT_EQ(h->payload_fractions, (std::array<uint8_t, 3>{64, 32, 32}));
    ASSERT_TRUE(h->pages.has_value());
    EXPECT_EQ(int64_t{*h->pages} * page_size, h->file_bytes);
  }
}

TEST(SqliteFileHeader, AStaleHeaderHasNoPagesAndAShortFileIsIncomplete) {
  const std::string path = NewDb("stale.sqlite", 4096);
  std::vector<char> bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  bytes[95] ^= 1;  // "version valid for" no longer the change counter
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  std::optional<SqliteFileHeader> h = ReadSqliteFileHeader(path);
  ASSERT_TRUE(h.has_value());
  EXPECT_TRUE(h->complete);
  EXPECT_FALSE(h->pages.has_value());
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), 50);
  }
  h = ReadSqliteFileHeader(path);
  ASSERT_TRUE(h.has_value());
  EXPECT_FALSE(h->complete);
  EXPECT_EQ(h->file_bytes, 50);
  EXPECT_FALSE(ReadSqliteFileHeader(path + ".missing").has_value());
}

}  // namespace
}  // namespace streamscope
