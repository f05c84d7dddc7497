// `streamscope run [options] -- CMD ARGS...`: runs CMD with the collector
// injected, passes its stdin/stdout/stderr through untouched, returns its
// exit status (a signal N becomes 128+N), then lists the traces written (one
// per process that initialized CUDA) and summarizes each on stderr.
//
// The collector is found with --collector, $STREAMSCOPE_COLLECTOR, or next to
// this binary (<bin>/../lib/libstreamscope_collector.so). Each collector
// appends "pid<TAB>path" to the manifest file named by STREAMSCOPE_MANIFEST,
// which is how `run` learns about traces of child processes.
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "analyzer/cli/cli_setup.h"
#include "analyzer/cli/command.h"
#include "analyzer/cli/exit_codes.h"
#include "analyzer/cli/suggest.h"
#include "analyzer/importers/trace_loader.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {
namespace {

struct RunOptions {
  std::string output;
  std::string kinds;
  int flush_ms = -1;
  int buffer_kb = -1;
  bool force = false;
  std::string mode = "injection";
  std::string collector;
  bool no_summary = false;
  std::string capture_range;
  bool start_paused = false;
  std::string flight_recorder;
  std::string trigger;
  std::vector<std::string> command;
};

pid_t g_child = -1;

void ForwardSignal(int sig) {
  if (g_child > 0) kill(g_child, sig);
}

std::string SelfDir() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return ".";
  std::string path(buf, static_cast<size_t>(n));
  return path.substr(0, path.rfind('/'));
}

bool IsFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string Absolute(const std::string& path) {
  if (!path.empty() && path[0] == '/') return path;
  char cwd[PATH_MAX];
  if (getcwd(cwd, sizeof(cwd)) == nullptr) return path;
  return std::string(cwd) + "/" + path;
}

std::string FindCollector(const RunOptions& o) {
  if (!o.collector.empty()) return Absolute(o.collector);
  if (const char* env = getenv("STREAMSCOPE_COLLECTOR"); env && *env) return Absolute(env);
  std::string dir = SelfDir();
  for (const char* rel : {"/../lib/libstreamscope_collector.so", "/libstreamscope_collector.so",
                          "/../lib/streamscope/libstreamscope_collector.so"}) {
    std::string candidate = dir + rel;
    if (IsFile(candidate)) {
      char real[PATH_MAX];
      return realpath(candidate.c_str(), real) ? std::string(real) : candidate;
    }
  }
  return dir + "/../lib/libstreamscope_collector.so";
}

// What was recorded, per device and stream: op counts and busy time.
// (`streamscope report` gives the analysis.)
void PrintRecordedTraces(const std::string& path) {
  absl::StatusOr<std::vector<TraceModel>> models = LoadTraceFile(path);
  if (!models.ok()) {
    std::fprintf(stderr, "streamscope: cannot summarize %s: %s\n", path.c_str(),
                 std::string(models.status().message()).c_str());
    return;
  }
  for (const TraceModel& m : *models) {
    auto meta = [&](const char* key) {
      auto it = m.metadata.find(key);
      return it == m.metadata.end() ? std::string("?") : it->second;
    };
    std::fprintf(stderr, "  pid %lld, capture %s: %zu GPU ops, %zu API calls\n", static_cast<long long>(m.pid),
                 meta("capture_end").c_str(), m.ops.size(), m.api.size());
    for (const Device& d : m.devices) {
      std::fprintf(stderr, "  device %d %s (%d SMs, %d copy engines, concurrent kernels %s)\n", d.id, d.name.c_str(),
                   d.sm_count, d.async_engine_count,
                   d.concurrent_kernels == 1   ? "yes"
                   : d.concurrent_kernels == 0 ? "no"
                                               : "?");
    }
    std::vector<int64_t> count(m.streams.size(), 0), busy(m.streams.size(), 0), kernels(m.streams.size(), 0);
    for (size_t i = 0; i < m.ops.size(); ++i) {
      int32_t s = m.ops.stream[i];
      if (s < 0 || static_cast<size_t>(s) >= m.streams.size()) continue;
      ++count[s];
      busy[s] += m.ops.end_ns[i] - m.ops.start_ns[i];
      if (m.ops.category[i] == OpCategory::kKernel) ++kernels[s];
    }
    for (size_t s = 0; s < m.streams.size(); ++s) {
      if (count[s] == 0) continue;
      std::fprintf(stderr, "    device %d stream %lld (%s): %lld ops (%lld kernels), busy %.3f ms\n",
                   m.streams[s].device_id, static_cast<long long>(m.streams[s].id),
                   std::string(StreamKindName(m.streams[s].kind)).c_str(), static_cast<long long>(count[s]),
                   static_cast<long long>(kernels[s]), static_cast<double>(busy[s]) / 1e6);
    }
  }
}

