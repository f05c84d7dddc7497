// Writer throughput on the CPU: synthetic records (a launch-bound mix: for
// every kernel one runtime API call, every fourth kernel also a copy and
// its API call) pushed in CUPTI-buffer-sized batches into a TraceWriter, timed
// from the first Submit until Finish returns (everything on disk, indexes
// built). Prints records/s.
// Usage: collector_writer_bench [records=4000000] [path=/tmp/streamscope-writer-bench.sqlite]
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "collector/trace_writer.h"

using namespace streamscope::collector;

int main(int argc, char** argv) {
  long total = argc > 1 ? std::atol(argv[1]) : 4000000;
  std::string path = argc > 2 ? argv[2] : "/tmp/streamscope-writer-bench.sqlite";
  unlink(path.c_str());
  WriterOptions o;
  o.path = path;
  o.api_name = [](ApiDomain, uint32_t cbid) { return "api_" + std::to_string(cbid); };
  // Measures the writer's sustained insert rate: the producer here is far
  // faster than CUPTI, so the queue cap (which bounds memory in the
  // collector) would only drop records.
  o.max_queued_batch_bytes = SIZE_MAX;
  o.max_queued_items = SIZE_MAX;
  auto w = TraceWriter::Open(o);
  if (!w.ok()) {
    std::fprintf(stderr, "writer_bench: %s\n", w.status().message().c_str());
    return 1;
  }
  const long kBatch = 40000;  // about one 4 MiB CUPTI buffer
  const char* names[] = {"_Z5emptyv", "_Z4gemmPKfS0_Pfiii", "void at::native::elementwise_kernel<128, 4>"};
  auto t0 = std::chrono::steady_clock::now();
  long made = 0;
  uint32_t corr = 1;
  uint64_t ts = 1000000;
  while (made < total) {
    RecordBatch b;
    b.reserve(kBatch);
    while (static_cast<long>(b.size()) < kBatch && made < total) {
      ApiRecord a;
      a.cbid = 211;
      a.tid = 1234;
      a.start_ns = ts;
      a.end_ns = ts + 2000;
      a.correlation_id = corr;
      b.push_back(a);
      KernelRecord k;
      k.start_ns = ts + 3000;
      k.end_ns = ts + 4500;
      k.stream_id = 13;
      k.context_id = 1;
      k.correlation_id = corr;
      k.name = names[corr % 3];
      k.grid[0] = 1;
      k.block[0] = 128;
      b.push_back(k);
      made += 2;
      ++corr;
      if (corr % 4 == 0) {
        ApiRecord ca = a;
        ca.cbid = 41;
        ca.correlation_id = corr;
        b.push_back(ca);
        MemcpyRecord m;
        m.start_ns = ts + 5000;
        m.end_ns = ts + 6000;
        m.bytes = 64;
        m.copy_kind = 1;
        m.src_kind = 2;
        m.dst_kind = 3;
        m.is_async = true;
        m.stream_id = 13;
        m.correlation_id = corr;
        b.push_back(m);
        made += 2;
        ++corr;
      }
      ts += 5000;
    }
    (*w)->Submit(std::move(b));
  }
  auto t_submit = std::chrono::steady_clock::now();
  (*w)->Flush();  // every row inserted and committed
  auto t_flushed = std::chrono::steady_clock::now();
  Status st = (*w)->Finish("normal_exit", ts);
  auto t1 = std::chrono::steady_clock::now();
  double secs = std::chrono::duration<double>(t1 - t0).count();
  double submit = std::chrono::duration<double>(t_submit - t0).count();
  double inserted = std::chrono::duration<double>(t_flushed - t0).count();
  long dropped = (*w)->GetStat(Stat::kRecordsDroppedWriter);
  long written = (*w)->GetStat(Stat::kRecordsWritten);
  std::printf(
      "writer_bench: records=%ld written=%ld dropped=%ld seconds=%.3f submit_seconds=%.3f "
      "inserted_seconds=%.3f insert_records_per_second=%.0f records_per_second=%.0f %s\n",
      made, written, dropped, secs, submit, inserted, static_cast<double>(written) / inserted,
      static_cast<double>(written) / secs, st.ok() ? "ok" : st.message().c_str());
  return st.ok() && dropped == 0 ? 0 : 1;
}
