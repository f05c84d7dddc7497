// How every renderer cites a GPU op or an API call, in one form everywhere
// (text, HTML, timeline labels; analyzer/README.md "How output cites ops"):
//   <kind> <id> [what it is] (stream <S>)   for ops, kind kernel/copy/memset
//   call <id> <function> (thread <T>)       for API calls
// <id> is the row id in the trace's kernel/memcpy/memset/api_call table, so
// "copy 8" is `SELECT * FROM memcpy WHERE id = 8`. JSON and result tables
// carry the same op as op_table + op_id. Thread-safe (reads the model only).
#ifndef STREAMSCOPE_ANALYZER_RENDER_OP_REF_H_
#define STREAMSCOPE_ANALYZER_RENDER_OP_REF_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "analyzer/base/result_table.h"
#include "analyzer/model/trace_model.h"
#include "nlohmann/json.hpp"

namespace streamscope {

// The trace table an op's source_id refers to: "kernel", "memcpy", "memset"
// (the op_table column of JSON and result tables).
std::string_view OpTable(OpCategory c);
// The word text uses for an op: "kernel", "copy", "memset".
std::string_view OpKind(OpCategory c);
// The stream's id in the source trace, or -1 for index -1.
int64_t StreamSourceId(const TraceModel& model, int32_t stream);
// The same, or nullopt (NULL in tables, null in JSON) for index -1 and for
// the no-stream stream (id -1) that importers give stream-less ops.
std::optional<int64_t> StreamSourceIdOrNull(const TraceModel& model, int32_t stream);
// StreamSourceIdOrNull as a result-table cell and as JSON.
ResultValue StreamIdCell(const TraceModel& model, int32_t stream);
nlohmann::json StreamIdJson(const TraceModel& model, int32_t stream);

// "kernel 12 (stream 7)", "copy 8 (stream 16)", "memset 1 (stream 7)".
std::string OpRef(const TraceModel& model, int32_t op);
// OpRef with the op's name where it has one: "kernel 12 'saxpy' (stream 7)";
// with_stream_kind: "copy 8 (stream 16, non_blocking)".
std::string OpNamedRef(const TraceModel& model, int32_t op, bool with_stream_kind = false);
// OpRef with what the op moved: "copy 7 H2D 4.00 MiB pinned->device (stream 13)",
// "memset 1 4 B (stream 7)"; kernels as OpRef.
std::string OpLabel(const TraceModel& model, int32_t op);
// "call 33 cudaMemcpyAsync (thread 1217)" for an api index.
std::string CallRef(const TraceModel& model, int32_t api);

// {"table","id","category","stream_id","start_ns","end_ns", "name" (kernels,
//  named copies), "bytes" (copies, memsets)}.
nlohmann::json OpRefJson(const TraceModel& model, int32_t op);

// Shortened kernel names for text (mangled C++ names can be kilobytes),
// at the end (text_layout.h ShortenName).
std::string ShortName(std::string_view name, size_t max_chars = 60);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_RENDER_OP_REF_H_
