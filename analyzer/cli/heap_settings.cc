#include "analyzer/cli/heap_settings.h"

#include <malloc.h>

namespace streamscope {

// The importer and the analyses allocate and free buffers of tens to
// hundreds of MB many times a run (columns permuted into time order, a
// replay of the dependency graph per what-if cause). Mapped and unmapped
// each time, every page of them is faulted in again: system time grows with
// the pages faulted in, not with the bytes used. So:
// - no mmap below 1 GiB: large blocks come from the heap and go back to it;
// - the heap's top is never given back (-1): at 10M ops the what-ifs free
//   well over 1 GiB there, which the critical path would fault in again;
// - one arena: a thread's own arena cannot hold a block above 64 MiB and
//   maps it instead (the importer's reader threads, the analyses' threads),
//   and what one thread frees another cannot reuse.
// Report at 10M ops: page faults 1.62M -> 1.06M (system time 6.8-9.8 ->
// 3.7-7.8 s), the peak unchanged.
void KeepLargeBuffersOnTheHeap() {
  mallopt(M_ARENA_MAX, 1);
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, -1);
}

}  // namespace streamscope
