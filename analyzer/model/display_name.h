// Names as people read them. Kernel names are recorded mangled, as CUPTI and
// Nsight Systems give them; every text, table and timeline shows them
// demangled (base/demangle.h) and keeps the recorded name beside it where
// the output is data (JSON `mangled_name`, CSV and saved-table columns).
#ifndef STREAMSCOPE_ANALYZER_MODEL_DISPLAY_NAME_H_
#define STREAMSCOPE_ANALYZER_MODEL_DISPLAY_NAME_H_

#include <string_view>

#include "analyzer/model/trace_model.h"

namespace streamscope {

// `pool`'s string `id` as people read it: a mangled C++/CUDA name
// demangled, any other string as recorded ("" for kNoString). Thread-safe;
// each distinct mangled name is demangled once per process and the view
// stays valid for the life of the process.
std::string_view DisplayName(const StringPool& pool, StringId id);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_MODEL_DISPLAY_NAME_H_
