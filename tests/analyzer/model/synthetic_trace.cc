#include "tests/analyzer/model/synthetic_trace.h"

#include <sqlite3.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "schema/schema.h"

namespace streamscope::testing {

SyntheticTrace& SyntheticTrace::Device(int32_t id, int copy_engines, int concurrent_kernels) {
  ::streamscope::Device d;
  d.id = id;
  d.name = absl::StrCat("Test GPU ", id);
  d.async_engine_count = copy_engines;
  d.concurrent_kernels = concurrent_kernels;
  d.compute_major = 9;
  d.sm_count = 132;
  devices_.push_back(d);
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

absl::Status SyntheticTrace::WriteFile(const std::string& path) const {
  std::remove(path.c_str());
  std::string sql = "PRAGMA synchronous = OFF;\n" + std::string(schema::CreateSql());
  sql += "BEGIN;\n";
  auto q = [](const std::string& s) {
    std::string out = "'";
    for (char c : s) {
      if (c == '\'') out += '\'';
      out += c;
    }
    return out + "'";
  };
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
  for (const auto& [k, v] : meta) absl::StrAppend(&sql, "INSERT INTO metadata VALUES (", q(k), ",", q(v), ");\n");
  // Strings: interned in first-use order, ids from 1.
  std::vector<std::string> strings;
  auto sid = [&](const std::string& s) {
    for (size_t i = 0; i < strings.size(); ++i) {
      if (strings[i] == s) return static_cast<int64_t>(i + 1);
    }
    strings.push_back(s);
    return static_cast<int64_t>(strings.size());
  };
  std::string rows;
  for (const ::streamscope::Device& d : devices_) {
    absl::StrAppend(&rows,
                    "INSERT INTO device (id, name, compute_major, compute_minor, sm_count, async_engine_count, "
                    "concurrent_kernels) VALUES (",
                    d.id, ",", q(d.name), ",", d.compute_major, ",0,", d.sm_count, ",", d.async_engine_count, ",",
                    d.concurrent_kernels, ");\n");
  }
  for (const StreamDef& s : streams_) {
    absl::StrAppend(&rows, "INSERT INTO stream (id, context_id, device_id, kind) VALUES (", s.id, ",1,", s.device, ",",
                    static_cast<int>(s.kind), ");\n");
  }
  for (const Op& op : ops_) {
    int32_t dev = DeviceOf(op.stream);
    if (op.category == OpCategory::kKernel) {
      absl::StrAppend(&rows,
                      "INSERT INTO kernel (id, start_ns, end_ns, device_id, context_id, stream_id, name_id) VALUES (",
                      op.id, ",", op.start, ",", op.end, ",", dev, ",1,", op.stream, ",", sid(op.name), ");\n");
    } else if (op.category == OpCategory::kMemset) {
      absl::StrAppend(&rows,
                      "INSERT INTO memset (id, start_ns, end_ns, device_id, context_id, stream_id, bytes, memory_kind, "
                      "is_async) VALUES (",
                      op.id, ",", op.start, ",", op.end, ",", dev, ",1,", op.stream, ",", op.bytes, ",",
                      static_cast<int>(op.dst), ",1);\n");
    } else {
      absl::StrAppend(&rows,
                      "INSERT INTO memcpy (id, start_ns, end_ns, device_id, context_id, stream_id, bytes, copy_kind, "
                      "src_kind, dst_kind, is_async) VALUES (",
                      op.id, ",", op.start, ",", op.end, ",", dev, ",1,", op.stream, ",", op.bytes, ",",
                      CopyKindOf(op.category), ",", static_cast<int>(op.src), ",", static_cast<int>(op.dst), ",1);\n");
    }
  }
  int64_t id = 1;
  for (const ApiDef& a : apis_) {
    absl::StrAppend(&rows, "INSERT INTO api_call (id, domain, cbid, name_id, tid, start_ns, end_ns) VALUES (", id++,
                    ",1,0,", sid(a.name), ",", a.tid, ",", a.start, ",", a.end, ");\n");
  }
  id = 1;
  for (const NvtxDef& r : nvtx_) {
    absl::StrAppend(&rows, "INSERT INTO nvtx_range (id, tid, name_id, start_ns, end_ns, is_push_pop, depth) VALUES (",
                    id++, ",", r.tid, ",", sid(r.name), ",", r.start, ",", r.end ? absl::StrCat(*r.end) : "NULL",
                    ",1,0);\n");
  }
  for (const MarkDef& k : marks_) {
    absl::StrAppend(&rows, "INSERT INTO nvtx_mark (tid, name_id, domain_id, ts_ns) VALUES (1,", sid(k.text), ",",
                    sid(k.domain), ",", k.ts, ");\n");
  }
  for (size_t i = 0; i < strings.size(); ++i) {
    absl::StrAppend(&sql, "INSERT INTO string VALUES (", i + 1, ",", q(strings[i]), ");\n");
  }
  sql += rows;
  sql += "COMMIT;\n";
  sql += std::string(schema::FinalizeSql());
  return ExecSql(path, sql);
}

std::string TempTracePath(const std::string& stem) {
  static std::atomic<int> counter{0};
  return absl::StrCat(::testing::TempDir(), "/streamscope_", getpid(), "_", counter++, "_", stem, ".sqlite");
}

}  // namespace streamscope::testing
