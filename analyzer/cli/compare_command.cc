// `streamscope compare [options] CONTROL... -- VARIANT... [options]`,
// `streamscope compare --control A... --variant B... [options]` and
// `streamscope compare --run 'CMD_A' --run 'CMD_B' [--repeat N] [--output-dir DIR]`:
// verifies an optimization against its control. Exit 0 when VERIFIED, 10
// (kExitVerdictFailed) otherwise. See analyzer/COMPARE.md.
//
// The trace lists are split at the first "--" by hand (CLI11 cannot split
// two positional lists): the subcommand is a prefix command, and each side
// of the "--" is parsed again below with the same options, so options go
// anywhere ("--" separates the lists; it does not end the options).
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "analyzer/cli/cli_setup.h"
#include "analyzer/cli/command.h"
#include "analyzer/cli/exit_codes.h"
#include "analyzer/commands/command_status.h"
#include "analyzer/commands/compare_runner.h"
#include "analyzer/export/output_file.h"

namespace streamscope {
namespace {

struct CompareArgs {
  std::string nvtx;
  int nvtx_instance = 0;
  std::string window;
  std::string format = "text";
  double noise_pct = 2.0;
  std::string goal = "overlap";
  double min_overlap_pct = 1.0;
  std::vector<std::string> runs;
  int repeat = 3;
  std::string output_dir;
  std::string output;
  bool force = false;
  std::string collector;
  std::vector<std::string> control, variant;              // positional, either side of "--"
  std::vector<std::string> named_control, named_variant;  // --control, --variant
};

void AddCompareFlags(CLI::App* app, CompareArgs* a) {
  app->add_option("--nvtx", a->nvtx,
                  "Window: the NVTX range NAME in every trace (its instances, summed; per instance when repeated), or "
                  "'whole' for the whole GPU activity (default: each run's steady state, see below)");
  app->add_option("--nvtx-instance", a->nvtx_instance, "Only the K-th instance of the range (default: all, summed)")
      ->check(AtLeast(1));
  app->add_option("--window", a->window, "Window: 'whole' = whole GPU activity (first GPU op to last)")
      ->check(OneOf({"whole"}));
  app->add_option("--format", a->format, "Output format")->check(OneOf({"text", "json"}));
  app->add_option("--control", a->named_control, "Control traces (instead of CONTROL... before '--')");
  app->add_option("--variant", a->named_variant, "Variant traces (instead of VARIANT... after '--')");
  app->add_option("--noise", a->noise_pct,
                  "Noise threshold in percent of the control's total (default 2; the run-to-run spread wins if larger)")
      ->check(AtLeast(0));
  app->add_option("--goal", a->goal,
                  "'overlap' (default): overlap must be present; 'speedup': any gain counts (e.g. CUDA graphs)")
      ->check(OneOf({"overlap", "speedup"}));
  app->add_option("--min-overlap", a->min_overlap_pct,
                  "Overlap counts as present from this percentage of the variant's GPU busy time (default 1)")
      ->check(AtLeast(0));
  app->add_option("--run", a->runs, "Record instead of reading traces: --run 'CONTROL CMD' --run 'VARIANT CMD'");
  app->add_option("--repeat", a->repeat, "With --run: runs per side, interleaved A B A B ... (default 3)")
      ->check(CLI::Range(1, 1000).description("1..1000"));
  app->add_option("-o,--output", a->output, "Write the comparison to FILE instead of stdout")
      ->check(OutputFilePath("the folder for --run traces is --output-dir DIR"));
  app->add_option("--output-dir", a->output_dir,
                  "With --run: folder for the traces a-<i>.sqlite and b-<i>.sqlite (default: a new "
                  "streamscope-compare-XXXXXX folder here)");
  app->add_flag("--force", a->force, "Replace an existing -o FILE and, with --run, existing traces in the folder");
  app->add_option("--collector", a->collector, "With --run: path of libstreamscope_collector.so");
}

std::string SelfExe() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string("streamscope");
}

// Runs argv with stdout sent to stderr (the compare's own output stays clean);
// returns its exit status (128+N for a signal), or -1 if it could not start.
int RunChild(const std::vector<std::string>& argv) {
  std::cout.flush();
  std::cerr.flush();
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    dup2(2, 1);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  return WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
}

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

// --run mode: records control (a) and variant (b) runs, interleaved to spread
// drift over both sides, then fills in the trace lists.
int RecordRuns(const CompareArgs& a, CompareCommandOptions& options) {
  if (a.runs.size() != 2) {
    std::cerr << "streamscope: compare: --run needs exactly two commands: --run 'CONTROL CMD' --run 'VARIANT CMD'\n";
    return kExitUsage;
  }
  std::string dir = a.output_dir;
  if (dir.empty()) {
    char tmpl[] = "streamscope-compare-XXXXXX";
    if (mkdtemp(tmpl) == nullptr) {
      std::cerr << "streamscope: compare: cannot create a folder for the traces: " << std::strerror(errno) << "\n";
      return kExitOutputError;
    }
    dir = tmpl;
  } else if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    std::cerr << "streamscope: compare: cannot create " << dir << ": " << std::strerror(errno) << "\n";
    return kExitOutputError;
  }
  std::string self = SelfExe();
  for (int i = 1; i <= a.repeat; ++i) {
    for (int side = 0; side < 2; ++side) {
      std::string path = dir + "/" + (side == 0 ? "a-" : "b-") + std::to_string(i) + ".sqlite";
      if (Exists(path) && !a.force) {
        std::cerr << "streamscope: compare: " << path << ": exists; pass --force to replace it\n";
        return kExitOutputError;
      }
      std::vector<std::string> argv = {self, "run", "-o", path, "--no-summary"};
      // Verifying needs the hazard check: record memory accesses too
      // (opt-in otherwise), unless the user chose the kinds.
      if (std::getenv("STREAMSCOPE_KINDS") == nullptr) argv.insert(argv.end(), {"--kinds", "+memory"});
      if (a.force) argv.push_back("--force");
      if (!a.collector.empty()) argv.insert(argv.end(), {"--collector", a.collector});
      argv.insert(argv.end(), {"--", "/bin/sh", "-c", a.runs[side]});
      std::cerr << "streamscope: compare: run " << (side == 0 ? "control" : "variant") << " " << i << "/" << a.repeat
                << ": " << a.runs[side] << "\n";
      int rc = RunChild(argv);
      if (!Exists(path)) {
        std::cerr << "streamscope: compare: no trace written at " << path << " (exit status " << rc
                  << "; the command never initialized CUDA, or the collector could not start)\n";
        return kExitFileNotFound;
      }
      if (rc != 0) {
        std::cerr << "streamscope: compare: the " << (side == 0 ? "control" : "variant") << " command exited with "
                  << rc << "; comparing its trace anyway (a failed validation is recorded in it)\n";
      }
      (side == 0 ? options.control : options.variant).push_back(path);
    }
  }
  std::cerr << "streamscope: compare: traces in " << dir << "\n";
  return kExitOk;
}

