// Runtime API callback ids of calls that only read host-side state: they
// never submit GPU work, wait for it or allocate (see the .cc for the list
// and why). Pure data. Thread-safe.
#ifndef STREAMSCOPE_COLLECTOR_RUNTIME_QUERY_CBIDS_H_
#define STREAMSCOPE_COLLECTOR_RUNTIME_QUERY_CBIDS_H_

#include <cstdint>
#include <span>

namespace streamscope::collector {

std::span<const uint32_t> RuntimeQueryCallbackIds();

}  // namespace streamscope::collector

#endif  // STREAMSCOPE_COLLECTOR_RUNTIME_QUERY_CBIDS_H_
