// Diagnosis step 7, small_grid: kernels launched with far fewer blocks than
// the device has SMs, long enough that the SMs they leave empty matter. A
// block runs on one SM, so a grid of b blocks keeps at most b SMs busy,
// however long it runs; the timeline counts the GPU as busy all the while
// (a tutorial's add<<<1, 1>>> over two 256 MiB managed arrays ran 6.3 s on
// one SM of an A100's 108, and the window looked 92 % busy).
//
// On each device whose SM count is known, over the window's kernels (those
// that start in it, clipped to it): the underfilled time is the time during
// which a small-grid kernel (grid blocks at most half the SMs, duration >=
// small_grid_min_kernel_ns) runs while the blocks of all the kernels running
// add up to fewer than the SMs (a kernel whose grid is not recorded counts as
// filling the device: nothing says it left room). A grid of more than half
// the SMs is one wave with a short tail (cuBLAS picks 128 blocks on 132
// SMs); shorter kernels with small grids are small_work's (launch-bound);
// communication kernels (NCCL: IsCommunicationKernel) take few SMs on
// purpose, to leave the others to the compute they overlap, and never count
// (their blocks still occupy SMs).
// Measured cost: the SM time left empty, the underfilled time with each ns
// weighted by the share of SMs no running block occupied; a cost on busy
// time (the idle partition gives it no idle time). No what-if models a
// larger grid (a kernel that waits on a clock gains nothing from more
// blocks), so the saving is not estimated (saving_estimated stays false).
// Ranking (diagnose_ranking.h): after the other leading findings, and the
// primary cause only when none leads: the diagnosis explains idle time and
// overlap first; a GPU that was busy but mostly empty is what is left.
// Pure function of the model; thread-safe.
#ifndef STREAMSCOPE_ANALYZER_ANALYSIS_SMALL_GRID_H_
#define STREAMSCOPE_ANALYZER_ANALYSIS_SMALL_GRID_H_

#include <cstdint>
#include <vector>

#include "analyzer/analysis/causes/diagnose.h"
#include "analyzer/analysis/windows/trace_facts.h"
#include "analyzer/analysis/windows/window.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

// `ops`: the window's ops (OpsStartingIn). One finding per device with
// underfilled time; none when the grids or the SM counts are not recorded.
std::vector<DiagnoseFinding> FindSmallGrids(const TraceModel& model, const Window& window, OpIndexRange ops,
                                            const DiagnoseOptions& options);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_ANALYSIS_SMALL_GRID_H_
