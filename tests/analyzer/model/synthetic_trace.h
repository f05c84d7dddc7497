// Synthetic traces for the analyzer's known-answer tests. One description
// gives both a TraceModel built directly (ToModel) and a real streamscope
// trace file written through the trace-table writer (WriteFile), so every test can
// check an analysis on both and exercise the importer on the way.
//
// Source ids are assigned per table from 1 in call order; an op's device is
// its stream's device. Not thread-safe; one per test.
#ifndef STREAMSCOPE_TESTS_ANALYZER_MODEL_SYNTHETIC_TRACE_H_
#define STREAMSCOPE_TESTS_ANALYZER_MODEL_SYNTHETIC_TRACE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "analyzer/convert/trace_table_writer.h"
#include "analyzer/model/trace_model.h"

namespace streamscope::testing {

class SyntheticTrace {
 public:
  SyntheticTrace& Device(int32_t id, int copy_engines = 2, int concurrent_kernels = 1);
  SyntheticTrace& Stream(int64_t id, int32_t device = 0, StreamKind kind = StreamKind::kNonBlocking);
  // GPU ops; return the op's source id in its table.
  int64_t Kernel(int64_t stream, int64_t start_ns, int64_t end_ns, const std::string& name = "kernel");
  int64_t Copy(OpCategory category, int64_t stream, int64_t start_ns, int64_t end_ns, int64_t bytes = 1 << 20,
               MemoryKind src = MemoryKind::kPinned, MemoryKind dst = MemoryKind::kDevice);
  int64_t Memset(int64_t stream, int64_t start_ns, int64_t end_ns);
  void Api(const std::string& name, int64_t tid, int64_t start_ns, int64_t end_ns);
  void Nvtx(const std::string& name, int64_t start_ns, std::optional<int64_t> end_ns, int64_t tid = 1);
  void Mark(const std::string& domain, const std::string& text, int64_t ts_ns);
  void Meta(const std::string& key, const std::string& value);

  TraceModel ToModel() const;  // finalized
  // Writes the trace through the trace-table writer; `more`, when given,
  // adds rows of its own through the same writer before it finishes (what
  // a test needs and the builder does not make: bad times, unknown streams,
  // NULL against 0). The builder's strings have ids from 1 in first-use order.
  absl::Status WriteFile(const std::string& path,
                         const std::function<absl::Status(TraceTableWriter&)>& more = nullptr) const;

 private:
  struct Op {
    OpCategory category;
    int64_t id, stream, start, end, bytes;
    MemoryKind src, dst;
    std::string name;
  };
  struct StreamDef {
    int64_t id;
    int32_t device;
    StreamKind kind;
  };
  struct ApiDef {
    std::string name;
    int64_t tid, start, end;
  };
  struct NvtxDef {
    std::string name;
    int64_t start;
    std::optional<int64_t> end;
    int64_t tid;
  };
  struct MarkDef {
    std::string domain, text;
    int64_t ts;
  };
  int32_t DeviceOf(int64_t stream) const;

  std::vector<::streamscope::Device> devices_;
  std::vector<StreamDef> streams_;
  std::vector<Op> ops_;
  std::vector<ApiDef> apis_;
  std::vector<NvtxDef> nvtx_;
  std::vector<MarkDef> marks_;
  std::vector<std::pair<std::string, std::string>> meta_;
  int64_t next_kernel_ = 1, next_memcpy_ = 1, next_memset_ = 1;
};

// A fresh path under the test temp dir (the file does not exist).
std::string TempTracePath(const std::string& stem);
// Runs SQL on an existing file (to damage traces in bad-input tests).
absl::Status ExecSql(const std::string& path, const std::string& sql);
// The trace's model built directly, then the one loaded back from the trace
// written to TempTracePath(stem) (failures are test failures): a test that
// checks both checks the writer and the loader too.
std::vector<TraceModel> ModelsBothWays(const SyntheticTrace& trace, const std::string& stem);

}  // namespace streamscope::testing

#endif  // STREAMSCOPE_TESTS_ANALYZER_MODEL_SYNTHETIC_TRACE_H_
