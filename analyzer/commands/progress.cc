#include "analyzer/commands/progress.h"

#include <atomic>

namespace streamscope {
namespace {

std::atomic<ProgressSink*> g_sink{nullptr};

}  // namespace

void SetProgressSink(ProgressSink* sink) { g_sink.store(sink); }

void ProgressPhase(absl::string_view phase, int64_t done, int64_t total) {
  if (ProgressSink* sink = g_sink.load()) sink->Update(phase, done, total);
}

}  // namespace streamscope
