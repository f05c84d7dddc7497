// How every renderer names a GPU op so a user can find it on the timeline
// and in the trace: its source table and row id, stream, times and name.
// Thread-safe (reads the model only).
#ifndef STREAMSCOPE_ANALYZER_RENDER_OP_REF_H_
#define STREAMSCOPE_ANALYZER_RENDER_OP_REF_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "analyzer/model/trace_model.h"
#include "nlohmann/json.hpp"

namespace streamscope {

// The trace table an op's source_id refers to: "kernel", "memcpy", "memset".
std::string_view OpTable(OpCategory c);
// The stream's id in the source trace, or -1 for index -1.
int64_t StreamSourceId(const TraceModel& model, int32_t stream);

// "kernel#12 'saxpy' (stream 14)", "memcpy#7 H2D 4.00 MiB pinned->device (stream 13)".
std::string OpLabel(const TraceModel& model, int32_t op);

// {"table","id","category","stream_id","start_ns","end_ns", "name" (kernels),
//  "bytes" (copies, memsets)}.
nlohmann::json OpRefJson(const TraceModel& model, int32_t op);

// Shortened kernel names for text (mangled C++ names can be kilobytes),
// in the middle (text_layout.h ShortenMiddle).
std::string ShortName(std::string_view name, size_t max_chars = 60);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_RENDER_OP_REF_H_
