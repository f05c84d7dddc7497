// `streamscope workloads list` and `streamscope workloads run [NAMES...|--all]
// [--output-dir DIR] [--size small|large] [--force] [--no-report]`: the bundled
// reference workloads (workloads/README.md). `run` records each variant with
// this binary's own `run` subcommand into DIR/<variant>.sqlite, then prints
// `report --nvtx measured` of each trace when the report subcommand exists.
// The workloads program is found next to this binary (or --workloads-bin).
// Nothing here links CUDA: the variant catalog is a header-only table.
#include <spawn.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "analyzer/cli/cli_setup.h"
#include "analyzer/cli/command.h"
#include "analyzer/cli/exit_codes.h"
#include "workloads/harness/variant_catalog.h"

extern char** environ;

namespace streamscope {
namespace {

using workloads::FindVariant;
using workloads::kVariants;
using workloads::VariantInfo;

// Exit codes of streamscope_workloads (workloads/README.md).
constexpr int kWorkloadPassed = 0;
constexpr int kWorkloadValidationFailed = 3;

struct WorkloadsRunArgs {
  std::vector<std::string> names;
  bool all = false;
  std::string output_dir = "streamscope-workloads";
  std::string old_output_dir;  // -o DIR: refused, pointing to --output-dir
  std::string size = "small";
  bool force = false;
  bool no_report = false;
  std::string workloads_bin;
};

std::string SelfPath() {
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

bool IsExecutableFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

// Runs argv[0] with argv, stdio inherited; returns its exit status (128+N
// for a signal) or -1 if it could not be started.
int Spawn(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::fflush(nullptr);
  pid_t pid = -1;
  const int err = posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ);
  if (err != 0) {
    std::fprintf(stderr, "streamscope: workloads: cannot start %s: %s\n", argv[0], std::strerror(err));
    return -1;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

bool HasSubcommand(const CLI::App& app, const std::string& name) {
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_name() == name) return true;
  }
  return false;
}

void PrintList() {
  std::printf("Reference workloads (run one: streamscope workloads run NAME; all: --all).\n");
  std::printf(
      "Each does a fixed amount of work, validates it, and marks its NVTX range "
      "'measured'.\n\n");
  for (const VariantInfo& v : kVariants) {
    std::printf("  %-19s %s\n", std::string(v.name).c_str(), std::string(v.property).c_str());
  }
  std::printf("\nWhat a correct analysis must find for each: workloads/README.md\n");
}

struct Outcome {
  std::string variant;
  std::string result;
  bool ok;
};

// The variants named (or all); kExitOk, or the exit code of a usage error.
int SelectVariants(const WorkloadsRunArgs& args, std::vector<const VariantInfo*>& selected) {
  if (args.all && !args.names.empty()) {
    std::fprintf(stderr, "streamscope: workloads run: give variant names or --all, not both\n");
    return kExitUsage;
  }
  if (args.all) {
    for (const VariantInfo& v : kVariants) selected.push_back(&v);
  }
  for (const std::string& name : args.names) {
    const VariantInfo* v = FindVariant(name);
    if (v == nullptr) {
      std::fprintf(stderr,
                   "streamscope: workloads run: unknown variant '%s' (streamscope workloads list "
                   "shows them)\n",
                   name.c_str());
      return kExitUsage;
    }
    selected.push_back(v);
  }
  if (selected.empty()) {
    std::fprintf(stderr, "streamscope: workloads run: name the variants to run, or pass --all\n");
    return kExitUsage;
  }
  return kExitOk;
}

// The programs a run spawns: this binary and the workloads program.
struct Programs {
  std::string self;
  std::string workloads_bin;
  bool report = false;  // run `report` on each trace
};

// Where the programs are; kExitOk, or the exit code of what is missing.
int FindPrograms(const WorkloadsRunArgs& args, const CLI::App& root, Programs& programs) {
  programs.self = SelfPath();
  if (programs.self.empty()) {
    std::fprintf(stderr, "streamscope: workloads: cannot read /proc/self/exe\n");
    return kExitFailure;
  }
  const std::string bin_dir = programs.self.substr(0, programs.self.rfind('/'));
  programs.workloads_bin = args.workloads_bin.empty() ? bin_dir + "/streamscope_workloads" : args.workloads_bin;
  if (!IsExecutableFile(programs.workloads_bin)) {
    std::fprintf(stderr,
                 "streamscope: workloads: %s not found (it is built with the CUDA toolkit: "
                 "cmake --build BUILD --target streamscope_workloads), or pass --workloads-bin\n",
                 programs.workloads_bin.c_str());
    return kExitFileNotFound;
  }
  if (!HasSubcommand(root, "run")) {
    std::fprintf(stderr, "streamscope: workloads: this streamscope has no 'run' subcommand\n");
    return kExitFailure;
  }
  programs.report = !args.no_report && HasSubcommand(root, "report");
  return kExitOk;
}

// Creates the output folder; never overwrite a trace unless asked.
int PrepareOutputDir(const WorkloadsRunArgs& args, const std::vector<const VariantInfo*>& selected) {
  std::error_code ec;
  std::filesystem::create_directories(args.output_dir, ec);
  if (ec) {
    std::fprintf(stderr, "streamscope: workloads: cannot create %s: %s\n", args.output_dir.c_str(),
                 ec.message().c_str());
    return kExitOutputError;
  }
  for (const VariantInfo* v : selected) {
    const std::string trace = args.output_dir + "/" + std::string(v->name) + ".sqlite";
    if (!args.force && std::filesystem::exists(trace, ec)) {
      std::fprintf(stderr,
                   "streamscope: workloads: %s: exists; pass --force to replace it, or --output-dir another "
                   "folder\n",
                   trace.c_str());
      return kExitOutputError;
    }
  }
  return kExitOk;
}

// Records one variant (and reports its trace).
Outcome RunVariant(const VariantInfo& v, const WorkloadsRunArgs& args, const Programs& programs) {
  std::error_code ec;
  const std::string name(v.name);
  const std::string trace = args.output_dir + "/" + name + ".sqlite";
  std::printf("\n=== %s: %s\n", name.c_str(), std::string(v.property).c_str());
  std::vector<std::string> cmd = {programs.self, "run"};
  if (args.force) cmd.push_back("--force");
  // The workloads' checks include hazards: record memory accesses (opt-in
  // otherwise) unless the user chose the kinds.
  if (std::getenv("STREAMSCOPE_KINDS") == nullptr) cmd.insert(cmd.end(), {"--kinds", "+memory"});
  for (const std::string& a : {std::string("-o"), trace, std::string("--"), programs.workloads_bin,
                               std::string("--variant"), name, std::string("--size"), args.size}) {
    cmd.push_back(a);
  }
  const int rc = Spawn(cmd);
  const bool have_trace = std::filesystem::exists(trace, ec);
  Outcome outcome{name, "", false};
  if (!have_trace) {
    outcome.result = "no trace written (exit " + std::to_string(rc) + "; see messages above)";
  } else if (rc == kWorkloadPassed) {
    outcome.result = "validation passed";
    outcome.ok = true;
  } else if (rc == kWorkloadValidationFailed) {
    outcome.result = v.validation_may_fail ? "validation failed (possible by design: racy)" : "VALIDATION FAILED";
    outcome.ok = v.validation_may_fail;
  } else {
    outcome.result = "failed with exit " + std::to_string(rc);
  }
  if (have_trace && programs.report) {
    std::printf("\n--- streamscope report --nvtx measured %s\n", trace.c_str());
    const int report_rc = Spawn({programs.self, "report", "--nvtx", "measured", trace});
    if (report_rc != 0) outcome.result += "; report exit " + std::to_string(report_rc);
  }
  return outcome;
}

// Prints one line per variant; the command's exit code.
int PrintOutcomes(const WorkloadsRunArgs& args, const std::vector<Outcome>& outcomes, bool report) {
  std::printf("\n=== summary (traces in %s/)\n", args.output_dir.c_str());
  bool all_ok = true;
  for (const Outcome& o : outcomes) {
    std::printf("  %-19s %s %s\n", o.variant.c_str(), o.ok ? "ok  " : "FAIL", o.result.c_str());
    all_ok = all_ok && o.ok;
  }
  if (!report && !args.no_report) {
    std::printf("  (no 'report' subcommand in this build: traces recorded, not analyzed)\n");
  }
  return all_ok ? kExitOk : kExitFailure;
}

int RunWorkloads(const WorkloadsRunArgs& args, const CLI::App& root) {
  std::vector<const VariantInfo*> selected;
  if (int rc = SelectVariants(args, selected); rc != kExitOk) return rc;
  Programs programs;
  if (int rc = FindPrograms(args, root, programs); rc != kExitOk) return rc;
  // A GPU at all? The workloads program says why not.
  if (Spawn({programs.workloads_bin, "--check-device"}) != 0) {
    std::fprintf(stderr,
                 "streamscope: workloads: no usable CUDA GPU on this machine (see above); nothing "
                 "was run. Recorded traces of every variant are in tests/data/ for the "
                 "analyzer.\n");
    return kExitFailure;
  }
  if (int rc = PrepareOutputDir(args, selected); rc != kExitOk) return rc;
  std::vector<Outcome> outcomes;
  for (const VariantInfo* v : selected) outcomes.push_back(RunVariant(*v, args, programs));
  return PrintOutcomes(args, outcomes, programs.report);
}

}  // namespace

void RegisterWorkloadsCommand(CLI::App& app, int* exit_code) {
  CLI::App* cmd =
      app.add_subcommand("workloads", "List or run the bundled reference workloads (known-answer CUDA programs)");
  cmd->require_subcommand(1);
  CLI::App* list = cmd->add_subcommand("list", "List the variants and the property each guarantees");
  list->callback([exit_code] {
    PrintList();
    *exit_code = kExitOk;
  });

  auto args = std::make_shared<WorkloadsRunArgs>();
  CLI::App* run =
      cmd->add_subcommand("run", "Record variants under the collector into DIR/<variant>.sqlite and report each");
  run->add_option("names", args->names, "Variants to run (see 'workloads list')");
  run->add_flag("--all", args->all, "Run every variant");
  auto* output_dir = run->add_option("--output-dir", args->output_dir, "Folder for the traces");
  // -o names an output file in every command; this folder had it first.
  run->add_option("-o", args->old_output_dir, "Was --output-dir; now refused")->group("")->excludes(output_dir);
  run->add_option("--size", args->size, "Parameter preset: small (tests) or large (benchmarks)")
      ->check(OneOf({"small", "large"}));
  run->add_flag("--force", args->force, "Overwrite existing traces");
  run->add_flag("--no-report", args->no_report, "Record only; do not run 'report'");
  run->add_option("--workloads-bin", args->workloads_bin,
                  "Path of streamscope_workloads (default: next to this binary)");
  SetExample(cmd, "streamscope workloads list");
  SetExample(list, "streamscope workloads list");
  SetExample(run, "streamscope workloads run overlapped sequential --output-dir traces");
  const CLI::App* root = &app;
  run->callback([args, exit_code, root] {
    if (!args->old_output_dir.empty()) {
      std::fprintf(stderr,
                   "streamscope: workloads run: -o names a file in every command; the folder for the traces is "
                   "--output-dir DIR\n");
      *exit_code = kExitUsage;
      return;
    }
    *exit_code = RunWorkloads(*args, *root);
  });
}

}  // namespace streamscope
