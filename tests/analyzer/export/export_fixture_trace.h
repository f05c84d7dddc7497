// Writes a synthetic streamscope trace with known contents for the export
// tests, the browser test and the export benchmark (schema::CreateSql(), so
// it is a real trace file that goes through the importer).
//
// Per iteration i (t = kFixtureStartNs + i * 100 us), on device 0:
//   H2D 4 MiB pinned->device on stream 13 [t, t+20us)
//   kernel on stream 14 [t+10us, t+50us)        (overlaps the H2D 10 us)
//   D2H 4 MiB device->pinned on stream 13 [t+50us, t+65us)
//   memset on stream 15 (blocking) [t+70us, t+72us)
// each submitted by a runtime call on thread 1 before t (the kernel's
// cudaLaunchKernel encloses a driver cuLaunchKernel with the same
// correlation id); an NVTX range "iteration" (depth 1) per iteration inside
// one "measured" range (depth 0); marks "workload=synthetic-pipeline" and
// "validation=passed" in domain "streamscope"; a cudaStreamSynchronize with
// its sync record at the end. Stream 7 is the legacy default stream (no
// ops). With `jitter`, iteration 3 (if present) gets a second kernel on
// stream 14 that starts 5 ns before the first one ends. The first kernel's
// name is hostile (quotes, backslashes, control characters, '<', '&',
// invalid UTF-8); the others are "_Z10vector_addPfS_S_i".
// With `legacy_tail`, after the final sync (T = end of the iterations +
// 20 us): a kernel on the legacy default stream 7 [T, T+30us); a memset on
// blocking stream 15 submitted at T+2..T+4us that starts only at T+31us
// (legacy-stream serialization); and a synchronous cudaMemcpy call
// [T+6us, T+50us) whose D2H to pageable memory runs [T+40us, T+48us) on
// stream 7 (an implicitly synchronizing call). 3 more ops, 3 more calls.
#ifndef STREAMSCOPE_TESTS_ANALYZER_EXPORT_EXPORT_FIXTURE_TRACE_H_
#define STREAMSCOPE_TESTS_ANALYZER_EXPORT_EXPORT_FIXTURE_TRACE_H_

#include <cstdint>
#include <string>

namespace streamscope::testing {

inline constexpr int64_t kFixtureStartNs = 1'700'000'000'000'000'000;  // epoch-like, > 2^53
inline constexpr int64_t kFixtureIterationNs = 100'000;
inline constexpr char kHostileKernelName[] =
    "weird \"quoted\" \\back\\slash\\ ctrl\x01\x1f tab\t nl\n <b>&amp; bad\xff\xfe utf8 \xc3\xa9";

struct FixtureOptions {
  int64_t iterations = 8;
  bool jitter = true;
  bool legacy_tail = false;
  // The sequential control: the same ops back to back on stream 13 (H2D
  // [t, t+20us), kernel [t+20us, t+60us), D2H [t+60us, t+75us), memset
  // [t+75us, t+77us)); no overlap. Implies no jitter.
  bool sequential = false;
};

// Error text, or "" on success. Refuses to overwrite `path`.
std::string WriteFixtureTrace(const std::string& path, const FixtureOptions& options);

}  // namespace streamscope::testing

#endif  // STREAMSCOPE_TESTS_ANALYZER_EXPORT_EXPORT_FIXTURE_TRACE_H_
