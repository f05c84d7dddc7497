#include "collector/host_link_probe.h"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>

#include <cctype>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>

#include "collector/trace_writer.h"
#include "schema/enum_values.h"

namespace streamscope::collector {
namespace {

// NVML's C API, declared here (no nvml.h on the build machine, and the
// collector must not link NVML): nvmlReturn_t is an int enum, 0 = success;
// nvmlDevice_t an opaque pointer.
using NvmlDevice = void*;
constexpr int kNvmlSuccess = 0;

struct Nvml {
  int (*init)() = nullptr;
  int (*shutdown)() = nullptr;
  int (*by_bus_id)(const char*, NvmlDevice*) = nullptr;
  int (*curr_gen)(NvmlDevice, unsigned int*) = nullptr;
  int (*curr_width)(NvmlDevice, unsigned int*) = nullptr;
  int (*max_gen)(NvmlDevice, unsigned int*) = nullptr;
  int (*max_width)(NvmlDevice, unsigned int*) = nullptr;
  // nvmlC2cModeInfo_v1_t is one unsigned int (isC2cEnabled); the buffer
  // passed is larger in case a later version grows it. Absent before
  // driver 550: then C2C stays unknown.
  int (*c2c_mode)(NvmlDevice, void*) = nullptr;
};

// Loaded once per process and kept loaded (unloading a library that may have
// started threads of its own is not worth the bytes).
bool LoadNvml(const std::string& library, Nvml* n) {
  if (library.empty()) return false;
  void* h = dlopen(library.c_str(), RTLD_LAZY | RTLD_LOCAL);
  if (h == nullptr) return false;
  auto sym = [&](const char* name) { return dlsym(h, name); };
  n->init = reinterpret_cast<decltype(n->init)>(sym("nvmlInit_v2"));
  n->shutdown = reinterpret_cast<decltype(n->shutdown)>(sym("nvmlShutdown"));
  n->by_bus_id = reinterpret_cast<decltype(n->by_bus_id)>(sym("nvmlDeviceGetHandleByPciBusId_v2"));
  n->curr_gen = reinterpret_cast<decltype(n->curr_gen)>(sym("nvmlDeviceGetCurrPcieLinkGeneration"));
  n->curr_width = reinterpret_cast<decltype(n->curr_width)>(sym("nvmlDeviceGetCurrPcieLinkWidth"));
  n->max_gen = reinterpret_cast<decltype(n->max_gen)>(sym("nvmlDeviceGetMaxPcieLinkGeneration"));
  n->max_width = reinterpret_cast<decltype(n->max_width)>(sym("nvmlDeviceGetMaxPcieLinkWidth"));
  n->c2c_mode = reinterpret_cast<decltype(n->c2c_mode)>(sym("nvmlDeviceGetC2cModeInfoV"));
  return n->init != nullptr && n->shutdown != nullptr && n->by_bus_id != nullptr;
}

// Plausible PCIe figures only: NVML and sysfs report 0 or 0xFFFFFFFF for
// "unknown" on some systems.
std::optional<int64_t> Generation(int64_t v) { return v >= 1 && v <= 6 ? std::optional<int64_t>(v) : std::nullopt; }
std::optional<int64_t> Width(int64_t v) { return v >= 1 && v <= 32 ? std::optional<int64_t>(v) : std::nullopt; }

// Fills what NVML gives; true if it answered for this device at all.
bool ProbeWithNvml(const HostLinkProbeOptions& options, const std::string& bus_id, HostLinkRecord* r) {
  Nvml nvml;
  if (!LoadNvml(options.nvml_library, &nvml)) return false;
  if (nvml.init() != kNvmlSuccess) return false;
  NvmlDevice dev = nullptr;
  bool found = nvml.by_bus_id(bus_id.c_str(), &dev) == kNvmlSuccess && dev != nullptr;
  if (found) {
    auto read = [&](int (*fn)(NvmlDevice, unsigned int*)) -> int64_t {
      unsigned int v = 0;
      return fn != nullptr && fn(dev, &v) == kNvmlSuccess ? static_cast<int64_t>(v) : 0;
    };
    r->pcie_gen_current = Generation(read(nvml.curr_gen));
    r->pcie_width_current = Width(read(nvml.curr_width));
    r->pcie_gen_max = Generation(read(nvml.max_gen));
    r->pcie_width_max = Width(read(nvml.max_width));
    if (nvml.c2c_mode != nullptr) {
      unsigned int info[8] = {};
      if (nvml.c2c_mode(dev, info) == kNvmlSuccess) r->c2c_enabled = info[0] != 0 ? 1 : 0;
    }
  }
  nvml.shutdown();
  return found;
}

// First line of a small sysfs file, "" when unreadable.
std::string ReadLine(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "re");
  if (f == nullptr) return "";
  char buf[128] = {};
  std::string line;
  if (std::fgets(buf, sizeof(buf), f) != nullptr) line = buf;
  std::fclose(f);
  while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
  return line;
}

std::optional<int64_t> ParseWidth(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  long v = std::strtol(s.c_str(), &end, 10);
  if (end == s.c_str()) return std::nullopt;
  return Width(v);
}

// Fills the PCIe figures NVML left unset; true if any came from sysfs.
bool ProbeWithSysfs(const HostLinkProbeOptions& options, const std::string& bus_id, HostLinkRecord* r) {
  std::string dir = options.sysfs_pci_devices + "/" + SysfsBusId(bus_id) + "/";
  bool any = false;
  auto fill = [&](std::optional<int64_t>* field, std::optional<int64_t> value) {
    if (field->has_value() || !value.has_value()) return;
    *field = value;
    any = true;
  };
  fill(&r->pcie_gen_current, PcieGenerationOfSpeed(ReadLine(dir + "current_link_speed")));
  fill(&r->pcie_width_current, ParseWidth(ReadLine(dir + "current_link_width")));
  fill(&r->pcie_gen_max, PcieGenerationOfSpeed(ReadLine(dir + "max_link_speed")));
  fill(&r->pcie_width_max, ParseWidth(ReadLine(dir + "max_link_width")));
  return any;
}

// Background probes still running.
struct InFlight {
  std::mutex mu;
  std::condition_variable cv;
  int count = 0;
};
InFlight& Probes() {
  static InFlight* p = new InFlight;  // never destroyed: detached threads may outlive exit handlers
  return *p;
}

struct HostLinkJob {
  TraceWriter* writer;
  uint32_t device;
  std::string bus_id;
};

void* HostLinkThreadMain(void* arg) {
  std::unique_ptr<HostLinkJob> job(static_cast<HostLinkJob*>(arg));
  RecordBatch batch;
  batch.emplace_back(ProbeHostLink(job->device, job->bus_id));
  job->writer->Submit(std::move(batch));
  InFlight& p = Probes();
  std::lock_guard<std::mutex> lock(p.mu);
  --p.count;
  p.cv.notify_all();
  return nullptr;
}

}  // namespace

