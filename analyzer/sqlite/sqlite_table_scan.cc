#include "analyzer/sqlite/sqlite_table_scan.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analyzer/sqlite/sqlite_file_header.h"

namespace streamscope {
namespace {

absl::Status Refuse(std::string_view table, std::string_view why) {
  return absl::FailedPreconditionError(
      absl::StrCat("table '", std::string(table), "' not read from its pages: ", std::string(why)));
}

uint32_t Get2(const uint8_t* p) { return (uint32_t{p[0]} << 8) | p[1]; }
uint32_t Get4(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

// The varint at p, none of it at or past `end`: its length (0 if it runs
// past end) and value in *v.
inline int GetVarint(const uint8_t* p, const uint8_t* end, uint64_t* v) {
  if (p < end && *p < 0x80) {  // nearly every serial type, and small sizes
    *v = *p;
    return 1;
  }
  uint64_t x = 0;
  for (int i = 0; i < 8; ++i) {
    if (p + i >= end) return 0;
    x = (x << 7) | (p[i] & 0x7f);
    if ((p[i] & 0x80) == 0) {
      *v = x;
      return i + 1;
    }
  }
  if (p + 8 >= end) return 0;
  *v = (x << 8) | p[8];
  return 9;
}

// Bytes a field of serial type t takes in the record body; -1 for the
// reserved types 10 and 11.
int64_t FieldBytes(uint64_t t) {
  static constexpr int8_t kFixed[12] = {0, 1, 2, 3, 4, 6, 8, 8, 0, 0, -1, -1};
  if (t < 12) return kFixed[t];
  return static_cast<int64_t>((t - 12) / 2);
}

// The big-endian two's complement integer of serial type t (1 to 6).
int64_t IntegerOfType(const uint8_t* p, uint64_t t) {
  switch (t) {
    case 1: return static_cast<int8_t>(p[0]);
    case 2: return static_cast<int16_t>(Get2(p));
    case 3: return static_cast<int32_t>(static_cast<uint32_t>(p[0]) << 24 | Get2(p + 1) << 8) >> 8;
    case 4: return static_cast<int32_t>(Get4(p));
    case 5: return int64_t{static_cast<int16_t>(Get2(p))} * (int64_t{1} << 32) + Get4(p + 2);
    default: return static_cast<int64_t>(uint64_t{Get4(p)} << 32 | Get4(p + 4));
  }
}

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

bool ReadAt(int fd, uint8_t* into, size_t bytes, off_t offset) {
  size_t done = 0;
  while (done < bytes) {
    ssize_t n = pread(fd, into + done, bytes - done, offset + static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// "DESC" as a word: an INTEGER PRIMARY KEY DESC column is not the rowid.
bool HasDescWord(const std::string& sql) {
  const std::string upper = absl::AsciiStrToUpper(sql);
  for (size_t at = upper.find("DESC"); at != std::string::npos; at = upper.find("DESC", at + 1)) {
    auto word_char = [&](size_t i) { return absl::ascii_isalnum(upper[i]) || upper[i] == '_'; };
    if ((at == 0 || !word_char(at - 1)) && (at + 4 == upper.size() || !word_char(at + 4))) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<TableScanPlan> PlanTableScan(SqliteDb& db, std::string_view table,
                                            std::span<const std::string_view> columns) {
  TableScanPlan plan;
  plan.path = db.path();
  plan.table = std::string(table);
  if (columns.size() > static_cast<size_t>(kMaxScannedColumns)) return Refuse(table, "too many columns");
  // A log or journal may hold rows (or undo writes) the file's pages lack.
  if (Exists(plan.path + "-wal") || Exists(plan.path + "-journal")) {
    return Refuse(table, "a write-ahead log or rollback journal is beside the file");
  }

  // The file's header.
  const std::optional<SqliteFileHeader> h = ReadSqliteFileHeader(plan.path);
  if (!h) return Refuse(table, "the file cannot be opened");
  if (!h->complete || !h->magic) return Refuse(table, "no SQLite header");
  plan.page_size = h->page_size;
  if (plan.page_size < 512 || plan.page_size > 65536 || (plan.page_size & (plan.page_size - 1)) != 0) {
    return Refuse(table, "unexpected page size");
  }
  if (h->payload_fractions != std::array<uint8_t, 3>{64, 32, 32}) return Refuse(table, "unexpected payload fractions");
  plan.usable_size = plan.page_size - h->reserved_bytes;
  if (plan.usable_size < 480) return Refuse(table, "too many reserved bytes per page");
  // The header's count when it is current, else the file's length; pages
  // past the file's end cannot be read either way.
  const int64_t file_pages = h->file_bytes / plan.page_size;
  plan.page_count = static_cast<uint32_t>(
      std::min<int64_t>(h->pages.value_or(file_pages), std::min<int64_t>(file_pages, UINT32_MAX)));

  // The table's root page and columns.
  std::string type, sql;
  absl::Status s = db.ForEachRow("SELECT type, rootpage, sql FROM sqlite_schema WHERE name = ?1", {table},
                                 [&](const SqliteStatement& r) {
                                   type = std::string(r.Text(0));
                                   plan.root_page = static_cast<uint32_t>(std::max<int64_t>(0, r.Int64(1)));
                                   sql = std::string(r.Text(2));
                                 });
  if (!s.ok()) return s;
  if (type != "table" || plan.root_page == 0 || plan.root_page > plan.page_count) {
    return Refuse(table, "not a table with a root page");
  }
  if (absl::StrContains(absl::AsciiStrToUpper(sql), "WITHOUT ROWID")) return Refuse(table, "a WITHOUT ROWID table");
  struct Column {
    std::string name, type;
    bool has_default = false;
    int pk = 0;
  };
  std::vector<Column> declared;
  bool hidden = false;
  s = db.ForEachRow("SELECT name, type, dflt_value IS NOT NULL, pk, hidden FROM pragma_table_xinfo(?1) ORDER BY cid",
                    {table}, [&](const SqliteStatement& r) {
                      declared.push_back({std::string(r.Text(0)), std::string(r.Text(1)), r.Int64(2) != 0,
                                          static_cast<int>(r.Int64(3))});
                      hidden = hidden || r.Int64(4) != 0;
                    });
  if (!s.ok()) return s;
  if (hidden) return Refuse(table, "hidden or generated columns");
  const int pk_columns =
      static_cast<int>(std::count_if(declared.begin(), declared.end(), [](const Column& c) { return c.pk > 0; }));
  for (std::string_view want : columns) {
    auto it = std::find_if(declared.begin(), declared.end(),
                           [&](const Column& c) { return absl::EqualsIgnoreCase(c.name, std::string(want)); });
    if (it == declared.end()) return Refuse(table, absl::StrCat("no column ", std::string(want)));
    const bool rowid =
        it->pk == 1 && pk_columns == 1 && absl::EqualsIgnoreCase(it->type, "INTEGER") && !HasDescWord(sql);
    const int field = rowid ? -1 : static_cast<int>(it - declared.begin());
    if (field >= 0 && it->has_default)
      return Refuse(table, absl::StrCat("column ", std::string(want), " has a default"));
    if (std::find(plan.field.begin(), plan.field.end(), field) != plan.field.end()) {
      return Refuse(table, "a column asked for twice");
    }
    plan.field.push_back(field);
  }
  return plan;
}

// Walks the table's b-tree left to right, decoding each leaf cell's record.
class TableScanner {
 public:
  TableScanner(const TableScanPlan& plan, int fd, absl::FunctionRef<void(const ScannedRow&)> fn)
      : plan_(plan), fd_(fd), fn_(fn), columns_(plan.field.size()), max_local_(plan.usable_size - 35) {
    for (size_t c = 0; c < plan.field.size(); ++c) {
      if (plan.field[c] < 0) continue;
      if (static_cast<size_t>(plan.field[c]) >= slot_of_field_.size()) slot_of_field_.resize(plan.field[c] + 1, -1);
      slot_of_field_[plan.field[c]] = static_cast<int>(c);
    }
    min_local_ = (plan.usable_size - 12) * 32 / 255 - 23;
  }

  absl::Status Run() { return Visit(plan_.root_page, 0); }

 private:
  static constexpr int kMaxDepth = 24;
  static constexpr uint64_t kMaxRecordBytes = uint64_t{1} << 20;

  absl::Status Refused(std::string_view why) const { return Refuse(plan_.table, why); }

  bool ReadPage(uint32_t page, uint8_t* into) {
    if (page == 0 || page > plan_.page_count || ++pages_read_ > plan_.page_count + uint64_t{1}) return false;
    return ReadAt(fd_, into, plan_.page_size, static_cast<off_t>(page - 1) * plan_.page_size);
  }

  absl::Status Visit(uint32_t page, int depth) {
    if (depth >= kMaxDepth) return Refused("b-tree too deep");
    pages_[depth].resize(plan_.page_size);  // one buffer per level: a parent's page stays while its children are read
    uint8_t* p = pages_[depth].data();
    if (!ReadPage(page, p)) return Refused(absl::StrCat("page ", page, " cannot be read or is read twice"));
    const uint32_t off = page == 1 ? 100 : 0;
    const uint8_t kind = p[off];
    const bool leaf = kind == 0x0D;
    if (!leaf && kind != 0x05) return Refused(absl::StrCat("page ", page, " is not a table b-tree page"));
    const uint32_t cells = Get2(p + off + 3);
    // Only an empty table's root, a leaf, has no cells (SQLite's rule).
    if (cells == 0 && (depth > 0 || !leaf)) return Refused(absl::StrCat("page ", page, " has no cells"));
    const uint32_t pointers = off + (leaf ? 8 : 12);
    if (pointers + 2 * cells > plan_.usable_size) return Refused(absl::StrCat("page ", page, ": too many cells"));
    for (uint32_t i = 0; i < cells; ++i) {
      const uint32_t cell = Get2(p + pointers + 2 * i);
      if (cell < pointers + 2 * cells || cell >= plan_.usable_size) {
        return Refused(absl::StrCat("page ", page, ": a cell outside the page"));
      }
      if (leaf) {
        if (absl::Status s = Leaf(p + cell, p + plan_.usable_size); !s.ok()) return s;
      } else {
        if (cell + 4 > plan_.usable_size) return Refused(absl::StrCat("page ", page, ": a cell outside the page"));
        if (absl::Status s = Visit(Get4(p + cell), depth + 1); !s.ok()) return s;
      }
    }
    if (leaf) return absl::OkStatus();
    return Visit(Get4(p + off + 8), depth + 1);
  }

  absl::Status Leaf(const uint8_t* c, const uint8_t* end) {
    uint64_t payload = 0, key = 0;
    const int a = GetVarint(c, end, &payload);
    const int b = a == 0 ? 0 : GetVarint(c + a, end, &key);
    if (b == 0) return Refused("a cell runs past its page");
    const auto rowid = static_cast<int64_t>(key);
    if (any_row_ && rowid <= last_rowid_) return Refused("rowids out of order");
    any_row_ = true;
    last_rowid_ = rowid;
    // A trace's rows take tens of bytes: a larger record (or a damaged
    // size) is left to SQLite rather than buffered here.
    if (payload > kMaxRecordBytes) return Refused("a record over 1 MiB");
    uint64_t local = payload;
    if (payload > max_local_) {
      const uint64_t k = min_local_ + (payload - min_local_) % (plan_.usable_size - 4);
      local = k <= max_local_ ? k : min_local_;
    }
    const uint8_t* body = c + a + b;
    if (local > static_cast<uint64_t>(end - body)) return Refused("a cell runs past its page");
    if (local == payload) return Record(body, payload, rowid);
    // The rest of the record is on a chain of overflow pages.
    if (body + local + 4 > end) return Refused("a cell runs past its page");
    spill_.resize(payload);
    std::memcpy(spill_.data(), body, local);
    overflow_.resize(plan_.page_size);
    uint64_t got = local;
    for (uint32_t next = Get4(body + local); got < payload;) {
      if (!ReadPage(next, overflow_.data())) return Refused("an overflow page cannot be read or is read twice");
      const uint64_t n = std::min<uint64_t>(payload - got, plan_.usable_size - 4);
      std::memcpy(spill_.data() + got, overflow_.data() + 4, n);
      got += n;
      next = Get4(overflow_.data());
    }
    return Record(spill_.data(), payload, rowid);
  }

  absl::Status Record(const uint8_t* rec, uint64_t bytes, int64_t rowid) {
    const uint8_t* end = rec + bytes;
    uint64_t header = 0;
    const int n = GetVarint(rec, end, &header);
    if (n == 0 || header < static_cast<uint64_t>(n) || header > bytes) return Refused("a record's header is damaged");
    std::fill_n(row_.null_.begin(), columns_, true);
    std::fill_n(row_.value_.begin(), columns_, 0);
    const uint8_t* type_at = rec + n;
    const uint8_t* header_end = rec + header;
    const uint8_t* field_at = header_end;
    const size_t wanted = slot_of_field_.size();
    // Every field's type is read, wanted or not: the fields must fill the
    // record exactly, as SQLite requires of a record it reads whole.
    for (size_t f = 0; type_at < header_end; ++f) {
      uint64_t t = 0;
      const int len = GetVarint(type_at, header_end, &t);
      if (len == 0) return Refused("a record's header is damaged");
      type_at += len;
      const int64_t size = FieldBytes(t);
      if (size < 0 || size > end - field_at) return Refused("a record's field runs past it");
      if (const int slot = f < wanted ? slot_of_field_[f] : -1; slot >= 0 && t != 0) {
        if (t >= 1 && t <= 6) {
          row_.value_[slot] = IntegerOfType(field_at, t);
        } else if (t == 8 || t == 9) {
          row_.value_[slot] = static_cast<int64_t>(t - 8);
        } else {
          return Refused("a value that is not an integer");
        }
        row_.null_[slot] = false;
      }
      field_at += size;
    }
    if (field_at != end) return Refused("a record's fields do not fill it");
    for (size_t c = 0; c < plan_.field.size(); ++c) {
      if (plan_.field[c] < 0) {
        row_.value_[c] = rowid;
        row_.null_[c] = false;
      }
    }
    fn_(row_);
    return absl::OkStatus();
  }

  const TableScanPlan& plan_;
  const int fd_;
  absl::FunctionRef<void(const ScannedRow&)> fn_;
  const size_t columns_;
  const uint64_t max_local_;
  uint64_t min_local_ = 0;
  std::vector<int> slot_of_field_;  // per record field, the requested column it is (-1: none)
  std::vector<uint8_t> pages_[kMaxDepth];
  std::vector<uint8_t> overflow_, spill_;
  uint64_t pages_read_ = 0;
  bool any_row_ = false;
  int64_t last_rowid_ = 0;
  ScannedRow row_;
};

namespace {
std::atomic<int64_t> refusals{0};
}  // namespace

void TableReader::CountRefusal() { refusals.fetch_add(1, std::memory_order_relaxed); }
int64_t TableReader::RefusedSoFar() { return refusals.load(std::memory_order_relaxed); }

std::string TableReader::SelectSql(std::string_view table, std::initializer_list<std::string_view> columns) {
  std::vector<std::string> names(columns.begin(), columns.end());
  return absl::StrCat("SELECT ", absl::StrJoin(names, ", "), " FROM ", std::string(table));
}

bool DirectTableReadsAllowed() {
  const char* env = std::getenv("STREAMSCOPE_DIRECT_READ");
  return !(env != nullptr && std::string_view(env) == "0");
}

absl::Status ScanTable(const TableScanPlan& plan, absl::FunctionRef<void(const ScannedRow&)> fn) {
  if (plan.field.size() > static_cast<size_t>(kMaxScannedColumns) || plan.usable_size < 480) {
    return Refuse(plan.table, "not a plan PlanTableScan made");
  }
  const int fd = open(plan.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return absl::NotFoundError(absl::StrCat(plan.path, ": cannot open"));
  absl::Status s = TableScanner(plan, fd, fn).Run();
  close(fd);
  return s;
}

}  // namespace streamscope
