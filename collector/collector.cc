// Entry points and lifecycle of the injected collector.
//
// Loading: CUDA_INJECTION64_PATH makes the driver call InitializeInjection()
// during cuInit. With LD_PRELOAD, the constructor only points
// CUDA_INJECTION64_PATH (and NVTX_INJECTION64_PATH) at this library, so the
// same entry point runs if and when the process initializes CUDA: processes
// that never use CUDA pay for two setenv calls.
//
// Ending: normal exit (atexit, registered during cuInit so it runs before the
// CUDA runtime's own teardown), cudaDeviceReset / context destruction
// (flushes, see cupti_layer.cc), SIGINT/SIGTERM and the crash signals
// (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) when the application left them
// at their default action (final flush on a helper thread, bounded in time,
// then the default action is re-raised so the exit status and core dump are
// unchanged). A killed process keeps what the periodic flush and commit
// wrote.
//
// Every failure prints one "streamscope: ..." line and leaves the
// application running untraced.
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "collector/status.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "collector/collector_config.h"
#include "collector/control_file.h"
#include "collector/cupti_layer.h"
#include "collector/cupti_library.h"
#include "collector/device_probe.h"
#include "collector/host_link_probe.h"
#include "collector/output_path.h"
#include "collector/trace_writer.h"

#ifndef STREAMSCOPE_VERSION
#define STREAMSCOPE_VERSION "0.0.0"
#endif

#define STREAMSCOPE_EXPORT extern "C" __attribute__((visibility("default")))

namespace streamscope::collector {
namespace {

struct Collector {
  CollectorConfig config;
  std::unique_ptr<TraceWriter> writer;  // never destroyed: CUPTI may still call
  std::unique_ptr<CuptiTracer> tracer;
  pid_t owner_pid = 0;
  std::string control_path;  // `streamscope capture start|stop` (control_file.h)
  std::once_flag stop_once;
  std::atomic<bool> stopped{false};
};

std::atomic<Collector*> g_collector{nullptr};
// Serializes starting and stopping sessions (injection, record_start/stop).
std::mutex g_session_mu;
std::atomic<bool> g_start_attempted{false};
std::string* g_self_path = nullptr;

// Signal plumbing (async-signal-safe parts only in the handler).
sem_t g_stop_sem;
std::atomic<int> g_stop_signal{0};
std::atomic<bool> g_stop_done{false};
struct sigaction g_old_action[NSIG];
std::atomic<bool> g_handler_installed[NSIG];
// Signals whose default action ends the process, caught to finish the trace
// first: interrupts, and crashes (a fault or abort(): capture_end crash:N).
constexpr int kInterruptSignals[] = {SIGINT, SIGTERM};
constexpr int kCrashSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

bool IsCrashSignal(int sig) {
  for (int c : kCrashSignals) {
    if (c == sig) return true;
  }
  return false;
}

void Warn(std::string_view message) {
  std::string line = StrCat("streamscope: ", message, "\n");
  (void)!write(STDERR_FILENO, line.data(), line.size());
}

std::optional<std::string> GetEnv(std::string_view name) {
  const char* v = std::getenv(std::string(name).c_str());
  if (v == nullptr) return std::nullopt;
  return std::string(v);
}

std::string ShellQuote(std::string_view arg) {
  bool plain = !arg.empty();
  for (char c : arg) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || std::strchr("_-./=:,+@%", c))) {
      plain = false;
    }
  }
  if (plain) return std::string(arg);
  std::string out = "'";
  for (char c : arg) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out.push_back(c);
    }
  }
  return out + "'";
}

std::string CommandLine() {
  int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  std::string raw;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof(buf))) > 0) raw.append(buf, static_cast<size_t>(n));
  close(fd);
  std::vector<std::string> args;
  size_t pos = 0;
  while (pos < raw.size()) {
    size_t end = raw.find('\0', pos);
    if (end == std::string::npos) end = raw.size();
    args.push_back(ShellQuote(std::string_view(raw).substr(pos, end - pos)));
    pos = end + 1;
  }
  return StrJoin(args, " ");
}

std::string Executable() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

