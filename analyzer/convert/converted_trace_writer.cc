#include "analyzer/convert/converted_trace_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <set>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "analyzer/convert/trace_table_writer.h"
#include "analyzer/sqlite/sqlite_db.h"
#include "nlohmann/json.hpp"
#include "schema/enum_values.h"
#include "schema/schema.h"

namespace streamscope {
namespace {

// CUpti_ActivityMemcpyKind of a copy category (array and host-to-host copies
// are "other" in the model: written as 0, unknown); unified-memory
// migrations keep their own kinds.
int64_t CopyKindFor(OpCategory c, bool migration) {
  if (migration) {
    switch (c) {
      case OpCategory::kHtoD: return schema::copy_kind::kUvmHtoD;
      case OpCategory::kDtoH: return schema::copy_kind::kUvmDtoH;
      case OpCategory::kDtoD: return schema::copy_kind::kUvmDtoD;
      default: break;
    }
  }
  switch (c) {
    case OpCategory::kHtoD: return schema::copy_kind::kHtoD;
    case OpCategory::kDtoH: return schema::copy_kind::kDtoH;
    case OpCategory::kDtoD: return schema::copy_kind::kDtoD;
    case OpCategory::kPtoP: return schema::copy_kind::kPtoP;
    default: return schema::copy_kind::kUnknown;
  }
}

OptInt Present(int64_t v, int64_t absent) { return v == absent ? OptInt() : OptInt(v); }

absl::Status WriteMetadata(TraceTableWriter& w, const TraceModel& m, const TraceWriteOptions& options) {
  std::map<std::string, std::string> meta = m.metadata;
  meta["schema_version"] = absl::StrCat(schema::Version());
  meta["trace_format"] = options.trace_format;
  meta["source_format"] = m.format;
  if (!options.source_path.empty()) meta["source_path"] = options.source_path;
  meta["pid"] = absl::StrCat(m.pid);
  meta["capture_end"] = "normal_exit";  // the export was of a finished capture
  meta["conversion_notes"] = nlohmann::json(m.notes).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  meta["conversion_stats"] =
      nlohmann::json(m.import_stats).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  for (const auto& [key, value] : meta)
    if (absl::Status st = w.Metadata(key, value); !st.ok()) return st;
  return absl::OkStatus();
}

absl::Status WriteTopology(TraceTableWriter& w, const TraceModel& m) {
  for (size_t i = 0; i < m.strings.size(); ++i) {
    if (absl::Status st = w.String(static_cast<int64_t>(i), m.strings.Get(static_cast<StringId>(i))); !st.ok())
      return st;
  }
  std::set<int32_t> written;
  for (const ::streamscope::Device& d : m.devices) {
    if (!written.insert(d.id).second) continue;  // one row per ordinal
    DeviceRow row;
    row.id = d.id;
    row.name = d.name;
    row.uuid = d.uuid;
    row.compute_major = d.compute_major;
    row.compute_minor = d.compute_minor;
    row.sm_count = d.sm_count;
    row.async_engine_count = Present(d.async_engine_count, -1);
    row.concurrent_kernels = Present(d.concurrent_kernels, -1);
    row.global_memory_bytes = d.global_memory_bytes;
    if (absl::Status st = w.Device(row); !st.ok()) return st;
  }
  // Contexts come from the streams: device, and the legacy stream if known.
  struct Ctx {
    int32_t device = 0;
    int64_t null_stream = -1;
  };
  std::map<int64_t, Ctx> contexts;
  for (const ::streamscope::Stream& s : m.streams) {
    Ctx& c = contexts[s.context_id];
    c.device = s.device_id;
    if (s.kind == StreamKind::kLegacyDefault) c.null_stream = s.id;
  }
  for (const auto& [id, c] : contexts) {
    if (absl::Status st = w.Context({id, c.device, Present(c.null_stream, -1)}); !st.ok()) return st;
  }
  for (const ::streamscope::Stream& s : m.streams) {
    StreamRow row;
    row.id = s.id;
    row.context_id = s.context_id;
    row.device_id = s.device_id;
    row.kind = static_cast<int>(s.kind);
    if (s.priority.has_value()) row.priority = *s.priority;
    if (absl::Status st = w.Stream(row); !st.ok()) return st;
  }
  std::map<int64_t, std::string_view> threads;
  for (int64_t tid : m.api.tid) threads.emplace(tid, std::string_view());
  for (const ::streamscope::NvtxRange& r : m.nvtx_ranges) threads.emplace(r.tid, std::string_view());
  for (const auto& [tid, name] : m.thread_names) threads[tid] = name;
  for (const auto& [tid, name] : threads) {
    ThreadRow row{tid, name.empty() ? std::nullopt : std::optional<std::string>(name)};
    if (absl::Status st = w.Thread(row); !st.ok()) return st;
  }
  return absl::OkStatus();
}

// The columns every op has: times, device, context and stream (a stream row
// exists for every model stream; ops on no stream, e.g. unified-memory
// migrations, get NULL), correlation and graph.
void FillOpColumns(const TraceModel& m, size_t i, GpuOpColumns* row) {
  const GpuOps& ops = m.ops;
  const int32_t si = ops.stream[i];
  const bool has_stream = si >= 0 && static_cast<size_t>(si) < m.streams.size();
  row->start_ns = ops.start_ns[i];
  row->end_ns = ops.end_ns[i];
  row->device_id = ops.device_id[i];
  row->context_id = Present(has_stream ? m.streams[si].context_id : -1, -1);
  if (has_stream) row->stream_id = m.streams[si].id;
  row->correlation_id = Present(ops.correlation_id[i], -1);
  row->graph_id = Present(ops.graph_id[i], -1);
}

absl::Status WriteOps(TraceTableWriter& w, const TraceModel& m) {
  const GpuOps& ops = m.ops;
  const bool shapes = m.kernel_shapes.size() == ops.size();
  for (size_t i = 0; i < ops.size(); ++i) {
    const OpCategory c = ops.category[i];
    absl::Status st;
    if (c == OpCategory::kKernel) {
      KernelRow row;
      FillOpColumns(m, i, &row);
      row.name_id = ops.name[i] == kNoString ? StringId{0} : ops.name[i];
      if (shapes) {
        const KernelShape& k = m.kernel_shapes[i];
        row.grid_x = k.grid[0];
        row.grid_y = k.grid[1];
        row.grid_z = k.grid[2];
        row.block_x = k.block[0];
        row.block_y = k.block[1];
        row.block_z = k.block[2];
        row.static_shared_bytes = k.shared_bytes;
        row.dynamic_shared_bytes = 0;
        row.registers_per_thread = k.registers;
      }
      st = w.Kernel(row);
    } else if (c == OpCategory::kMemset) {
      MemsetRow row;
      FillOpColumns(m, i, &row);
      row.bytes = ops.bytes[i];
      row.memory_kind = static_cast<int>(ops.dst_kind[i]);
      row.is_async = ops.is_async[i];
      st = w.Memset(row);
    } else {
      MemcpyRow row;
      FillOpColumns(m, i, &row);
      const bool migration =
          ops.name[i] != kNoString && m.strings.Get(ops.name[i]) == schema::copy_kind::kMigrationOpName;
      row.bytes = ops.bytes[i];
      row.copy_kind = CopyKindFor(c, migration);
      row.src_kind = static_cast<int>(ops.src_kind[i]);
      row.dst_kind = static_cast<int>(ops.dst_kind[i]);
      row.is_async = ops.is_async[i];
      if (c == OpCategory::kPtoP && ops.peer_device[i] >= 0) {
        row.src_device_id = ops.device_id[i];
        row.dst_device_id = ops.peer_device[i];
      }
      st = w.Memcpy(row);
    }
    if (!st.ok()) return st;
  }
  return absl::OkStatus();
}

absl::Status WriteHost(TraceTableWriter& w, const TraceModel& m) {
  for (size_t i = 0; i < m.api.size(); ++i) {
    ApiCallRow row;
    row.domain = static_cast<int>(m.api.domain[i]);
    row.cbid = m.api.cbid[i];
    row.name_id = m.api.name[i];
    row.tid = m.api.tid[i];
    row.start_ns = m.api.start_ns[i];
    row.end_ns = m.api.end_ns[i];
    row.correlation_id = Present(m.api.correlation_id[i], -1);
    row.return_value = m.api.return_value[i];
    if (absl::Status st = w.ApiCall(row); !st.ok()) return st;
  }
  for (const SyncRecord& s : m.syncs) {
    SyncRow row;
    row.kind = static_cast<int>(s.kind);
    row.start_ns = s.start_ns;
    row.end_ns = s.end_ns;
    if (s.stream >= 0 && static_cast<size_t>(s.stream) < m.streams.size()) {
      row.context_id = m.streams[s.stream].context_id;
      row.stream_id = m.streams[s.stream].id;
    }
    row.event_id = Present(s.event_id, -1);
    row.correlation_id = Present(s.correlation_id, -1);
    if (absl::Status st = w.Sync(row); !st.ok()) return st;
  }
  for (const ::streamscope::NvtxRange& r : m.nvtx_ranges) {
    NvtxRangeRow row;
    row.tid = r.tid;
    row.name_id = r.name;
    row.domain_id = Present(r.domain, kNoString);
    row.start_ns = r.start_ns;
    row.end_ns = r.end_ns;
    row.is_push_pop = r.push_pop ? 1 : 0;
    row.depth = r.depth;
    if (absl::Status st = w.NvtxRange(row); !st.ok()) return st;
  }
  for (const ::streamscope::NvtxMark& k : m.nvtx_marks) {
    if (absl::Status st = w.NvtxMark({k.tid, k.name, Present(k.domain, kNoString), k.ts_ns}); !st.ok()) return st;
  }
  return absl::OkStatus();
}

absl::Status WriteAll(SqliteDb& db, const TraceModel& m, const TraceWriteOptions& options) {
  // A failed conversion deletes the file, so durability is not needed here.
  TraceTableWriter w(&db);
  if (absl::Status st = w.Begin(/*durable=*/false); !st.ok()) return st;
  if (absl::Status st = WriteMetadata(w, m, options); !st.ok()) return st;
  if (absl::Status st = WriteTopology(w, m); !st.ok()) return st;
  if (absl::Status st = WriteOps(w, m); !st.ok()) return st;
  if (absl::Status st = WriteHost(w, m); !st.ok()) return st;
  return w.Finish();
}

// Names a model string that is always present, so NOT NULL name columns
// can point at it.
bool NeedsEmptyString(const TraceModel& m) {
  for (StringId id : m.api.name)
    if (id == kNoString) return true;
  for (const NvtxRange& r : m.nvtx_ranges)
    if (r.name == kNoString) return true;
  for (const NvtxMark& k : m.nvtx_marks)
    if (k.name == kNoString) return true;
  for (size_t i = 0; i < m.ops.size(); ++i) {
    if (m.ops.category[i] == OpCategory::kKernel && m.ops.name[i] == kNoString) return true;
  }
  return false;
}

}  // namespace

std::string ExpandOutputPattern(const std::string& pattern, int64_t pid) {
  return absl::StrReplaceAll(pattern, {{"%p", absl::StrCat(pid)}});
}

absl::Status WriteStreamscopeTrace(const TraceModel& model, const std::string& path, const TraceWriteOptions& options) {
  if (path.empty()) return absl::InvalidArgumentError("no output path given");
  struct stat st;
  if (lstat(path.c_str(), &st) == 0) {
    if (S_ISLNK(st.st_mode)) {
      return absl::PermissionDeniedError(
          absl::StrCat(path, ": is a symbolic link; streamscope does not write through links"));
    }
    if (!S_ISREG(st.st_mode)) {
      return absl::PermissionDeniedError(absl::StrCat(path, ": exists and is not a regular file"));
    }
    if (!options.overwrite) {
      return absl::AlreadyExistsError(absl::StrCat(path, ": exists; pass --force to replace it"));
    }
  } else if (errno != ENOENT) {
    return absl::PermissionDeniedError(absl::StrCat(path, ": ", std::strerror(errno)));
  }

  // Build the database in a fresh file of our own next to the output.
  std::string tmp = absl::StrCat(path, ".tmp-XXXXXX");
  int fd = mkstemp(tmp.data());
  if (fd < 0) {
    return absl::PermissionDeniedError(absl::StrCat("cannot create ", path, ": ", std::strerror(errno)));
  }
  fchmod(fd, 0644);
  close(fd);
  auto fail = [&](absl::Status status) {
    unlink(tmp.c_str());
    return status;
  };

  // A model whose names may be absent gets an empty string to point at.
  const TraceModel* m = &model;
  TraceModel patched;
  if (NeedsEmptyString(model)) {
    patched = model;
    StringId empty = patched.strings.Intern("");
    for (size_t i = 0; i < patched.api.name.size(); ++i)
      if (patched.api.name[i] == kNoString) patched.api.name.Set(i, empty);
    for (NvtxRange& r : patched.nvtx_ranges)
      if (r.name == kNoString) r.name = empty;
    for (NvtxMark& k : patched.nvtx_marks)
      if (k.name == kNoString) k.name = empty;
    for (size_t i = 0; i < patched.ops.size(); ++i) {
      if (patched.ops.category[i] == OpCategory::kKernel && patched.ops.name[i] == kNoString) {
        patched.ops.name.Set(i, empty);
      }
    }
    m = &patched;
  }

  auto db = SqliteDb::OpenReadWrite(tmp);
  if (!db.ok()) {
    return fail(absl::PermissionDeniedError(absl::StrCat("cannot open ", tmp, ": ", db.status().message())));
  }
  absl::Status status = WriteAll(**db, *m, options);
  if (!(*db)->Close().ok() && status.ok()) {
    status = absl::InternalError(absl::StrCat("closing ", tmp, " failed"));
  }
  if (!status.ok()) return fail(status);

  // Put it in place: link() never follows or replaces what is at `path`.
  if (options.overwrite && lstat(path.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode)) {
      return fail(absl::PermissionDeniedError(absl::StrCat(path, ": is no longer a regular file")));
    }
    if (rename(tmp.c_str(), path.c_str()) != 0) {
      return fail(absl::PermissionDeniedError(absl::StrCat("cannot replace ", path, ": ", std::strerror(errno))));
    }
    return absl::OkStatus();
  }
  if (link(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    return fail(err == EEXIST
                    ? absl::AlreadyExistsError(absl::StrCat(path, ": appeared while converting"))
                    : absl::PermissionDeniedError(absl::StrCat("cannot create ", path, ": ", std::strerror(err))));
  }
  unlink(tmp.c_str());
  return absl::OkStatus();
}

}  // namespace streamscope
