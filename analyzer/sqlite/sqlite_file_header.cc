#include "analyzer/sqlite/sqlite_file_header.h"

#include <cstdio>
#include <cstring>

namespace streamscope {

std::optional<SqliteFileHeader> ReadSqliteFileHeader(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return std::nullopt;
  unsigned char h[100] = {};
  const size_t n = std::fread(h, 1, sizeof(h), f);
  std::fseek(f, 0, SEEK_END);
  SqliteFileHeader out;
  out.file_bytes = std::ftell(f);
  std::fclose(f);
  out.complete = n == sizeof(h);
  if (!out.complete) return out;
  auto be32 = [&](int at) {
    return (uint32_t{h[at]} << 24) | (uint32_t{h[at + 1]} << 16) | (uint32_t{h[at + 2]} << 8) | h[at + 3];
  };
  out.magic = std::memcmp(h, "SQLite format 3", 16) == 0;
  out.page_size = (uint32_t{h[16]} << 8) | h[17];
  if (out.page_size == 1) out.page_size = 65536;
  out.reserved_bytes = h[20];
  out.payload_fractions = {h[21], h[22], h[23]};
  if (be32(28) != 0 && be32(24) == be32(92)) out.pages = be32(28);
  return out;
}

}  // namespace streamscope
