#include "tests/fuzz/fuzz_support.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <streambuf>

namespace streamscope::fuzz {
namespace {

std::string& Dir() {
  static std::string dir;
  return dir;
}

void RemoveScratch() {
  ClearScratch();
  rmdir(Dir().c_str());
}

// Swallows everything: the commands' error lines would flood the fuzzer.
class NullBuffer : public std::streambuf {
 protected:
  int overflow(int c) override { return c; }
};

}  // namespace

void InitScratch() {
  if (!Dir().empty()) return;
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/streamscope_fuzz_XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    std::perror("streamscope fuzz: mkdtemp");
    std::abort();
  }
  Dir() = pattern;
  std::atexit(RemoveScratch);
  setenv("STREAMSCOPE_THREADS", "1", 1);
  if (std::getenv("STREAMSCOPE_FUZZ_VERBOSE") == nullptr) {
    // Never destroyed: std::cerr is flushed after static destructors ran.
    static NullBuffer* null = new NullBuffer;
    std::cerr.rdbuf(null);
  }
}

std::string ScratchDir() { return Dir(); }

const std::string& ScratchPath(const std::string& name) {
  static std::map<std::string, std::string> paths;
  auto it = paths.find(name);
  if (it == paths.end()) it = paths.emplace(name, Dir() + "/" + name).first;
  return it->second;
}

void WriteScratchFile(const std::string& path, const std::string& bytes) {
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) unlink((path + suffix).c_str());
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    std::perror("streamscope fuzz: open");
    std::abort();
  }
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) {
      std::perror("streamscope fuzz: write");
      std::abort();
    }
    done += static_cast<size_t>(n);
  }
  close(fd);
}

void ClearScratch() {
  DIR* d = opendir(Dir().c_str());
  if (d == nullptr) return;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") unlink((Dir() + "/" + name).c_str());
  }
  closedir(d);
}

std::string SeedDir() {
  const char* env = std::getenv("STREAMSCOPE_FUZZ_SEEDS");
  return env != nullptr ? env : STREAMSCOPE_FUZZ_SEED_DIR;
}

}  // namespace streamscope::fuzz
