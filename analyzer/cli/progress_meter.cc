#include "analyzer/cli/progress_meter.h"

#include <unistd.h>

#include "absl/strings/str_format.h"
#include "analyzer/base/threads.h"

namespace streamscope {
namespace {

constexpr std::chrono::milliseconds kRedraw{250};
constexpr std::chrono::seconds kRepeatLine{5};

double SecondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

ProgressMeter::Mode ProgressMeter::ModeFor(bool forced, bool stderr_is_terminal) {
  if (forced) return stderr_is_terminal ? Mode::kTerminal : Mode::kLines;
  return stderr_is_terminal ? Mode::kTerminal : Mode::kOff;
}

ProgressMeter::Mode ProgressModeForStderr(bool forced) {
  return ProgressMeter::ModeFor(forced, isatty(STDERR_FILENO) == 1);
}

void AddProgressFlag(CLI::App* cmd, bool* progress) {
  cmd->add_flag("--progress", *progress,
                "Show progress on stderr from the start, one line per phase (default: a progress line only "
                "when stderr is a terminal and the work takes over 2 s)");
}

ProgressMeter::ProgressMeter(Mode mode, std::ostream& err, std::chrono::milliseconds delay)
    : mode_(mode), err_(err), delay_(delay) {
  if (mode_ == Mode::kOff) return;
  SetProgressSink(this);
  // Under STREAMSCOPE_THREADS=1 the command runs on one thread: the line
  // then changes only with the phase (Update), never redrawn in between.
  if (ThreadsAllowed()) thread_ = std::thread([this] { Loop(); });
}

ProgressMeter::~ProgressMeter() {
  if (mode_ == Mode::kOff) return;
  SetProgressSink(nullptr);
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    ClearLocked();
    if (mode_ == Mode::kLines && shown_any_) {
      err_ << absl::StrFormat("streamscope: done in %.1f s\n", SecondsSince(start_)) << std::flush;
    }
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ProgressMeter::Update(absl::string_view phase, int64_t done, int64_t total) {
  std::lock_guard<std::mutex> lock(mu_);
  const bool new_phase = phase != phase_;
  phase_ = std::string(phase);
  done_ = done;
  total_ = total;
  if (new_phase) phase_start_ = Clock::now();
  // The runner may write next: never leave a half line on the terminal.
  ClearLocked();
  // Without the redraw loop (STREAMSCOPE_THREADS=1) a terminal's line is
  // shown here, at each update.
  const bool show = mode_ == Mode::kLines ? new_phase : !thread_.joinable();
  if (show && !phase_.empty() && Clock::now() - start_ >= delay_) ShowLocked();
}

std::string ProgressMeter::LineLocked() const {
  std::string line = "streamscope: " + phase_;
  if (total_ > 0) line += absl::StrFormat(" %d/%d", done_, total_);
  line += absl::StrFormat(" (%.1f s)", SecondsSince(start_));
  return line;
}

void ProgressMeter::ShowLocked() {
  if (phase_.empty()) return;
  if (mode_ == Mode::kTerminal) {
    err_ << "\r\033[K" << LineLocked() << std::flush;
    line_shown_ = true;
  } else {
    err_ << LineLocked() << "\n" << std::flush;
    last_line_ = Clock::now();
  }
  shown_any_ = true;
}

void ProgressMeter::ClearLocked() {
  if (mode_ == Mode::kTerminal && line_shown_) {
    err_ << "\r\033[K" << std::flush;
    line_shown_ = false;
  }
}

void ProgressMeter::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    wake_.wait_for(lock, kRedraw);
    if (stop_ || phase_.empty() || Clock::now() - start_ < delay_) continue;
    if (mode_ == Mode::kTerminal) {
      ShowLocked();
    } else if (Clock::now() - last_line_ >= kRepeatLine || !shown_any_) {
      ShowLocked();
    }
  }
}

}  // namespace streamscope
