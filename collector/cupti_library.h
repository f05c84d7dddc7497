// The libcupti of this process, loaded at run time (dlopen; preferring a copy
// the process already loaded, e.g. PyTorch's) behind the CuptiApi interface.
// Thread-safe; loaded once per process and never unloaded.
#ifndef STREAMSCOPE_COLLECTOR_CUPTI_LIBRARY_H_
#define STREAMSCOPE_COLLECTOR_CUPTI_LIBRARY_H_

#include "collector/status.h"

namespace streamscope::collector {

class CuptiApi;

// The process's CUPTI, loaded on first use; an error says where it looked.
StatusOr<CuptiApi*> SystemCupti();

// Whether libcupti can be found, without starting anything (for messages).
Status CuptiAvailable();

// Forwards NVTX's injection handshake to CUPTI's InitializeInjectionNvtx2 so
// that NVTX ranges become CUPTI MARKER records. Returns NVTX's success flag
// (1) or 0 when CUPTI cannot be loaded.
int ForwardNvtxInjection(const void* get_export_table);

}  // namespace streamscope::collector

#endif  // STREAMSCOPE_COLLECTOR_CUPTI_LIBRARY_H_