int Run(const RunOptions& o) {
  if (o.command.empty()) {
    std::fprintf(stderr, "streamscope: run: no command given (usage: streamscope run [options] -- CMD ARGS...)\n");
    return kExitUsage;
  }
  std::string collector = FindCollector(o);
  if (!IsFile(collector)) {
    std::fprintf(stderr,
                 "streamscope: run: collector library not found at %s (build it, or pass "
                 "--collector / set STREAMSCOPE_COLLECTOR)\n",
                 collector.c_str());
    return kExitFileNotFound;
  }
  char manifest[] = "/tmp/streamscope-run-XXXXXX";
  int mfd = mkstemp(manifest);
  if (mfd < 0) {
    std::fprintf(stderr, "streamscope: run: cannot create a manifest file in /tmp: %s\n", std::strerror(errno));
    return kExitOutputError;
  }
  close(mfd);

  std::string output = Absolute(o.output.empty() ? "streamscope-%p.sqlite" : o.output);
  setenv("STREAMSCOPE_OUTPUT", output.c_str(), 1);
  setenv("STREAMSCOPE_MANIFEST", manifest, 1);
  if (!o.kinds.empty()) setenv("STREAMSCOPE_KINDS", o.kinds.c_str(), 1);
  if (o.flush_ms >= 0) setenv("STREAMSCOPE_FLUSH_MS", std::to_string(o.flush_ms).c_str(), 1);
  if (o.buffer_kb >= 0) setenv("STREAMSCOPE_BUFFER_KB", std::to_string(o.buffer_kb).c_str(), 1);
  if (o.force) setenv("STREAMSCOPE_OVERWRITE", "1", 1);
  if (!o.capture_range.empty()) setenv("STREAMSCOPE_CAPTURE_RANGE", o.capture_range.c_str(), 1);
  if (o.start_paused) setenv("STREAMSCOPE_START_PAUSED", "1", 1);
  if (!o.flight_recorder.empty()) setenv("STREAMSCOPE_FLIGHT_RECORDER", o.flight_recorder.c_str(), 1);
  if (!o.trigger.empty()) setenv("STREAMSCOPE_TRIGGER", o.trigger.c_str(), 1);
  if (const char* old = getenv("CUDA_INJECTION64_PATH"); old && *old && collector != old) {
    std::fprintf(stderr, "streamscope: run: replacing CUDA_INJECTION64_PATH=%s\n", old);
  }
  if (o.mode == "preload") {
    std::string preload = collector;
    if (const char* old = getenv("LD_PRELOAD"); old && *old) preload += std::string(":") + old;
    setenv("LD_PRELOAD", preload.c_str(), 1);
    unsetenv("CUDA_INJECTION64_PATH");  // the constructor points it at itself
  } else {
    setenv("CUDA_INJECTION64_PATH", collector.c_str(), 1);
  }
  // NVTX ranges reach CUPTI through the collector, unless another NVTX tool
  // was named on purpose.
  if (const char* nvtx = getenv("NVTX_INJECTION64_PATH"); nvtx == nullptr || *nvtx == '\0') {
    setenv("NVTX_INJECTION64_PATH", collector.c_str(), 1);
  }

  // Like system(): the terminal's SIGINT/SIGQUIT go to the child (same
  // process group); SIGTERM/SIGHUP sent to us are forwarded.
  struct sigaction ignore = {}, forward = {}, old_int, old_quit, old_term, old_hup;
  ignore.sa_handler = SIG_IGN;
  forward.sa_handler = ForwardSignal;
  sigemptyset(&forward.sa_mask);
  forward.sa_flags = SA_RESTART;
  sigaction(SIGINT, &ignore, &old_int);
  sigaction(SIGQUIT, &ignore, &old_quit);
  std::fflush(nullptr);
  pid_t child = fork();
  if (child < 0) {
    std::fprintf(stderr, "streamscope: run: fork failed: %s\n", std::strerror(errno));
    unlink(manifest);
    return kExitFailure;
  }
  if (child == 0) {
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGQUIT, &old_quit, nullptr);
    std::vector<char*> argv;
    for (const std::string& a : o.command) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    int err = errno;
    std::fprintf(stderr, "streamscope: run: cannot run '%s': %s\n", argv[0], std::strerror(err));
    _exit(err == ENOENT ? 127 : 126);
  }
  g_child = child;
  sigaction(SIGTERM, &forward, &old_term);
  sigaction(SIGHUP, &forward, &old_hup);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGQUIT, &old_quit, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  sigaction(SIGHUP, &old_hup, nullptr);
  int rc = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;

  std::ifstream in(manifest);
  std::string line;
  int traces = 0;
  std::vector<std::string> paths;
  while (std::getline(in, line)) {
    size_t tab = line.find('\t');
    if (tab == std::string::npos) continue;
    std::fprintf(stderr, "streamscope: trace of pid %s: %s\n", line.substr(0, tab).c_str(),
                 line.substr(tab + 1).c_str());
    paths.push_back(line.substr(tab + 1));
    ++traces;
  }
  unlink(manifest);
  if (traces == 0) {
    std::fprintf(stderr,
                 "streamscope: no trace written (the command never initialized CUDA, or the "
                 "collector could not start: see the messages above)\n");
  } else if (!o.no_summary) {
    for (const std::string& p : paths) PrintRecordedTraces(p);
  }
  return rc;
}

