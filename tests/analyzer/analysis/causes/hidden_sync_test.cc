#include "analyzer/analysis/causes/hidden_sync.h"

#include <sstream>

#include "analyzer/analysis/causes/gap_causes.h"
#include "analyzer/render/hidden_sync_render.h"
#include "gtest/gtest.h"
#include "tests/analyzer/analysis/windows/test_windows.h"
#include "tests/analyzer/model/model_builder.h"
#include "tests/analyzer/model/test_units.h"

namespace streamscope {
namespace {

using testing::ApiTimes;
using testing::ModelBuilder;

using testing::us;

using testing::WindowOf;

const ImplicitSyncTotal* TotalFor(const HiddenSyncResult& r, const TraceModel& m, std::string_view name) {
  for (const ImplicitSyncTotal& t : r.implicit_totals) {
    if (m.strings.Get(t.name) == name) return &t;
  }
  return nullptr;
}

// Legacy stream 7 and a second stream 13 of the given kind on device 0.
// kernel 1 'legacy' on stream 7 runs [5, 100) us; kernel 2 'user' on stream
// 13 is launched at [10, 12) us, after it, and starts at 101 us. Then the
// reverse: kernel 3 'user_b' on stream 13 runs [120, 200) us and kernel 4
// 'legacy_b' on stream 7, launched at [130, 131) us, starts at 201 us.
TraceModel LegacyAndOtherStream(StreamKind other) {
  ModelBuilder b;
  b.Stream(7, StreamKind::kLegacyDefault);
  b.Stream(13, other);
  b.Kernel("legacy", 7, us(5), us(100), ApiTimes{us(0), us(1), 1});
  b.Kernel("user", 13, us(101), us(111), ApiTimes{us(10), us(12), 1});
  b.Kernel("user_b", 13, us(120), us(200), ApiTimes{us(115), us(116), 1});
  b.Kernel("legacy_b", 7, us(201), us(210), ApiTimes{us(130), us(131), 1});
  return b.Build();
}

TEST(HiddenSync, LegacyStreamOpDelaysBlockingStream) {
  TraceModel m = LegacyAndOtherStream(StreamKind::kBlocking);
  HiddenSyncResult r = AnalyzeHiddenSync(m, WindowOf(0, us(210)));
  ASSERT_EQ(r.serialization.size(), 2u);
  const SerializationFinding& a = r.serialization[0];
  EXPECT_EQ(a.direction, SerializationDirection::kBlockingWaitedForLegacy);
  EXPECT_EQ(m.ops.source_id[a.delayed_op], 2);
  EXPECT_EQ(m.ops.source_id[a.waited_op], 1);
  EXPECT_EQ(a.ready_ns, us(12));
  EXPECT_EQ(a.delay_ns, us(89));
  const SerializationFinding& b = r.serialization[1];
  EXPECT_EQ(b.direction, SerializationDirection::kLegacyWaitedForBlocking);
  EXPECT_EQ(m.ops.source_id[b.delayed_op], 4);
  EXPECT_EQ(m.ops.source_id[b.waited_op], 3);
  EXPECT_EQ(b.delay_ns, us(70));  // ready at 131 (its call ended; stream 7 idle since 100)
  EXPECT_EQ(r.serialization_count[0], 1);
  EXPECT_EQ(r.serialization_delay_ns[0], us(89));
  EXPECT_EQ(r.serialization_delay_ns[1], us(70));

  std::ostringstream text;
  RenderHiddenSyncText(r, m, text);
  EXPECT_NE(text.str().find("kernel 2 'user' (stream 13, blocking) was ready at +12.0 us but "
                            "started at +101 us, right after kernel 1 'legacy' "
                            "(stream 7, legacy_default) ended: 89.0 us delay."),
            std::string::npos)
      << text.str();
}

TEST(HiddenSync, PerThreadDefaultStreamAlsoWaitsForLegacy) {
  TraceModel m = LegacyAndOtherStream(StreamKind::kPerThreadDefault);
  EXPECT_EQ(AnalyzeHiddenSync(m, WindowOf(0, us(210))).serialization.size(), 2u);
}

TEST(HiddenSync, NonBlockingStreamIsNotSerialized) {
  TraceModel m = LegacyAndOtherStream(StreamKind::kNonBlocking);
  HiddenSyncResult r = AnalyzeHiddenSync(m, WindowOf(0, us(210)));
  EXPECT_TRUE(r.serialization.empty());
  EXPECT_EQ(r.serialization_delay_ns[0] + r.serialization_delay_ns[1], 0);
}

TEST(HiddenSync, OpSubmittedBeforeTheLegacyOpIsNotItsVictim) {
  ModelBuilder b;
  b.Stream(7, StreamKind::kLegacyDefault);
  b.Stream(13, StreamKind::kBlocking);
  // 'user' (ready at 20 us) starts right after 'legacy' ends, but it was
  // launched before 'legacy', so the legacy stream did not hold it back.
  b.Kernel("user_prev", 13, us(0), us(20), ApiTimes{us(0), us(1), 1});
  b.Kernel("legacy", 7, us(5), us(100), ApiTimes{us(3), us(4), 1});
  b.Kernel("user", 13, us(101), us(111), ApiTimes{us(2), us(3), 1});
  TraceModel m = b.Build();
  HiddenSyncResult r = AnalyzeHiddenSync(m, WindowOf(0, us(111)));
  EXPECT_TRUE(r.serialization.empty());
}

TEST(HiddenSync, PageableAsyncCopyHoldsTheHost) {
  ModelBuilder b;
  b.Stream(13, StreamKind::kNonBlocking);
  b.Copy(OpCategory::kHtoD, MemoryKind::kPageable, MemoryKind::kDevice, 13, us(50), us(1850),
         ApiTimes{us(0), us(1900), 7});
  // Pinned: returns at once, not flagged.
  b.Copy(OpCategory::kHtoD, MemoryKind::kPinned, MemoryKind::kDevice, 13, us(2010), us(2300),
         ApiTimes{us(2000), us(2005), 7});
  TraceModel m = b.Build();
  HiddenSyncResult r = AnalyzeHiddenSync(m, WindowOf(0, us(2300)));
  ASSERT_EQ(r.implicit_calls.size(), 1u);
  const ImplicitSyncFinding& f = r.implicit_calls[0];
  EXPECT_EQ(f.kind, ImplicitSyncKind::kPageableAsyncMemcpy);
  EXPECT_TRUE(f.observed);
  EXPECT_EQ(m.ops.source_id[f.own_op], 1);
  const ImplicitSyncTotal* t = TotalFor(r, m, "cudaMemcpyAsync");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->calls, 1);
  EXPECT_EQ(t->call_ns, us(1900));
  nlohmann::json j = HiddenSyncToJson(r, m);
  EXPECT_EQ(j["implicit_sync"]["worst"][0]["own_op"]["src_kind"], "pageable");
  EXPECT_EQ(j["implicit_sync"]["worst"][0]["kind"], "pageable_async_memcpy");
}

TEST(HiddenSync, CudaMallocInLoopIsImplicitSync) {
  ModelBuilder b;
  b.Stream(13, StreamKind::kNonBlocking);
  for (int i = 0; i < 3; ++i) {
    int64_t t0 = us(100) * i;
    b.Kernel("work", 13, t0, t0 + us(80), ApiTimes{t0 - us(5), t0 - us(4), 7});
    b.Api("cudaMalloc", 7, t0 + us(10), t0 + us(82));  // returns once 'work' drained
  }
  b.Api("cudaMalloc", 7, us(400), us(403));  // nothing pending: listed, not observed
  TraceModel m = b.Build();
  HiddenSyncResult r = AnalyzeHiddenSync(m, WindowOf(-us(10), us(500)));
  const ImplicitSyncTotal* t = TotalFor(r, m, "cudaMalloc");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->kind, ImplicitSyncKind::kAllocFree);
  EXPECT_EQ(t->calls, 4);
  EXPECT_EQ(t->observed_calls, 3);
  EXPECT_EQ(t->waited_ns, 3 * us(70));
  EXPECT_EQ(t->call_ns, 3 * us(72) + us(3));
  ASSERT_EQ(r.implicit_calls.size(), 4u);
  EXPECT_EQ(m.ops.source_id[r.implicit_calls[1].waited_for_op], 2);
  EXPECT_EQ(r.implicit_calls[1].drained_ops, 1);
  EXPECT_FALSE(r.implicit_calls[3].observed);
}