// Parses one side of the "--" again, with every compare option and a
// positional list for that side's traces. Returns an exit code, or -1 to go
// on.
int ParseSide(const CLI::App& cmd, std::vector<std::string> side, const char* positional, CompareArgs* args,
              std::vector<std::string>* traces) {
  if (side.empty()) return -1;
  CLI::App again{"compare"};
  AddCompareFlags(&again, args);
  again.add_option(positional, *traces, "Traces");
  std::reverse(side.begin(), side.end());  // CLI11 parses a reversed vector
  try {
    again.parse(side);
  } catch (const CLI::ParseError& e) {
    if (dynamic_cast<const CLI::CallForHelp*>(&e) != nullptr ||
        dynamic_cast<const CLI::CallForAllHelp*>(&e) != nullptr) {
      std::cout << cmd.help();
      return kExitOk;
    }
    std::cerr << "streamscope: " << ParseErrorLine(again, "compare", e, again.remaining()) << "\n";
    return kExitUsage;
  }
  return -1;
}

// How the default windows are chosen (pipeline/compare_windows.h), ahead of the example.
constexpr const char* kCompareWindowsHelp =
    "Windows (default; each run's window and why are printed, text and JSON):\n"
    "  1. every run's steady state is the same NVTX range: each run's steady state, per instance\n"
    "  2. every trace has the NVTX range 'measured': its instances\n"
    "  3. every run has a steady state, but ranges are renamed or one is a repeating kernel\n"
    "     sequence: each run's steady state, per instance, with a note naming both; if the work\n"
    "     per instance differs while the whole GPU activity's is the same: every run's GPU span\n"
    "  4. a run has no steady state: every run's GPU span (first GPU op to last), saying which\n"
    "  A steady window is never compared with a whole run. Per instance (some run's window holds\n"
    "  repeated instances): the verdict is on the time per instance (mean period between the\n"
    "  instances' GPU starts, one-off stalls over 3x the median left out) with instance counts,\n"
    "  and work is compared per instance; else on the total interval (first GPU op to last).\n"
    "  Details: analyzer/COMPARE.md \"Windows\".\n";

}  // namespace

void RegisterCompareCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<CompareArgs>();
  CLI::App* cmd = app.add_subcommand(
      "compare",
      "Verify an optimization: compare [options] CONTROL... -- VARIANT... (or --control A --variant B, or --run 'A' "
      "--run 'B' --repeat N); same work, validation, overlap present, total improved beyond noise");
  AddCompareFlags(cmd, args.get());
  SetExample(cmd, "streamscope compare tests/data/sequential.sqlite -- tests/data/overlapped.sqlite --nvtx measured");
  cmd->footer(std::string(kCompareWindowsHelp) + cmd->get_footer());
  cmd->prefix_command();  // the trace lists are parsed in the callback
  cmd->callback([cmd, args, exit_code]() {
    std::vector<std::string> rest = cmd->remaining();
    auto sep = std::find(rest.begin(), rest.end(), "--");
    const bool separated = sep != rest.end();
    std::vector<std::string> left(rest.begin(), sep);
    std::vector<std::string> right;
    if (separated) right.assign(sep + 1, rest.end());
    for (auto [side, positional, traces] :
         {std::tuple{&left, "control", &args->control}, std::tuple{&right, "variant", &args->variant}}) {
      if (int rc = ParseSide(*cmd, *side, positional, args.get(), traces); rc >= 0) {
        *exit_code = rc;
        return;
      }
    }
    CompareCommandOptions options;
    CompareOptions& c = options.compare;
    if (!args->nvtx.empty() && !args->window.empty()) {
      std::cerr << "streamscope: compare: --nvtx and --window exclude each other\n";
      *exit_code = kExitUsage;
      return;
    }
    if (args->nvtx == "whole") {  // `--nvtx whole`: the whole GPU activity
      c.window_rule = CompareOptions::WindowRule::kWholeGpu;
    } else if (!args->nvtx.empty()) {
      c.window_rule = CompareOptions::WindowRule::kNvtx;
      c.nvtx_name = args->nvtx;
    } else if (args->window == "whole") {
      c.window_rule = CompareOptions::WindowRule::kWholeGpu;
    }
    if (args->nvtx_instance > 0) c.nvtx_instance = args->nvtx_instance;
    c.noise_pct = args->noise_pct;
    c.goal = args->goal == "speedup" ? CompareGoal::kSpeedup : CompareGoal::kOverlap;
    c.min_overlap_share = args->min_overlap_pct / 100.0;
    options.format =
        args->format == "json" ? CompareCommandOptions::Format::kJson : CompareCommandOptions::Format::kText;
    // Named lists add to the positional ones.
    std::vector<std::string> control = args->control, variant = args->variant;
    control.insert(control.end(), args->named_control.begin(), args->named_control.end());
    variant.insert(variant.end(), args->named_variant.begin(), args->named_variant.end());
    if (!args->runs.empty()) {
      if (!control.empty() || !variant.empty()) {
        std::cerr << "streamscope: compare: give either trace files or --run commands, not both\n";
        *exit_code = kExitUsage;
        return;
      }
    } else if (control.empty() || variant.empty()) {
      std::cerr << "streamscope: compare: needs control and variant traces: streamscope compare CONTROL... -- "
                   "VARIANT... (or --control A --variant B, or --run 'CONTROL CMD' --run 'VARIANT CMD')\n";
      *exit_code = kExitUsage;
      return;
    }
    // Refuse an existing output before the (long) runs and loads.
    std::unique_ptr<OutputFile> file;
    if (!args->output.empty()) {
      absl::StatusOr<std::unique_ptr<OutputFile>> f = OutputFile::Create(args->output, args->force);
      if (!f.ok()) {
        *exit_code = ExitWith(Prefixed("compare: ", f.status()), std::cerr);
        return;
      }
      file = *std::move(f);
    }
    if (!args->runs.empty()) {
      int rc = RecordRuns(*args, options);
      if (rc != kExitOk) {
        *exit_code = rc;
        return;
      }
    } else {
      options.control = control;
      options.variant = variant;
    }
    std::ostringstream buffer;
    absl::Status status = RunCompare(options, file ? static_cast<std::ostream&>(buffer) : std::cout);
    if (file && (status.ok() || CommandFailureOf(status) == CommandFailure::kVerdictFailed)) {
      file->Write(buffer.str());
      if (absl::Status s = file->Commit(); !s.ok()) status = Prefixed("compare: ", s);
    }
    *exit_code = ExitWith(status, std::cerr);
  });
}

}  // namespace streamscope
