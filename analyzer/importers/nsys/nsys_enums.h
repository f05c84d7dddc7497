// Value mappings from Nsight Systems export columns to the analyzer model.
//
// nsys numbers some enumerations differently from CUPTI (memory kinds start
// at 0 = pageable; copy kinds 11-13 are unified-memory migrations). Exports
// of schema 3.x carry ENUM_* tables that name each value; 2.x exports do
// not, so the known numbering is the fallback. Pure functions and a small
// immutable table per enumeration; thread-safe once built.
#ifndef STREAMSCOPE_ANALYZER_IMPORTERS_NSYS_ENUMS_H_
#define STREAMSCOPE_ANALYZER_IMPORTERS_NSYS_ENUMS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/model/trace_model.h"
#include "analyzer/sqlite/sqlite_db.h"

namespace streamscope::nsys {

// globalTid / globalPid pack the process id in bits 24-47 and the thread id
// in bits 0-23 (bits above 48 hold the hardware/VM id).
inline int64_t PidOf(int64_t global_id) {
  return static_cast<int64_t>((static_cast<uint64_t>(global_id) >> 24) & 0xFFFFFFu);
}
inline int64_t TidOf(int64_t global_id) { return static_cast<int64_t>(static_cast<uint64_t>(global_id) & 0xFFFFFFu); }

// Debian's Abseil has its own string_view type: convert at the boundary.
inline std::string S(std::string_view s) { return std::string(s); }

// CUPTI's "field does not apply" marker, as nsys exports it (0xFFFFFFFF).
inline constexpr int64_t kInvalidU32 = 0xFFFFFFFFll;

// What one copy record is.
struct CopyClass {
  // A unified-memory page migration (prefetch or fault-driven): imported as
  // a copy of `category` between managed memory, with no submitting call.
  bool is_migration = false;
  OpCategory category = OpCategory::kOtherCopy;
  int copy_kind = 0;  // CUpti_ActivityMemcpyKind (0 unknown .. 10 PtoP)
  bool known = true;  // false: a value the numbering does not define
};

// Copy kind (ENUM_CUDA_MEMCPY_OPER numbering, same as CUPTI 0-10, plus
// 11 UVM HtoD, 12 UVM DtoH, 13 UVM DtoD).
CopyClass CopyClassForKind(int64_t nsys_copy_kind);
// Same, from the ENUM_CUDA_MEMCPY_OPER name ("CUDA_MEMCPY_KIND_HTOD").
std::optional<CopyClass> CopyClassForName(std::string_view name);

// ENUM_CUDA_MEM_KIND numbering: 0 pageable, 1 pinned, 2 device, 3 array,
// 4 managed, 5 device static, 6 managed static, 7 unknown.
MemoryKind MemoryKindForNsys(int64_t nsys_mem_kind);
std::optional<MemoryKind> MemoryKindForName(std::string_view name);

// TARGET_INFO_CUDA_STREAM.flag (CUpti_ActivityStreamFlag): 1 default
// (blocking), 2 non-blocking, 3 NULL stream.
StreamKind StreamKindForFlag(int64_t flag);

// CUpti_ActivitySynchronizationType, by ENUM_CUPTI_SYNC_TYPE name.
std::optional<SyncKind> SyncKindForName(std::string_view name);
// From the synchronizing API call ("cudaStreamSynchronize_v3020",
// "cuCtxSynchronize"); kUnknown if the name says nothing.
SyncKind SyncKindForApiName(std::string_view api_name);

// A value -> model enum table read from an export's ENUM_* table, with a
// fallback for values (or whole tables) the export does not name.
template <typename T>
class EnumTable {
 public:
  T Map(int64_t value) const {
    if (value >= 0 && static_cast<size_t>(value) < table_.size() && table_[value].has_value()) {
      return *table_[value];
    }
    return fallback_(value);
  }
  bool from_export() const { return from_export_; }

  // Reads `enum_table` (id, name) if present; names `by_name` maps are used,
  // other values fall back to `fallback`.
  static EnumTable Load(SqliteDb& db, std::string_view enum_table, std::optional<T> (*by_name)(std::string_view),
                        T (*fallback)(int64_t));

 private:
  std::vector<std::optional<T>> table_;
  T (*fallback_)(int64_t) = nullptr;
  bool from_export_ = false;
};

}  // namespace streamscope::nsys

#endif  // STREAMSCOPE_ANALYZER_IMPORTERS_NSYS_ENUMS_H_