TEST(HiddenSync, SyncMemcpyWaitsForEarlierWorkBeforeItsCopy) {
  ModelBuilder b;
  b.Stream(7, StreamKind::kLegacyDefault);
  b.Stream(13, StreamKind::kNonBlocking);
  b.Kernel("work", 13, us(0), us(100), ApiTimes{us(0), us(1), 7});
  b.Copy(OpCategory::kDtoH, MemoryKind::kDevice, MemoryKind::kPageable, 7, us(102), us(150),
         ApiTimes{us(10), us(152), 7}, "cudaMemcpy", /*is_async=*/false);
  // The driver call inside it is not a second finding.
  b.Api("cuMemcpyDtoH_v2", 7, us(11), us(151), -1, ApiDomain::kDriver);
  TraceModel m = b.Build();
  HiddenSyncResult r = AnalyzeHiddenSync(m, WindowOf(0, us(200)));
  ASSERT_EQ(r.implicit_calls.size(), 1u);
  const ImplicitSyncFinding& f = r.implicit_calls[0];
  EXPECT_EQ(f.kind, ImplicitSyncKind::kSyncMemcpy);
  EXPECT_TRUE(f.observed);
  EXPECT_EQ(m.ops.source_id[f.waited_for_op], 1);
  EXPECT_EQ(f.waited_ns, us(90));
}

