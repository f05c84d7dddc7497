#include "analyzer/importers/nsys/nsys_import_context.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "analyzer/importers/model_column_reserve.h"

namespace streamscope::nsys {

ImportContext::ImportContext(SqliteDb* db) : db_(db) {
  copy_kinds = EnumTable<CopyClass>::Load(*db, "ENUM_CUDA_MEMCPY_OPER", &CopyClassForName, &CopyClassForKind);
  memory_kinds = EnumTable<MemoryKind>::Load(*db, "ENUM_CUDA_MEM_KIND", &MemoryKindForName, &MemoryKindForNsys);
  sync_kinds = EnumTable<SyncKind>::Load(*db, "ENUM_CUPTI_SYNC_TYPE", &SyncKindForName,
                                         // Without the enum table the numbering is not known for sure (2.x
                                         // exports number it differently from CUPTI): the API name decides.
                                         [](int64_t) { return SyncKind::kUnknown; });
}

ProcessState* ImportContext::ProcessForPid(int64_t pid, bool create) {
  if (pid == last_pid_ && last_process_ != nullptr) return last_process_;
  auto it = processes_.find(pid);
  if (it != processes_.end()) {
    last_pid_ = pid;
    last_process_ = it->second.get();
    return last_process_;
  }
  if (!create) return nullptr;
  auto state = std::make_unique<ProcessState>();
  state->model.pid = pid;
  // The first process gets room for every row (the common single-process
  // export); others grow as needed.
  if (processes_.empty()) {
    ReserveOpColumns(state->model.ops, static_cast<size_t>(reserve_ops_));
    ReserveApiColumns(state->model.api, static_cast<size_t>(reserve_api_));
  }
  ProcessState* out = state.get();
  processes_.emplace(pid, std::move(state));
  last_pid_ = pid;
  last_process_ = out;
  return out;
}

void ImportContext::Reserve(std::string_view table, bool api) {
  if (!db_->HasTable(table)) return;
  // max(rowid) is an O(log n) lookup; the tables are append-only.
  auto n = db_->QueryInt64(absl::StrCat("SELECT max(rowid) FROM ", S(table)));
  if (!n.ok() || !n->has_value() || **n <= 0) return;
  const int64_t rows = std::min<int64_t>(**n, int64_t{1} << 28);  // a sane cap on junk
  (api ? reserve_api_ : reserve_ops_) += rows;
}

ProcessState* ImportContext::ProcessForGlobalId(int64_t global_id, bool create) {
  return ProcessForPid(PidOf(global_id), create);
}

std::optional<std::string> ImportContext::Text(int64_t nsys_string_id) {
  if (string_lookup_failed_) return std::nullopt;
  if (!string_lookup_.has_value()) {
    if (!db_->HasTable("StringIds")) {
      string_lookup_failed_ = true;
      notes.push_back("export has no StringIds table: names are missing");
      return std::nullopt;
    }
    auto stmt = db_->Prepare("SELECT value FROM StringIds WHERE id = ?1");
    if (!stmt.ok()) {
      string_lookup_failed_ = true;
      notes.push_back(
          absl::StrCat("export's StringIds table is unreadable (", db_->LastError(), "): names are missing"));
      return std::nullopt;
    }
    string_lookup_.emplace(std::move(*stmt));
  }
  SqliteStatement& stmt = *string_lookup_;
  stmt.Reset();
  std::optional<std::string> out;
  if (stmt.BindInt64(1, nsys_string_id).ok()) {
    auto row = stmt.Step();
    if (row.ok() && *row && !stmt.IsNull(0)) out = std::string(stmt.Text(0));
  }
  stmt.Reset();
  return out;
}

StringId ImportContext::Intern(ProcessState& p, int64_t id) {
  StringId* slot = nullptr;
  if (id >= 0 && id < kDenseIds) {
    if (static_cast<size_t>(id) >= p.string_ids.size()) {
      p.string_ids.resize(static_cast<size_t>(id) + 1, ProcessState::kUnresolved);
    }
    slot = &p.string_ids[id];
  } else {
    slot = &p.large_string_ids.try_emplace(id, ProcessState::kUnresolved).first->second;
  }
  if (*slot != ProcessState::kUnresolved) return *slot;
  std::optional<std::string> text = Text(id);
  if (!text.has_value()) {
    ++stats["nsys_string_id_not_found"];
    *slot = kNoString;
  } else {
    *slot = p.model.strings.Intern(*text);
  }
  return *slot;
}

int32_t ImportContext::StreamIndex(ProcessState& p, int64_t stream_id, int32_t device_id) {
  if (stream_id < 0 || stream_id >= ProcessState::kDenseStreams) {
    return p.model.StreamIndexFor(stream_id, device_id);
  }
  if (static_cast<size_t>(stream_id) >= p.stream_slots.size()) {
    p.stream_slots.resize(static_cast<size_t>(stream_id) + 1, -1);
  }
  int32_t& slot = p.stream_slots[static_cast<size_t>(stream_id)];
  if (slot < 0) slot = p.model.StreamIndexFor(stream_id, device_id);
  return slot;
}

const std::map<std::string, bool>& ImportContext::Columns(std::string_view table) {
  auto it = columns_.find(table);
  if (it != columns_.end()) return it->second;
  std::map<std::string, bool>& cols = columns_[S(table)];
  auto stmt = db_->Prepare("SELECT name, \"notnull\" FROM pragma_table_info(?1)");
  if (stmt.ok() && stmt->BindText(1, table).ok()) {
    while (true) {
      auto row = stmt->Step();
      if (!row.ok() || !*row) break;
      cols[S(stmt->Text(0))] = stmt->Int64(1) != 0;
    }
  }
  return cols;
}

bool ImportContext::Has(std::string_view table, std::string_view column) {
  const auto& cols = Columns(table);
  return cols.find(S(column)) != cols.end();
}

std::string ImportContext::ColOr(std::string_view table, std::string_view column, std::string_view fallback) {
  const auto& cols = Columns(table);
  auto it = cols.find(S(column));
  if (it == cols.end()) return S(fallback);
  const std::string quoted = absl::StrCat("\"", S(column), "\"");
  if (it->second) return quoted;
  return absl::StrCat("COALESCE(", quoted, ", ", S(fallback), ")");
}

std::string ImportContext::Col(std::string_view table, std::string_view column) {
  if (!Has(table, column)) return "NULL";
  return absl::StrCat("\"", S(column), "\"");
}

}  // namespace streamscope::nsys
