// Importer for torch.profiler traces: the Chrome trace JSON that Kineto
// writes (`prof.export_chrome_trace(path)`, `tensorboard_trace_handler`),
// plain or gzip-compressed. See analyzer/TORCH.md for what maps to what.
//
// One pass, no DOM (traces reach GBs): a plain file is mapped and scanned in
// place (a large one in pieces on several threads, merged in file order:
// the same model as one pass), a gzip one inflated block by block, by a
// purpose-built JSON reader
// (torch_json_reader.h) that accepts exactly what nlohmann-json's strict
// parser accepts; malformed input is reparsed with nlohmann so that every
// error reads the same. Times are converted from the numbers' text, exactly. Bad events
// are counted in model->import_stats and left out, never fatal; a file that
// is not JSON, is truncated, or is JSON but no torch.profiler trace gets an
// error. Thread-safe (no shared state).
#ifndef STREAMSCOPE_ANALYZER_IMPORTERS_TORCH_TRACE_IMPORTER_H_
#define STREAMSCOPE_ANALYZER_IMPORTERS_TORCH_TRACE_IMPORTER_H_

#include <cstdint>
#include <istream>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

// NVTX domains the importer gives torch's CPU-side ranges, so that analyses
// can tell operators from user annotations (op_attribution.h).
inline constexpr std::string_view kTorchCpuOpDomain = "torch.cpu_op";
inline constexpr std::string_view kTorchAnnotationDomain = "torch.user_annotation";

// By content, not name: the file (decompressed if gzip) starts with a JSON
// object or array.
bool LooksLikeTorchTrace(const std::string& path);

// One model (not yet finalized). DATA_LOSS for malformed or truncated JSON
// or gzip data; INVALID_ARGUMENT for JSON that is not a torch.profiler
// trace (no traceEvents, or no kernel, copy, memset, CUDA call or CPU op
// among them); NOT_FOUND if the file cannot be read.
absl::StatusOr<TraceModel> ImportTorchTrace(const std::string& path);

// How a plain file is cut into pieces parsed on threads of their own.
struct TorchPieceOptions {
  int pieces = 0;                              // 0: one per core, at most 8; 1: one pass
  int64_t min_piece_bytes = int64_t{8} << 20;  // no piece smaller (fewer pieces instead)
  int* pieces_parsed = nullptr;                // if set: how many pieces were merged (1: one pass)
};
// ImportTorchTrace with explicit pieces (tests: pieces of a small file).
absl::StatusOr<TraceModel> ImportTorchTrace(const std::string& path, const TorchPieceOptions& pieces);

// The same from a stream (tests); `label` names it in messages.
absl::StatusOr<TraceModel> ImportTorchTraceStream(std::istream& in, const std::string& label);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_IMPORTERS_TORCH_TRACE_IMPORTER_H_