// A pthread, not std::thread: the collector is built without exceptions.
void ProbeHostLinkInBackground(TraceWriter* writer, uint32_t device_id, std::string pci_bus_id) {
  auto* job = new HostLinkJob{writer, device_id, std::move(pci_bus_id)};
  InFlight& p = Probes();
  {
    std::lock_guard<std::mutex> lock(p.mu);
    ++p.count;
  }
  sigset_t all, previous;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);
  pthread_t thread;
  const int rc = pthread_create(&thread, nullptr, HostLinkThreadMain, job);
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (rc != 0) {
    delete job;
    std::lock_guard<std::mutex> lock(p.mu);
    --p.count;
    return;
  }
  pthread_detach(thread);
}

bool WaitForHostLinkProbes(int timeout_ms) {
  InFlight& p = Probes();
  std::unique_lock<std::mutex> lock(p.mu);
  return p.cv.wait_for(lock, std::chrono::milliseconds(timeout_ms), [&] { return p.count == 0; });
}

std::optional<int64_t> PcieGenerationOfSpeed(std::string_view speed) {
  std::string s(speed);
  if (s.empty() || !std::isdigit(static_cast<unsigned char>(s[0]))) return std::nullopt;
  char* end = nullptr;
  double gts = std::strtod(s.c_str(), &end);
  if (end == s.c_str()) return std::nullopt;
  // Per-lane rates of PCIe generations 1-6.
  constexpr double kRates[] = {2.5, 5, 8, 16, 32, 64};
  for (int g = 0; g < 6; ++g) {
    if (gts > kRates[g] * 0.95 && gts < kRates[g] * 1.05) return g + 1;
  }
  return std::nullopt;
}

std::string SysfsBusId(std::string_view pci_bus_id) {
  std::string s;
  for (char c : pci_bus_id) s.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  // NVML writes an 8-digit domain ("00000000:3b:00.0"); sysfs uses 4.
  size_t colon = s.find(':');
  if (colon != std::string::npos && colon > 4 && s.find_first_not_of('0') >= colon - 4) s.erase(0, colon - 4);
  return s;
}

HostLinkRecord ProbeHostLink(uint32_t device_id, const std::string& pci_bus_id, const HostLinkProbeOptions& options) {
  HostLinkRecord r;
  r.device_id = device_id;
  r.pci_bus_id = pci_bus_id;
  r.source = schema::link_source::kNone;
  if (pci_bus_id.empty()) return r;
  bool nvml = ProbeWithNvml(options, pci_bus_id, &r);
  bool sysfs = ProbeWithSysfs(options, pci_bus_id, &r);
  if (nvml && (r.pcie_gen_current || r.pcie_gen_max || r.c2c_enabled)) {
    r.source = schema::link_source::kNvml;
  } else if (sysfs) {
    r.source = schema::link_source::kSysfs;
  }
  return r;
}

}  // namespace streamscope::collector
