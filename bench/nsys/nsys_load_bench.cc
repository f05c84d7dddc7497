// Nsight Systems import benchmark: load time per GPU op of an nsys export
// next to the same content as a streamscope trace, measured side by side in
// one run (docs/DEFINITIONS.md "Benchmarks").
//
//   nsys_load_bench EXPORT.sqlite TRACE.sqlite [--repeat 3]
//
// Loads EXPORT with LoadTraceFile (the nsys importer); writes TRACE from
// that model with the `convert` writer if TRACE does not exist; loads TRACE
// (the streamscope importer); prints best-of-N wall times, ns per op and
// the ratio. Both loads include Finalize(), as `streamscope report` does.
#include <sys/resource.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "analyzer/convert/converted_trace_writer.h"
#include "analyzer/importers/trace_loader.h"

namespace {

// User + system CPU seconds of this process so far: less sensitive than
// wall time to other work on a shared machine.
double CpuSeconds() {
  rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + 1e-6 * (u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

struct Timing {
  double best_s = 1e30;
  double best_cpu_s = 1e30;
  size_t ops = 0, api = 0, nvtx = 0;
};

bool TimeLoad(const std::string& path, int repeat, Timing* out) {
  for (int i = 0; i < repeat; ++i) {
    double c0 = CpuSeconds();
    auto t0 = std::chrono::steady_clock::now();
    auto models = streamscope::LoadTraceFile(path);
    auto t1 = std::chrono::steady_clock::now();
    double cpu = CpuSeconds() - c0;
    if (cpu < out->best_cpu_s) out->best_cpu_s = cpu;
    if (!models.ok()) {
      std::fprintf(stderr, "nsys_load_bench: %s: %s\n", path.c_str(), std::string(models.status().message()).c_str());
      return false;
    }
    double s = std::chrono::duration<double>(t1 - t0).count();
    if (s < out->best_s) out->best_s = s;
    out->ops = out->api = out->nvtx = 0;
    for (const auto& m : *models) {
      out->ops += m.ops.size();
      out->api += m.api.size();
      out->nvtx += m.nvtx_ranges.size();
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: nsys_load_bench EXPORT.sqlite TRACE.sqlite [--repeat N]\n");
    return 2;
  }
  std::string export_path = argv[1], trace_path = argv[2];
  int repeat = 3;
  for (int i = 3; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--repeat") == 0) repeat = std::atoi(argv[i + 1]);
  }
  struct stat st;
  if (stat(trace_path.c_str(), &st) != 0) {
    auto models = streamscope::LoadTraceFile(export_path);
    if (!models.ok() || models->size() != 1) {
      std::fprintf(stderr, "nsys_load_bench: cannot load %s as one process\n", export_path.c_str());
      return 1;
    }
    streamscope::TraceWriteOptions options;
    options.source_path = export_path;
    absl::Status s = streamscope::WriteStreamscopeTrace((*models)[0], trace_path, options);
    if (!s.ok()) {
      std::fprintf(stderr, "nsys_load_bench: %s\n", std::string(s.message()).c_str());
      return 1;
    }
  }
  Timing nsys, trace;
  if (!TimeLoad(export_path, repeat, &nsys) || !TimeLoad(trace_path, repeat, &trace)) return 1;
  if (nsys.ops != trace.ops || nsys.api != trace.api || nsys.nvtx != trace.nvtx) {
    std::fprintf(stderr, "nsys_load_bench: contents differ (ops %zu/%zu, api %zu/%zu)\n", nsys.ops, trace.ops, nsys.api,
                 trace.api);
    return 1;
  }
  std::printf("ops %zu api %zu nvtx %zu\n", nsys.ops, nsys.api, nsys.nvtx);
  std::printf("nsys_export %.3f s %.1f ns/op cpu %.3f s %.1f ns/op\n", nsys.best_s, 1e9 * nsys.best_s / nsys.ops,
              nsys.best_cpu_s, 1e9 * nsys.best_cpu_s / nsys.ops);
  std::printf("streamscope_trace %.3f s %.1f ns/op cpu %.3f s %.1f ns/op\n", trace.best_s,
              1e9 * trace.best_s / trace.ops, trace.best_cpu_s, 1e9 * trace.best_cpu_s / trace.ops);
  std::printf("ratio_nsys_over_streamscope wall %.2f cpu %.2f\n", nsys.best_s / trace.best_s,
              nsys.best_cpu_s / trace.best_cpu_s);
  return 0;
}
