// Which traces get the PyTorch wording of the round trip's remedy.
#include "analyzer/analysis/causes/round_trip.h"

#include <string>

#include "gtest/gtest.h"
#include "tests/analyzer/model/model_builder.h"

namespace streamscope {
namespace {

TraceModel WithKernel(const std::string& name) {
  testing::ModelBuilder b;
  b.Stream(7, StreamKind::kLegacyDefault);
  b.Kernel(name, 7, 1'000, 2'000, testing::ApiTimes{0, 500, 1});
  return b.Build();
}

TEST(RoundTrip, PyTorchIsRecognizedByItsAtenKernels) {
  // As CUPTI (and so a streamscope trace) names them: mangled.
  EXPECT_TRUE(IsPyTorchTrace(
      WithKernel("_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_")));
  // Demangled (torch.profiler, Nsight Systems).
  EXPECT_TRUE(IsPyTorchTrace(WithKernel("void at::native::vectorized_elementwise_kernel<4>(int)")));
  EXPECT_TRUE(IsPyTorchTrace(WithKernel("aten::add_")));
  EXPECT_FALSE(IsPyTorchTrace(WithKernel("_Z8kernel_APll")));
  EXPECT_FALSE(IsPyTorchTrace(WithKernel("saxpy")));
}

}  // namespace
}  // namespace streamscope
