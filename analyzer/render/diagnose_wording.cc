#include "analyzer/render/diagnose_wording.h"

#include <string_view>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "analyzer/base/units.h"
#include "analyzer/model/display_name.h"
#include "analyzer/render/host_link_render.h"
#include "analyzer/render/op_ref.h"
#include "analyzer/render/text_layout.h"

namespace streamscope {
namespace {

// "1 copy", "3 copies" style counts.
std::string Count(int64_t n, std::string_view one, std::string_view many) {
  return absl::StrCat(n, " ", n == 1 ? std::string(one) : std::string(many));
}

// "2.5x".
std::string Ratio(double r) { return absl::StrFormat("%.1fx", r); }

// At most 60 characters of a kernel name.
std::string Shortened(std::string_view name) { return ShortenName(name, 60); }

// "H2D 16.00 MiB copies", "'name' kernels", "4.00 KiB memsets".
std::string OpGroupLabel(const TraceModel& m, int32_t op) {
  OpCategory c = m.ops.category[op];
  if (c == OpCategory::kKernel)
    return absl::StrCat("'", Shortened(DisplayName(m.strings, m.ops.name[op])), "' kernels");
  if (c == OpCategory::kMemset) return absl::StrCat(FormatBytes(m.ops.bytes[op]), " memsets");
  return absl::StrCat(std::string(OpCategoryName(c)), " ", FormatBytes(m.ops.bytes[op]), " copies");
}

std::string DeviceName(const std::string& name) { return name.empty() ? "" : absl::StrCat(" (", name, ")"); }

std::string Calls(const std::vector<CallCount>& calls) {
  std::vector<std::string> names;
  for (const CallCount& c : calls) names.push_back(absl::StrCat(c.name, " x", c.calls));
  return absl::StrJoin(names, ", ");
}

// What pageable copies of one direction were compared with.
std::string ReferenceText(const PageableCopiesFacts::Direction& d) {
  std::string cat(OpCategoryName(d.category));
  switch (d.reference) {
    case PageableCopiesFacts::Reference::kThisTrace:
      return absl::StrCat("pinned ", cat, " copies of similar size in this trace");
    case PageableCopiesFacts::Reference::kReferenceTrace:
      return absl::StrCat("pinned ", cat, " copies in ", d.reference_source);
    case PageableCopiesFacts::Reference::kDeviceLink:
      return absl::StrCat("the device link's theoretical ceiling (", HostLinkName(d.link), ", ",
                          absl::StrFormat("%.1f", d.link.bytes_per_ns), " GB/s per direction; no pinned ", cat,
                          " copy of similar size in this trace, and real copies stay below a link's ceiling)");
    case PageableCopiesFacts::Reference::kNone: break;
  }
  return "";
}

std::string Summary(const CopyEnginesFacts& x, int64_t impact_ns, const TraceModel&) {
  if (x.engines == 0) {
    return absl::StrCat("device ", x.device_id, DeviceName(x.device_name),
                        " reports 0 copy engines: copies cannot run while kernels run (", FormatDuration(x.copy_ns),
                        " of copies, ", FormatDuration(x.compute_ns), " of kernels)");
  }
  return absl::StrCat("device ", x.device_id, DeviceName(x.device_name),
                      " has 1 copy engine: H2D and D2H copies cannot run at the same time (", FormatDuration(x.h2d_ns),
                      " of H2D, ", FormatDuration(x.d2h_ns), " of D2H; up to ", FormatDuration(impact_ns),
                      " could not be hidden)");
}

std::string Summary(const NoConcurrentKernelsFacts& x, int64_t, const TraceModel&) {
  return absl::StrCat("device ", x.device_id, DeviceName(x.device_name),
                      " cannot run kernels concurrently (concurrentKernels = 0): kernels on ", x.kernel_streams,
                      " streams ran one at a time");
}

std::string Summary(const PageableCopiesFacts& x, int64_t, const TraceModel&) {
  std::vector<std::string> parts;
  for (const PageableCopiesFacts::Direction& d : x.directions) {
    std::string cat(OpCategoryName(d.category));
    std::string part = absl::StrCat(Count(d.count, cat + " copy", cat + " copies"), " (", FormatBytes(d.bytes), ", ",
                                    FormatDuration(d.ns), ") used pageable host memory");
    if (d.latency_bound) {
      // Too small for the link's bandwidth to matter: judged per copy.
      absl::StrAppend(&part, ": at ", FormatBytes(d.avg_bytes), " on average they are latency-bound, judged per copy (",
                      FormatDuration(d.median_ns), " median)");
      if (d.reference != PageableCopiesFacts::Reference::kNone) {
        absl::StrAppend(&part, " against ", ReferenceText(d), " (", FormatDuration(d.pinned_median_ns), " median, ",
                        FormatDuration(d.extra_ns), " extra)");
      } else {
        absl::StrAppend(&part, "; no pinned ", cat, " copy of similar size in this trace: the reference is unknown");
      }
    } else if (d.reference != PageableCopiesFacts::Reference::kNone) {
      absl::StrAppend(&part, ": ", Ratio(d.slowdown), " slower per byte than ", ReferenceText(d), " (",
                      FormatDuration(d.op_ns), " vs ", FormatDuration(d.pinned_op_ns), " per ",
                      FormatBytes(d.avg_bytes), ", ", FormatDuration(d.extra_ns), " extra)");
    } else {
      absl::StrAppend(&part, "; no pinned ", cat,
                      " copy of similar size in this trace: the pinned rate is unknown (a pinned control run and "
                      "`streamscope compare` measure it)");
    }
    parts.push_back(std::move(part));
  }
  std::string s = absl::StrJoin(parts, "; ");
  if (x.host_held_calls > 0) {
    absl::StrAppend(&s, "; ", x.host_held_calls, " of the *Async copy calls held the host thread until the copy ran (",
                    FormatDuration(x.host_held_ns), " of host time), so work behind them was submitted late");
  }
  return s;
}

// "52.8 GB/s".
std::string Gbps(double bytes_per_ns) { return absl::StrFormat("%.1f GB/s", bytes_per_ns); }

std::string Summary(const CopyBoundFacts& x, int64_t, const TraceModel&) {
  const std::string cat(OpCategoryName(x.category));
  const double share = x.reference_bytes_per_ns > 0 ? x.achieved_bytes_per_ns / x.reference_bytes_per_ns : 0;
  std::string s =
      absl::StrCat(Count(x.copies, cat + " copy", cat + " copies"), " on device ", x.device_id, " (",
                   FormatBytes(x.bytes), ") kept a copy engine busy ", FormatDuration(x.busy_ns), " (",
                   FormatShare(x.busy_ns, x.span_ns), " of the GPU span; kernels ran ", FormatDuration(x.compute_ns),
                   ") at ", Gbps(x.achieved_bytes_per_ns), ", ", FormatShare(share), " of ");
  if (x.reference == CopyBoundFacts::Reference::kThisTrace) {
    absl::StrAppend(&s, "the fastest pinned ", cat, " copies in this trace (", Gbps(x.reference_bytes_per_ns), ")");
    if (x.link) {
      absl::StrAppend(&s, " and ", FormatShare(x.achieved_bytes_per_ns / x.link_bytes_per_ns), " of the ",
                      HostLinkName(*x.link), " link's theoretical ceiling (", Gbps(x.link_bytes_per_ns),
                      " per direction)");
    }
  } else {
    absl::StrAppend(&s, "the ", x.link ? HostLinkName(*x.link) : std::string(), " link's theoretical ceiling (",
                    Gbps(x.reference_bytes_per_ns), " per direction; real copies stay below it)");
  }
  absl::StrAppend(&s, ": the copies, not their scheduling, set the pace; ", FormatDuration(x.exposed_ns),
                  " of them ran while no kernel did");
  if (x.link_floor_ns > 0) {
    absl::StrAppend(&s, "; at the link's ceiling these bytes would still need ", FormatDuration(x.link_floor_ns));
  }
  return s;
}

std::string CopyBoundRemedy(const CopyBoundFacts& x) {
  std::string s =
      "move fewer bytes: copy only the results needed (fewer or smaller transfers, reduced precision or "
      "compressed data), keep data on the device between steps instead of copying it back and forth, and overlap "
      "the remaining copies with compute on other streams";
  if (x.copy_engines >= 2) {
    absl::StrAppend(&s,
                    "; H2D and D2H run on separate copy engines, so work that copies both ways can use both "
                    "directions at once");
  }
  return s;
}

std::string Summary(const SameStreamFacts& x, int64_t, const TraceModel&) {
  std::vector<std::string> parts;
  for (const SameStreamFacts::Device& d : x.devices) {
    std::vector<std::string> names;
    for (OpCategory c : d.categories) names.push_back(std::string(OpCategoryName(c)));
    std::string stream = d.stream_id < 0 ? std::string("stream ?") : absl::StrCat("stream ", d.stream_id);
    parts.push_back(absl::StrCat(absl::StrJoin(names, ", "), " work on device ", d.device_id, " ran on one stream (",
                                 stream, ", ", d.stream_ops,
                                 " ops): stream order runs them one after another, so they could not overlap; up to ",
                                 FormatDuration(d.hideable_ns), " could have been hidden"));
  }
  return absl::StrJoin(parts, "; ");
}

std::string Summary(const EventWaitDelays& x, int64_t, const TraceModel&) {
  return absl::StrCat(Count(x.delayed_ops, "op", "ops"),
                      " started later than ready because a cudaStreamWaitEvent on their stream made them wait for "
                      "another stream (",
                      FormatDuration(x.delay_ns), " of delay; ", FormatDuration(x.idle_ns),
                      " of device idle time attributed to event waits)");
}

std::string Summary(const SyncBetweenFacts& x, int64_t, const TraceModel&) {
  return absl::StrCat(Count(x.syncs, "explicit synchronization", "explicit synchronizations"), " inside the window (",
                      Calls(x.calls), ") followed by more submissions: the GPU drained and idled ",
                      FormatDuration(x.idle_ns), " until the next op started");
}

std::string Summary(const RoundTripFacts& x, int64_t, const TraceModel&) {
  std::string s = absl::StrCat(
      "a round trip per iteration: ", Count(x.iterations, "time", "times"), " the host read back a result",
      x.readback_bytes > 0 ? absl::StrCat(" (", FormatBytes(x.readback_bytes), ")") : std::string(), ", waited in ",
      Calls(x.calls), " and decided before launching the next iteration; the GPU idled ", FormatDuration(x.idle_ns),
      " (", FormatDuration(x.per_iteration_ns), " per iteration) waiting for the host");
  if (x.readback_saving_ns >= 0) {
    absl::StrAppend(&s, "; without the read-backs and their waits (the host work kept) the window would end ",
                    FormatDuration(x.readback_saving_ns), " sooner");
    if (x.host_alone_saving_ns >= 0 && x.together_saving_ns >= 0) {
      absl::StrAppend(&s, "; removing the host work alone would save ", FormatDuration(x.host_alone_saving_ns),
                      ", both together ", FormatDuration(x.together_saving_ns));
    }
    absl::StrAppend(&s, " (estimates)");
  }
  return s;
}

std::string RoundTripRemedy(const RoundTripFacts& x) {
  if (x.pytorch) {
    return "do not read a tensor back every step: no .item(), .cpu() or printing of a tensor per step; accumulate "
           "the value on the GPU and read it every k steps, or copy it with .to('cpu', non_blocking=True) into "
           "pinned memory and read it after an event recorded behind the copy has completed";
  }
  return "test the result every k iterations instead of each one (launch k iterations, then read back and test), "
         "keep the test on the GPU (a kernel that sets a flag the next iterations check), or capture k iterations "
         "in one CUDA graph and read the result once per graph launch";
}

std::string Summary(const HardwareQueueFacts& x, int64_t, const TraceModel& m) {
  std::string device = absl::StrCat("device ", x.device_id, x.device_name.empty() ? "" : " (" + x.device_name + ")");
  std::string queues =
      x.connections_recorded
          ? absl::StrCat(x.connections, " hardware queues (CUDA_DEVICE_MAX_CONNECTIONS=", x.connections,
                         " in the environment)")
          : absl::StrCat(x.connections,
                         " hardware queues (the driver's default: CUDA_DEVICE_MAX_CONNECTIONS was "
                         "not set or not recorded)");
  std::string s =
      absl::StrCat(Count(x.held_kernels, "kernel", "kernels"),
                   " of independent streams started only when an op of another stream ended, ",
                   FormatDuration(x.delay_ns), " after they were ready, while ", device, " had SMs to spare (at most ",
                   x.max_concurrent_kernels, " kernels ran at once on ", x.sm_count, " SMs): ", x.streams,
                   " streams shared ", queues, ", which serve their streams' work in submission order");
  if (x.load_stall_ns > 0) {
    absl::StrAppend(&s, "; besides, lazy module loading stalled the device ", FormatDuration(x.load_stall_ns),
                    x.load_stall_kernel >= 0
                        ? absl::StrCat(" (the first launch of ", OpNamedRef(m, x.load_stall_kernel),
                                       " waited for the running work to end)")
                        : std::string(),
                    ": the lazy_module_loading finding, not counted here");
  }
  return s;
}

std::string HardwareQueueRemedy(const HardwareQueueFacts& x) {
  std::string s;
  if (x.connections_recorded && x.connections == 1) {
    s = "CUDA_DEVICE_MAX_CONNECTIONS=1 is set, which puts every stream in one queue (frameworks set it to keep "
        "communication kernels in order): unset it, or raise it, where that order is not needed; ";
  }
  return absl::StrCat(s,
                      "set CUDA_DEVICE_MAX_CONNECTIONS=32 in the environment before the program initializes "
                      "CUDA (each of up to 32 streams gets a queue of its own), submit breadth-first (each "
                      "stream's first kernel before any stream's second, so that a queue's head is rarely "
                      "waiting), or use at most ",
                      x.connections, " streams for independent work",
                      x.load_stall_ns > 0 ? "; against the lazy-loading stall, CUDA_MODULE_LOADING=EAGER or one launch "
                                            "of each kernel before the concurrent work"
                                          : "");
}

std::string Summary(const LazyLoadingFacts& x, int64_t, const TraceModel& m) {
  return absl::StrCat(
      "lazy module loading held ", Count(x.waiting_kernels, "kernel", "kernels"), " ", FormatDuration(x.wait_ns),
      " after they were ready: ",
      x.first_launch >= 0 ? absl::StrCat("the first launch of ", OpNamedRef(m, x.first_launch))
                          : std::string("a first launch"),
      " waited for the work running on device ", x.device_id,
      " to end before its module loaded, and the device's later launches waited with it, though SMs were idle (",
      Count(x.stalls, "stall", "stalls"), ", ", FormatDuration(x.stalled_ns), ")");
}

std::string Summary(const LegacyStreamFacts& x, int64_t, const TraceModel&) {
  return absl::StrCat(
      x.blocking_waited_for_legacy, " ops on blocking streams waited for ops on the legacy default stream and ",
      x.legacy_waited_for_blocking, " legacy-stream ops waited for blocking-stream work (", FormatDuration(x.delay_ns),
      " of delay): the legacy default stream serializes every blocking stream");
}

std::string Summary(const ImplicitSyncFacts& x, int64_t, const TraceModel&) {
  return absl::StrCat("implicitly synchronizing calls inside the window (", Calls(x.calls),
                      ") held the host until earlier GPU work drained (", FormatDuration(x.waited_ns),
                      " of waiting); the GPU then idled ", FormatDuration(x.idle_ns),
                      " while the thread was blocked in them");
}

std::string Summary(const CpuStarvationFacts& x, int64_t, const TraceModel&, const std::vector<int64_t>& tids) {
  std::vector<std::string> parts;
  for (const CpuStarvationFacts::HostWork& w : x.top) {
    std::string what = w.cause == GapCause::kHostNvtxRange       ? absl::StrCat("in NVTX range '", w.detail, "'")
                       : w.cause == GapCause::kHostBlockedInCall ? absl::StrCat("blocked in ", w.detail)
                                                                 : std::string("in unannotated host code");
    parts.push_back(absl::StrCat(FormatDuration(w.ns), " ", what, " (", w.gaps, " gaps)"));
  }
  std::vector<std::string> tid_text;
  for (int64_t t : tids) tid_text.push_back(absl::StrCat(t));
  return absl::StrCat("the GPU idled ", FormatDuration(x.idle_ns), " waiting for the submitting thread",
                      tid_text.size() == 1 ? " " : "s ", absl::StrJoin(tid_text, ", "),
                      " to finish host work: ", absl::StrJoin(parts, "; "));
}

std::string Summary(const ContentionFacts& x, int64_t, const TraceModel& m) {
  std::vector<std::string> parts;
  for (const ContentionFacts::Group& g : x.groups) {
    std::string where =
        g.reference_source.empty() ? std::string("alone") : absl::StrCat("alone in ", g.reference_source);
    std::string text = absl::StrCat(OpGroupLabel(m, g.example_op), " took ", FormatDuration(g.overlapped_ns),
                                    " overlapped vs ", FormatDuration(g.alone_ns), " ", where, " (", Ratio(g.ratio),
                                    ", ", g.overlapped_ops, " overlapped ops)");
    if (g.pageable) absl::StrAppend(&text, " [pageable: see the memory-type finding]");
    parts.push_back(std::move(text));
  }
  return absl::StrCat("the same operations ran slower when they overlapped others: ", absl::StrJoin(parts, "; "), " — ",
                      FormatDuration(x.extra_ns), " of extra time that ate the overlap's gain");
}

std::string Summary(const SmallWorkFacts& x, int64_t, const TraceModel& m) {
  std::vector<std::string> parts;
  for (const SmallWorkFacts::Group& g : x.groups) {
    parts.push_back(absl::StrCat("'", Shortened(DisplayName(m.strings, g.name)), "' x", g.count, ": ",
                                 FormatDuration(g.gpu_median_ns), " on the GPU, launch call ",
                                 FormatDuration(g.launch_median_ns), " (medians)"));
  }
  return absl::StrCat("kernels too small for their launch cost: ", absl::StrJoin(parts, "; "), "; the GPU idled ",
                      FormatDuration(x.idle_ns), " between them waiting for launches");
}

std::string Summary(const SmallGridFacts& x, int64_t, const TraceModel& m) {
  std::vector<std::string> parts;
  for (const SmallGridFacts::Group& g : x.groups) {
    parts.push_back(absl::StrCat("'", Shortened(DisplayName(m.strings, g.name)), "' x", g.launches, " with at most ",
                                 Count(g.max_blocks, "block", "blocks"), ", ", FormatDuration(g.ns)));
  }
  return absl::StrCat(
      "kernels with small grids left SMs empty while the GPU counted as busy: ", absl::StrJoin(parts, "; "), " (",
      Count(x.kernels, "kernel", "kernels"), " with at most half as many blocks as device ", x.device_id,
      DeviceName(x.device_name), " has SMs, ", x.sm_count, "; a block runs on one SM); ", FormatDuration(x.empty_ns),
      " of the device's SM time left empty over ", FormatDuration(x.underfilled_ns));
}

std::string SmallGridRemedy(const SmallGridFacts& x) {
  return absl::StrCat("launch enough blocks to fill the GPU: at least one per SM (", x.sm_count,
                      " here), better several, of 128-512 threads each; size the grid from the data ((n + threads "
                      "- 1) / threads blocks) or use a grid-stride loop over a few blocks per SM; independent small "
                      "kernels can share the SMs from several streams");
}

std::string ImplicitSyncRemedy(const ImplicitSyncFacts& x) {
  std::vector<std::string> remedies;
  for (ImplicitSyncKind k : x.kinds) {
    switch (k) {
      case ImplicitSyncKind::kAllocFree:
        remedies.push_back(
            "move cudaMalloc/cudaFree out of the loop or use cudaMallocAsync/cudaFreeAsync "
            "(a stream-ordered pool)");
        break;
      case ImplicitSyncKind::kSyncMemcpy:
        remedies.push_back("replace cudaMemcpy with cudaMemcpyAsync on the work's stream (pinned host memory)");
        break;
      case ImplicitSyncKind::kSyncMemset:
        remedies.push_back("replace cudaMemset with cudaMemsetAsync on the work's stream");
        break;
      case ImplicitSyncKind::kPinnedAllocFree:
        remedies.push_back("allocate and register pinned host buffers once, outside the loop");
        break;
      case ImplicitSyncKind::kDeviceConfig:
        remedies.push_back("set device limits and cache configuration once at start-up");
        break;
      default: remedies.push_back("check the calls flagged by their timing: they waited for the GPU to drain"); break;
    }
  }
  return absl::StrJoin(remedies, "; ");
}

std::string CpuStarvationRemedy(const CpuStarvationFacts& x) {
  if (x.top.empty()) return "";
  const CpuStarvationFacts::HostWork& w = x.top.front();
  if (w.cause == GapCause::kHostNvtxRange) {
    return absl::StrCat("the host work in NVTX range '", w.detail,
                        "' delays each submission: do it ahead of time or on another thread "
                        "(prepare chunk i+1 while chunk i runs) and submit GPU work further ahead");
  }
  if (w.cause == GapCause::kHostBlockedInCall && w.detail.find("Launch") != std::string::npos) {
    // The launch is the submission: it cannot leave the loop, only happen less often.
    return absl::StrCat("the submitting thread was blocked in ", w.detail,
                        ", the launch itself: launch less often (fewer, larger kernels; fused kernels; more work "
                        "per CUDA graph launch)");
  }
  if (w.cause == GapCause::kHostBlockedInCall) {
    return absl::StrCat("the submitting thread was blocked in ", w.detail,
                        ": move that call out of the submission loop or to another thread");
  }
  return "annotate the host code between submissions with NVTX ranges to find it; move it off the "
         "submitting thread or submit GPU work further ahead";
}

}  // namespace

std::string DiagnoseSummary(const DiagnoseFinding& f, const TraceModel& model) {
  return std::visit(
      [&](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return "";
        } else if constexpr (std::is_same_v<T, CpuStarvationFacts>) {
          return Summary(x, f.impact_ns, model, f.tids);
        } else if constexpr (std::is_same_v<T, PageableCopiesFacts>) {
          std::string s = Summary(x, f.impact_ns, model);
          auto idle = f.figures.find("host_held_idle_ns");
          if (x.host_held_calls > 0 && idle != f.figures.end() && idle->second > 0) {
            absl::StrAppend(&s, "; the GPU idled ", FormatDuration(static_cast<int64_t>(idle->second)),
                            " while the thread was held in them");
          }
          return s;
        } else {
          return Summary(x, f.impact_ns, model);
        }
      },
      f.facts);
}