TEST(HiddenSync, UnusuallyLongCallEndingAtADrainIsFlaggedByTiming) {
  ModelBuilder b;
  b.Stream(13, StreamKind::kNonBlocking);
  b.Kernel("work", 13, us(0), us(100), ApiTimes{us(0), us(1), 7});
  b.Api("cudaFuncGetAttributes", 7, us(40), us(102));  // 62 us, ends 2 us after the drain
  b.Api("cudaEventRecord", 7, us(97), us(101));        // short: a coincidence, not a wait
  b.Api("cudaStreamQuery", 7, us(110), us(200));       // long, but no op ended near its end
  TraceModel m = b.Build();
  HiddenSyncResult r = AnalyzeHiddenSync(m, WindowOf(0, us(300)));
  ASSERT_EQ(r.implicit_calls.size(), 1u);
  EXPECT_EQ(r.implicit_calls[0].kind, ImplicitSyncKind::kTiming);
  EXPECT_EQ(m.strings.Get(m.api.name[r.implicit_calls[0].api]), "cudaFuncGetAttributes");
  EXPECT_EQ(r.implicit_calls[0].waited_ns, us(60));
}

TEST(HiddenSync, ExplicitSyncTimeAndGpuIdleShare) {
  ModelBuilder b;
  b.Stream(13, StreamKind::kNonBlocking, 0);
  b.Stream(23, StreamKind::kNonBlocking, 1);
  b.Kernel("work", 13, us(0), us(100), ApiTimes{us(0), us(1), 7});
  b.Kernel("other_gpu", 23, us(0), us(300), ApiTimes{us(1), us(2), 8});
  // Stream sync on device 0: blocked [20, 150), device 0 idle [100, 150).
  b.Sync(SyncKind::kStreamSynchronize, 13, us(20), us(150), "cudaStreamSynchronize", 7);
  // Device sync with only its API call recorded: no stream, so all devices
  // count; device 1 is busy until 300, so idle [300, 360).
  b.Api("cudaDeviceSynchronize", 7, us(200), us(360));
  TraceModel m = b.Build();
  HiddenSyncResult r = AnalyzeHiddenSync(m, WindowOf(0, us(400)));
  ASSERT_EQ(r.explicit_totals.size(), 2u);
  EXPECT_EQ(r.explicit_totals[0].kind, SyncKind::kContextSynchronize);
  EXPECT_EQ(r.explicit_totals[0].host_ns, us(160));
  EXPECT_EQ(r.explicit_totals[0].gpu_idle_ns, us(60));
  EXPECT_EQ(r.explicit_totals[1].kind, SyncKind::kStreamSynchronize);
  EXPECT_EQ(r.explicit_totals[1].count, 1);
  EXPECT_EQ(r.explicit_totals[1].host_ns, us(130));
  EXPECT_EQ(r.explicit_totals[1].gpu_idle_ns, us(50));
  EXPECT_EQ(r.explicit_host_ns, us(290));
  EXPECT_EQ(r.explicit_gpu_idle_ns, us(110));
  ASSERT_EQ(r.explicit_syncs.size(), 2u);
  EXPECT_EQ(r.explicit_syncs[1].tid, 7);
  EXPECT_EQ(r.explicit_syncs[1].device_id, 0);
  // Explicit syncs are never listed as implicit ones.
  EXPECT_TRUE(r.implicit_calls.empty());
  // A stream wait does not block the host: not counted.
  ModelBuilder with_wait;
  with_wait.Stream(13, StreamKind::kNonBlocking);
  with_wait.Kernel("work", 13, us(0), us(100), ApiTimes{us(0), us(1), 7});
  with_wait.Sync(SyncKind::kStreamWaitEvent, 13, us(2), us(3), "cudaStreamWaitEvent", 7);
  TraceModel mw = with_wait.Build();
  EXPECT_TRUE(AnalyzeHiddenSync(mw, WindowOf(0, us(100))).explicit_totals.empty());
  // A window cutting the stream sync counts only its part.
  HiddenSyncResult cut = AnalyzeHiddenSync(m, WindowOf(us(120), us(140)));
  ASSERT_EQ(cut.explicit_totals.size(), 1u);
  EXPECT_EQ(cut.explicit_totals[0].host_ns, us(20));
  EXPECT_EQ(cut.explicit_totals[0].gpu_idle_ns, us(20));
}

