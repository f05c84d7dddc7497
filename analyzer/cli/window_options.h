// The window options of report, diagnose, export and facts (--window whole,
// --nvtx NAME [--nvtx-instance K], --from NS --to NS [--absolute] [--clip])
// registered and turned into a WindowSpec in one place, so that every
// command words, checks and resolves them alike.
#ifndef STREAMSCOPE_ANALYZER_CLI_WINDOW_OPTIONS_H_
#define STREAMSCOPE_ANALYZER_CLI_WINDOW_OPTIONS_H_

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "CLI/CLI.hpp"
#include "analyzer/analysis/windows/window.h"

namespace streamscope {

struct WindowArgs {
  std::string window;  // --window ("whole")
  std::string nvtx;    // --nvtx
  int nvtx_instance = 0;
  int64_t from = 0, to = 0;
  bool absolute = false;
  bool clip = false;
  // Set by AddWindowOptions: their counts tell what was given.
  const CLI::Option* window_option = nullptr;
  const CLI::Option* from_option = nullptr;
};

// Adds --window, --nvtx (described by `nvtx_help`: what the command does
// with the instances), --nvtx-instance, --from, --to, --absolute and --clip,
// bound to `args`, with the rules between them: --nvtx-instance needs
// --nvtx; --nvtx excludes --from, --to and --window; --from and --to need
// each other and exclude --window; --absolute and --clip need --from.
void AddWindowOptions(CLI::App* cmd, WindowArgs* args, const std::string& nvtx_help);

// The NVTX range if named, else the explicit range, else the whole trace
// for --window whole, else the default window. nullopt, after one line
// "streamscope: <command>: ..." on `err`, for an empty or reversed explicit
// range or a time before the trace start (a usage error). Whether a range
// lies inside the trace is checked where it is resolved (ResolveWindows).
std::optional<WindowSpec> WindowSpecFromArgs(const WindowArgs& args, std::string_view command, std::ostream& err);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_CLI_WINDOW_OPTIONS_H_