std::string DiagnoseRemedy(const DiagnoseFinding& f) {
  switch (f.cause) {
    case DiagnoseCause::kCopyEngines: {
      const auto* x = std::get_if<CopyEnginesFacts>(&f.facts);
      if (x != nullptr && x->engines == 0) {
        return "run on a GPU with copy engines (asyncEngineCount >= 1; >= 2 for H2D||D2H); on this one, "
               "overlap only host work with GPU work";
      }
      return "with one copy engine overlap copies with kernels, not with each other (batch H2D and D2H "
             "phases), or use a GPU with 2+ copy engines";
    }
    case DiagnoseCause::kNoConcurrentKernels:
      return "kernels of different streams cannot overlap on this device; fuse them or use a GPU with "
             "concurrent kernel execution";
    case DiagnoseCause::kPageableCopies:
      return "allocate the host buffers with cudaMallocHost/cudaHostAlloc, or pin existing ones with "
             "cudaHostRegister: pageable copies are staged through a driver buffer, run slower and block "
             "the calling thread";
    case DiagnoseCause::kSameStream:
      return "split the work into independent chunks on several streams created with cudaStreamNonBlocking, "
             "so that the copies of one chunk run while another chunk's kernel runs";
    case DiagnoseCause::kEventWait:
      return "check that each wait is needed and waits for the right event: record the event right after the "
             "producing op (not after later work), and give the pipeline more buffers so producers can run ahead";
    case DiagnoseCause::kSyncBetween:
      return "remove the synchronizations inside the loop: order work across streams with events "
             "(cudaEventRecord + cudaStreamWaitEvent) and synchronize once at the end";
    case DiagnoseCause::kHardwareQueue: {
      const auto* x = std::get_if<HardwareQueueFacts>(&f.facts);
      return x != nullptr ? HardwareQueueRemedy(*x) : "";
    }
    case DiagnoseCause::kLazyLoading:
      return "load the modules at start-up (CUDA_MODULE_LOADING=EAGER in the environment) or launch each kernel once "
             "before the concurrent work (a warm-up step outside the timed loop)";
    case DiagnoseCause::kLegacyDefaultStream:
      return "create streams with cudaStreamNonBlocking (or build with --default-stream per-thread) and do not "
             "submit work to stream 0 / cudaStreamLegacy inside the loop";
    case DiagnoseCause::kImplicitSyncCall: {
      const auto* x = std::get_if<ImplicitSyncFacts>(&f.facts);
      return x != nullptr ? ImplicitSyncRemedy(*x) : "";
    }
    case DiagnoseCause::kCpuStarvation: {
      const auto* x = std::get_if<CpuStarvationFacts>(&f.facts);
      return x != nullptr ? CpuStarvationRemedy(*x) : "";
    }
    case DiagnoseCause::kContention:
      return "overlapping ops compete for the same resource (copy engine and host link, host memory, SMs, "
             "DRAM bandwidth): overlap ops that use different resources, use pinned memory for copies, fewer "
             "and larger copies, or kernels with fewer blocks so they can share the GPU";
    case DiagnoseCause::kSmallWork:
      return "capture the launch sequence in a CUDA graph (cudaStreamBeginCapture ... cudaGraphLaunch), or fuse "
             "the kernels so that each launch does more work";
    case DiagnoseCause::kCopyBandwidthBound: {
      const auto* x = std::get_if<CopyBoundFacts>(&f.facts);
      return x != nullptr ? CopyBoundRemedy(*x) : "";
    }
    case DiagnoseCause::kRoundTrip: {
      const auto* x = std::get_if<RoundTripFacts>(&f.facts);
      return x != nullptr ? RoundTripRemedy(*x) : "";
    }
    case DiagnoseCause::kSmallGrid: {
      const auto* x = std::get_if<SmallGridFacts>(&f.facts);
      return x != nullptr ? SmallGridRemedy(*x) : "";
    }
  }
  return "";
}