TEST(HiddenSync, ExplicitSyncCitesTheIdleTheAccountChargesToIt) {
  // Kernel [0, 100); cudaStreamSynchronize [2, 120) waits for it; host work
  // until the next launch [150, 151), whose kernel starts at 160. The GPU
  // idles [100, 160): 20 us of it during the sync, and the idle account
  // charges all 60 us to the sync (sync_wait: the host drained the GPU,
  // then decided what to submit).
  ModelBuilder b;
  b.Stream(13, StreamKind::kNonBlocking, 0);
  b.Kernel("work", 13, us(0), us(100), ApiTimes{us(0), us(1), 7});
  b.Sync(SyncKind::kStreamSynchronize, 13, us(2), us(120), "cudaStreamSynchronize", 7);
  b.Kernel("next", 13, us(160), us(200), ApiTimes{us(150), us(151), 7});
  TraceModel m = b.Build();
  const Window w = WindowOf(0, us(200));
  GapCausesOptions go;
  go.charge_calls = true;
  const GapCausesResult gaps = AnalyzeGapCauses(m, w, go);
  EXPECT_EQ(gaps.cause_ns[static_cast<int>(GapCause::kSyncWait)], us(60));
  HiddenSyncResult r = AnalyzeHiddenSync(m, w, {}, &gaps);
  EXPECT_TRUE(r.idle_account);
  ASSERT_EQ(r.explicit_syncs.size(), 1u);
  EXPECT_EQ(r.explicit_syncs[0].gpu_idle_ns, us(20));
  EXPECT_EQ(r.explicit_syncs[0].idle_account_ns, us(60));
  ASSERT_EQ(r.explicit_totals.size(), 1u);
  EXPECT_EQ(r.explicit_totals[0].idle_account_ns, us(60));
  EXPECT_EQ(r.explicit_idle_account_ns, us(60));
  // Without the account: nothing cited.
  HiddenSyncResult own = AnalyzeHiddenSync(m, w);
  EXPECT_FALSE(own.idle_account);
  EXPECT_EQ(own.explicit_idle_account_ns, 0);
}

