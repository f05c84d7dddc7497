// `streamscope capture start|stop|dump PID`: starts or stops the capture of
// a process the collector records (for example one run with --start-paused),
// or has its flight recorder (run --flight-recorder) write a trace now.
// The command is one word in DIR/streamscope-PID.control, written through a
// temporary file and a rename; the collector polls for it every 200 ms and
// removes it once obeyed (collector/control_file.h). DIR is the target's
// STREAMSCOPE_CONTROL_DIR, else its XDG_RUNTIME_DIR (read from
// /proc/PID/environ), else /tmp.
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#include "analyzer/cli/cli_setup.h"
#include "analyzer/cli/command.h"
#include "analyzer/cli/exit_codes.h"

namespace streamscope {
namespace {

struct CaptureOptions {
  std::string action;
  int pid = 0;
  int timeout_ms = 3000;
};

// The folder the target process's collector polls, from its environment.
std::string ControlDirOf(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
  std::string env((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string xdg;
  std::istringstream vars(env);
  for (std::string var; std::getline(vars, var, '\0');) {
    if (var.rfind("STREAMSCOPE_CONTROL_DIR=", 0) == 0 && var.size() > 24) return var.substr(24);
    if (var.rfind("XDG_RUNTIME_DIR=", 0) == 0 && var.size() > 16) xdg = var.substr(16);
  }
  return xdg.empty() ? std::string("/tmp") : xdg;
}

int Capture(const CaptureOptions& o) {
  if (kill(o.pid, 0) != 0 && errno == ESRCH) {
    std::fprintf(stderr, "streamscope: capture: no process %d\n", o.pid);
    return kExitUsage;
  }
  std::string dir = ControlDirOf(o.pid);
  std::string path = dir + "/streamscope-" + std::to_string(o.pid) + ".control";
  std::string tmp = path + ".XXXXXX";
  int fd = mkstemp(tmp.data());
  if (fd < 0) {
    std::fprintf(stderr, "streamscope: capture: cannot write in %s: %s\n", dir.c_str(), std::strerror(errno));
    return kExitOutputError;
  }
  std::string word = o.action + "\n";
  bool written = write(fd, word.data(), word.size()) == static_cast<ssize_t>(word.size());
  close(fd);
  if (!written || rename(tmp.c_str(), path.c_str()) != 0) {
    std::fprintf(stderr, "streamscope: capture: cannot write %s: %s\n", path.c_str(), std::strerror(errno));
    unlink(tmp.c_str());
    return kExitOutputError;
  }
  // The collector removes the file once it has acted on it.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(o.timeout_ms);
  struct stat st;
  while (lstat(path.c_str(), &st) == 0) {
    if (std::chrono::steady_clock::now() >= deadline) {
      unlink(path.c_str());
      std::fprintf(stderr,
                   "streamscope: capture: process %d did not take the command within %d ms (is it recorded by "
                   "streamscope, and does it see the same control folder %s?)\n",
                   o.pid, o.timeout_ms, dir.c_str());
      return kExitFailure;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::fprintf(stderr, "streamscope: capture %s: taken by process %d\n", o.action.c_str(), o.pid);
  return kExitOk;
}

}  // namespace

void RegisterCaptureCommand(CLI::App& app, int* exit_code) {
  auto opts = std::make_shared<CaptureOptions>();
  CLI::App* cmd = app.add_subcommand(
      "capture", "Start or stop the capture of a process being recorded, or dump its flight recorder");
  cmd->add_option("action", opts->action, "start or stop the capture, or dump the flight recorder's ring into a trace")
      ->required()
      ->check(OneOf({"start", "stop", "dump"}));
  cmd->add_option("pid", opts->pid, "Process id of the recorded process")->required()->check(CLI::PositiveNumber);
  cmd->add_option("--timeout-ms", opts->timeout_ms, "How long to wait for the process to take the command")
      ->check(CLI::Range(100, 600000).description("100..600000"))
      ->default_val(3000);
  SetExample(cmd, "streamscope run --start-paused -- python3 train.py &   streamscope capture start $!");
  cmd->callback([opts, exit_code] { *exit_code = Capture(*opts); });
}

}  // namespace streamscope