std::string DiagnoseCostAndSaving(const DiagnoseFinding& f, int64_t gpu_span_ns) {
  std::string s = absl::StrCat("measured cost ", FormatDuration(f.impact_ns), " (",
                               FormatShare(f.impact_ns, gpu_span_ns), " of the GPU span)");
  if (!f.saving_estimated) {
    // Causes whose fix a replay cannot model say which change that is.
    switch (f.cause) {
      case DiagnoseCause::kCopyBandwidthBound:
        return absl::StrCat(s, "; saving not estimated (no what-if models moving fewer bytes)");
      case DiagnoseCause::kSmallGrid:
        return absl::StrCat(s, "; saving not estimated (no what-if models a larger grid)");
      default: return absl::StrCat(s, "; no saving estimate for this cause");
    }
  }
  // Why the estimate and the cost differ, when they do by much.
  const int64_t threshold = gpu_span_ns / 100;
  if (f.estimated_saving_ns <= 0 && f.impact_ns < threshold) return absl::StrCat(s, "; estimated saving none");
  if (f.estimated_saving_ns <= 0 || (f.impact_ns >= threshold && f.estimated_saving_ns < threshold)) {
    return absl::StrCat(s, "; estimated saving ",
                        f.estimated_saving_ns <= 0 ? std::string("none") : FormatDuration(f.estimated_saving_ns),
                        ": the window would not end sooner, because with this cause alone removed the same gaps "
                        "still wait for another cause (the host work or the wait of the other findings, or the "
                        "work on another stream) on the critical path");
  }
  std::string saving = absl::StrCat(s, "; estimated saving ", FormatDuration(f.estimated_saving_ns), " (",
                                    FormatShare(f.estimated_saving_ns, gpu_span_ns), ")");
  if (f.estimated_saving_ns > f.impact_ns + f.impact_ns / 10 + 1'000) {
    absl::StrAppend(&saving,
                    ", more than its measured cost: the replay also moves what waited behind the cause (later "
                    "submissions, their launch path, work on other streams), while the cost counts only the idle "
                    "time the partition gives this cause");
  }
  return saving;
}

