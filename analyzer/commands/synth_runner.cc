#include "analyzer/commands/synth_runner.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "analyzer/commands/command_status.h"
#include "analyzer/convert/trace_table_writer.h"
#include "analyzer/sqlite/sqlite_db.h"
#include "nlohmann/json.hpp"

namespace streamscope {
namespace {

using Json = nlohmann::json;

// Reads one row's columns; the first problem is kept, named by the row.
class RowReader {
 public:
  RowReader(const Json& row, std::string where) : row_(row), where_(std::move(where)) {
    if (!row_.is_object()) Fail("is not an object");
  }

  int64_t Int(const char* column) {
    OptInt v = Opt(column);
    if (!v && status_.ok()) Fail(absl::StrCat("has no '", column, "'"));
    return v.value_or(0);
  }
  OptInt Opt(const char* column) {
    const Json* v = Get(column);
    if (v == nullptr) return std::nullopt;
    if (!v->is_number_integer()) {
      Fail(absl::StrCat("'", column, "' is not an integer"));
      return std::nullopt;
    }
    return v->get<int64_t>();
  }
  std::optional<double> Real(const char* column) {
    const Json* v = Get(column);
    if (v == nullptr) return std::nullopt;
    if (!v->is_number()) {
      Fail(absl::StrCat("'", column, "' is not a number"));
      return std::nullopt;
    }
    return v->get<double>();
  }
  std::optional<std::string> OptText(const char* column) {
    const Json* v = Get(column);
    if (v == nullptr) return std::nullopt;
    if (!v->is_string()) {
      Fail(absl::StrCat("'", column, "' is not a string"));
      return std::nullopt;
    }
    return v->get<std::string>();
  }
  std::string Text(const char* column) {
    std::optional<std::string> v = OptText(column);
    if (!v && status_.ok()) Fail(absl::StrCat("has no '", column, "'"));
    return v.value_or("");
  }
  void Gpu(GpuOpColumns& op) {
    op.id = Opt("id");
    op.start_ns = Int("start_ns");
    op.end_ns = Int("end_ns");
    op.device_id = Int("device_id");
    op.context_id = Opt("context_id");
    op.stream_id = Opt("stream_id");
    op.correlation_id = Opt("correlation_id");
    op.graph_id = Opt("graph_id");
  }

  // OK, or the first problem (an unknown column included).
  absl::Status Done() {
    if (status_.ok() && row_.is_object()) {
      for (const auto& [key, value] : row_.items()) {
        if (!used_.contains(key)) Fail(absl::StrCat("has an unknown column '", key, "'"));
      }
    }
    return status_;
  }

 private:
  const Json* Get(const char* column) {
    used_.insert(column);
    if (!row_.is_object()) return nullptr;
    auto it = row_.find(column);
    return it == row_.end() || it->is_null() ? nullptr : &*it;
  }
  void Fail(const std::string& why) {
    if (status_.ok()) status_ = absl::InvalidArgumentError(absl::StrCat("spec: ", where_, " ", why));
  }

