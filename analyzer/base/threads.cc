#include "analyzer/base/threads.h"

#include <algorithm>
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

size_t SliceCount(size_t n, size_t min_slice) {
  if (!ThreadsAllowed()) return 1;
  const size_t cores = std::min<size_t>(8, std::max(std::thread::hardware_concurrency(), 1u));
  return std::clamp<size_t>(n / std::max<size_t>(min_slice, 1), 1, cores);
}

void ForEachSlice(size_t n, size_t slices, const std::function<void(size_t, size_t, size_t)>& body) {
  slices = std::max<size_t>(slices, 1);
  auto begin = [&](size_t s) { return n * s / slices; };
  TaskThreads threads(slices > 1);
  for (size_t s = 0; s + 1 < slices; ++s) {
    threads.Start([&body, s, b = begin(s), e = begin(s + 1)] { body(s, b, e); });
  }
  body(slices - 1, begin(slices - 1), n);
}

void ForEachTask(size_t tasks, size_t workers, const std::function<void(size_t, size_t)>& body) {
  workers = std::clamp<size_t>(std::min(workers, SliceCount(tasks, 1)), 1, std::max<size_t>(tasks, 1));
  std::atomic<size_t> next{0};
  auto work = [&](size_t worker) {
    for (size_t task = next.fetch_add(1); task < tasks; task = next.fetch_add(1)) body(worker, task);
  };
  TaskThreads threads(workers > 1);
  for (size_t w = 1; w < workers; ++w) threads.Start([&work, w] { work(w); });
  work(0);
}

}  // namespace streamscope