std::string DiagnoseSavingNote() {
  return "Estimated saving: how much earlier the window's last GPU op would end without the cause, replayed on the "
         "trace's dependency graph; an estimate only: `streamscope compare` against a control run measures a saving.";
}

std::string DiagnoseNoteText(const DiagnoseNote& note) {
  switch (note.kind) {
    case DiagnoseNote::Kind::kNoOpsInWindow: return "no GPU op starts inside the window: nothing to diagnose";
    case DiagnoseNote::Kind::kCopyEnginesUnknown:
      return absl::StrCat("device ", note.value, ": copy engine count not recorded; hardware limits not checked");
    case DiagnoseNote::Kind::kFirstOfWindows: return absl::StrCat("diagnosed the first of ", note.value, " windows");
  }
  return "";
}

std::map<std::string, std::string> DiagnoseLabels(const DiagnoseFinding& f) {
  std::map<std::string, std::string> labels = f.labels;
  if (const auto* x = std::get_if<PageableCopiesFacts>(&f.facts)) {
    for (const PageableCopiesFacts::Direction& d : x->directions) {
      if (d.reference == PageableCopiesFacts::Reference::kNone) continue;
      labels[std::string(OpCategoryName(d.category)) + "_reference"] = ReferenceText(d);
    }
  }
  if (const auto* x = std::get_if<CopyBoundFacts>(&f.facts)) {
    labels["reference"] =
        x->reference == CopyBoundFacts::Reference::kThisTrace ? "pinned copies in this trace" : "device link";
    if (x->link) labels["link"] = HostLinkName(*x->link);
  }
  return labels;
}

