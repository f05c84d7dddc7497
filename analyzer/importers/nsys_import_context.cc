#include "analyzer/importers/nsys_import_context.h"

#include "absl/strings/str_cat.h"

namespace streamscope::nsys {

ImportContext::ImportContext(SqliteDb* db) : db_(db) {
  copy_kinds = EnumTable<CopyClass>::Load(*db, "ENUM_CUDA_MEMCPY_OPER", &CopyClassForName,
                                          &CopyClassForKind);
  memory_kinds = EnumTable<MemoryKind>::Load(*db, "ENUM_CUDA_MEM_KIND", &MemoryKindForName,
                                             &MemoryKindForNsys);
  sync_kinds = EnumTable<SyncKind>::Load(
      *db, "ENUM_CUPTI_SYNC_TYPE", &SyncKindForName,
      // Without the enum table the numbering is not known for sure (2.x
      // exports number it differently from CUPTI): the API name decides.
      [](int64_t) { return SyncKind::kUnknown; });
}

ProcessState* ImportContext::ProcessForPid(int64_t pid, bool create) {
  auto it = processes_.find(pid);
  if (it != processes_.end()) return it->second.get();
  if (!create) return nullptr;
  auto state = std::make_unique<ProcessState>();
  state->model.pid = pid;
  ProcessState* out = state.get();
  processes_.emplace(pid, std::move(state));
  return out;
}

ProcessState* ImportContext::ProcessForGlobalId(int64_t global_id, bool create) {
  return ProcessForPid(PidOf(global_id), create);
}

std::optional<std::string> ImportContext::Text(int64_t nsys_string_id) {
  if (string_lookup_failed_) return std::nullopt;
  if (string_lookup_ == nullptr) {
    if (!db_->HasTable("StringIds")) {
      string_lookup_failed_ = true;
      notes.push_back("export has no StringIds table: names are missing");
      return std::nullopt;
    }
    // A raw statement so it can be reset and reused for every lookup.
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db_->handle(), "SELECT value FROM StringIds WHERE id = ?1", -1, &stmt,
                           nullptr) != SQLITE_OK) {
      sqlite3_finalize(stmt);
      string_lookup_failed_ = true;
      notes.push_back(absl::StrCat("export's StringIds table is unreadable (",
                                   sqlite3_errmsg(db_->handle()), "): names are missing"));
      return std::nullopt;
    }
    string_lookup_.reset(stmt);
  }
  sqlite3_stmt* stmt = string_lookup_.get();
  sqlite3_reset(stmt);
  sqlite3_bind_int64(stmt, 1, nsys_string_id);
  std::optional<std::string> out;
  if (sqlite3_step(stmt) == SQLITE_ROW && sqlite3_column_type(stmt, 0) != SQLITE_NULL) {
    const unsigned char* text = sqlite3_column_text(stmt, 0);
    if (text != nullptr) {
      out = std::string(reinterpret_cast<const char*>(text),
                        static_cast<size_t>(sqlite3_column_bytes(stmt, 0)));
    }
  }
  sqlite3_reset(stmt);
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
  if (stream_id == p.last_stream_id && p.last_stream_index >= 0) return p.last_stream_index;
  p.last_stream_id = stream_id;
  p.last_stream_index = p.model.StreamIndexFor(stream_id, device_id);
  return p.last_stream_index;
}

std::string ImportContext::Col(std::string_view table, std::string_view column) {
  if (!db_->HasColumn(table, column)) return "NULL";
  return absl::StrCat("\"", S(column), "\"");
}

}  // namespace streamscope::nsys
