// The window options of report, diagnose, export and facts (--window whole,
// --nvtx NAME [--nvtx-instance K], --from NS --to NS [--absolute]) turned
// into a WindowSpec in one place. Each command registers the options itself
// (help texts and defaults differ) into a WindowArgs.
#ifndef STREAMSCOPE_ANALYZER_CLI_WINDOW_OPTIONS_H_
#define STREAMSCOPE_ANALYZER_CLI_WINDOW_OPTIONS_H_

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "CLI/CLI.hpp"
#include "analyzer/analysis/window.h"

namespace streamscope {

struct WindowArgs {
  std::string window;  // --window ("whole")
  std::string nvtx;    // --nvtx
  int nvtx_instance = 0;
  int64_t from = 0, to = 0;
  bool absolute = false;
};

// The rules between the window options, the same in every command:
// --nvtx-instance needs --nvtx; --nvtx excludes --from, --to and --window;
// --from and --to need each other and exclude --window; --absolute needs
// --from.
void LinkWindowOptions(CLI::Option* window, CLI::Option* nvtx, CLI::Option* instance, CLI::Option* from,
                       CLI::Option* to, CLI::Option* absolute);

// Adds --window (checked by `window_check`), --nvtx, --nvtx-instance (at
// least 1, shown default "all"), --from, --to (no shown default) and
// --absolute, bound to `args`, in that order, and links them
// (LinkWindowOptions). The help of --window and --nvtx says what the
// command does with them. Returns --window and --from, whose counts tell
// whether the whole trace or a range was asked for.
struct WindowOptionsGiven {
  CLI::Option* window;
  CLI::Option* from;
};
WindowOptionsGiven AddWindowOptions(CLI::App* cmd, WindowArgs* args, const std::string& window_help,
                                    const std::string& nvtx_help, const CLI::Validator& window_check);

// The NVTX range if named, else the explicit range if `range_given`, else
// the whole trace if `whole_given`, else the default window. nullopt, after
// "streamscope: <command>: --to must be greater than --from" on `err`, for
// an empty or reversed explicit range (a usage error).
std::optional<WindowSpec> WindowSpecFromArgs(const WindowArgs& args, bool range_given, bool whole_given,
                                             std::string_view command, std::ostream& err);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_CLI_WINDOW_OPTIONS_H_
