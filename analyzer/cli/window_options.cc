#include "analyzer/cli/window_options.h"

#include "analyzer/cli/cli_setup.h"

namespace streamscope {

void LinkWindowOptions(CLI::Option* window, CLI::Option* nvtx, CLI::Option* instance, CLI::Option* from,
                       CLI::Option* to, CLI::Option* absolute) {
  instance->needs(nvtx);
  nvtx->excludes(from)->excludes(to)->excludes(window);
  from->needs(to);
  to->needs(from);
  from->excludes(window);
  absolute->needs(from);
}

WindowOptionsGiven AddWindowOptions(CLI::App* cmd, WindowArgs* args, const std::string& window_help,
                                    const std::string& nvtx_help, const CLI::Validator& window_check) {
  auto* window = cmd->add_option("--window", args->window, window_help)->check(window_check);
  auto* nvtx = cmd->add_option("--nvtx", args->nvtx, nvtx_help);
  auto* instance = cmd->add_option("--nvtx-instance", args->nvtx_instance,
                                   "Only the K-th instance (1-based, in start order) of the --nvtx range")
                       ->check(AtLeast(1))
                       ->default_str("all");
  auto* from =
      cmd->add_option("--from", args->from, "Window start, ns from the trace start (see --absolute)")->default_str("");
  auto* to = cmd->add_option("--to", args->to, "Window end, ns from the trace start (see --absolute)")->default_str("");
  auto* absolute = cmd->add_flag("--absolute", args->absolute, "--from/--to are absolute trace-clock times");
  LinkWindowOptions(window, nvtx, instance, from, to, absolute);
  return {window, from};
}

std::optional<WindowSpec> WindowSpecFromArgs(const WindowArgs& args, bool range_given, bool whole_given,
                                             std::string_view command, std::ostream& err) {
  WindowSpec spec;
  if (!args.nvtx.empty()) {
    spec.kind = WindowSpec::Kind::kNvtxRange;
    spec.nvtx_name = args.nvtx;
    if (args.nvtx_instance > 0) spec.nvtx_instance = args.nvtx_instance;
  } else if (range_given) {
    if (args.to <= args.from) {
      err << "streamscope: " << command << ": --to must be greater than --from\n";
      return std::nullopt;
    }
    spec.kind = WindowSpec::Kind::kExplicit;
    spec.start_ns = args.from;
    spec.end_ns = args.to;
    spec.relative_to_trace_start = !args.absolute;
  } else if (whole_given) {
    spec.kind = WindowSpec::Kind::kWholeTrace;
  }
  return spec;
}

}  // namespace streamscope