// --kinds is read by the collector inside the program; a misspelled kind is
// caught here, before the program runs.
// The forms the collector's ParseCaptureRange reads; checked here so a typo
// fails before the program runs.
CLI::Validator CaptureRangeSpec() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        if (value == "whole" || value == "cudaProfilerApi") return {};
        if (value.rfind("nvtx:", 0) != 0) return "want cudaProfilerApi, nvtx:NAME or nvtx:NAME@FIRST-LAST";
        std::string rest = value.substr(5);
        size_t at = rest.rfind('@');
        if (rest.empty() || at == 0) return "nvtx: needs a range name";
        if (at == std::string::npos) return {};
        std::string numbers = rest.substr(at + 1);
        size_t dash = numbers.find('-');
        std::string first = numbers.substr(0, dash),
                    last = dash == std::string::npos ? first : numbers.substr(dash + 1);
        auto number = [](const std::string& s) {
          return !s.empty() && s.size() < 19 && s.find_first_not_of("0123456789") == std::string::npos;
        };
        if (!number(first) || !number(last) || std::stoull(first) == 0 || std::stoull(last) < std::stoull(first)) {
          return "instances must be N or FIRST-LAST with 1 <= FIRST <= LAST";
        }
        return {};
      },
      "SPEC");
}

CLI::Validator KindList() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        static const std::vector<std::string> kKinds = {
            "default", "all",    "kernel",  "memcpy",   "memset", "sync",   "runtime", "driver",
            "nvtx",    "stream", "context", "overhead", "graph",  "memory", "submit",  "runtime-all"};
        std::string item;
        for (size_t i = 0; i <= value.size(); ++i) {
          if (i < value.size() && value[i] != ',' && value[i] != ' ') {
            item += value[i];
            continue;
          }
          std::string name = !item.empty() && (item[0] == '+' || item[0] == '-') ? item.substr(1) : item;
          item.clear();
          if (name.empty() || std::find(kKinds.begin(), kKinds.end(), name) != kKinds.end()) continue;
          std::string error = "unknown record kind '" + name + "'";
          if (std::optional<std::string> near = ClosestMatch(name, kKinds)) error += " (did you mean '" + *near + "'?)";
          return error;
        }
        return "";
      },
      "KINDS");
}

}  // namespace

