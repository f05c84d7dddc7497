// torch.profiler (Kineto) Chrome trace -> TraceModel. analyzer/TORCH.md
// documents the mapping. The handler (torch_event_handler.h) takes SAX calls
// from the fast reader (torch_json_reader.h: a mapped plain file, a large one
// in pieces on several threads, or blocks of a gzip one) or, for malformed
// input only, from nlohmann-json's parser, which words the error; memory
// stays that of the model either way.
#include "analyzer/importers/torch/torch_trace_importer.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "analyzer/base/threads.h"
#include "analyzer/importers/torch/torch_event_handler.h"
#include "analyzer/importers/torch/torch_gz_input.h"
#include "analyzer/importers/torch/torch_json_reader.h"
#include "analyzer/importers/torch/torch_mapped_input.h"
#include "nlohmann/json.hpp"

namespace streamscope {
namespace {

using torch_import_internal::TorchSax;
using Json = nlohmann::json;

// The checks after a complete parse, the same for both parsers.
absl::StatusOr<TraceModel> Conclude(TraceModel& model, TorchSax& sax, const std::string& label) {
  if (sax.generator().starts_with("streamscope")) {
    return absl::InvalidArgumentError(
        absl::StrCat(label, ": a timeline written by ", sax.generator(),
                     " (export --perfetto), not a torch.profiler trace: analyze the trace it was exported from"));
  }
  if (!sax.saw_events()) {
    return absl::InvalidArgumentError(
        absl::StrCat(label,
                     ": JSON, but not a Chrome trace: no traceEvents array (a torch.profiler trace "
                     "comes from prof.export_chrome_trace or tensorboard_trace_handler)"));
  }
  if (sax.recognized() == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(label, ": a Chrome trace with ", sax.event_count(),
                     " events, but none is a kernel, copy, memset, CUDA call or CPU op of a torch.profiler trace"));
  }
  sax.Finish();
  if (model.ops.size() == 0 && model.api.size() == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(label, ": a torch.profiler trace without CUDA activity (", model.nvtx_ranges.size(),
                     " CPU ops and annotations, no kernel, copy, memset or CUDA call): record with "
                     "activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]"));
  }
  model.path = label;
  return std::move(model);
}

// nlohmann's SAX parser over a stream: the reference, used where the fast
// reader finds the input malformed, so that every error reads as before.
absl::StatusOr<TraceModel> ParseWithReference(std::istream& in, const std::string& label, const GzInput* gz) {
  TraceModel model;
  TorchSax sax(&model);
  bool ok = false;
  try {
    ok = Json::sax_parse(in, &sax, Json::input_format_t::json, /*strict=*/true, /*ignore_comments=*/false);
  } catch (const std::exception& e) {
    return absl::DataLossError(absl::StrCat(label, ": cannot read the torch.profiler trace: ", e.what()));
  }
  if (gz != nullptr && !gz->error().empty()) {
    return absl::DataLossError(absl::StrCat(label, ": gzip data is damaged or truncated after ", gz->bytes_read(),
                                            " bytes (zlib: ", gz->error(), ")"));
  }
  if (!ok) {
    std::string why = sax.error().empty() ? "malformed JSON" : sax.error();
    return absl::DataLossError(absl::StrCat(label, ": not a complete JSON trace (truncated or damaged): ", why));
  }
  return Conclude(model, sax, label);
}

// The fast path (torch_json_reader.h). nullopt where the input is not
// well-formed JSON or its gzip data is damaged: the caller reparses with
// the reference parser, which words the error.
std::optional<absl::StatusOr<TraceModel>> ParseFast(JsonByteSource& source, const std::string& label, const GzInput* gz,
                                                    int64_t size_hint) {
  TraceModel model;
  TorchSax sax(&model);
  if (size_hint > 0) sax.Reserve(size_hint);
  TorchJsonReader<TorchSax> reader(source, sax);
  if (!reader.Parse()) return std::nullopt;
  if (gz != nullptr && !gz->error().empty()) return std::nullopt;
  return Conclude(model, sax, label);
}

