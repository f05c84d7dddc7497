// One account of idle time on every bundled trace: the report's sections
// (summary, idle gaps, diagnosis, hidden synchronization, critical path)
// cite the same idle partition (gap causes), and the idle costs of the
// diagnosis' findings add up to at most the window's idle time.
#include <dirent.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "analyzer/cli/exit_codes.h"
#include "analyzer/commands/report_runner.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/analyzer/importers/bundled_traces.h"

namespace streamscope {
namespace {

using testing::BundledTraces;

nlohmann::json ReportJson(const std::string& path) {
  ReportOptions o;
  o.traces = {path};
  o.format = ReportOptions::Format::kJson;
  std::ostringstream out, err;
  const int code = ExitWith(RunReport(o, out, err), err);
  EXPECT_EQ(code, kExitOk) << path << ": " << err.str();
  if (code != kExitOk) return nullptr;
  return nlohmann::json::parse(out.str());
}

int64_t CauseNs(const nlohmann::json& gap_causes, const std::string& cause) {
  for (const auto& c : gap_causes["causes"]) {
    if (c["cause"] == cause) return c["ns"].get<int64_t>();
  }
  return 0;
}

TEST(IdleAccount, EverySectionCitesOnePartitionAndCostsFitTheIdleOnEveryBundledTrace) {
  const std::vector<std::string> traces = BundledTraces();
  ASSERT_GE(traces.size(), 20u);
  for (const std::string& path : traces) {
    SCOPED_TRACE(path);
    const nlohmann::json report = ReportJson(path);
    if (report.is_null()) continue;
    for (const auto& w : report["traces"][0]["windows"]) {
      const nlohmann::json& gaps = w["gap_causes"];
      const nlohmann::json& diagnose = w["diagnose"];
      const int64_t idle = gaps["idle_ns"].get<int64_t>();
      // The partition: every idle ns has one cause.
      int64_t parts = 0;
      for (const auto& c : gaps["causes"]) parts += c["ns"].get<int64_t>();
      EXPECT_EQ(parts, idle);
      // The same idle time in the summary, the idle gaps and the diagnosis.
      EXPECT_EQ(w["summary"]["idle_ns"].get<int64_t>(), idle);
      int64_t gap_idle = 0;
      for (const auto& d : w["idle_gaps"]["devices"]) gap_idle += d["idle_ns"].get<int64_t>();
      EXPECT_EQ(gap_idle, idle);
      EXPECT_EQ(diagnose["idle"]["idle_ns"].get<int64_t>(), idle);
      // Findings' idle costs: disjoint parts of the partition.
      int64_t idle_costs = 0;
      for (const auto& f : diagnose["findings"]) {
        const int64_t cost = f["idle_cost_ns"].get<int64_t>();
        EXPECT_GE(cost, 0) << f["cause"];
        EXPECT_GE(f["busy_cost_ns"].get<int64_t>(), 0) << f["cause"];
        EXPECT_EQ(cost + f["busy_cost_ns"].get<int64_t>(), f["measured_cost_ns"].get<int64_t>()) << f["cause"];
        idle_costs += cost;
        // A finding that owns a whole cause of the partition cites its figure.
        if (f["cause"] == "round_trip") {
          EXPECT_EQ(cost, CauseNs(gaps, "round_trip"));
        }
        if (f["cause"] == "event_wait") {
          EXPECT_EQ(cost, std::min(CauseNs(gaps, "dependency_event_wait"), f["measured_cost_ns"].get<int64_t>()));
        }
        if (f["cause"] == "sync_between") {
          EXPECT_GE(cost, CauseNs(gaps, "sync_wait"));
        }
      }
      const int64_t apart = diagnose["idle"]["reported_apart_ns"].get<int64_t>();
      EXPECT_EQ(apart, CauseNs(gaps, "window_start") + CauseNs(gaps, "window_end") + CauseNs(gaps, "first_launch"));
      EXPECT_EQ(diagnose["idle"]["idle_costs_ns"].get<int64_t>(), idle_costs);
      EXPECT_LE(idle_costs, idle - apart);
      EXPECT_GE(diagnose["idle"]["unclaimed_ns"].get<int64_t>(), 0);
      // Hidden synchronization cites the idle the partition charges to its
      // calls: every round trip and sync wait (named after a waiting call it
      // lists), at most those and the parts blocked in its calls.
      const nlohmann::json& hidden = w["hidden_sync"];
      EXPECT_TRUE(hidden["idle_account"].get<bool>());
      auto sum_of = [](const nlohmann::json& rows, const char* key) {
        int64_t sum = 0;
        for (const auto& r : rows) sum += r[key].get<int64_t>();
        return sum;
      };
      const int64_t explicit_charged = hidden["explicit_sync"]["idle_account_ns"].get<int64_t>();
      const int64_t implicit_charged = hidden["implicit_sync"]["idle_account_ns"].get<int64_t>();
      EXPECT_EQ(sum_of(hidden["explicit_sync"]["totals"], "idle_account_ns"), explicit_charged);
      EXPECT_EQ(sum_of(hidden["implicit_sync"]["totals"], "idle_account_ns"), implicit_charged);
      const int64_t drained = CauseNs(gaps, "round_trip") + CauseNs(gaps, "sync_wait");
      EXPECT_GE(explicit_charged + implicit_charged, drained);
      EXPECT_LE(explicit_charged + implicit_charged,
                drained + CauseNs(gaps, "host_blocked_in_call") + CauseNs(gaps, "first_launch"));
      // The critical path cites the partition for the idle time it crosses;
      // its segments tile its span, so each part is crossed exactly once.
      const nlohmann::json& path_idle = w["critical_path"]["idle"];
      EXPECT_TRUE(path_idle["cited"].get<bool>());
      EXPECT_EQ(sum_of(path_idle["by_cause"], "ns"), path_idle["idle_ns"].get<int64_t>());
      EXPECT_LE(path_idle["idle_ns"].get<int64_t>(), idle);
      for (const auto& c : path_idle["by_cause"]) {
        EXPECT_LE(c["ns"].get<int64_t>(), CauseNs(gaps, c["cause"].get<std::string>())) << c["cause"];
        if (!w["critical_path"]["longest"].empty()) {
          EXPECT_EQ(sum_of(c["crossed_by"], "ns"), c["ns"].get<int64_t>()) << c["cause"];
        }
      }
      // The summary's findings carry the diagnosis' costs.
      for (const auto& t : w["summary"]["top_findings"]) {
        const auto& f = diagnose["findings"];
        bool found = false;
        for (const auto& g : f) found |= g["cause"] == t["cause"] && g["measured_cost_ns"] == t["impact_ns"];
        EXPECT_TRUE(found) << t["cause"];
      }
    }
  }
}

}  // namespace
}  // namespace streamscope
