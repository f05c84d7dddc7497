// glibc malloc settings for the CLI's process, made once at start-up.
#ifndef STREAMSCOPE_ANALYZER_CLI_HEAP_SETTINGS_H_
#define STREAMSCOPE_ANALYZER_CLI_HEAP_SETTINGS_H_

namespace streamscope {

// Serves every allocation, large ones and those of other threads included,
// from one heap that is never given back, so that memory freed by one phase
// is reused by the next instead of being mapped and faulted in again.
void KeepLargeBuffersOnTheHeap();

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_CLI_HEAP_SETTINGS_H_