// Version of the dynamically loaded CUDA runtime, from its file name
// (libcudart.so.13.0.96); "static-or-unknown" when none is loaded.
std::string RuntimeVersion() {
  std::string path;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) -> int {
        const char* name = info->dlpi_name;
        if (name != nullptr && std::strstr(name, "libcudart.so") != nullptr) {
          *static_cast<std::string*>(data) = name;
          return 1;
        }
        return 0;
      },
      &path);
  if (path.empty()) return "static-or-unknown";
  char real[PATH_MAX];
  if (realpath(path.c_str(), real) != nullptr) path = real;
  size_t at = path.find("libcudart.so.");
  return at == std::string::npos ? path : path.substr(at + std::strlen("libcudart.so."));
}

// Path of a CUPTI client library the application itself loaded (its own
// CUPTI, or PyTorch's CUDA library, home of torch.profiler); empty if none.
// Call before the collector loads its own CUPTI.
std::string ApplicationCupti() {
  std::string path;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) -> int {
        const char* name = info->dlpi_name;
        if (name != nullptr &&
            (std::strstr(name, "libcupti.so") != nullptr || std::strstr(name, "libtorch_cuda.so") != nullptr)) {
          *static_cast<std::string*>(data) = name;
          return 1;
        }
        return 0;
      },
      &path);
  return path;
}

uint64_t WallNs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

void AppendManifest(const std::string& manifest, const std::string& path) {
  if (manifest.empty()) return;
  int fd = open(manifest.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    Warn(StrCat("cannot append to manifest '", manifest, "': ", std::strerror(errno)));
    return;
  }
  std::string line = StrCat(getpid(), "\t", path, "\n");
  (void)!write(fd, line.data(), line.size());  // one write: atomic with O_APPEND
  close(fd);
}

// Runs `fn` with all signals blocked, so threads it creates never receive
// the application's signals.
template <typename Fn>
auto WithSignalsBlocked(Fn fn) {
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  auto result = fn();
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return result;
}

Status StopCollector(std::string_view reason, bool from_signal) {
  Collector* c = g_collector.load();
  if (c == nullptr || c->owner_pid != getpid()) {  // forked child: not ours
    return FailedPreconditionError("not recording");
  }
  Status result = FailedPreconditionError("recording already stopped");
  std::call_once(c->stop_once, [&] {
    c->stopped = true;
    uint64_t end = c->tracer ? c->tracer->Now() : 0;
    if (c->tracer) {
      if (from_signal) {
        // The interrupted thread may hold a lock CUPTI's flush needs: flush
        // on a helper thread and give it a bounded time; the trace is
        // finished either way (the periodic flush saved all but the last
        // fraction of a second).
        auto done = std::make_shared<std::atomic<bool>>(false);
        CuptiTracer* tracer = c->tracer.get();
        WithSignalsBlocked([&] {
          std::thread([tracer, done] {
            tracer->Stop();
            *done = true;
          }).detach();
          return 0;
        });
        for (int i = 0; i < 200 && !done->load(); ++i) {
          std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
      } else {
        c->tracer->Stop();
      }
    }
    // A short program may end while its devices' host links are still being
    // probed (NVML's init): give them a bounded moment to land in the trace.
    if (!from_signal) (void)WaitForHostLinkProbes(500);
    if (c->tracer) {
      c->writer->SetMetadata("capture_windows", c->tracer->CaptureWindowsJson());
      if (c->config.capture.kind == CaptureRange::Kind::kNvtx) {
        c->writer->SetMetadata("capture_nvtx_instances", StrCat(c->tracer->CaptureInstances()));
      }
    }
    // A failed writer has already said so on stderr, once.
    Status st = c->writer->Finish(reason, end);
    if (c->tracer && !from_signal) c->tracer->ReleaseBuffers();
    if (st.ok() && c->config.verbose) {
      Warn(StrCat("trace written to ", c->writer->path()));
    }
    result = st;
  });
  return result;
}

void OnExit() { (void)StopCollector("normal_exit", false); }

void OnSignal(int sig) {
  Collector* c = g_collector.load();
  if (c != nullptr && c->owner_pid == getpid()) {
    int expected = 0;
    if (g_stop_signal.compare_exchange_strong(expected, sig)) sem_post(&g_stop_sem);
    // Wait (bounded) for the stop thread's final flush.
    for (int i = 0; i < 1000 && !g_stop_done.load(); ++i) {
      timespec ts{0, 10 * 1000 * 1000};
      nanosleep(&ts, nullptr);
    }
  }
  sigaction(sig, &g_old_action[sig], nullptr);
  raise(sig);  // delivered on return, with the application's disposition
}

void StopThreadMain() {
  while (sem_wait(&g_stop_sem) != 0) {}
  int sig = g_stop_signal.load();
  (void)StopCollector(StrCat(IsCrashSignal(sig) ? "crash:" : "signal:", sig), true);
  g_stop_done = true;
}

// Polls the current session's control file (a failed open() every 200 ms
// while nobody writes one). Runs for the life of the process.
void ControlThreadMain() {
  std::string refused;  // a file already reported
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    Collector* c = g_collector.load();
    if (c == nullptr || c->owner_pid != getpid()) return;  // a forked child has no such thread anyway
    if (c->stopped.load() || !c->tracer || c->control_path.empty()) continue;
    StatusOr<std::optional<std::string>> cmd = TakeControlCommand(c->control_path, geteuid());
    if (!cmd.ok()) {
      if (refused != c->control_path) Warn(cmd.status().message());
      refused = c->control_path;
      continue;
    }
    if (!cmd->has_value()) continue;
    if (**cmd == "dump") {
      StatusOr<std::string> path = c->tracer->Dump("request");
      Warn(path.ok() ? StrCat("flight recorder: dump written to ", *path) : StrCat("dump: ", path.status().message()));
      continue;
    }
    bool changed = **cmd == "start" ? c->tracer->CaptureStart() : c->tracer->CaptureStop();
    Warn(StrCat("capture ", **cmd == "start" ? "started" : "stopped", changed ? "" : " (it already was)", " (pid ",
                getpid(), ")"));
  }
}

