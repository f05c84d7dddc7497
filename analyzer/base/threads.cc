#include "analyzer/base/threads.h"

#include <cstdlib>
#include <string_view>
#include <system_error>
#include <utility>

namespace streamscope {

bool ThreadsAllowed() {
  const char* env = std::getenv("STREAMSCOPE_THREADS");
  return !(env != nullptr && std::string_view(env) == "1");
}

void TaskThreads::Start(std::function<void()> task) {
  if (threads_) {
    try {
      running_.emplace_back(task);
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

}  // namespace streamscope