// Where a mapped document may be cut into `pieces`: near equal shares, each
// at the first byte of a line that opens an object after a line ending in
// ',' (how Kineto and the usual writers lay out the event list). A guess:
// ParseInPieces proves each point an event's start or gives up.
std::vector<const char*> PieceStarts(std::string_view doc, size_t pieces) {
  constexpr size_t kSearch = size_t{4} << 20;  // past a huge event, fewer pieces
  std::vector<const char*> starts;
  const char* const begin = doc.data();
  const char* const end = begin + doc.size();
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  for (size_t k = 1; k < pieces; ++k) {
    const char* p = begin + doc.size() / pieces * k;
    if (!starts.empty() && p <= starts.back()) p = starts.back() + 1;
    const char* const limit = std::min(end, p + kSearch);
    while (p < limit) {
      const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(limit - p)));
      if (nl == nullptr) break;
      const char* before = nl;
      while (before > begin && blank(before[-1])) --before;
      const char* after = nl + 1;
      while (after < end && blank(*after)) ++after;
      if (before > begin && before[-1] == ',' && after < end && *after == '{') {
        starts.push_back(after);
        break;
      }
      p = nl + 1;
    }
  }
  return starts;
}

// A large mapped trace parsed in pieces on threads of their own, then merged
// in file order (TorchSax::Absorb): the model one pass would build. nullopt
// when the file is too small to be worth it, or where a piece does not start
// or end between two events of the event list, or on any error: the caller
// then parses in one pass (which words any error).
std::optional<absl::StatusOr<TraceModel>> ParseInPieces(MappedInput& mapped, const std::string& label,
                                                        const TorchPieceOptions& options) {
  const std::string_view doc = mapped.Whole();
  if (!ThreadsAllowed()) return std::nullopt;
  size_t pieces = options.pieces > 0 ? static_cast<size_t>(options.pieces)
                                     : std::min<size_t>(8, std::max(std::thread::hardware_concurrency(), 1u));
  if (options.min_piece_bytes > 0) {
    pieces = std::min<size_t>(pieces, doc.size() / static_cast<size_t>(options.min_piece_bytes));
  }
  if (pieces < 2) return std::nullopt;
  const std::vector<const char*> starts = PieceStarts(doc, pieces);
  if (starts.empty()) return std::nullopt;
  const size_t n = starts.size() + 1;
  std::vector<TraceModel> models(n);
  std::vector<std::unique_ptr<TorchSax>> handlers;
  for (TraceModel& m : models) handlers.push_back(std::make_unique<TorchSax>(&m));
  std::vector<char> ok(n, 0);
  auto piece_end = [&](size_t i) { return i + 1 < n ? starts[i] : doc.data() + doc.size(); };
  TaskThreads threads;
  auto parse_piece = [&](size_t i) {
    TorchSax& sax = *handlers[i];
    sax.StartInEventList();
    sax.Reserve(piece_end(i) - starts[i - 1]);
    std::unique_ptr<JsonByteSource> source = mapped.Piece(starts[i - 1]);
    TorchJsonReader<TorchSax> reader(*source, sax);
    const bool last = i + 1 == n;
    if (!last) reader.StopAt(starts[i]);
    ok[i] = reader.ParseElementsFrom(starts[i - 1]) && reader.stopped() != last && (last || sax.InEventList());
  };
  for (size_t i = 1; i < n; ++i) threads.Start([&parse_piece, i] { parse_piece(i); });
  {
    TorchSax& sax = *handlers[0];
    sax.Reserve(static_cast<int64_t>(doc.size()));  // it takes every piece's events
    TorchJsonReader<TorchSax> reader(mapped, sax);
    reader.StopAt(starts[0]);
    ok[0] = reader.Parse() && reader.stopped() && sax.InEventList();
  }
  threads.Join();
  for (size_t i = 0; i < n; ++i) {
    if (!ok[i]) return std::nullopt;
  }
  for (size_t i = 1; i < n; ++i) {
    if (!handlers[0]->Absorb(*handlers[i])) return std::nullopt;
    handlers[i].reset();
    models[i] = TraceModel();
  }
  if (options.pieces_parsed != nullptr) *options.pieces_parsed = static_cast<int>(n);
  return Conclude(models[0], *handlers[0], label);
}

