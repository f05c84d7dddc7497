// Known-answer CUDA program for the reliability tests: one "unit" of work is
// one kernel (atomic tick), one 4 KiB pinned H2D copy and one 4 KiB memset on
// a stream of its own, so a trace must hold exactly as many kernels, copies
// and memsets as the mode says. Every mode ends its output with one line
// "reliability_ops: mode=M ticks=N ok" (N = ticks counted on the GPU) and exits
// with the status stated below. tests/reliability/check_trace.py asserts the
// traces; reliability_gpu_test.sh knows the expected counts.
//
//   return            100 units, return 0 from main without cudaDeviceReset
//   exit              100 units, exit(5)
//   exit_thread       100 units; main then waits on a 2 s kernel while a
//                     second thread does 50 units and calls exit(6)
//   reset             100 units, cudaDeviceReset, 100 more units, return 0
//   wait [--own-handler|--own-handler-late]
//                     100 units, prints "ready", sleeps up to 30 s. With a
//                     handler of its own (SIGINT/SIGTERM, installed before
//                     or after CUDA starts): on the signal 10 more units,
//                     prints "handled signal N", returns 7
//   abort             100 units, 1.5 s pause, 20 units, abort()
//   segv              the same, then a write through a null pointer
//   fork              2 children forked before CUDA starts: 40 and 50 units
//                     each; the parent 100 units; returns 0
//   fork_after_cuda   100 units, forks a child that never uses CUDA and
//                     exits 0, then 10 units; returns 0
//   exec_self         100 units, then execs itself in mode "return"
//   threads           16 threads, each 200 units on its own stream
//   many N            N units (fills a small disk)
#include <cuda_runtime.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#define CHECK(call)                                                                            \
  do {                                                                                         \
    cudaError_t e_ = (call);                                                                   \
    if (e_ != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "reliability_ops: %s failed: %s\n", #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                            \
    }                                                                                          \
  } while (0)

