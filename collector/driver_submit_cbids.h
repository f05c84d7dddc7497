// Driver API callback ids whose calls submit GPU work (see the .cc for the
// list and why). Pure data. Thread-safe.
#ifndef STREAMSCOPE_COLLECTOR_DRIVER_SUBMIT_CBIDS_H_
#define STREAMSCOPE_COLLECTOR_DRIVER_SUBMIT_CBIDS_H_

#include <cstdint>
#include <span>

namespace streamscope::collector {

std::span<const uint32_t> DriverSubmitCallbackIds();

}  // namespace streamscope::collector

#endif  // STREAMSCOPE_COLLECTOR_DRIVER_SUBMIT_CBIDS_H_
