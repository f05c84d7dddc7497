// Shows the runners' progress (commands/progress.h) on stderr: on a
// terminal, one line rewritten in place from the moment the command has run
// two seconds; with --progress, from the start, one line per phase (and a
// repeat every 5 s of a long phase), which also suits logs and pipes.
#ifndef STREAMSCOPE_ANALYZER_CLI_PROGRESS_METER_H_
#define STREAMSCOPE_ANALYZER_CLI_PROGRESS_METER_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>

#include "CLI/CLI.hpp"
#include "analyzer/commands/progress.h"

namespace streamscope {

class ProgressMeter : public ProgressSink {
 public:
  enum class Mode { kOff, kTerminal, kLines };
  // kLines with --progress, else kTerminal when stderr is a terminal.
  static Mode ModeFor(bool forced, bool stderr_is_terminal);

  // Installs itself as the process's sink; `delay` is how long work runs
  // before anything is shown.
  ProgressMeter(Mode mode, std::ostream& err, std::chrono::milliseconds delay);
  ~ProgressMeter() override;  // hides the line and uninstalls
  ProgressMeter(const ProgressMeter&) = delete;
  ProgressMeter& operator=(const ProgressMeter&) = delete;

  void Update(absl::string_view phase, int64_t done, int64_t total) override;

 private:
  using Clock = std::chrono::steady_clock;
  void Loop();
  void ShowLocked();   // writes the current phase
  void ClearLocked();  // terminal: erases the line
  std::string LineLocked() const;

  const Mode mode_;
  std::ostream& err_;
  const std::chrono::milliseconds delay_;
  const Clock::time_point start_ = Clock::now();
  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::string phase_;
  int64_t done_ = 0, total_ = 0;
  Clock::time_point phase_start_ = start_, last_line_ = start_;
  bool line_shown_ = false;  // terminal: a line is on screen
  bool shown_any_ = false;
  std::thread thread_;
};

// The --progress flag of report, export and convert.
void AddProgressFlag(CLI::App* cmd, bool* progress);

// The meter for one command (off unless stderr is a terminal or `forced`).
ProgressMeter::Mode ProgressModeForStderr(bool forced);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_CLI_PROGRESS_METER_H_