namespace {

constexpr size_t kCopyBytes = 4096;

__global__ void Tick(unsigned* counter) { atomicAdd(counter, 1u); }

__global__ void SpinNs(unsigned long long ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

// Buffers and a stream of one thread of work.
struct Lane {
  cudaStream_t stream = nullptr;
  unsigned* counter = nullptr;
  void* dev = nullptr;
  void* pinned = nullptr;

  void Open() {
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CHECK(cudaMalloc(&counter, sizeof(unsigned)));
    CHECK(cudaMemset(counter, 0, sizeof(unsigned)));  // one legacy memset per lane
    CHECK(cudaMalloc(&dev, kCopyBytes));
    CHECK(cudaMallocHost(&pinned, kCopyBytes));
    std::memset(pinned, 1, kCopyBytes);
  }
  void Units(int n) {
    for (int i = 0; i < n; ++i) {
      Tick<<<1, 1, 0, stream>>>(counter);
      CHECK(cudaMemcpyAsync(dev, pinned, kCopyBytes, cudaMemcpyHostToDevice, stream));
      CHECK(cudaMemsetAsync(dev, 0, kCopyBytes, stream));
    }
    CHECK(cudaStreamSynchronize(stream));
  }
  unsigned Ticks() {
    unsigned h = 0;
    CHECK(cudaMemcpyAsync(&h, counter, sizeof(h), cudaMemcpyDeviceToHost, stream));  // one D2H
    CHECK(cudaStreamSynchronize(stream));
    return h;
  }
};

std::atomic<int> g_signal{0};
void OwnHandler(int sig) { g_signal = sig; }
void InstallOwnHandler() {
  struct sigaction sa = {};
  sa.sa_handler = OwnHandler;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

void Done(const char* mode, unsigned ticks) {
  std::printf("reliability_ops: mode=%s ticks=%u ok\n", mode, ticks);
  std::fflush(stdout);
}

int Usage() {
  std::fprintf(stderr, "usage: reliability_ops MODE (see the file comment)\n");
  return 2;
}

}  // namespace

// Kept whole: one short branch per MODE of the file comment, read top to bottom.
int main(int argc, char** argv) {
  if (argc < 2) return Usage();
  std::string mode = argv[1];
  bool own_handler = argc > 2 && !std::strcmp(argv[2], "--own-handler");
  bool own_handler_late = argc > 2 && !std::strcmp(argv[2], "--own-handler-late");
  if (mode == "fork") {
    std::vector<pid_t> kids;
    for (int c = 0; c < 2; ++c) {
      pid_t pid = fork();
      if (pid < 0) return 1;
      if (pid == 0) {
        Lane lane;
        lane.Open();
        lane.Units(40 + 10 * c);
        Done(c == 0 ? "fork_child0" : "fork_child1", lane.Ticks());
        std::exit(0);
      }
      kids.push_back(pid);
    }
    Lane lane;
    lane.Open();
    lane.Units(100);
    unsigned ticks = lane.Ticks();
    int bad = 0;
    for (pid_t k : kids) {
      int status = 0;
      waitpid(k, &status, 0);
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++bad;
    }
    if (bad) {
      std::fprintf(stderr, "reliability_ops: %d children failed\n", bad);
      return 1;
    }
    Done("fork", ticks);
    return 0;
  }
  if (own_handler) InstallOwnHandler();  // before CUDA starts (and the collector with it)

  if (mode == "threads") {
    constexpr int kThreads = 16, kUnits = 200;
    std::vector<unsigned> ticks(kThreads);
    std::vector<std::thread> threads;
    CHECK(cudaFree(nullptr));  // start CUDA once, then launch from all threads at once
    std::atomic<int> ready{0};
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        Lane lane;
        lane.Open();
        ++ready;
        while (ready.load() < kThreads) std::this_thread::yield();
        lane.Units(kUnits);
        ticks[t] = lane.Ticks();
      });
    }
    unsigned total = 0;
    for (int t = 0; t < kThreads; ++t) {
      threads[t].join();
      total += ticks[t];
    }
    Done("threads", total);
    return total == kThreads * kUnits ? 0 : 3;
  }

  Lane lane;
  lane.Open();
  if (own_handler_late) InstallOwnHandler();  // after CUDA (and the collector) started
  if (mode == "many") {
    int n = argc > 2 ? std::atoi(argv[2]) : 1000;
    lane.Units(n);
    Done("many", lane.Ticks());
    return 0;
  }
  lane.Units(100);
  if (mode == "return") {
    Done("return", lane.Ticks());
    return 0;
  }
  if (mode == "exit") {
    Done("exit", lane.Ticks());
    std::exit(5);
  }
  if (mode == "exit_thread") {
    unsigned first = lane.Ticks();
    std::thread([first] {
      usleep(300 * 1000);
      Lane other;
      other.Open();
      other.Units(50);
      Done("exit_thread", first + other.Ticks());
      std::exit(6);  // while main waits for its kernel
    }).detach();
    SpinNs<<<1, 1, 0, lane.stream>>>(2000ull * 1000 * 1000);
    cudaStreamSynchronize(lane.stream);
    usleep(10 * 1000 * 1000);  // not reached in a correct run
    std::printf("reliability_ops: exit from the other thread did not happen\n");
    return 1;
  }
  if (mode == "reset") {
    unsigned first = lane.Ticks();
    CHECK(cudaDeviceReset());
    Lane again;
    again.Open();
    again.Units(100);
    Done("reset", first + again.Ticks());
    return 0;
  }
  if (mode == "wait") {
    unsigned ticks = lane.Ticks();
    std::printf("ready\n");
    std::fflush(stdout);
    for (int i = 0; i < 3000 && g_signal.load() == 0; ++i) usleep(10 * 1000);
    if (g_signal.load() == 0) {
      std::printf("reliability_ops: no signal came\n");
      return 9;
    }
    lane.Units(10);
    std::printf("reliability_ops: handled signal %d\n", g_signal.load());
    Done("wait", lane.Ticks());
    (void)ticks;
    return 7;
  }
  if (mode == "abort" || mode == "segv") {
    usleep(1500 * 1000);  // past one flush period: these 100 units are on disk
    lane.Units(20);
    Done(mode.c_str(), lane.Ticks());
    if (mode == "abort") std::abort();
    volatile int* nowhere = nullptr;
    *nowhere = 1;  // SIGSEGV
    return 1;
  }
  if (mode == "fork_after_cuda") {
    std::fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
      std::printf("reliability_ops: child without CUDA\n");
      std::exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    lane.Units(10);
    Done("fork_after_cuda", lane.Ticks());
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
  }
  if (mode == "exec_self") {
    std::printf("reliability_ops: ticks before exec=%u\n", lane.Ticks());
    std::fflush(stdout);
    execl("/proc/self/exe", argv[0], "return", static_cast<char*>(nullptr));
    return 1;
  }
  return Usage();
}
