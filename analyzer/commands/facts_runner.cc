#include "analyzer/commands/facts_runner.h"

#include <fstream>
#include <iterator>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "analyzer/commands/command_status.h"
#include "analyzer/export/output_file.h"
#include "analyzer/importers/trace_loader.h"
#include "analyzer/pipeline/prepared_trace.h"
#include "analyzer/pipeline/ranks.h"
#include "analyzer/render/communication_render.h"
#include "analyzer/render/rank_facts_json.h"
#include "analyzer/render/window_label.h"

namespace streamscope {
namespace {

absl::Status Emit(const std::string& text, const std::string& output_path, bool force, std::ostream& out) {
  if (output_path.empty()) {
    out << text;
    return absl::OkStatus();
  }
  auto file = OutputFile::Create(output_path, force);
  if (!file.ok()) return file.status();
  (*file)->Write(text);
  return (*file)->Commit();
}

}  // namespace

absl::Status RunFacts(const FactsOptions& options, std::ostream& out, std::ostream& err) {
  if (options.traces.empty()) return UsageError("facts needs at least one trace file");
  const bool steps = options.window.kind == WindowSpec::Kind::kNvtxRange && !options.window.nvtx_instance;
  std::vector<RankFacts> facts;
  for (const std::string& path : options.traces) {
    auto models = LoadTraceFile(path);
    if (!models.ok()) return models.status();
    for (const TraceModel& model : *models) {
      TracePreparation what;
      what.windows = &options.window;
      absl::StatusOr<PreparedTrace> prepared = PrepareTrace(model, what);
      if (!prepared.ok()) return prepared.status();
      NoteClippedWindows(model, prepared->windows, err);
      absl::StatusOr<RankFacts> f = RunRankFacts(model, prepared->windows, steps);
      if (!f.ok()) return f.status();
      facts.push_back(*std::move(f));
    }
  }
  std::string text = RankFactsToJson(facts).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  text += "\n";
  return Emit(text, options.output_path, options.force, out);
}

absl::Status RunMergeFacts(const MergeFactsOptions& options, std::istream& in, std::ostream& out) {
  if (options.facts.empty()) return UsageError("merge-facts needs at least one facts file");
  std::vector<RankFacts> all;
  for (const std::string& path : options.facts) {
    std::string text;
    if (path == "-") {
      text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    } else {
      std::ifstream file(path, std::ios::binary);
      if (!file) return absl::NotFoundError(absl::StrCat(path, ": cannot read the facts file"));
      std::ostringstream buffer;
      buffer << file.rdbuf();
      text = buffer.str();
    }
    auto facts = RankFactsFromJson(text, path);
    if (!facts.ok()) return facts.status();
    for (RankFacts& f : *facts) all.push_back(std::move(f));
  }
  CrossRankResult result = RunRankMerge(all, options.top);
  std::ostringstream text;
  if (options.format == MergeFactsOptions::Format::kJson) {
    nlohmann::json doc = {{"generator", "streamscope merge-facts"}, {"ranks", CrossRankToJson(result)}};
    text << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    RenderCrossRankText(result, text);
  }
  return Emit(text.str(), options.output_path, options.force, out);
}

}  // namespace streamscope