void RegisterRunCommand(CLI::App& app, int* exit_code) {
  auto opts = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand("run", "Run a command with the collector injected and record its CUDA timeline");
  cmd->add_option("-o,--output", opts->output,
                  "Trace path template: %p pid, %h host, %q{VAR} environment variable, %% a "
                  "percent sign (default streamscope-%p.sqlite in the current directory)")
      ->check(OutputFilePath());
  cmd->add_option("--kinds", opts->kinds,
                  "Record kinds: default, all, or a list of kernel,memcpy,memset,sync,runtime,"
                  "driver,nvtx,stream,context,overhead,graph,memory,submit,runtime-all ('memory': the memory "
                  "accesses the hazard check needs, off by default; 'runtime-all': also the runtime calls that "
                  "only query, like cudaGetDevice); '+x,-y' edits the default set")
      ->check(KindList())
      ->default_str("default");
  cmd->add_option("--flush-ms", opts->flush_ms, "CUPTI flush period in ms (default 500)")
      ->check(CLI::Range(0, 60000).description("0..60000"));
  cmd->add_option("--buffer-kb", opts->buffer_kb, "Size of one CUPTI activity buffer in KiB (default 4096)")
      ->check(CLI::Range(64, 262144).description("64..262144"));
  cmd->add_flag("--force", opts->force, "Overwrite existing trace files");
  cmd->add_option("--mode", opts->mode,
                  "How to inject: 'injection' (CUDA_INJECTION64_PATH, default) or 'preload' (LD_PRELOAD)")
      ->check(OneOf({"injection", "preload"}));
  cmd->add_option("--collector", opts->collector, "Path of libstreamscope_collector.so");
  cmd->add_flag("--no-summary", opts->no_summary, "Do not summarize the traces afterwards");
  cmd->add_option("--capture-range", opts->capture_range,
                  "Record only inside a range: 'cudaProfilerApi' (between cudaProfilerStart and "
                  "cudaProfilerStop), 'nvtx:NAME' (every instance of NVTX range NAME) or "
                  "'nvtx:NAME@FIRST-LAST' (from the start of instance FIRST to the end of instance LAST, "
                  "counted from 1)")
      ->check(CaptureRangeSpec());
  cmd->add_flag("--start-paused", opts->start_paused,
                "Record nothing until `streamscope capture start PID` (and `capture stop PID` pauses again)");
  CLI::Option* flight =
      cmd->add_option("--flight-recorder", opts->flight_recorder,
                      "Keep only the most recent activity, a span ('30s', '500ms', '2m') or a record count "
                      "('1000000'), and write a trace (PATH.dumpN.sqlite) only on a trigger: exit, SIGINT/SIGTERM, "
                      "`streamscope capture dump PID`, or --trigger");
  cmd->add_option("--trigger", opts->trigger,
                  "Flight recorder: also dump when an instance of an NVTX range is slower than K times the "
                  "running median ('nvtx:step>2x')")
      ->needs(flight);
  cmd->add_option("command", opts->command, "The command to run, after --")->required();
  SetExample(cmd, "streamscope run -o trace.sqlite -- python3 train.py --steps 20");
  cmd->callback([opts, exit_code] { *exit_code = Run(*opts); });
}

}  // namespace streamscope
