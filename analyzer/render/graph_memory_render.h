// How a report says that a window's dependency graph was not built for
// memory (analysis/causes/graph_memory.h): one wording for the diagnosis'
// note and the critical path section.
#ifndef STREAMSCOPE_ANALYZER_RENDER_GRAPH_MEMORY_RENDER_H_
#define STREAMSCOPE_ANALYZER_RENDER_GRAPH_MEMORY_RENDER_H_

#include <string>

#include "analyzer/analysis/causes/graph_memory.h"
#include "nlohmann/json.hpp"

namespace streamscope {

// "the dependency graph of this window (...) needs about ... : not built; ..."
std::string GraphOverMemoryText(const GraphOverMemory& m);
nlohmann::json GraphOverMemoryJson(const GraphOverMemory& m);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_RENDER_GRAPH_MEMORY_RENDER_H_
