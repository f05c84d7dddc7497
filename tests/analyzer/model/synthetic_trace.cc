#include "tests/analyzer/model/synthetic_trace.h"

#include <sqlite3.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "analyzer/convert/trace_table_writer.h"
#include "analyzer/importers/trace_loader.h"
#include "analyzer/sqlite/sqlite_db.h"
#include "gtest/gtest.h"
#include "schema/schema.h"
#include "tests/analyzer/model/test_device.h"

namespace streamscope::testing {

SyntheticTrace& SyntheticTrace::Device(int32_t id, int copy_engines, int concurrent_kernels) {
  devices_.push_back(TestDevice({.id = id,
                                 .name = absl::StrCat("Test GPU ", id),
                                 .compute_major = 9,
                                 .sm_count = 132,
                                 .async_engine_count = copy_engines,
                                 .concurrent_kernels = concurrent_kernels}));
  return *this;
}

SyntheticTrace& SyntheticTrace::Stream(int64_t id, int32_t device, StreamKind kind) {
  streams_.push_back({id, device, kind});
  return *this;
}

int32_t SyntheticTrace::DeviceOf(int64_t stream) const {
  for (const StreamDef& s : streams_) {
    if (s.id == stream) return s.device;
  }
  return 0;
}

int64_t SyntheticTrace::Kernel(int64_t stream, int64_t start, int64_t end, const std::string& name) {
  ops_.push_back(
      {OpCategory::kKernel, next_kernel_, stream, start, end, 0, MemoryKind::kUnknown, MemoryKind::kUnknown, name});
  return next_kernel_++;
}

int64_t SyntheticTrace::Copy(OpCategory category, int64_t stream, int64_t start, int64_t end, int64_t bytes,
                             MemoryKind src, MemoryKind dst) {
  ops_.push_back({category, next_memcpy_, stream, start, end, bytes, src, dst, ""});
  return next_memcpy_++;
}

int64_t SyntheticTrace::Memset(int64_t stream, int64_t start, int64_t end) {
  ops_.push_back(
      {OpCategory::kMemset, next_memset_, stream, start, end, 4096, MemoryKind::kUnknown, MemoryKind::kDevice, ""});
  return next_memset_++;
}

void SyntheticTrace::Api(const std::string& name, int64_t tid, int64_t start, int64_t end) {
  apis_.push_back({name, tid, start, end});
}
void SyntheticTrace::Nvtx(const std::string& name, int64_t start, std::optional<int64_t> end, int64_t tid) {
  nvtx_.push_back({name, start, end, tid});
}
void SyntheticTrace::Mark(const std::string& domain, const std::string& text, int64_t ts) {
  marks_.push_back({domain, text, ts});
}
void SyntheticTrace::Meta(const std::string& key, const std::string& value) { meta_.emplace_back(key, value); }

namespace {
int CopyKindOf(OpCategory c) {
  switch (c) {
    case OpCategory::kHtoD: return 1;
    case OpCategory::kDtoH: return 2;
    case OpCategory::kDtoD: return 8;
    case OpCategory::kPtoP: return 10;
    default: return 9;  // HtoH
  }
}
}  // namespace

TraceModel SyntheticTrace::ToModel() const {
  TraceModel m;
  m.path = "synthetic";
  m.format = "streamscope";
  m.metadata["capture_end"] = "normal_exit";
  for (const auto& [k, v] : meta_) m.metadata[k] = v;
  m.devices = devices_;
  for (const StreamDef& s : streams_) {
    ::streamscope::Stream st;
    st.id = s.id;
    st.device_id = s.device;
    st.kind = s.kind;
    m.stream_index[s.id] = static_cast<int32_t>(m.streams.size());
    m.streams.push_back(st);
  }
  for (const Op& op : ops_) {
    m.ops.start_ns.push_back(op.start);
    m.ops.end_ns.push_back(op.end);
    m.ops.category.push_back(op.category);
    m.ops.device_id.push_back(DeviceOf(op.stream));
    m.ops.stream.push_back(m.StreamIndexFor(op.stream, DeviceOf(op.stream)));
    m.ops.correlation_id.push_back(-1);
    m.ops.name.push_back(op.category == OpCategory::kKernel ? m.strings.Intern(op.name) : kNoString);
    m.ops.bytes.push_back(op.bytes);
    m.ops.src_kind.push_back(op.src);
    m.ops.dst_kind.push_back(op.dst);
    m.ops.is_async.push_back(1);
    m.ops.peer_device.push_back(-1);
    m.ops.graph_id.push_back(-1);
    m.ops.source_id.push_back(op.id);
  }
  int64_t api_id = 1;
  for (const ApiDef& a : apis_) {
    m.api.start_ns.push_back(a.start);
    m.api.end_ns.push_back(a.end);
    m.api.tid.push_back(a.tid);
    m.api.name.push_back(m.strings.Intern(a.name));
    m.api.domain.push_back(ApiDomain::kRuntime);
    m.api.cbid.push_back(0);
    m.api.correlation_id.push_back(-1);
    m.api.return_value.push_back(0);
    m.api.source_id.push_back(api_id++);
  }
  int64_t nvtx_id = 1;
  for (const NvtxDef& r : nvtx_) {
    NvtxRange range;
    range.name = m.strings.Intern(r.name);
    range.tid = r.tid;
    range.start_ns = r.start;
    range.end_ns = r.end;
    range.source_id = nvtx_id++;
    m.nvtx_ranges.push_back(range);
  }
  for (const MarkDef& k : marks_) {
    NvtxMark mark;
    mark.name = m.strings.Intern(k.text);
    mark.domain = m.strings.Intern(k.domain);
    mark.ts_ns = k.ts;
    m.nvtx_marks.push_back(mark);
  }
  m.Finalize();
  return m;
}

absl::Status ExecSql(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    return absl::InternalError("cannot open " + path);
  }
  char* err = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  std::string msg = err ? err : "";
  sqlite3_free(err);
  sqlite3_close(db);
  if (rc != SQLITE_OK) return absl::InternalError(absl::StrCat("SQL failed: ", msg, " in: ", sql.substr(0, 200)));
  return absl::OkStatus();
}