void InstallSignalHandlers() {
  sem_init(&g_stop_sem, 0, 0);
  WithSignalsBlocked([] {
    std::thread(StopThreadMain).detach();
    return 0;
  });
  std::vector<int> signals(std::begin(kInterruptSignals), std::end(kInterruptSignals));
  signals.insert(signals.end(), std::begin(kCrashSignals), std::end(kCrashSignals));
  for (int sig : signals) {
    struct sigaction current;
    if (sigaction(sig, nullptr, &current) != 0) continue;
    // Only where the application kept the default: its own handler (or
    // SIG_IGN) decides, and its normal exit then ends the capture.
    if (!(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_DFL) {
      g_old_action[sig] = current;
      struct sigaction ours = {};
      ours.sa_handler = OnSignal;
      sigemptyset(&ours.sa_mask);
      ours.sa_flags = SA_RESTART;
      if (sigaction(sig, &ours, nullptr) == 0) g_handler_installed[sig] = true;
    }
  }
}

// When this process was started (wall clock, ns), from /proc; kept across
// exec. 0 if unknown.
int64_t ProcessStartWallNs() {
  FILE* f = std::fopen("/proc/self/stat", "r");
  if (f == nullptr) return 0;
  char buf[4096];
  size_t n = std::fread(buf, 1, sizeof(buf) - 1, f);
  std::fclose(f);
  buf[n] = '\0';
  const char* p = std::strrchr(buf, ')');  // the command name may hold spaces
  if (p == nullptr) return 0;
  // After ") ": field 3 (state) ... field 22 (starttime, clock ticks since boot).
  unsigned long long start_ticks = 0;
  int field = 2;
  for (const char* c = p + 1; *c != '\0'; ++c) {
    if (*c == ' ') {
      ++field;
      if (field == 22) {
        start_ticks = std::strtoull(c + 1, nullptr, 10);
        break;
      }
    }
  }
  long long boot_s = 0;
  if (FILE* st = std::fopen("/proc/stat", "r")) {
    char line[256];
    while (std::fgets(line, sizeof(line), st) != nullptr) {
      if (std::sscanf(line, "btime %lld", &boot_s) == 1) break;
    }
    std::fclose(st);
  }
  long ticks = sysconf(_SC_CLK_TCK);
  if (boot_s == 0 || ticks <= 0) return 0;
  return boot_s * 1'000'000'000LL + static_cast<int64_t>(start_ticks) * (1'000'000'000LL / ticks);
}

