// Synthetic traces with planted causes of known cost for the what-if,
// critical-path and dependency-graph tests. Times are in microseconds
// (kUs); every launch call takes 10 us and its kernel starts 5 us after the
// call starts when the GPU is free. The expected figures are worked out by
// hand in each builder's comment. Header-only; not thread-safe.
#ifndef STREAMSCOPE_TESTS_ANALYZER_ANALYSIS_PLANTED_TRACES_H_
#define STREAMSCOPE_TESTS_ANALYZER_ANALYSIS_PLANTED_TRACES_H_

#include <cstdint>

#include "analyzer/model/trace_model.h"
#include "tests/analyzer/model/model_builder.h"
#include "tests/analyzer/model/test_units.h"

namespace streamscope::testing {

inline constexpr int64_t kStream = 13;

// Five steps of 2 ms host work, then three 100 us kernels; the first
// `annotated_us` of each step's host work in NVTX range `range`, the rest
// unannotated (see HostSleepTrace and SplitHostWorkTrace below).
inline TraceModel StepHostWorkTrace(const char* range, int64_t annotated_us) {
  ModelBuilder b;
  b.Stream(kStream, StreamKind::kNonBlocking);
  b.Api("cudaMalloc", 1, 0, 1000 * kUs);
  for (int64_t s = 0; s < 5; ++s) {
    int64_t t = (1000 + 2030 * s) * kUs;
    b.Nvtx(range, 1, t, t + annotated_us * kUs);
    for (int64_t k = 0; k < 3; ++k) {
      int64_t call = t + (2000 + 10 * k) * kUs;
      int64_t start = t + (2005 + 100 * k) * kUs;
      b.Kernel("step_kernel", kStream, start, start + 100 * kUs, ApiTimes{call, call + 10 * kUs, 1});
    }
  }
  return b.Build();
}

// A 2 ms host sleep (NVTX "sleep") before three 100 us kernels, five steps.
// cudaMalloc [0, 1000); step s starts at T = 1000 + 2030 s: sleep [T, T+2000),
// launches at T+2000, T+2010, T+2020; K1 [T+2005, T+2105), K2 and K3 follow
// on the stream. Recorded end: T4 + 2305 = 11425 us. Without the sleep the
// calls run back to back and the 15 kernels too, from 1005: end 2505 us;
// the first step's sleep comes before the first GPU op (start-up), so the
// saving of the GPU span is 4 x 1730 = 6920 us; measured cost 5 x 2000 =
// 10000 us. Critical path: host work 10000, API calls 1000 + 4 x 30,
// launch 5, kernels 300 (= 11425).
inline TraceModel HostSleepTrace() { return StepHostWorkTrace("sleep", 2000); }

// HostSleepTrace with each step's 2 ms of host work split: the first 1 ms
// in NVTX range "load", the second 1 ms unannotated (as a data loader's
// work often is). The first step's host work comes before the first GPU op
// (start-up: no saving). Removing "load" alone or the unannotated work alone
// shortens each of the 4 later gaps by 1000 us: 4000 us each. Removing both
// runs everything back to back: 6920 us, the window's whole GPU idle time
// between the steps (4 x 1730 us).
inline TraceModel SplitHostWorkTrace() { return StepHostWorkTrace("load", 1000); }

// A launch then cudaStreamSynchronize every step, 20 us of unannotated host
// work after the sync. Step s launches at T = 1000 + 530 s: K [T+5, T+505),
// sync [T+10, T+510). Recorded end 3625 us. Sync dropped: it returns 5 us
// after it starts, the next launch comes 35 us after the last, and the
// kernels run back to back from 1005: end 3505, saving 120 us (4 x (20 host
// + 5 tail + 5 launch)); measured cost 5 x 495 = 2475 us.
// Host work removed: 4 x 20 = 80 us saved and measured.
inline TraceModel PerStepSyncTrace() {
  ModelBuilder b;
  b.Stream(kStream, StreamKind::kNonBlocking);
  for (int64_t s = 0; s < 5; ++s) {
    int64_t t = (1000 + 530 * s) * kUs;
    b.Kernel("k", kStream, t + 5 * kUs, t + 505 * kUs, ApiTimes{t, t + 10 * kUs, 1});
    b.Sync(SyncKind::kStreamSynchronize, kStream, t + 10 * kUs, t + 510 * kUs, "cudaStreamSynchronize", 1);
  }
  return b.Build();
}

// Three planted causes in one loop (five steps). Setup: a pinned 1 MiB H2D
// copy, call [0, 10), copy [5, 105); cudaStreamSynchronize [10, 110).
// Step s, C = 1110 + 1720 s: NVTX "prepare" [C-1000, C) (host work);
// pageable 1 MiB cudaMemcpyAsync call [C, C+410) holding the host until its
// copy [C+5, C+405) ended; launch [C+410, C+420), K [C+415, C+715);
// cudaStreamSynchronize [C+420, C+720). Recorded end: C4 + 715 = 8705 us.
//   prepare removed: every step 1000 us earlier: saving 5000 (cost 5000).
//   pageable copy at the pinned rate (1 MiB per 100 us): the call returns
//     after 5 us, the copy takes 100 us, the step takes 1410 instead of
//     1720 us: saving 5 x 310 = 1550 (cost: copy time 2000).
//   sync dropped: the setup sync returns at 15 (95 earlier), each step
//     takes 1425 instead of 1720 us: saving 95 + 4 x 295 = 1275 (cost:
//     blocked 95 + 5 x 295 = 1570).
//   stream 13 split: copy and kernel are ordered through the host anyway:
//     saving 0 (cost min(2100, 1500) = 1500).
inline TraceModel ThreeCausesTrace() {
  ModelBuilder b;
  b.Stream(kStream, StreamKind::kNonBlocking);
  constexpr int64_t kMiB = 1 << 20;
  b.Copy(OpCategory::kHtoD, MemoryKind::kPinned, MemoryKind::kDevice, kStream, 5 * kUs, 105 * kUs,
         ApiTimes{0, 10 * kUs, 1}, "cudaMemcpyAsync", true, kMiB);
  b.Sync(SyncKind::kStreamSynchronize, kStream, 10 * kUs, 110 * kUs, "cudaStreamSynchronize", 1);
  for (int64_t s = 0; s < 5; ++s) {
    int64_t c = (1110 + 1720 * s) * kUs;
    b.Nvtx("prepare", 1, c - 1000 * kUs, c);
    b.Copy(OpCategory::kHtoD, MemoryKind::kPageable, MemoryKind::kDevice, kStream, c + 5 * kUs, c + 405 * kUs,
           ApiTimes{c, c + 410 * kUs, 1}, "cudaMemcpyAsync", true, kMiB);
    b.Kernel("k", kStream, c + 415 * kUs, c + 715 * kUs, ApiTimes{c + 410 * kUs, c + 420 * kUs, 1});
    b.Sync(SyncKind::kStreamSynchronize, kStream, c + 420 * kUs, c + 720 * kUs, "cudaStreamSynchronize", 1);
  }
  return b.Build();
}

// One stream sync, then four pageable 1 MiB H2D copies whose calls held the
// host until the copy ran (call [c, c + 410) us, copy [c + 5, c + 405)),
// 100 us of host work between calls. Dropping the holds lets the copies run
// back to back: most of the saving is the copies'. The sync only made the
// host wait 100 us for one kernel before the first copy call.
inline TraceModel SyncBeforePageableCopiesTrace() {
  ModelBuilder b;
  b.Stream(kStream, StreamKind::kNonBlocking);
  b.Kernel("k", kStream, 5 * kUs, 105 * kUs, ApiTimes{0, 10 * kUs, 1});
  b.Sync(SyncKind::kStreamSynchronize, kStream, 10 * kUs, 110 * kUs, "cudaStreamSynchronize", 1);
  constexpr int64_t kMiB = 1 << 20;
  for (int64_t j = 0; j < 4; ++j) {
    int64_t c = (110 + 510 * j) * kUs;
    b.Copy(OpCategory::kHtoD, MemoryKind::kPageable, MemoryKind::kDevice, kStream, c + 5 * kUs, c + 405 * kUs,
           ApiTimes{c, c + 410 * kUs, 1}, "cudaMemcpyAsync", true, kMiB);
  }
  return b.Build();
}

// A first launch that loads its module: call [0, 5000) us, kernel
// [4995, 5095); then five launches 200 us apart (call [5000 + 200 j,
// +10)), each kernel 5 us after its call, 100 us long. Recorded end
// 6105. First launch at the median call time (10 us, excess 4990): saving
// 4990. Unannotated host work (200 + 4 x 190 = 960 us) removed: the kernels
// run back to back from 4995: saving 510.
inline TraceModel FirstLaunchTrace() {
  ModelBuilder b;
  b.Stream(kStream, StreamKind::kNonBlocking);
  b.Kernel("k", kStream, 4995 * kUs, 5095 * kUs, ApiTimes{0, 5000 * kUs, 1});
  for (int64_t j = 1; j <= 5; ++j) {
    int64_t call = (5000 + 200 * j) * kUs;
    b.Kernel("k", kStream, call + 5 * kUs, call + 105 * kUs, ApiTimes{call, call + 10 * kUs, 1});
  }
  return b.Build();
}

// PyTorch's autograd handoff with a read-back per step, on two threads.
// Step i, T = 515 i: thread 1 does 100 us of host work, launches K_a (call
// [T+100, T+110), kernel [T+105, T+305)) and pauses; thread 2 resumes 30 us
// later and launches K_b (call [T+140, T+150), kernel [T+305, T+505) after
// K_a); thread 1 resumes 30 us after that: a pageable cudaMemcpyAsync of 4
// bytes back (call [T+180, T+510), copy [T+505, T+507)), then
// cudaStreamSynchronize [T+512, T+515). Two host_handoff edges a step (thread
// 2's first call has no earlier call: 2 n - 1). The GPU idles 113 us a step
// (copy end to the next K_a), all a round trip. Read-backs gone: the host
// needs 182 us a step (100 + 10 + 30 + 10 + 30 + 2), the GPU 402 (K_a, K_b,
// copy), so the GPU runs back to back from K_a of step 0: saving 113 (n - 1)
// us, the round trip's whole idle time. Without the handoffs thread 2 would
// keep its recorded 515 us period and nothing would be saved.
inline TraceModel AutogradHandoffLoop(int iterations) {
  ModelBuilder b;
  b.Stream(kStream, StreamKind::kNonBlocking);
  for (int64_t i = 0; i < iterations; ++i) {
    const int64_t t = 515 * i * kUs;
    b.Kernel("k_a", kStream, t + 105 * kUs, t + 305 * kUs, ApiTimes{t + 100 * kUs, t + 110 * kUs, 1});
    b.Kernel("k_b", kStream, t + 305 * kUs, t + 505 * kUs, ApiTimes{t + 140 * kUs, t + 150 * kUs, 2});
    b.Copy(OpCategory::kDtoH, MemoryKind::kDevice, MemoryKind::kPageable, kStream, t + 505 * kUs, t + 507 * kUs,
           ApiTimes{t + 180 * kUs, t + 510 * kUs, 1}, "cudaMemcpyAsync", true, 4);
    b.Sync(SyncKind::kStreamSynchronize, kStream, t + 512 * kUs, t + 515 * kUs, "cudaStreamSynchronize", 1);
  }
  return b.Build();
}

}  // namespace streamscope::testing

#endif  // STREAMSCOPE_TESTS_ANALYZER_ANALYSIS_PLANTED_TRACES_H_