std::string DiagnoseCombinedText(const CombinedEstimate& c) {
  std::vector<std::string> parts, alone;
  if (c.waits_alone_ns >= 0) {
    parts.push_back("the host's waits for the GPU");
    alone.push_back("waits " + FormatDuration(c.waits_alone_ns));
  }
  if (c.host_alone_ns >= 0) {
    parts.push_back("its work between CUDA calls");
    alone.push_back("host work " + FormatDuration(c.host_alone_ns));
  }
  if (c.launches_alone_ns >= 0) {
    parts.push_back("the time launch calls block it");
    alone.push_back("launch calls " + FormatDuration(c.launches_alone_ns));
  }
  std::string list;
  for (size_t i = 0; i < parts.size(); ++i) {
    list += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
  }
  std::string each;
  for (size_t i = 0; i < alone.size(); ++i) each += (i == 0 ? "" : ", ") + alone[i];
  std::string fixes;
  if (c.waits_alone_ns >= 0) fixes += "wait less often (test results every k iterations, or on the GPU), ";
  if (c.host_alone_ns >= 0) fixes += "move host preparation off the submitting thread or ahead of it, ";
  if (c.launches_alone_ns >= 0) fixes += "launch less often (a CUDA graph of the loop, fused kernels), ";
  if (fixes.size() >= 2) fixes.resize(fixes.size() - 2);
  return absl::StrCat("Acting together: removing ", list, " at once would save about ", FormatDuration(c.together_ns),
                      " (alone: ", each, "; more than those add up to). They act on the same gaps: each fix ",
                      "alone leaves the GPU waiting for the others. Fix them together: ", fixes, ".");
}

}  // namespace streamscope
