#include "tests/fuzz/trace_mutator.h"

#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

namespace streamscope::fuzz {
namespace {

// Fixed order: a corpus input's first byte picks one of these.
constexpr const char* kSeedNames[] = {
    "overlapped.sqlite",
    "sequential.sqlite",
    "launch_graph.sqlite",
    "collector_known_ops.sqlite",
    "racy.sqlite",
    "event_pipeline.sqlite",
    "cpu_starved.sqlite",
    "implicit_sync.sqlite",
    "nsys/small-rtx3060-nsys2025.sqlite",
    "nsys/vecadd-um-a100.sqlite",
    "nsys/saxpy-mpi-cuda-rank0-a100.sqlite",
};

constexpr int64_t kInterestingInts[] = {
    0,
    1,
    -1,
    2,
    1000,
    -1000,
    1'000'000'000,
    -1'000'000'000,
    std::numeric_limits<int32_t>::max(),
    std::numeric_limits<int32_t>::min(),
    int64_t{1} << 32,
    int64_t{1} << 53,
    int64_t{1} << 62,
    std::numeric_limits<int64_t>::max(),
    std::numeric_limits<int64_t>::min(),
    std::numeric_limits<int64_t>::max() - 1,
    std::numeric_limits<int64_t>::min() + 1,
};
constexpr double kInterestingReals[] = {
    0.5,
    -0.5,
    1e300,
    -1e300,
    9.3e18,
    -9.3e18,
    1e-300,
    std::numeric_limits<double>::infinity(),
    -std::numeric_limits<double>::infinity(),
};
constexpr const char* kSchemaVersions[] = {"0", "2",   "999", "-1",  "abc",
                                           "",  "1.0", " 1",  "1e3", "99999999999999999999"};

std::string Quote(const std::string& ident) {
  std::string out = "\"";
  for (char c : ident) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return "";
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// Opens `bytes` as an in-memory database the edits may grow.
sqlite3* OpenInMemory(const std::string& bytes) {
  sqlite3* db = nullptr;
  if (sqlite3_open(":memory:", &db) != SQLITE_OK) {
    sqlite3_close(db);
    return nullptr;
  }
  auto* buf = static_cast<unsigned char*>(sqlite3_malloc64(bytes.size()));
  std::memcpy(buf, bytes.data(), bytes.size());
  int rc = sqlite3_deserialize(db, "main", buf, static_cast<sqlite3_int64>(bytes.size()),
                               static_cast<sqlite3_int64>(bytes.size()),
                               SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE);
  if (rc != SQLITE_OK) {
    sqlite3_close(db);
    return nullptr;
  }
  return db;
}

std::vector<SeedTable> ListTables(sqlite3* db) {
  std::vector<SeedTable> tables;
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name", -1, &st, nullptr);
  while (st != nullptr && sqlite3_step(st) == SQLITE_ROW) {
    tables.push_back({reinterpret_cast<const char*>(sqlite3_column_text(st, 0)), {}});
  }
  sqlite3_finalize(st);
  for (SeedTable& t : tables) {
    sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info(?1) ORDER BY cid", -1, &st, nullptr);
    sqlite3_bind_text(st, 1, t.name.c_str(), -1, SQLITE_TRANSIENT);
    while (sqlite3_step(st) == SQLITE_ROW) {
      t.columns.push_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
    }
    sqlite3_finalize(st);
  }
  return tables;
}

// Which rows an edit touches: all, the k-th one, or every m-th.
std::string RowSelector(const std::string& table, FuzzInput& in) {
  uint8_t kind = in.Byte() % 3;
  uint8_t k = in.Byte();
  if (kind == 0) return "1";
  if (kind == 1) {
    return "rowid IN (SELECT rowid FROM " + Quote(table) + " LIMIT 1 OFFSET " + std::to_string(k) + ")";
  }
  return "rowid % " + std::to_string(k % 7 + 2) + " = 0";
}

int64_t FuzzedInt(FuzzInput& in) {
  uint8_t pick = in.Byte();
  constexpr size_t n = sizeof(kInterestingInts) / sizeof(kInterestingInts[0]);
  if (pick < n * 8) return kInterestingInts[pick % n];
  return in.Int64();
}

void Exec(sqlite3* db, const std::string& sql) { sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr); }

// Runs `sql` with ?1 bound to a value the input chooses (kind 0..3).
void ExecWithValue(sqlite3* db, const std::string& sql, int kind, FuzzInput& in) {
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
    sqlite3_finalize(st);
    return;
  }
  switch (kind) {
    case 0: {  // text, sometimes not UTF-8
      std::string s = in.String();
      sqlite3_bind_text(st, 1, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
      break;
    }
    case 1: sqlite3_bind_int64(st, 1, FuzzedInt(in)); break;
    case 2: {
      constexpr size_t n = sizeof(kInterestingReals) / sizeof(kInterestingReals[0]);
      sqlite3_bind_double(st, 1, kInterestingReals[in.Byte() % n]);
      break;
    }
    default: {
      std::string s = in.String();
      sqlite3_bind_blob(st, 1, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
      break;
    }
  }
  sqlite3_step(st);
  sqlite3_finalize(st);
}

void ApplySqlEdit(sqlite3* db, const std::vector<SeedTable>& tables, FuzzInput& in) {
  uint8_t op = in.Byte() % 12;
  const SeedTable& t = tables[in.Byte() % tables.size()];
  const std::string table = Quote(t.name);
  const std::string col = t.columns.empty() ? "rowid" : Quote(t.columns[in.Byte() % t.columns.size()]);
  switch (op) {
    case 0: Exec(db, "DROP TABLE " + table); break;
    case 1: Exec(db, "UPDATE " + table + " SET " + col + " = NULL WHERE " + RowSelector(t.name, in)); break;
    case 2:
    case 3:
    case 4:
    case 5: {  // text, integer, real, blob
      std::string where = RowSelector(t.name, in);
      ExecWithValue(db, "UPDATE " + table + " SET " + col + " = ?1 WHERE " + where, op - 2, in);
      break;
    }
    case 6: Exec(db, "DELETE FROM " + table + " WHERE " + RowSelector(t.name, in)); break;
    case 7: {  // copy another column: end = start, start = end, id = stream ...
      const std::string other = t.columns.empty() ? "rowid" : Quote(t.columns[in.Byte() % t.columns.size()]);
      Exec(db, "UPDATE " + table + " SET " + col + " = " + other + " WHERE " + RowSelector(t.name, in));
      break;
    }
    case 8: {  // shift: end before start, overflow near the limits
      std::string where = RowSelector(t.name, in);
      ExecWithValue(db, "UPDATE " + table + " SET " + col + " = " + col + " + ?1 WHERE " + where, 1, in);
      break;
    }
    case 9: {
      const char* v = kSchemaVersions[in.Byte() % (sizeof(kSchemaVersions) / sizeof(kSchemaVersions[0]))];
      sqlite3_stmt* st = nullptr;
      sqlite3_prepare_v2(db, "UPDATE metadata SET value = ?1 WHERE key = 'schema_version'", -1, &st, nullptr);
      sqlite3_bind_text(st, 1, v, -1, SQLITE_STATIC);
      sqlite3_step(st);
      sqlite3_finalize(st);
      Exec(db, "PRAGMA user_version = " + std::to_string(static_cast<int32_t>(FuzzedInt(in))));
      break;
    }
    case 10:
      if (in.Byte() % 2 == 0) {
        Exec(db, "ALTER TABLE " + table + " RENAME COLUMN " + col + " TO " + Quote(t.name + "_renamed"));
      } else {
        Exec(db, "ALTER TABLE " + table + " DROP COLUMN " + col);
      }
      break;
    default:  // the table becomes a view with other columns
      Exec(db, "ALTER TABLE " + table + " RENAME TO " + Quote(t.name + "_old"));
      Exec(db, "CREATE VIEW " + table + " AS SELECT 1 AS id, 'x' AS name, NULL AS value");
      break;
  }
}

}  // namespace

std::vector<SeedTrace> LoadSeedTraces(const std::string& dir) {
  std::vector<SeedTrace> seeds;
  for (const char* name : kSeedNames) {
    SeedTrace seed;
    seed.name = name;
    seed.bytes = ReadFile(dir + "/" + name);
    if (seed.bytes.empty()) continue;
    sqlite3* db = OpenInMemory(seed.bytes);
    if (db == nullptr) continue;
    seed.tables = ListTables(db);
    sqlite3_close(db);
    if (!seed.tables.empty()) seeds.push_back(std::move(seed));
  }
  return seeds;
}

std::string MutateTrace(const SeedTrace& seed, FuzzInput& in) {
  sqlite3* db = OpenInMemory(seed.bytes);
  if (db == nullptr) return seed.bytes;
  int sql_edits = in.Byte() % 9;
  for (int i = 0; i < sql_edits && !in.empty(); ++i) ApplySqlEdit(db, seed.tables, in);
  sqlite3_int64 size = 0;
  unsigned char* raw = sqlite3_serialize(db, "main", &size, 0);
  std::string bytes = raw != nullptr ? std::string(reinterpret_cast<char*>(raw), static_cast<size_t>(size)) : "";
  sqlite3_free(raw);
  sqlite3_close(db);
  // Byte edits of the file: truncate, or overwrite a few bytes.
  int byte_edits = in.Byte() % 4;
  for (int i = 0; i < byte_edits && !bytes.empty(); ++i) {
    uint32_t where = static_cast<uint32_t>(in.Byte()) << 16 | static_cast<uint32_t>(in.Byte()) << 8 | in.Byte();
    size_t pos = where % bytes.size();
    if (in.Byte() % 2 == 0) {
      bytes.resize(pos);
    } else {
      bytes[pos] = static_cast<char>(in.Byte());
    }
  }
  return bytes;
}

}  // namespace streamscope::fuzz
