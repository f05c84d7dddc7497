#include "analyzer/analysis/causes/small_grid.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "analyzer/analysis/causes/diagnose_support.h"
#include "analyzer/analysis/overlap_gaps/communication.h"
#include "analyzer/model/saturating.h"

namespace streamscope {
namespace {

// A kernel's start or end, for the sweep: 16 bytes (a window of millions of
// kernels is swept only on a device that ran a small-grid kernel).
struct Edge {
  int64_t t;
  int32_t blocks;  // + at a start, - at an end; kMaxKernelBlocksKept when not recorded
  int32_t small;   // +1 / -1 for a small-grid kernel long enough to count, else 0
};

struct Underfilled {
  int64_t ns = 0;       // a small kernel ran and the running blocks were fewer than the SMs
  double empty_ns = 0;  // the same time, each ns weighted by the share of SMs left empty
};

Underfilled Sweep(std::vector<Edge>& edges, int64_t sms) {
  // Ends before starts at one time: back-to-back kernels never add up.
  std::sort(edges.begin(), edges.end(),
            [](const Edge& a, const Edge& b) { return std::make_pair(a.t, a.blocks) < std::make_pair(b.t, b.blocks); });
  Underfilled u;
  int64_t blocks = 0, small = 0, since = 0;
  for (const Edge& e : edges) {
    if (small > 0 && blocks < sms) {
      u.ns += e.t - since;
      u.empty_ns += static_cast<double>(e.t - since) * static_cast<double>(sms - blocks) / static_cast<double>(sms);
    }
    blocks += e.blocks;
    small += e.small;
    since = e.t;
  }
  return u;
}

}  // namespace

std::vector<DiagnoseFinding> FindSmallGrids(const TraceModel& m, const Window& w, OpIndexRange ops,
                                            const DiagnoseOptions& o) {
  std::vector<DiagnoseFinding> findings;
  if (m.kernel_blocks.size() != m.ops.size()) return findings;  // grids not recorded
  // Communication kernels (NCCL) take few SMs on purpose, to leave the rest
  // to the compute they overlap, and wait on their peers: never small here.
  CommunicationKernelNames communication(m);
  // Whether `op` is a small-grid kernel long enough to count.
  auto is_small = [&](int32_t op) {
    if (m.ops.category[op] != OpCategory::kKernel) return false;
    const int64_t kept = m.kernel_blocks[op];
    if (kept <= 0 || SaturatingSub(m.ops.end_ns[op], m.ops.start_ns[op]) < o.small_grid_min_kernel_ns) return false;
    const Device* d = m.FindDevice(m.ops.device_id[op]);
    return d != nullptr && 2 * kept <= d->sm_count && !communication.Contains(m.ops.name[op]);
  };
  std::vector<int32_t> devices;  // that ran one
  for (int32_t op : ops) {
    if (is_small(op) && std::find(devices.begin(), devices.end(), m.ops.device_id[op]) == devices.end()) {
      devices.push_back(m.ops.device_id[op]);
    }
  }
  std::sort(devices.begin(), devices.end());
  for (int32_t device_id : devices) {
    const Device* d = m.FindDevice(device_id);
    std::vector<Edge> edges;
    std::vector<std::pair<int64_t, int32_t>> small;  // (duration in the window, op)
    for (int32_t op : ops) {
      if (m.ops.category[op] != OpCategory::kKernel || m.ops.device_id[op] != device_id) continue;
      const int64_t start = std::max(m.ops.start_ns[op], w.start_ns), end = std::min(m.ops.end_ns[op], w.end_ns);
      if (end <= start) continue;
      const int64_t kept = m.kernel_blocks[op];
      const auto blocks = static_cast<int32_t>(kept > 0 ? kept : kMaxKernelBlocksKept);
      const int32_t counts = is_small(op) ? 1 : 0;
      edges.push_back({start, blocks, counts});
      edges.push_back({end, -blocks, -counts});
      if (counts != 0) small.push_back({end - start, op});
    }
    const Underfilled u = Sweep(edges, d->sm_count);
    std::vector<Edge>().swap(edges);
    const auto empty = static_cast<int64_t>(u.empty_ns);
    if (empty <= 0) continue;
    SmallGridFacts facts;
    facts.device_id = device_id;
    facts.device_name = d->name;
    facts.sm_count = d->sm_count;
    facts.kernels = static_cast<int64_t>(small.size());
    facts.underfilled_ns = u.ns;
    facts.empty_ns = empty;
    // The small kernels by name, the longest total first.
    std::map<StringId, SmallGridFacts::Group> groups;
    for (const auto& [ns, op] : small) {
      SmallGridFacts::Group& g = groups[m.ops.name[op]];
      g.name = m.ops.name[op];
      g.launches += 1;
      g.ns += ns;
      g.max_blocks = std::max<int64_t>(g.max_blocks, m.kernel_blocks[op]);
    }
    for (auto& [name, g] : groups) facts.groups.push_back(g);
    std::sort(facts.groups.begin(), facts.groups.end(),
              [](const SmallGridFacts::Group& a, const SmallGridFacts::Group& b) {
                return std::make_tuple(-a.ns, a.name) < std::make_tuple(-b.ns, b.name);
              });
    if (facts.groups.size() > 3) facts.groups.resize(3);
    // The longest ones are the evidence.
    const size_t cited = std::min(small.size(), static_cast<size_t>(std::max(0, o.max_evidence)));
    std::partial_sort(small.begin(), small.begin() + static_cast<std::ptrdiff_t>(cited), small.end(),
                      [](const auto& a, const auto& b) {
                        return std::make_pair(-a.first, a.second) < std::make_pair(-b.first, b.second);
                      });
    DiagnoseFinding f;
    f.cause = DiagnoseCause::kSmallGrid;
    f.impact_ns = empty;
    f.figures = {{"device_id", device_id},
                 {"sm_count", d->sm_count},
                 {"small_grid_kernels", static_cast<double>(facts.kernels)},
                 {"underfilled_ns", static_cast<double>(u.ns)},
                 {"empty_sm_ns", static_cast<double>(empty)}};
    for (size_t k = 0; k < cited; ++k) diagnose_support::CiteOp(f, small[k].second, o.max_evidence);
    f.facts = std::move(facts);
    findings.push_back(std::move(f));
  }
  return findings;
}

}  // namespace streamscope