TEST(HiddenSync, ACallThatBeganBeforeTheWindowAndHeldItIsListed) {
  // A synchronous cudaMemcpy [-10, 50) drains the kernel [-20, 40) and then
  // copies [42, 48): it held the host in the window [0, 100).
  ModelBuilder b;
  b.Stream(13, StreamKind::kNonBlocking, 0);
  b.Kernel("work", 13, us(-20), us(40), ApiTimes{us(-30), us(-29), 7});
  b.Copy(OpCategory::kDtoH, MemoryKind::kDevice, MemoryKind::kPageable, 13, us(42), us(48),
         ApiTimes{us(-10), us(50), 7}, "cudaMemcpy", false);
  TraceModel m = b.Build();
  HiddenSyncResult r = AnalyzeHiddenSync(m, WindowOf(0, us(100)));
  ASSERT_EQ(r.implicit_calls.size(), 1u);
  EXPECT_EQ(r.implicit_calls[0].kind, ImplicitSyncKind::kSyncMemcpy);
  EXPECT_TRUE(r.implicit_calls[0].observed);
  // A call that returned before the window is not.
  EXPECT_TRUE(AnalyzeHiddenSync(m, WindowOf(us(60), us(100))).implicit_calls.empty());
}

TEST(HiddenSync, MissingApiCallsAndEmptyTracesDoNotCrash) {
  ModelBuilder b;
  b.Stream(7, StreamKind::kLegacyDefault);
  b.Stream(13, StreamKind::kBlocking);
  b.Kernel("legacy", 7, us(0), us(100));
  b.Kernel("user", 13, us(101), us(120));
  b.Sync(SyncKind::kEventSynchronize, -1, us(10), us(20));
  TraceModel m = b.Build();
  HiddenSyncResult r = AnalyzeHiddenSync(m, WindowOf(0, us(200)));
  EXPECT_TRUE(r.serialization.empty());  // readiness unknown without the call
  ASSERT_EQ(r.explicit_totals.size(), 1u);
  EXPECT_EQ(r.explicit_syncs[0].tid, -1);
  std::ostringstream text;
  RenderHiddenSyncText(r, m, text);
  TraceModel empty = ModelBuilder().Build();
  HiddenSyncResult e = AnalyzeHiddenSync(empty, WindowOf(0, 0));
  RenderHiddenSyncText(e, empty, text);
  EXPECT_TRUE(HiddenSyncToJson(e, empty)["serialization"]["worst"].empty());
}

TEST(HiddenSync, RandomInconsistentTracesDoNotCrash) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    TraceModel m = testing::RandomInconsistentTrace(seed, 400);
    HiddenSyncResult r = AnalyzeHiddenSync(m, WindowOf(us(100), us(6000)));
    for (const SerializationFinding& f : r.serialization) EXPECT_GT(f.delay_ns, 0);
    for (const ExplicitSyncFinding& f : r.explicit_syncs) {
      EXPECT_LE(f.gpu_idle_ns, f.length()) << "seed " << seed;
      EXPECT_GE(f.gpu_idle_ns, 0);
    }
    std::ostringstream text;
    RenderHiddenSyncText(r, m, text);
    EXPECT_FALSE(HiddenSyncToJson(r, m).dump().empty());
    HiddenSyncToTables(r, m);
  }
}

TEST(HiddenSync, TablesHaveOneValuePerColumn) {
  TraceModel m = LegacyAndOtherStream(StreamKind::kBlocking);
  HiddenSyncResult r = AnalyzeHiddenSync(m, WindowOf(0, us(210)));
  std::vector<ResultTable> tables = HiddenSyncToTables(r, m);
  ASSERT_EQ(tables.size(), 3u);
  EXPECT_EQ(tables[0].name, "analysis_hidden_sync");
  EXPECT_EQ(tables[1].name, "analysis_hidden_sync_serialization");
  EXPECT_EQ(tables[2].name, "analysis_hidden_sync_calls");
  EXPECT_EQ(tables[1].rows.size(), 2u);
  for (const ResultTable& t : tables) {
    for (const auto& row : t.rows) EXPECT_EQ(row.size(), t.columns.size());
  }
  EXPECT_EQ(std::get<int64_t>(tables[1].rows[0][8]), us(89));  // delay_ns
}

}  // namespace
}  // namespace streamscope
