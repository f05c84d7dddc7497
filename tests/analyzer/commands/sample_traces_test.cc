// Conclusions on programs nobody here wrote: NVIDIA's CUDA samples as
// recorded on an H100 (tests/data/samples, README there), each asserted
// against what reading the program says is right.
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>

#include "analyzer/cli/exit_codes.h"
#include "analyzer/commands/diagnose_runner.h"
#include "analyzer/pipeline/memory_budget.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace streamscope {
namespace {

nlohmann::json Diagnosis(const std::string& path) {
  DiagnoseCommandOptions o;
  o.traces = {path};
  o.format = DiagnoseCommandOptions::Format::kJson;
  std::ostringstream out, err;
  EXPECT_EQ(ExitWith(RunDiagnose(o, out, err), err), kExitOk) << err.str();
  return nlohmann::json::parse(out.str())["traces"][0]["windows"][0];
}

// jacobiCudaGraphs: every iteration launches a graph ending in an 8-byte
// copy of the residual, synchronizes and tests it on the host; 41.8 ms of
// the 71.0 ms window are idle. The graph finishes before cudaGraphLaunch
// returns, so the sync finds the GPU drained: still the round trip, not
// the launch call (the primary cause was once cpu_starvation, 1.35 ms).
TEST(SampleTraces, JacobiWithAGraphIsARoundTripPerIteration) {
  const nlohmann::json w = Diagnosis("tests/data/samples/jacobiCudaGraphs.sqlite");
  ASSERT_FALSE(w["findings"].empty());
  const nlohmann::json& first = w["findings"][0];
  EXPECT_EQ(first["cause"], "round_trip");
  EXPECT_TRUE(first["primary"].get<bool>());
  EXPECT_EQ(first["measured_cost_ns"], 30592641);
  EXPECT_EQ(first["estimated_saving_ns"], 30580437);
  for (const nlohmann::json& f : w["findings"]) EXPECT_NE(f["cause"], "cpu_starvation") << f.dump();
}

// The same loop launched op by op (-gpumethod=2): the host waits in
// cudaStreamSynchronize for the 8-byte copy.
TEST(SampleTraces, JacobiWithoutAGraphIsARoundTripPerIteration) {
  const nlohmann::json w = Diagnosis("tests/data/samples/jacobiCudaGraphs_nograph.sqlite");
  ASSERT_FALSE(w["findings"].empty());
  EXPECT_EQ(w["findings"][0]["cause"], "round_trip");
  EXPECT_TRUE(w["findings"][0]["primary"].get<bool>());
}

// simpleHyperQ: 32 independent streams of two 1-block 10 ms kernels each,
// submitted depth-first, on the driver's 8 hardware queues: they ran in
// waves of at most 16 kernels (59.6 ms) on a 132-SM H100. The first 9.9 ms
// are lazy module loading (kernel_B's first launch waited for the running
// kernel_A to end, and every later launch with it); after it 23 first
// kernels were held behind other streams' kernels in shared queues.
TEST(SampleTraces, HyperQOnEightQueuesIsHeldInSharedQueues) {
  const nlohmann::json w = Diagnosis("tests/data/samples/simpleHyperQ.sqlite");
  ASSERT_FALSE(w["findings"].empty());
  const nlohmann::json& first = w["findings"][0];
  EXPECT_EQ(first["cause"], "hardware_queue");
  EXPECT_TRUE(first["primary"].get<bool>());
  EXPECT_EQ(first["figures"]["held_kernels"], 23);
  EXPECT_EQ(first["figures"]["streams"], 32);
  EXPECT_EQ(first["figures"]["hardware_queues"], 8);
  EXPECT_EQ(first["figures"]["max_concurrent_kernels"], 16);
  EXPECT_EQ(first["figures"]["load_stall_ns"], 9907365);
  // The estimate leaves 59.6 - 29.8 = 29.8 ms: what the same program took
  // with CUDA_DEVICE_MAX_CONNECTIONS=32 (the next test's trace, 29.8 ms).
  EXPECT_EQ(first["estimated_saving_ns"], 29792285);
  EXPECT_EQ(first["measured_cost_ns"], 29814685);
  EXPECT_EQ(w["gpu_span_ns"], 59595930);
  // The loading stall is a finding of its own, second: 59.6 - 9.6 = 50.0
  // ms left, where eager loading measured 49.7 ms on 8 queues.
  const nlohmann::json& second = w["findings"][1];
  EXPECT_EQ(second["cause"], "lazy_module_loading");
  EXPECT_EQ(second["estimated_saving_ns"], 9633088);
}

// The same program with a queue per stream: nothing held in a queue, but
// the first 9.9 ms ran one kernel: kernel_B's first launch waited for the
// running kernel_A before its module loaded, and the 31 other first
// kernels with it. The estimate leaves 29.8 - 9.4 = 20.4 ms; the same run
// with CUDA_MODULE_LOADING=EAGER measured 20.3 ms (H100).
TEST(SampleTraces, HyperQOnThirtyTwoQueuesWaitsForLazyModuleLoadingNotQueues) {
  const nlohmann::json w = Diagnosis("tests/data/samples/simpleHyperQ_conn32.sqlite");
  for (const nlohmann::json& f : w["findings"]) EXPECT_NE(f["cause"], "hardware_queue") << f.dump();
  EXPECT_EQ(w["gpu_span_ns"].get<int64_t>() / 100'000, 298);  // 29.8 ms
  ASSERT_FALSE(w["findings"].empty());
  const nlohmann::json& first = w["findings"][0];
  EXPECT_EQ(first["cause"], "lazy_module_loading");
  EXPECT_TRUE(first["primary"].get<bool>());
  EXPECT_EQ(first["figures"]["waiting_kernels"], 31);
  EXPECT_EQ(first["estimated_saving_ns"], 9383705);
  EXPECT_EQ(first["measured_cost_ns"], 9886372);
}

// The same two programs when their dependency graphs do not fit the memory
// budget (1 MiB): the graph is not built, the findings come ranked by
// measured cost without estimates, and the conclusion holds: jacobi is a
// round trip per iteration, simpleHyperQ is held in shared hardware queues
// before lazy module loading.
TEST(SampleTraces, WithoutTheGraphTheConclusionsHold) {
  SetMemoryLimit(int64_t{1} << 20);
  const nlohmann::json jacobi = Diagnosis("tests/data/samples/jacobiCudaGraphs.sqlite");
  const nlohmann::json hyperq = Diagnosis("tests/data/samples/simpleHyperQ.sqlite");
  SetMemoryLimit(std::nullopt);
  for (const nlohmann::json* w : {&jacobi, &hyperq}) {
    ASSERT_FALSE((*w)["over_memory"].is_null());
    EXPECT_EQ((*w)["over_memory"]["room"], "memory_limit");
    for (const nlohmann::json& f : (*w)["findings"]) EXPECT_TRUE(f["estimated_saving_ns"].is_null()) << f.dump();
  }
  ASSERT_FALSE(jacobi["findings"].empty());
  EXPECT_EQ(jacobi["findings"][0]["cause"], "round_trip");
  EXPECT_TRUE(jacobi["findings"][0]["primary"].get<bool>());
  EXPECT_EQ(jacobi["findings"][0]["measured_cost_ns"], 30592641);
  ASSERT_GE(hyperq["findings"].size(), 2u);
  EXPECT_EQ(hyperq["findings"][0]["cause"], "hardware_queue");
  EXPECT_TRUE(hyperq["findings"][0]["primary"].get<bool>());
  EXPECT_EQ(hyperq["findings"][1]["cause"], "lazy_module_loading");
}

}  // namespace
}  // namespace streamscope
