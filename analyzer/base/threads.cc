#include "analyzer/base/threads.h"

#include <atomic>
#include <cstdlib>
#include <string_view>
#include <system_error>
#include <utility>

namespace streamscope {
namespace {

std::atomic<int64_t> started{0};

}  // namespace

bool ThreadsAllowed() {
  const char* env = std::getenv("STREAMSCOPE_THREADS");
  return !(env != nullptr && std::string_view(env) == "1");
}

void TaskThreads::Start(std::function<void()> task) {
  if (threads_) {
    try {
      running_.emplace_back(task);
      started.fetch_add(1, std::memory_order_relaxed);
      return;
    } catch (const std::system_error&) {  // no thread to be had: here, then
    }
  }
  task();
}

void TaskThreads::Join() {
  for (std::thread& t : running_) t.join();
  running_.clear();
}

int64_t TaskThreads::Started() { return started.load(std::memory_order_relaxed); }

}  // namespace streamscope
