// STREAMSCOPE_PROFILE=1 prints the time of each phase to stderr (for the
// benchmark: where the seconds go). One timer per process.
#ifndef STREAMSCOPE_ANALYZER_PIPELINE_PHASE_TIMER_H_
#define STREAMSCOPE_ANALYZER_PIPELINE_PHASE_TIMER_H_

namespace streamscope {

// Prints the wall and CPU time since the previous mark, and the peak
// memory, system time, page faults and the heap in use, when
// STREAMSCOPE_PROFILE is set; otherwise does nothing.
void MarkPhase(const char* phase);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_PIPELINE_PHASE_TIMER_H_