// A process that exec'd itself keeps its pid, so `%p` names the file its
// earlier image wrote: this image writes NAME.exec<N>.EXT beside it.
std::string PathForThisImage(const std::string& path) {
  if (!TraceWriter::IsEarlierImageTrace(path, getpid(), ProcessStartWallNs())) return path;
  size_t slash = path.rfind('/');
  size_t dot = path.rfind('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) dot = path.size();
  for (int n = 1; n < 1000; ++n) {
    std::string candidate = StrCat(path.substr(0, dot), ".exec", n, path.substr(dot));
    struct stat st;
    if (lstat(candidate.c_str(), &st) != 0 && errno == ENOENT) return candidate;
  }
  return path;  // the writer then reports the existing file
}

// Opens the trace at `path` and starts CUPTI; on success the collector is
// g_collector, ended at exit, on SIGINT/SIGTERM or by streamscope_record_stop.
Status BeginRecording(const CollectorConfig& config, std::string path, const char* mode) {
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  std::string app_cupti = ApplicationCupti();
  if (Status st = CuptiAvailable(); !st.ok()) return st;
  path = PathForThisImage(path);
  WriterOptions wo;
  wo.path = path;
  wo.overwrite = config.overwrite;
  wo.commit_ms = std::max<uint32_t>(50, std::min<uint32_t>(config.flush_ms ? config.flush_ms : 500, 500));
  wo.api_name = CuptiApiName;
  // Callback records queued for the writer get the same cap as CUPTI's buffers.
  wo.max_queued_batch_bytes = static_cast<size_t>(config.max_buffer_mb) << 20;
  // Flight recorder: no trace until a trigger; each dump is listed like a trace.
  wo.ring = config.flight_recorder;
  std::string manifest = config.manifest;
  wo.on_dump = [manifest](const std::string& dump) {
    AppendManifest(manifest, dump);
    Warn(StrCat("flight recorder: trace written to ", dump));
  };
  auto writer = WithSignalsBlocked([&] { return TraceWriter::Open(wo); });
  if (!writer.ok()) return writer.status();
  auto* c = new Collector();
  c->config = config;
  c->owner_pid = getpid();
  c->writer = std::move(*writer);
  TraceWriter& w = *c->writer;
  uint64_t wall = WallNs();
  auto tracer = WithSignalsBlocked([&] { return CuptiTracer::Start(c->config, &w); });
  if (!tracer.ok()) {
    (void)w.Finish(StrCat("collector_error:", tracer.status().message()), 0);
    if (!c->config.flight_recorder) AppendManifest(c->config.manifest, path);
    delete c;  // the writer is finished; CUPTI never saw it
    return Status(tracer.status().code(), StrCat(tracer.status().message(), "; the application runs untraced"));
  }
  c->tracer = std::move(*tracer);
  auto meta = [&](std::string key, std::string value) { w.SetMetadata(std::move(key), std::move(value)); };
  meta("collector_version", STREAMSCOPE_VERSION);
  meta("start_wall_time_ns", StrCat(wall));
  meta("start_trace_ns", StrCat(c->tracer->Now()));
  meta("host", host);
  meta("pid", StrCat(getpid()));
  meta("ppid", StrCat(getppid()));
  meta("command_line", CommandLine());
  meta("executable", Executable());
  StatusOr<int> driver = DriverVersion();
  meta("cuda_driver_version", driver.ok() ? StrCat(*driver) : "unknown");
  meta("cuda_runtime_version", RuntimeVersion());
  meta("cupti_version", c->tracer->cupti_version());
  meta("clock_domain", c->tracer->clock_domain());
  meta("capture_options", c->config.ToJson());
  meta("record_kinds", c->tracer->enabled_kinds());
  meta("injection", mode);
  // Which rank of a distributed job this process is (torchrun, MPI, Slurm):
  // lets the analyzer line up the traces of one run. The driver settings
  // that serialize streams (hardware queues per device, blocking launches)
  // as the driver read them: the collector starts inside cuInit.
  for (const char* var : {"RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "PMI_RANK",
                          "SLURM_PROCID", "CUDA_DEVICE_MAX_CONNECTIONS", "CUDA_LAUNCH_BLOCKING"}) {
    if (const char* value = std::getenv(var); value != nullptr) meta(StrCat("env:", var), value);
  }
  meta("capture_range", c->config.capture.ToString());
  c->control_path = ControlFilePath(ControlDir(GetEnv), getpid());
  meta("control_file", c->control_path);
  meta("capture_end", "running");
  if (c->config.flight_recorder) {
    meta("flight_recorder", c->config.flight_recorder->ToString());
    if (c->config.trigger) meta("trigger", c->config.trigger->ToString());
  }
  w.Flush();  // 'running' is on disk before the application continues
  if (!c->config.flight_recorder) AppendManifest(c->config.manifest, path);
  g_collector.store(c);
  static std::once_flag exit_hooks;
  std::call_once(exit_hooks, [] {
    std::atexit(OnExit);
    InstallSignalHandlers();
    WithSignalsBlocked([] {
      std::thread(ControlThreadMain).detach();
      return 0;
    });
  });
  if (!app_cupti.empty() && std::strcmp(mode, "api") != 0) {
    // CUPTI takes one client per process and we are it: say who records
    // what before a profiler of the program's own (torch.profiler) finds out.
    Warn(
        StrCat("recording this process's GPU activity; CUPTI allows one client, so a profiler the "
               "program starts itself (torch.profiler, which loads ",
               app_cupti.substr(app_cupti.rfind('/') + 1), ") records CPU events only"));
  }
  return OkStatus();
}

void StartCollector(const char* mode) {
  if (g_start_attempted.exchange(true)) return;
  if (auto off = GetEnv("STREAMSCOPE_DISABLE"); off && *off == "1") return;
  StatusOr<CollectorConfig> config = ConfigFromEnv(GetEnv);
  if (!config.ok()) {
    Warn(StrCat("not recording: ", config.status().message()));
    return;
  }
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  StatusOr<std::string> path = ExpandOutputTemplate(config->output_template, getpid(), host, GetEnv);
  if (!path.ok()) {
    Warn(StrCat("not recording: ", path.status().message()));
    return;
  }
  std::lock_guard<std::mutex> lock(g_session_mu);
  if (Status st = BeginRecording(*config, *path, mode); !st.ok()) {
    Warn(StrCat("not recording: ", st.message()));
  }
}

// streamscope_record_start / _stop (below).
int RecordStart(const char* output_path, const char* options) {
  std::lock_guard<std::mutex> lock(g_session_mu);
  auto fail = [](std::string_view why) {
    Warn(StrCat("streamscope_record_start: not recording: ", why));
    return 1;
  };
  if (Collector* c = g_collector.load(); c != nullptr && c->owner_pid == getpid() && !c->stopped.load()) {
    return fail(StrCat("already recording into ", c->writer->path(), " (streamscope_record_stop ends that first)"));
  }
  if (output_path == nullptr || *output_path == '\0') return fail("no output path given");
  StatusOr<CollectorConfig> config = ConfigFromOptions(options == nullptr ? "" : options);
  if (!config.ok()) return fail(config.status().message());
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  StatusOr<std::string> path = ExpandOutputTemplate(output_path, getpid(), host, GetEnv);
  if (!path.ok()) return fail(path.status().message());
  // An injection later in this process starts no second session.
  g_start_attempted = true;
  if (Status st = BeginRecording(*config, *path, "api"); !st.ok()) return fail(st.message());
  // CUDA may be initialized already: its contexts were created unseen.
  g_collector.load()->tracer->RecordDevices();
  return 0;
}

int RecordStop() {
  std::lock_guard<std::mutex> lock(g_session_mu);
  Collector* c = g_collector.load();
  if (c == nullptr || c->owner_pid != getpid() || c->stopped.load()) {
    Warn("streamscope_record_stop: not recording");
    return 1;
  }
  Status st = StopCollector("record_stop", false);
  if (!st.ok()) {
    Warn(StrCat("streamscope_record_stop: ", st.message()));
    return 1;
  }
  return 0;
}

}  // namespace

