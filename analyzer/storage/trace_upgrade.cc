#include "analyzer/storage/trace_upgrade.h"

#include <sys/stat.h>

#include "absl/strings/str_cat.h"
#include "analyzer/sqlite/sqlite_db.h"
#include "schema/schema.h"

namespace streamscope {

absl::StatusOr<TraceUpgrade> UpgradeTraceInPlace(const std::string& path) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) return absl::NotFoundError(absl::StrCat(path, ": no such file"));
  if (S_ISLNK(st.st_mode)) {
    return absl::PermissionDeniedError(absl::StrCat(path, ": is a symbolic link; upgrade the file it points to"));
  }
  auto opened = SqliteDb::OpenReadWrite(path);
  if (!opened.ok()) {
    return absl::PermissionDeniedError(
        absl::StrCat(path, ": cannot open the trace for writing (", opened.status().message(), ")"));
  }
  SqliteDb& db = **opened;
  db.SetBusyTimeout(5000);
  auto version = db.HasTable("metadata")
                     ? db.QueryInt64("SELECT CAST(value AS INTEGER) FROM metadata WHERE key = 'schema_version'")
                     : absl::StatusOr<std::optional<int64_t>>(std::nullopt);
  if (!version.ok() || !version->has_value()) {
    return absl::InvalidArgumentError(absl::StrCat(
        path,
        ": not a streamscope trace (no schema version); `streamscope convert` writes Nsight Systems exports "
        "and torch.profiler traces as streamscope traces"));
  }
  const int64_t from = **version;
  if (from < schema::OldestReadableVersion() || from > schema::Version()) {
    return absl::FailedPreconditionError(absl::StrCat(path, ": schema version ", from,
                                                      " cannot be upgraded by this build (it reads versions ",
                                                      schema::OldestReadableVersion(), " to ", schema::Version(), ")"));
  }
  TraceUpgrade result{static_cast<int>(from), static_cast<int>(from)};
  if (from == schema::Version()) return result;
  std::string sql = absl::StrCat("BEGIN IMMEDIATE;\n", schema::UpgradeSql(static_cast<int>(from)), "COMMIT;\n");
  if (absl::Status s = db.Exec(sql); !s.ok()) {
    (void)db.Exec("ROLLBACK");
    return absl::PermissionDeniedError(absl::StrCat(path, ": cannot upgrade the trace: ", s.message()));
  }
  result.to_version = schema::Version();
  return result;
}

}  // namespace streamscope
