#include "analyzer/importers/nsys/nsys_enums.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "schema/enum_values.h"

namespace streamscope::nsys {
namespace {

CopyClass Copy(OpCategory category, int copy_kind) {
  CopyClass c;
  c.category = category;
  c.copy_kind = copy_kind;
  return c;
}

CopyClass Migration(OpCategory category, int copy_kind) {
  CopyClass c;
  c.is_migration = true;
  c.category = category;
  c.copy_kind = copy_kind;
  return c;
}

}  // namespace

CopyClass CopyClassForKind(int64_t kind) {
  namespace ck = schema::copy_kind;
  switch (kind) {
    case ck::kUnknown: return Copy(OpCategory::kOtherCopy, ck::kUnknown);
    case ck::kHtoD: return Copy(OpCategory::kHtoD, ck::kHtoD);
    case ck::kDtoH: return Copy(OpCategory::kDtoH, ck::kDtoH);
    case ck::kHtoA:
    case ck::kAtoH:
    case ck::kAtoA:
    case ck::kAtoD:
    case ck::kDtoA:
    case ck::kHtoH: return Copy(OpCategory::kOtherCopy, static_cast<int>(kind));
    case ck::kDtoD: return Copy(OpCategory::kDtoD, ck::kDtoD);
    case ck::kPtoP: return Copy(OpCategory::kPtoP, ck::kPtoP);
    // ENUM_CUDA_MEMCPY_OPER's unified-memory values (the trace schema's too).
    case ck::kUvmHtoD: return Migration(OpCategory::kHtoD, ck::kUvmHtoD);
    case ck::kUvmDtoH: return Migration(OpCategory::kDtoH, ck::kUvmDtoH);
    case ck::kUvmDtoD: return Migration(OpCategory::kDtoD, ck::kUvmDtoD);
    default: {
      CopyClass c = Copy(OpCategory::kOtherCopy, ck::kUnknown);
      c.known = false;
      return c;
    }
  }
}

std::optional<CopyClass> CopyClassForName(std::string_view name) {
  static constexpr std::pair<std::string_view, int> kNames[] = {
      {"UNKNOWN", 0}, {"HTOD", 1}, {"DTOH", 2}, {"HTOA", 3},  {"ATOH", 4},      {"ATOA", 5},      {"ATOD", 6},
      {"DTOA", 7},    {"DTOD", 8}, {"HTOH", 9}, {"PTOP", 10}, {"UVM_HTOD", 11}, {"UVM_DTOH", 12}, {"UVM_DTOD", 13},
  };
  // Longest suffix first would matter for "UVM_HTOD" vs "HTOD": compare
  // whole names instead.
  for (const auto& [suffix, kind] : kNames) {
    if (name.size() == 17 + suffix.size() && name.starts_with("CUDA_MEMCPY_KIND_") && name.ends_with(suffix)) {
      return CopyClassForKind(kind);
    }
  }
  if (name.find("UVM") != name.npos || name.find("UNIFIED") != name.npos) {
    return Migration(OpCategory::kOtherCopy, 0);
  }
  return std::nullopt;
}

MemoryKind MemoryKindForNsys(int64_t kind) {
  switch (kind) {
    case 0: return MemoryKind::kPageable;
    case 1: return MemoryKind::kPinned;
    case 2: return MemoryKind::kDevice;
    case 3: return MemoryKind::kArray;
    case 4: return MemoryKind::kManaged;
    case 5: return MemoryKind::kDeviceStatic;
    case 6: return MemoryKind::kManagedStatic;
    default: return MemoryKind::kUnknown;
  }
}

std::optional<MemoryKind> MemoryKindForName(std::string_view name) {
  static constexpr std::pair<std::string_view, MemoryKind> kNames[] = {
      {"CUDA_MEMOPR_MEMORY_KIND_PAGEABLE", MemoryKind::kPageable},
      {"CUDA_MEMOPR_MEMORY_KIND_PINNED", MemoryKind::kPinned},
      {"CUDA_MEMOPR_MEMORY_KIND_DEVICE", MemoryKind::kDevice},
      {"CUDA_MEMOPR_MEMORY_KIND_ARRAY", MemoryKind::kArray},
      {"CUDA_MEMOPR_MEMORY_KIND_MANAGED", MemoryKind::kManaged},
      {"CUDA_MEMOPR_MEMORY_KIND_DEVICE_STATIC", MemoryKind::kDeviceStatic},
      {"CUDA_MEMOPR_MEMORY_KIND_MANAGED_STATIC", MemoryKind::kManagedStatic},
      {"CUDA_MEMOPR_MEMORY_KIND_UNKNOWN", MemoryKind::kUnknown},
  };
  for (const auto& [n, kind] : kNames) {
    if (name == n) return kind;
  }
  return std::nullopt;
}

StreamKind StreamKindForFlag(int64_t flag) {
  // CUpti_ActivityStreamFlag (not the schema's stream kinds).
  constexpr int64_t kFlagDefault = 1, kFlagNonBlocking = 2, kFlagNullStream = 3;
  switch (flag) {
    case kFlagDefault: return StreamKind::kBlocking;
    case kFlagNonBlocking: return StreamKind::kNonBlocking;
    case kFlagNullStream: return StreamKind::kLegacyDefault;
    default: return StreamKind::kUnknown;
  }
}

std::optional<SyncKind> SyncKindForName(std::string_view name) {
  if (name.ends_with("_EVENT_SYNCHRONIZE")) return SyncKind::kEventSynchronize;
  if (name.ends_with("_STREAM_WAIT_EVENT")) return SyncKind::kStreamWaitEvent;
  if (name.ends_with("_STREAM_SYNCHRONIZE")) return SyncKind::kStreamSynchronize;
  if (name.ends_with("_CONTEXT_SYNCHRONIZE")) return SyncKind::kContextSynchronize;
  if (name.ends_with("_UNKNOWN")) return SyncKind::kUnknown;
  return std::nullopt;
}

SyncKind SyncKindForApiName(std::string_view api) {
  if (api.starts_with("cudaEventSynchronize") || api.starts_with("cuEventSynchronize")) {
    return SyncKind::kEventSynchronize;
  }
  if (api.starts_with("cudaStreamWaitEvent") || api.starts_with("cuStreamWaitEvent")) {
    return SyncKind::kStreamWaitEvent;
  }
  if (api.starts_with("cudaStreamSynchronize") || api.starts_with("cuStreamSynchronize")) {
    return SyncKind::kStreamSynchronize;
  }
  if (api.starts_with("cudaDeviceSynchronize") || api.starts_with("cuCtxSynchronize") ||
      api.starts_with("cudaThreadSynchronize")) {
    return SyncKind::kContextSynchronize;
  }
  return SyncKind::kUnknown;
}

template <typename T>
EnumTable<T> EnumTable<T>::Load(SqliteDb& db, std::string_view enum_table,
                                std::optional<T> (*by_name)(std::string_view), T (*fallback)(int64_t)) {
  EnumTable<T> out;
  out.fallback_ = fallback;
  if (!db.HasTable(enum_table) || !db.HasColumn(enum_table, "id") || !db.HasColumn(enum_table, "name")) {
    return out;
  }
  // The table name is one of our constants, never user input.
  auto stmt = db.Prepare(absl::StrCat("SELECT id, name FROM \"", std::string(enum_table), "\""));
  if (!stmt.ok()) return out;
  constexpr int64_t kMaxId = 4096;  // enumerations are small; ignore junk ids
  while (true) {
    auto row = stmt->Step();
    if (!row.ok() || !*row) break;
    if (stmt->IsNull(0)) continue;
    int64_t id = stmt->Int64(0);
    if (id < 0 || id >= kMaxId) continue;
    std::optional<T> mapped = by_name(stmt->Text(1));
    if (!mapped.has_value()) continue;
    if (out.table_.size() <= static_cast<size_t>(id)) out.table_.resize(id + 1);
    out.table_[id] = mapped;
    out.from_export_ = true;
  }
  return out;
}

template class EnumTable<CopyClass>;
template class EnumTable<MemoryKind>;
template class EnumTable<SyncKind>;

}  // namespace streamscope::nsys
