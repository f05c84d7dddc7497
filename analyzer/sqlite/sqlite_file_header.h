// The first 100 bytes of an SQLite database file, read as SQLite reads them
// (sqlite.org/fileformat2.html, "The Database Header"): what the importer's
// truncation check and the direct table reader (sqlite_table_scan.h) both
// need, read in one place.
#ifndef STREAMSCOPE_ANALYZER_SQLITE_SQLITE_FILE_HEADER_H_
#define STREAMSCOPE_ANALYZER_SQLITE_SQLITE_FILE_HEADER_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace streamscope {

struct SqliteFileHeader {
  int64_t file_bytes = 0;
  bool complete = false;                       // all 100 bytes were there
  bool magic = false;                          // it starts with "SQLite format 3\0"
  uint32_t page_size = 0;                      // as stored, its 1 read as 65536; not checked
  uint8_t reserved_bytes = 0;                  // at the end of every page
  std::array<uint8_t, 3> payload_fractions{};  // 64, 32, 32 in every valid file
  // The database's size in pages, when the header is current: SQLite
  // trusts the field only when its "version valid for" matches the change
  // counter (and it is not 0); otherwise the file's length counts.
  std::optional<uint32_t> pages;
};

// nullopt when the file cannot be opened.
std::optional<SqliteFileHeader> ReadSqliteFileHeader(const std::string& path);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_SQLITE_SQLITE_FILE_HEADER_H_
