#include "analyzer/importers/trace_loader.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "analyzer/importers/nsys/nsys_export_format.h"
#include "analyzer/importers/streamscope/streamscope_format.h"
#include "analyzer/importers/torch/torch_trace_format.h"

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

const std::vector<const TraceImporter*>& TraceImporters() {
  // torch.profiler traces first: they are recognized by their JSON content,
  // before anything opens the file as SQLite.
  static const TorchTraceFormat torch;
  static const StreamscopeFormat streamscope_trace;
  static const NsysExportFormat nsys;
  static const std::vector<const TraceImporter*> formats = {&torch, &streamscope_trace, &nsys};
  return formats;
}

const TraceImporter* FindTraceImporter(TraceFile& file) {
  for (const TraceImporter* format : TraceImporters()) {
    if (format->Recognizes(file)) return format;
  }
  return nullptr;
}

absl::StatusOr<std::vector<TraceModel>> LoadTraceFile(const std::string& path) {
  TraceFile file(path);
  if (const TraceImporter* format = FindTraceImporter(file)) {
    absl::StatusOr<std::vector<TraceModel>> models = format->Import(file);
    if (!models.ok()) return models.status();
    for (TraceModel& m : *models) {
      m.path = path;
      m.Finalize();
    }
    return models;
  }
  absl::StatusOr<SqliteDb*> db = file.Db();
  if (!db.ok())
    return db.status().code() == absl::StatusCode::kNotFound ? db.status() : NsysReportHint(path, db.status());
  return absl::InvalidArgumentError(absl::StrCat(path,
                                                 ": an SQLite database, but neither a streamscope trace (no metadata "
                                                 "table with schema_version) nor an Nsight Systems export"));
}

}  // namespace streamscope
