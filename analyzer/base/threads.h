// The analyzer's own threads: one switch to turn them off, and a group of
// tasks that run on threads of their own when they may. Every thread the
// analyzer starts for its work is started here (tools/dev/pipeline_check.py
// fails on a std::thread elsewhere).
#ifndef STREAMSCOPE_ANALYZER_BASE_THREADS_H_
#define STREAMSCOPE_ANALYZER_BASE_THREADS_H_

#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

namespace streamscope {

// False under STREAMSCOPE_THREADS=1: everything on the calling thread
// (lower peak memory, per-phase profile figures). Results are the same
// either way.
bool ThreadsAllowed();

// Runs each task on a thread of its own, or at once on the caller's when
// `threads` is false (ThreadsAllowed() is false under STREAMSCOPE_THREADS=1
// whatever `threads` says) or no thread can be started; Join (or the
// destructor) waits for them all. Not thread-safe: one caller starts and
// joins.
class TaskThreads {
 public:
  explicit TaskThreads(bool threads = true) : threads_(threads && ThreadsAllowed()) {}
  ~TaskThreads() { Join(); }
  TaskThreads(const TaskThreads&) = delete;
  TaskThreads& operator=(const TaskThreads&) = delete;

  void Start(std::function<void()> task);
  void Join();

  // Threads started by every TaskThreads of the process so far (tests
  // check that STREAMSCOPE_THREADS=1 starts none).
  static int64_t Started();

 private:
  bool threads_;
  std::vector<std::thread> running_;
};

// Below this many ops a step's own thread costs more than it saves: a step
// that could run beside another gets one only from here on (a window's
// contention step and ops' attribution, a trace's first launches).
inline constexpr size_t kOpsWorthAThread = size_t{1} << 16;

// How many slices ForEachSlice cuts [0, n) into: one per core (at most 8),
// each of at least `min_slice` items; 1 when threads are off.
size_t SliceCount(size_t n, size_t min_slice);

// Calls body(slice, begin, end) for each of `slices` contiguous slices of
// [0, n) (slice s is [n * s / slices, n * (s + 1) / slices)): the first
// slices on threads of their own, the last on the caller's; all are done
// when it returns. For a pass whose items write only their own slots: what
// each slice lists, joined in slice order, is what one pass would list.
void ForEachSlice(size_t n, size_t slices, const std::function<void(size_t, size_t, size_t)>& body);

// Calls body(worker, task) for each task of [0, tasks), on `workers`
// workers (at most one per core, and one when threads are off), the
// caller's thread one of them: each takes the next task not taken, so
// tasks of unequal cost share the workers. worker < workers: state of its
// own, one per worker. All are done when it returns.
void ForEachTask(size_t tasks, size_t workers, const std::function<void(size_t, size_t)>& body);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_BASE_THREADS_H_