// Kept whole: one short block per table the builder fills, in the schema's order.
absl::Status SyntheticTrace::WriteFile(const std::string& path,
                                       const std::function<absl::Status(TraceTableWriter&)>& more) const {
  std::remove(path.c_str());
  std::ofstream(path).close();  // an empty file is an empty database
  auto db = SqliteDb::OpenReadWrite(path);
  if (!db.ok()) return db.status();
  TraceTableWriter w(db->get());
  if (absl::Status s = w.Begin(); !s.ok()) return s;
  std::vector<std::pair<std::string, std::string>> meta = {
      {"schema_version", absl::StrCat(schema::Version())}, {"capture_end", "normal_exit"}, {"pid", "4242"}};
  for (const auto& kv : meta_) {
    bool replaced = false;
    for (auto& m : meta) {
      if (m.first == kv.first) {
        m.second = kv.second;
        replaced = true;
      }
    }
    if (!replaced) meta.push_back(kv);
  }
  for (const auto& [k, v] : meta) {
    if (absl::Status s = w.Metadata(k, v); !s.ok()) return s;
  }
  // Strings: interned in first-use order, ids from 1.
  std::vector<std::string> strings;
  auto sid = [&](const std::string& s) {
    for (size_t i = 0; i < strings.size(); ++i) {
      if (strings[i] == s) return static_cast<int64_t>(i + 1);
    }
    strings.push_back(s);
    return static_cast<int64_t>(strings.size());
  };
  absl::Status status;
  auto keep = [&](absl::Status s) {
    if (status.ok()) status = std::move(s);
  };
  for (const ::streamscope::Device& d : devices_) {
    DeviceRow row;
    row.id = d.id;
    row.name = d.name;
    row.compute_major = d.compute_major;
    row.compute_minor = 0;
    row.sm_count = d.sm_count;
    row.async_engine_count = d.async_engine_count;
    row.concurrent_kernels = d.concurrent_kernels;
    keep(w.Device(row));
  }
  for (const StreamDef& s : streams_) {
    StreamRow row;
    row.id = s.id;
    row.context_id = 1;
    row.device_id = s.device;
    row.kind = static_cast<int>(s.kind);
    keep(w.Stream(row));
  }
  for (const Op& op : ops_) {
    const int32_t dev = DeviceOf(op.stream);
    auto fill = [&](GpuOpColumns* row) {
      row->id = op.id;
      row->start_ns = op.start;
      row->end_ns = op.end;
      row->device_id = dev;
      row->context_id = 1;
      row->stream_id = op.stream;
    };
    if (op.category == OpCategory::kKernel) {
      KernelRow row;
      fill(&row);
      row.name_id = sid(op.name);
      keep(w.Kernel(row));
    } else if (op.category == OpCategory::kMemset) {
      MemsetRow row;
      fill(&row);
      row.bytes = op.bytes;
      row.memory_kind = static_cast<int>(op.dst);
      row.is_async = 1;
      keep(w.Memset(row));
    } else {
      MemcpyRow row;
      fill(&row);
      row.bytes = op.bytes;
      row.copy_kind = CopyKindOf(op.category);
      row.src_kind = static_cast<int>(op.src);
      row.dst_kind = static_cast<int>(op.dst);
      row.is_async = 1;
      keep(w.Memcpy(row));
    }
  }
  int64_t id = 1;
  for (const ApiDef& a : apis_) {
    ApiCallRow row;
    row.id = id++;
    row.domain = 1;
    row.cbid = 0;
    row.name_id = sid(a.name);
    row.tid = a.tid;
    row.start_ns = a.start;
    row.end_ns = a.end;
    keep(w.ApiCall(row));
  }
  id = 1;
  for (const NvtxDef& r : nvtx_) {
    NvtxRangeRow row;
    row.id = id++;
    row.tid = r.tid;
    row.name_id = sid(r.name);
    row.start_ns = r.start;
    row.end_ns = r.end;
    row.is_push_pop = 1;
    row.depth = 0;
    keep(w.NvtxRange(row));
  }
  for (const MarkDef& k : marks_) {
    NvtxMarkRow row;
    row.tid = 1;
    row.domain_id = sid(k.domain);  // the domain first: traces keep their string ids
    row.name_id = sid(k.text);
    row.ts_ns = k.ts;
    keep(w.NvtxMark(row));
  }
  for (size_t i = 0; i < strings.size(); ++i) keep(w.String(static_cast<int64_t>(i + 1), strings[i]));
  if (more && status.ok()) keep(more(w));
  if (!status.ok()) return status;
  return w.Finish();
}

std::vector<TraceModel> ModelsBothWays(const SyntheticTrace& trace, const std::string& stem) {
  std::vector<TraceModel> out;
  out.push_back(trace.ToModel());
  std::string path = TempTracePath(stem);
  absl::Status written = trace.WriteFile(path);
  EXPECT_TRUE(written.ok()) << written;
  auto loaded = LoadTraceFile(path);
  EXPECT_TRUE(loaded.ok()) << loaded.status();
  if (loaded.ok()) out.push_back(std::move(loaded->front()));
  return out;
}

std::string TempTracePath(const std::string& stem) {
  static std::atomic<int> counter{0};
  return absl::StrCat(::testing::TempDir(), "/streamscope_", getpid(), "_", counter++, "_", stem, ".sqlite");
}

}  // namespace streamscope::testing