std::string SelfPath() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&SelfPath), &info) == 0 || info.dli_fname == nullptr) {
    return {};
  }
  char real[PATH_MAX];
  if (realpath(info.dli_fname, real) == nullptr) return info.dli_fname;
  return real;
}

namespace {

__attribute__((constructor)) void OnLoad() {
  const char* off = std::getenv("STREAMSCOPE_DISABLE");
  if (off != nullptr && std::strcmp(off, "1") == 0) return;
  // Only when preloaded (program start, one thread): loaded by the driver's
  // injection or by NVTX, other threads may be running and the environment
  // must not be touched.
  g_self_path = new std::string(SelfPath());
  if (g_self_path->empty()) return;
  const char* preload = std::getenv("LD_PRELOAD");
  std::string base = g_self_path->substr(g_self_path->rfind('/') + 1);
  if (preload == nullptr || std::strstr(preload, base.c_str()) == nullptr) return;
  const char* cuda = std::getenv("CUDA_INJECTION64_PATH");
  if (cuda == nullptr || *cuda == '\0') {
    setenv("CUDA_INJECTION64_PATH", g_self_path->c_str(), 1);
  } else {
    char real[PATH_MAX];
    const char* resolved = realpath(cuda, real) ? real : cuda;
    if (*g_self_path != resolved) {
      Warn(StrCat("CUDA_INJECTION64_PATH names another tool (", cuda, "); this process is not recorded"));
    }
  }
  const char* nvtx = std::getenv("NVTX_INJECTION64_PATH");
  if (nvtx == nullptr || *nvtx == '\0') setenv("NVTX_INJECTION64_PATH", g_self_path->c_str(), 1);
}

}  // namespace
}  // namespace streamscope::collector

