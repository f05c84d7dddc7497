#include "analyzer/importers/streamscope/streamscope_format.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "analyzer/importers/streamscope/streamscope_trace_importer.h"

namespace streamscope {
namespace {

int32_t To32(int64_t v) { return v > INT32_MAX || v < INT32_MIN ? 0 : static_cast<int32_t>(v); }

}  // namespace

bool StreamscopeFormat::Recognizes(TraceFile& file) const {
  absl::StatusOr<SqliteDb*> db = file.Db();
  return db.ok() && LooksLikeStreamscopeTrace(**db);
}

absl::StatusOr<std::vector<TraceModel>> StreamscopeFormat::Import(TraceFile& file) const {
  absl::StatusOr<SqliteDb*> db = file.Db();
  if (!db.ok()) return db.status();
  std::vector<TraceModel> models(1);
  models.front().path = file.path();
  if (absl::Status status = ImportStreamscopeTrace(**db, &models.front()); !status.ok()) return status;
  return models;
}

// A merge join on the kernel id: the model's kernels sorted by source id
// against the table read in id order (no hash map for millions of kernels).
absl::Status StreamscopeFormat::AddKernelShapes(TraceFile& file, TraceModel* model) const {
  absl::StatusOr<SqliteDb*> db = file.Db();
  if (!db.ok()) return db.status();
  TraceModel& m = *model;
  std::vector<std::pair<int64_t, uint32_t>> kernels;  // (source id, op index)
  for (size_t i = 0; i < m.ops.size(); ++i) {
    if (m.ops.category[i] == OpCategory::kKernel) kernels.emplace_back(m.ops.source_id[i], static_cast<uint32_t>(i));
  }
  std::sort(kernels.begin(), kernels.end());
  m.kernel_shapes.assign(m.ops.size(), KernelShape{});
  if (kernels.empty()) return absl::OkStatus();
  auto st = (*db)->Prepare(
      "SELECT id, grid_x, grid_y, grid_z, block_x, block_y, block_z, static_shared_bytes, "
      "dynamic_shared_bytes, registers_per_thread FROM kernel ORDER BY id");
  if (!st.ok()) return st.status();
  size_t k = 0;
  while (k < kernels.size()) {
    auto row = st->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    int64_t id = st->Int64(0);
    while (k < kernels.size() && kernels[k].first < id) ++k;
    for (; k < kernels.size() && kernels[k].first == id; ++k) {
      KernelShape& s = m.kernel_shapes[kernels[k].second];
      for (int d = 0; d < 3; ++d) {
        s.grid[d] = To32(st->Int64(1 + d));
        s.block[d] = To32(st->Int64(4 + d));
      }
      s.shared_bytes = To32(st->Int64(7) + st->Int64(8));
      s.registers = To32(st->Int64(9));
    }
  }
  return absl::OkStatus();
}

}  // namespace streamscope