  const Json& row_;
  std::string where_;
  std::set<std::string> used_;
  absl::Status status_;
};

using RowWrite = std::function<absl::Status(RowReader&, TraceTableWriter&)>;

// The tables in the order they are written (referenced rows first), each
// with the columns it reads: one flat list, kept whole, so that a column is
// found next to its table's others.
const std::vector<std::pair<std::string, RowWrite>>& Tables() {
  static const auto* tables = new std::vector<std::pair<std::string, RowWrite>>{
      {"string",
       [](RowReader& r, TraceTableWriter& w) {
         int64_t id = r.Int("id");
         std::string value = r.Text("value");
         return r.Done().ok() ? w.String(id, value) : r.Done();
       }},
      {"device",
       [](RowReader& r, TraceTableWriter& w) {
         DeviceRow d{.id = r.Int("id"),
                     .name = r.Text("name"),
                     .uuid = r.OptText("uuid"),
                     .compute_major = r.Opt("compute_major"),
                     .compute_minor = r.Opt("compute_minor"),
                     .sm_count = r.Opt("sm_count"),
                     .async_engine_count = r.Opt("async_engine_count"),
                     .concurrent_kernels = r.Opt("concurrent_kernels"),
                     .global_memory_bytes = r.Opt("global_memory_bytes"),
                     .pci_bus_id = r.Opt("pci_bus_id"),
                     .pci_device_id = r.Opt("pci_device_id"),
                     .max_threads_per_block = r.Opt("max_threads_per_block"),
                     .max_shared_memory_per_block = r.Opt("max_shared_memory_per_block"),
                     .global_memory_clock_khz = r.Opt("global_memory_clock_khz"),
                     .global_memory_bandwidth_kbps = r.Opt("global_memory_bandwidth_kbps")};
         return r.Done().ok() ? w.Device(d) : r.Done();
       }},
      {"device_link",
       [](RowReader& r, TraceTableWriter& w) {
         DeviceLinkRow l{.device_id = r.Int("device_id"),
                         .pci_bus_id = r.OptText("pci_bus_id"),
                         .source = r.Int("source"),
                         .pcie_gen_current = r.Opt("pcie_gen_current"),
                         .pcie_width_current = r.Opt("pcie_width_current"),
                         .pcie_gen_max = r.Opt("pcie_gen_max"),
                         .pcie_width_max = r.Opt("pcie_width_max"),
                         .c2c_enabled = r.Opt("c2c_enabled")};
         return r.Done().ok() ? w.DeviceLink(l) : r.Done();
       }},
      {"context",
       [](RowReader& r, TraceTableWriter& w) {
         ContextRow c{.id = r.Int("id"), .device_id = r.Int("device_id"), .null_stream_id = r.Opt("null_stream_id")};
         return r.Done().ok() ? w.Context(c) : r.Done();
       }},
      {"stream",
       [](RowReader& r, TraceTableWriter& w) {
         StreamRow s{.id = r.Int("id"),
                     .context_id = r.Opt("context_id"),
                     .device_id = r.Opt("device_id"),
                     .kind = r.Int("kind"),
                     .priority = r.Opt("priority"),
                     .cupti_flag = r.Opt("cupti_flag"),
                     .created_tid = r.Opt("created_tid")};
         return r.Done().ok() ? w.Stream(s) : r.Done();
       }},
      {"thread",
       [](RowReader& r, TraceTableWriter& w) {
         ThreadRow t{.tid = r.Int("tid"), .name = r.OptText("name")};
         return r.Done().ok() ? w.Thread(t) : r.Done();
       }},
      {"kernel",
       [](RowReader& r, TraceTableWriter& w) {
         KernelRow k;
         r.Gpu(k);
         k.name_id = r.Int("name_id");
         k.grid_x = r.Opt("grid_x");
         k.grid_y = r.Opt("grid_y");
         k.grid_z = r.Opt("grid_z");
         k.block_x = r.Opt("block_x");
         k.block_y = r.Opt("block_y");
         k.block_z = r.Opt("block_z");
         k.static_shared_bytes = r.Opt("static_shared_bytes");
         k.dynamic_shared_bytes = r.Opt("dynamic_shared_bytes");
         k.registers_per_thread = r.Opt("registers_per_thread");
         k.launch_type = r.Opt("launch_type");
         k.graph_node_id = r.Opt("graph_node_id");
         return r.Done().ok() ? w.Kernel(k) : r.Done();
       }},
      {"memcpy",
       [](RowReader& r, TraceTableWriter& w) {
         MemcpyRow c;
         r.Gpu(c);
         c.bytes = r.Int("bytes");
         c.copy_kind = r.Int("copy_kind");
         c.src_kind = r.Int("src_kind");
         c.dst_kind = r.Int("dst_kind");
         c.is_async = r.Int("is_async");
         c.src_device_id = r.Opt("src_device_id");
         c.dst_device_id = r.Opt("dst_device_id");
         c.src_context_id = r.Opt("src_context_id");
         c.dst_context_id = r.Opt("dst_context_id");
         c.graph_node_id = r.Opt("graph_node_id");
         return r.Done().ok() ? w.Memcpy(c) : r.Done();
       }},
      {"memset",
       [](RowReader& r, TraceTableWriter& w) {
         MemsetRow s;
         r.Gpu(s);
         s.bytes = r.Int("bytes");
         s.value = r.Opt("value");
         s.memory_kind = r.Opt("memory_kind");
         s.is_async = r.Int("is_async");
         s.graph_node_id = r.Opt("graph_node_id");
         return r.Done().ok() ? w.Memset(s) : r.Done();
       }},
      {"api_call",
       [](RowReader& r, TraceTableWriter& w) {
         ApiCallRow a{.id = r.Opt("id"),
                      .domain = r.Int("domain"),
                      .cbid = r.Int("cbid"),
                      .name_id = r.Int("name_id"),
                      .tid = r.Int("tid"),
                      .start_ns = r.Int("start_ns"),
                      .end_ns = r.Int("end_ns"),
                      .correlation_id = r.Opt("correlation_id"),
                      .return_value = r.Opt("return_value")};
         return r.Done().ok() ? w.ApiCall(a) : r.Done();
       }},
      {"sync",
       [](RowReader& r, TraceTableWriter& w) {
         SyncRow s{.id = r.Opt("id"),
                   .kind = r.Int("kind"),
                   .start_ns = r.Int("start_ns"),
                   .end_ns = r.Int("end_ns"),
                   .context_id = r.Opt("context_id"),
                   .stream_id = r.Opt("stream_id"),
                   .event_id = r.Opt("event_id"),
                   .correlation_id = r.Opt("correlation_id"),
                   .return_value = r.Opt("return_value")};
         return r.Done().ok() ? w.Sync(s) : r.Done();
       }},
      {"nvtx_range",
       [](RowReader& r, TraceTableWriter& w) {
         NvtxRangeRow n{.id = r.Opt("id"),
                        .tid = r.Opt("tid"),
                        .end_tid = r.Opt("end_tid"),
                        .name_id = r.Int("name_id"),
                        .domain_id = r.Opt("domain_id"),
                        .start_ns = r.Int("start_ns"),
                        .end_ns = r.Opt("end_ns"),
                        .is_push_pop = r.Int("is_push_pop"),
                        .depth = r.Opt("depth"),
                        .color = r.Opt("color"),
                        .category = r.Opt("category")};
         return r.Done().ok() ? w.NvtxRange(n) : r.Done();
       }},
      {"nvtx_mark",
       [](RowReader& r, TraceTableWriter& w) {
         NvtxMarkRow m{.tid = r.Opt("tid"),
                       .name_id = r.Int("name_id"),
                       .domain_id = r.Opt("domain_id"),
                       .ts_ns = r.Int("ts_ns"),
                       .id = r.Opt("id")};
         return r.Done().ok() ? w.NvtxMark(m) : r.Done();
       }},
      {"allocation",
       [](RowReader& r, TraceTableWriter& w) {
         AllocationRow a{.id = r.Opt("id"),
                         .kind = r.Text("kind"),
                         .address = r.Int("address"),
                         .bytes = r.Int("bytes"),
                         .device_id = r.Opt("device_id"),
                         .stream_id = r.Opt("stream_id"),
                         .alloc_ns = r.Int("alloc_ns"),
                         .alloc_correlation_id = r.Opt("alloc_correlation_id"),
                         .free_ns = r.Opt("free_ns"),
                         .free_correlation_id = r.Opt("free_correlation_id"),
                         .free_stream_id = r.Opt("free_stream_id")};
         return r.Done().ok() ? w.Allocation(a) : r.Done();
       }},
      {"memory_access",
       [](RowReader& r, TraceTableWriter& w) {
         MemoryAccessRow a{.correlation_id = r.Int("correlation_id"),
                           .address = r.Int("address"),
                           .bytes = r.Int("bytes"),
                           .access = r.Text("access"),
                           .allocation_id = r.Opt("allocation_id"),
                           .arg_index = r.Opt("arg_index"),
                           .id = r.Opt("id")};
         return r.Done().ok() ? w.MemoryAccess(a) : r.Done();
       }},
      {"event_op",
       [](RowReader& r, TraceTableWriter& w) {
         EventOpRow e{.op = r.Text("op"),
                      .event_handle = r.Int("event_handle"),
                      .other_event = r.Opt("other_event"),
                      .stream_id = r.Opt("stream_id"),
                      .tid = r.Opt("tid"),
                      .ts_ns = r.Int("ts_ns"),
                      .correlation_id = r.Opt("correlation_id"),
                      .elapsed_ms = r.Real("elapsed_ms"),
                      .id = r.Opt("id")};
         return r.Done().ok() ? w.EventOp(e) : r.Done();
       }},
      {"graph_execution",
       [](RowReader& r, TraceTableWriter& w) {
         GraphExecutionRow g;
         r.Gpu(g);
         return r.Done().ok() ? w.GraphExecution(g) : r.Done();
       }},
      {"collector_stat",
       [](RowReader& r, TraceTableWriter& w) {
         CollectorStatRow c{.key = r.Text("key"), .value = r.Int("value")};
         return r.Done().ok() ? w.CollectorStat(c) : r.Done();
       }},
      {"cupti_overhead",
       [](RowReader& r, TraceTableWriter& w) {
         CuptiOverheadRow o{.id = r.Opt("id"),
                            .kind = r.Int("kind"),
                            .object_kind = r.Opt("object_kind"),
                            .object_id = r.Opt("object_id"),
                            .start_ns = r.Int("start_ns"),
                            .end_ns = r.Int("end_ns")};
         return r.Done().ok() ? w.CuptiOverhead(o) : r.Done();
       }},
  };
  return *tables;
}

absl::Status WriteRows(const Json& spec, TraceTableWriter& writer) {
  if (!spec.is_object()) return absl::InvalidArgumentError("spec: is not a JSON object");
  std::set<std::string> known = {"metadata"};
  for (const auto& [name, write] : Tables()) known.insert(name);
  for (const auto& [key, value] : spec.items()) {
    if (!known.contains(key)) return absl::InvalidArgumentError(absl::StrCat("spec: unknown table '", key, "'"));
  }
  if (auto meta = spec.find("metadata"); meta != spec.end()) {
    if (!meta->is_object()) return absl::InvalidArgumentError("spec: metadata is not an object of key: value");
    for (const auto& [key, value] : meta->items()) {
      if (!value.is_string()) {
        return absl::InvalidArgumentError(absl::StrCat("spec: metadata '", key, "' is not a string"));
      }
      if (absl::Status s = writer.Metadata(key, value.get<std::string>()); !s.ok()) return s;
    }
  }
  for (const auto& [name, write] : Tables()) {
    auto rows = spec.find(name);
    if (rows == spec.end()) continue;
    if (!rows->is_array()) return absl::InvalidArgumentError(absl::StrCat("spec: ", name, " is not a list of rows"));
    for (size_t i = 0; i < rows->size(); ++i) {
      RowReader reader((*rows)[i], absl::StrCat(name, "[", i, "]"));
      if (absl::Status s = write(reader, writer); !s.ok()) {
        // A row the database refuses (a repeated id) is the spec's mistake too.
        if (!absl::StartsWith(s.message(), "spec:")) {
          return absl::InvalidArgumentError(absl::StrCat("spec: ", name, "[", i, "]: ", s.message()));
        }
        return s;
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status WriteSynthTrace(const std::string& spec_text, const std::string& output_path, bool force) {
  Json spec = Json::parse(spec_text, nullptr, /*allow_exceptions=*/false);
  if (spec.is_discarded()) return absl::InvalidArgumentError("spec: is not valid JSON");
  if (output_path.empty()) return absl::InvalidArgumentError("no output path given");
  struct stat st;
  if (lstat(output_path.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode)) {
      return absl::PermissionDeniedError(absl::StrCat(output_path, ": exists and is not a regular file"));
    }
    if (!force) return absl::AlreadyExistsError(absl::StrCat(output_path, ": exists; pass --force to replace it"));
    if (unlink(output_path.c_str()) != 0) {
      return absl::PermissionDeniedError(absl::StrCat("cannot replace ", output_path, ": ", std::strerror(errno)));
    }
  }
  int fd = open(output_path.c_str(), O_CREAT | O_EXCL | O_WRONLY, 0644);
  if (fd < 0) {
    return absl::PermissionDeniedError(absl::StrCat("cannot create ", output_path, ": ", std::strerror(errno)));
  }
  close(fd);
  auto fail = [&](absl::Status status) {
    unlink(output_path.c_str());
    return status;
  };
  auto db = SqliteDb::OpenReadWrite(output_path);
  if (!db.ok()) return fail(db.status());
  absl::Status status;
  {
    TraceTableWriter writer(db->get());
    status = writer.Begin();
    if (status.ok()) status = WriteRows(spec, writer);
    if (status.ok()) status = writer.Finish();
  }
  if (absl::Status closed = (*db)->Close(); status.ok() && !closed.ok()) status = closed;
  return status.ok() ? status : fail(status);
}

absl::Status RunSynth(const SynthOptions& options) {
  std::string text;
  if (options.spec_path == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  } else {
    std::ifstream in(options.spec_path, std::ios::binary);
    if (!in) return absl::NotFoundError(absl::StrCat(options.spec_path, ": cannot read the spec"));
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  absl::Status status = WriteSynthTrace(text, options.output_path, options.force);
  // A bad spec is the caller's mistake: a usage error naming the spec file.
  if (absl::StartsWith(status.message(), "spec: ")) {
    std::string name = options.spec_path == "-" ? "the spec on standard input" : options.spec_path;
    return UsageError(absl::StrCat(name, ": ", status.message().substr(6)));
  }
  return status;
}

}  // namespace streamscope
