#include "analyzer/pipeline/phase_timer.h"

#include <malloc.h>
#include <sys/resource.h>
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace streamscope {
namespace {

class PhaseTimer {
 public:
  PhaseTimer() : enabled_(std::getenv("STREAMSCOPE_PROFILE") != nullptr), last_(Clock::now()), last_cpu_(Cpu()) {}
  void Mark(const char* phase) {
    if (!enabled_) return;
    auto now = Clock::now();
    double cpu = Cpu();
    rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    const double sys = static_cast<double>(ru.ru_stime.tv_sec) + static_cast<double>(ru.ru_stime.tv_usec) * 1e-6;
    // System time and page faults: where pages are mapped and faulted in;
    // the heap in use: what is still held after the phase.
    const struct mallinfo2 heap = mallinfo2();
    std::fprintf(stderr,
                 "streamscope profile: %-14s %8.3f s wall %8.3f s cpu %7ld MiB peak %7.3f s sys %8ld faults %7zu MiB "
                 "in use\n",
                 phase, std::chrono::duration<double>(now - last_).count(), cpu - last_cpu_, ru.ru_maxrss / 1024,
                 sys - last_sys_, ru.ru_minflt - last_faults_, (heap.uordblks + heap.hblkhd) >> 20);
    last_ = now;
    last_cpu_ = cpu;
    last_sys_ = sys;
    last_faults_ = ru.ru_minflt;
  }

 private:
  using Clock = std::chrono::steady_clock;
  static double Cpu() {  // process CPU time, all threads
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
  }
  bool enabled_;
  Clock::time_point last_;
  double last_cpu_;
  double last_sys_ = 0;
  long last_faults_ = 0;
};

}  // namespace

void MarkPhase(const char* phase) {
  static PhaseTimer timer;
  static std::mutex mutex;  // an export's analyses mark phases on their own thread
  std::lock_guard<std::mutex> lock(mutex);
  timer.Mark(phase);
}

}  // namespace streamscope
