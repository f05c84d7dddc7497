// Known answers of the wordings that moved into render/: window
// labels from WindowOrigin, compare's window choice from its data, the host
// link's name and a failed validation.
#include "analyzer/render/window_label.h"

#include <string>

#include "analyzer/render/compare_render.h"
#include "analyzer/render/compare_windows_render.h"
#include "analyzer/render/host_link_render.h"
#include "gtest/gtest.h"

namespace streamscope {
namespace {

WindowOrigin Origin(WindowKind kind) {
  WindowOrigin o;
  o.kind = kind;
  return o;
}

WindowOrigin Nvtx(const std::string& name, int64_t instance) {
  WindowOrigin o = Origin(WindowKind::kNvtxInstance);
  o.name = name;
  o.instance = instance;
  return o;
}

WindowOrigin SteadyRange(const std::string& name, int64_t instances) {
  WindowOrigin o = Origin(WindowKind::kSteadyNvtxRange);
  o.name = name;
  o.count = instances;
  return o;
}

WindowOrigin SteadySequence(int64_t repeats, int64_t period) {
  WindowOrigin o = Origin(WindowKind::kSteadyKernelSequence);
  o.count = repeats;
  o.period_kernels = period;
  return o;
}

TEST(WindowLabel, WordsEachKind) {
  EXPECT_EQ(WindowLabel(Window{}), "");
  EXPECT_EQ(WindowLabel(Origin(WindowKind::kWholeTrace)), "whole trace");
  EXPECT_EQ(WindowLabel(Origin(WindowKind::kWholeTraceNoGpuOp)), "whole trace (no GPU op)");
  EXPECT_EQ(WindowLabel(Origin(WindowKind::kGpuActivity)), "GPU activity (no steady state found)");
  EXPECT_EQ(WindowLabel(Origin(WindowKind::kWholeGpuActivity)), "whole GPU activity");
  WindowOrigin named = Origin(WindowKind::kNamed);
  named.name = "NVTX 'step' #4";
  EXPECT_EQ(WindowLabel(named), "NVTX 'step' #4");
}

TEST(WindowLabel, NvtxInstanceAndItsSpan) {
  EXPECT_EQ(WindowLabel(Nvtx("step", 3)), "NVTX 'step' #3");
  WindowOrigin open = Nvtx("step", 12);
  open.open_at_capture_end = true;
  EXPECT_EQ(WindowLabel(open), "NVTX 'step' #12 (open at capture end)");
  WindowOrigin span = Origin(WindowKind::kNvtxInstanceSpan);
  span.name = "measured";
  span.count = 5;
  EXPECT_EQ(WindowLabel(span), "NVTX 'measured' #1 to #5 (their span)");
}

TEST(WindowLabel, ExplicitTimesAsAsked) {
  WindowOrigin o = Origin(WindowKind::kExplicit);
  o.asked_start_ns = 1000;
  o.asked_end_ns = 5000;
  EXPECT_EQ(WindowLabel(o), "explicit [1000 ns, 5000 ns)");
  o.relative = true;
  EXPECT_EQ(WindowLabel(o), "explicit [+1000 ns, +5000 ns)");
  // The label says what was asked, not where the window lies.
  Window w{7000, 11000, o};
  EXPECT_EQ(WindowLabel(w), "explicit [+1000 ns, +5000 ns)");
}

TEST(WindowLabel, SteadyStatesWithAndWithoutTheirPrefix) {
  EXPECT_EQ(WindowLabel(SteadyRange("step", 10)), "steady state: 10 instances of NVTX range 'step'");
  EXPECT_EQ(SteadyStateText(SteadyRange("step", 10)), "10 instances of NVTX range 'step'");
  EXPECT_EQ(WindowLabel(SteadySequence(10, 3)), "steady state: 10 repeats of a sequence of 3 kernels");
  EXPECT_EQ(SteadyStateText(SteadySequence(4, 1)), "4 repeats of a sequence of 1 kernel");
  EXPECT_EQ(SteadyStateText(Origin(WindowKind::kGpuActivity)), "GPU activity (no steady state found)");
}

TEST(WindowLabel, CutToItsFirstOps) {
  WindowOrigin o = SteadyRange("step", 10);
  o.cut_to_ops = 500000;
  EXPECT_EQ(WindowLabel(o), "steady state: 10 instances of NVTX range 'step', cut to its first 500000 ops");
  WindowOrigin whole = Origin(WindowKind::kWholeTrace);
  whole.cut_to_ops = 0;
  EXPECT_EQ(WindowLabel(whole), "whole trace, cut to its first 0 ops");
}

TEST(HostLinkName, PcieAndNvlinkC2c) {
  EXPECT_EQ(HostLinkName(HostLinkRate{63.0, false, 5, 16}), "PCIe 5.0 x16");
  EXPECT_EQ(HostLinkName(HostLinkRate{7.9, false, 4, 8}), "PCIe 4.0 x8");
  EXPECT_EQ(HostLinkName(HostLinkRate{kNvlinkC2cBytesPerNs, true, 0, 0}), "NVLink-C2C");
}

RunWindow SteadyRun(const std::string& range, int64_t instances) {
  RunWindow r;
  r.source = "steady_state_nvtx_range";
  r.nvtx_name = range;
  r.instances = instances;
  r.windows = {Window{0, 100, SteadyRange(range, instances)}};
  return r;
}

TEST(CompareWindowsRender, UnitsAndDescriptions) {
  RunWindow steady = SteadyRun("step", 12);
  EXPECT_EQ(RunWindowUnit(steady), "NVTX range 'step'");
  EXPECT_EQ(RunWindowDescription(steady), "steady state: 12 instances of NVTX range 'step'");

  RunWindow sequence;
  sequence.source = "steady_state_kernel_sequence";
  sequence.period_kernels = 5;
  sequence.windows = {Window{0, 100, SteadySequence(8, 5)}};
  EXPECT_EQ(RunWindowUnit(sequence), "a sequence of 5 kernels");
  EXPECT_EQ(RunWindowDescription(sequence), "steady state: 8 repeats of a sequence of 5 kernels");

  RunWindow nvtx;
  nvtx.source = "nvtx_range";
  nvtx.nvtx_name = "measured";
  nvtx.windows = {Window{0, 10, Nvtx("measured", 1)}, Window{20, 30, Nvtx("measured", 2)}};
  EXPECT_EQ(RunWindowUnit(nvtx), "NVTX range 'measured'");
  EXPECT_EQ(RunWindowDescription(nvtx), "2 instances of NVTX range 'measured'");
  nvtx.windows.resize(1);
  EXPECT_EQ(RunWindowDescription(nvtx), "1 instance of NVTX range 'measured'");
  nvtx.nvtx_instance = 2;
  EXPECT_EQ(RunWindowDescription(nvtx), "instance 2 of NVTX range 'measured'");

  RunWindow span;
  span.source = "gpu_span";
  span.windows = {Window{0, 100, Origin(WindowKind::kWholeGpuActivity)}};
  EXPECT_EQ(RunWindowUnit(span), "");
  span.why = GpuSpanReason::kAskedFor;
  EXPECT_EQ(RunWindowDescription(span), "GPU span, first GPU op to last (asked for with --window whole)");
  span.why = GpuSpanReason::kNoSteadyState;
  EXPECT_EQ(RunWindowDescription(span), "GPU span, first GPU op to last (no steady state found)");
  span.why = GpuSpanReason::kSteadyStateUnused;
  span.steady_state = SteadySequence(10, 3);
  EXPECT_EQ(RunWindowDescription(span),
            "GPU span, first GPU op to last (its steady state (10 repeats of a sequence of 3 kernels) is not used: "
            "another run has none)");
  span.why = GpuSpanReason::kSteadyStateOtherWork;
  EXPECT_EQ(RunWindowDescription(span),
            "GPU span, first GPU op to last (its steady state (10 repeats of a sequence of 3 kernels) does other "
            "work per instance than the first control run's)");
}

TEST(CompareWindowsRender, Notes) {
  CompareWindowNote n;
  n.steady_control = {SteadyRun("step", 10), SteadyRun("step", 10)};
  n.steady_variant = {SteadyRun("forward", 20)};
  EXPECT_EQ(CompareWindowNoteText(CompareWindowRule::kSteadyStateMatched, n),
            "steady states matched per instance (control: steady state: 10 instances of NVTX range 'step'; variant: "
            "steady state: 20 instances of NVTX range 'forward'): instance counts differ (10 vs 20), work compared "
            "per instance");
  n.steady_variant = {SteadyRun("forward", 10)};
  n.work_differs_everywhere = true;
  EXPECT_EQ(CompareWindowNoteText(CompareWindowRule::kSteadyStateMatched, n),
            "steady states matched per instance (control: steady state: 10 instances of NVTX range 'step'; variant: "
            "steady state: 10 instances of NVTX range 'forward'): each run has 10 instances; the work per instance "
            "differs, and so does the whole GPU activity's");

  WorkDifference d;
  d.kind = "kernel";
  d.key = "k";
  d.actual_count = 30;
  d.actual_instances = 20;
  d.expected_count = 30;
  d.expected_instances = 10;
  EXPECT_EQ(WorkDifferenceText(d), "kernel 'k': 30 in 20 instances vs 30 in 10");
  n.difference = d;
  EXPECT_EQ(CompareWindowNoteText(CompareWindowRule::kGpuSpanWorkDiffers, n),
            "the runs' steady states (control: steady state: 10 instances of NVTX range 'step'; variant: steady "
            "state: 10 instances of NVTX range 'forward') do different work per instance (kernel 'k': 30 in 20 "
            "instances vs 30 in 10), while the whole GPU activity of every run does the same work: compared over "
            "the GPU span of every run");

  CompareWindowNote none;
  none.without_steady_state = {{true, "a.sqlite"}, {false, "b.sqlite"}};
  EXPECT_EQ(CompareWindowNoteText(CompareWindowRule::kGpuSpanNoSteadyState, none),
            "no steady state in control a.sqlite, variant b.sqlite (no NVTX range repeated with most of the GPU "
            "time, no repeating kernel sequence): every run is compared over its GPU span, first GPU op to last, not "
            "a steady window against a whole run");
  EXPECT_EQ(CompareWindowNoteText(CompareWindowRule::kSteadyStateSameRange, n), "");
  EXPECT_EQ(CompareWindowNoteText(CompareWindowRule::kNvtx, n), "");
}

TEST(CompareRender, ValidationFailure) {
  EXPECT_EQ(ValidationFailureText({"variant", "b.sqlite", "failed: checksum"}), "variant b.sqlite: failed: checksum");
}

}  // namespace
}  // namespace streamscope