// Called by the CUDA driver during cuInit (CUDA_INJECTION64_PATH).
STREAMSCOPE_EXPORT int InitializeInjection(void) {
  // Injected without `streamscope run` or LD_PRELOAD: route NVTX (first
  // used after this point) to CUPTI through us. setenv is not thread-safe
  // against a concurrent getenv, so only when nobody chose an NVTX tool.
  if (const char* nvtx = std::getenv("NVTX_INJECTION64_PATH"); nvtx == nullptr || *nvtx == '\0') {
    std::string self = streamscope::collector::SelfPath();
    if (!self.empty()) setenv("NVTX_INJECTION64_PATH", self.c_str(), 1);
  }
  streamscope::collector::StartCollector(std::getenv("LD_PRELOAD") != nullptr &&
                                                 std::strstr(std::getenv("LD_PRELOAD"), "streamscope") != nullptr
                                             ? "ld_preload"
                                             : "cuda_injection");
  return 1;
}

// Called by NVTX on the first NVTX call (NVTX_INJECTION64_PATH): hand NVTX
// to CUPTI so ranges and marks become MARKER records.
STREAMSCOPE_EXPORT int InitializeInjectionNvtx2(const void* get_export_table) {
  return streamscope::collector::ForwardNvtxInjection(get_export_table);
}

// Starts recording this process into `output_path` (a path template as
// STREAMSCOPE_OUTPUT: %p, %h, %q{VAR}) with `options` (KEY=VALUE;...: see
// ConfigFromOptions; NULL: defaults). Works in a process that already
// initialized CUDA, without CUDA_INJECTION64_PATH. 0 on success; otherwise
// nonzero and one line on stderr.
STREAMSCOPE_EXPORT int streamscope_record_start(const char* output_path, const char* options) {
  return streamscope::collector::RecordStart(output_path, options);
}

// Flushes everything recorded since streamscope_record_start, finishes the
// trace (capture_end 'record_stop') and leaves the process running; a later
// start writes a new trace. 0 on success; nonzero and one line on stderr
// when not recording or the trace could not be written.
STREAMSCOPE_EXPORT int streamscope_record_stop(void) { return streamscope::collector::RecordStop(); }
