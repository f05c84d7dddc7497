// A Device for synthetic test models: the fields a test names, with
// designated initializers in Device's field order, and a plain test GPU for
// the rest: ordinal 0, named "Test GPU", two copy engines, concurrent
// kernels; compute capability, SMs, memory and host link not recorded, as
// in a trace that lacks them.
//   b.model().devices.push_back(TestDevice({.sm_count = 132, .async_engine_count = 3}));
#ifndef STREAMSCOPE_TESTS_ANALYZER_MODEL_TEST_DEVICE_H_
#define STREAMSCOPE_TESTS_ANALYZER_MODEL_TEST_DEVICE_H_

#include <cstdint>
#include <string>
#include <utility>

#include "analyzer/model/trace_model.h"

namespace streamscope::testing {

// Device's fields a test may name, each with its default here (a Device
// named with designated initializers must name those that have none).
struct TestDeviceFields {
  int32_t id = 0;
  std::string name = "Test GPU";
  int32_t compute_major = 0, compute_minor = 0;
  int32_t sm_count = 0;
  int32_t async_engine_count = 2;
  int32_t concurrent_kernels = 1;
  int64_t global_memory_bytes = 0;
  Device::HostLink link = {};
};

inline Device TestDevice(TestDeviceFields f = {}) {
  return Device{.id = f.id,
                .name = std::move(f.name),
                .uuid = {},
                .compute_major = f.compute_major,
                .compute_minor = f.compute_minor,
                .sm_count = f.sm_count,
                .async_engine_count = f.async_engine_count,
                .concurrent_kernels = f.concurrent_kernels,
                .global_memory_bytes = f.global_memory_bytes,
                .link = std::move(f.link)};
}

}  // namespace streamscope::testing

#endif  // STREAMSCOPE_TESTS_ANALYZER_MODEL_TEST_DEVICE_H_
