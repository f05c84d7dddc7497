#include "analyzer/importers/trace_loader.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "analyzer/importers/nsys_export_importer.h"
#include "analyzer/importers/streamscope_trace_importer.h"
#include "analyzer/importers/torch_trace_importer.h"
#include "analyzer/sqlite/sqlite_db.h"

namespace streamscope {
namespace {

bool EndsWith(const std::string& s, absl::string_view suffix) { return absl::EndsWith(s, suffix); }

std::string ShellQuoted(const std::string& s) {
  if (s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./-+%") ==
      std::string::npos) {
    return s;
  }
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// An Nsight Systems report (.nsys-rep, formerly .qdrep) is not SQLite: the
// error says how to get the export that streamscope reads.
absl::Status NsysReportHint(const std::string& path, const absl::Status& status) {
  for (absl::string_view ext : {".nsys-rep", ".qdrep"}) {
    if (!EndsWith(path, ext)) continue;
    const std::string sqlite = path.substr(0, path.size() - ext.size()) + ".sqlite";
    return absl::DataLossError(absl::StrCat(path,
                                            ": an Nsight Systems report, not its SQLite export; export it "
                                            "first: nsys export --type sqlite -o ",
                                            ShellQuoted(sqlite), " ", ShellQuoted(path)));
  }
  return status;
}

}  // namespace

absl::StatusOr<std::vector<TraceModel>> LoadTraceFile(const std::string& path) {
  // torch.profiler traces are JSON (maybe gzip): recognized by content.
  if (LooksLikeTorchTrace(path)) {
    auto model = ImportTorchTrace(path);
    if (!model.ok()) return model.status();
    std::vector<TraceModel> models;
    models.push_back(std::move(*model));
    models.front().Finalize();
    return models;
  }
  auto db = SqliteDb::OpenReadOnly(path);
  if (!db.ok())
    return db.status().code() == absl::StatusCode::kNotFound ? db.status() : NsysReportHint(path, db.status());
  std::vector<TraceModel> models;
  if (LooksLikeStreamscopeTrace(**db)) {
    TraceModel model;
    model.path = path;
    absl::Status status = ImportStreamscopeTrace(**db, &model);
    if (!status.ok()) return status;
    models.push_back(std::move(model));
  } else if (LooksLikeNsysExport(**db)) {
    auto imported = ImportNsysExport(**db);
    if (!imported.ok()) return imported.status();
    models = std::move(*imported);
    for (TraceModel& m : models) m.path = path;
  } else {
    return absl::InvalidArgumentError(absl::StrCat(path,
                                                   ": an SQLite database, but neither a streamscope trace (no metadata "
                                                   "table with schema_version) nor an Nsight Systems export"));
  }
  for (TraceModel& m : models) m.Finalize();
  return models;
}

}  // namespace streamscope