// The size of a file that is not gzip-compressed; 0 if it is, or unknown.
int64_t PlainFileSize(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[2] = {};
  if (!in.read(magic, 2) || (magic[0] == '\x1f' && magic[1] == '\x8b')) return 0;
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  return size > 0 ? static_cast<int64_t>(size) : 0;
}

class GzSource : public JsonByteSource {
 public:
  explicit GzSource(GzInput& in) : in_(in) {}
  size_t Read(char* dst, size_t n) override { return in_.Read(dst, n); }

 private:
  GzInput& in_;
};

absl::StatusOr<TraceModel> ImportWithReference(const std::string& path) {
  auto gz = GzInput::Open(path);
  if (!gz.ok()) return gz.status();
  std::istream in(gz->get());
  // Skip a UTF-8 byte order mark, which the JSON parser would reject.
  if (in.peek() == 0xEF) {
    char bom[3] = {};
    in.read(bom, 3);
    if (std::string_view(bom, 3) != "\xEF\xBB\xBF") {
      return absl::DataLossError(absl::StrCat(path, ": not a JSON trace (bad byte order mark)"));
    }
  }
  auto model = ParseWithReference(in, path, gz->get());
  if (model.ok() && (*gz)->compressed()) model->metadata["compressed"] = "gzip";
  return model;
}

}  // namespace

bool LooksLikeTorchTrace(const std::string& path) {
  std::string head = PeekDecompressed(path, 256);
  size_t i = 0;
  if (head.compare(0, 3, "\xEF\xBB\xBF") == 0) i = 3;  // UTF-8 byte order mark
  while (i < head.size() && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t')) ++i;
  return i < head.size() && (head[i] == '{' || head[i] == '[');
}

absl::StatusOr<TraceModel> ImportTorchTraceStream(std::istream& in, const std::string& label) {
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  JsonMemorySource source(text);
  if (auto model = ParseFast(source, label, nullptr, 0)) return *std::move(model);
  std::istringstream again(text);
  return ParseWithReference(again, label, nullptr);
}

absl::StatusOr<TraceModel> ImportTorchTrace(const std::string& path) { return ImportTorchTrace(path, {}); }

absl::StatusOr<TraceModel> ImportTorchTrace(const std::string& path, const TorchPieceOptions& pieces) {
  // A plain file: scanned in place, mapped; a large one in pieces.
  if (pieces.pieces_parsed != nullptr) *pieces.pieces_parsed = 1;
  if (auto mapped = MappedInput::Open(path)) {
    if (auto model = ParseInPieces(*mapped, path, pieces)) return *std::move(model);
    const int64_t size = static_cast<int64_t>(mapped->Whole().size());
    if (auto model = ParseFast(*mapped, path, nullptr, size)) return *std::move(model);
    return ImportWithReference(path);
  }
  {
    auto gz = GzInput::Open(path);
    if (!gz.ok()) return gz.status();
    GzSource source(**gz);
    // A plain file's size sizes the model; a gzip one's is unknown.
    const int64_t size_hint = PlainFileSize(path);
    if (auto model = ParseFast(source, path, gz->get(), size_hint)) {
      if (model->ok() && (*gz)->compressed()) (*model)->metadata["compressed"] = "gzip";
      return *std::move(model);
    }
  }
  return ImportWithReference(path);
}

}  // namespace streamscope
