// streamscope_record_start/stop as the Python package calls them (dlopen,
// then the C functions), on a CPU: the refusals that need no GPU.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

namespace {

using StartFn = int (*)(const char*, const char*);
using StopFn = int (*)();

class RecordApi : public ::testing::Test {
 protected:
  void SetUp() override {
    lib_ = dlopen(STREAMSCOPE_COLLECTOR_LIB, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(lib_, nullptr) << dlerror();
    start_ = reinterpret_cast<StartFn>(dlsym(lib_, "streamscope_record_start"));
    stop_ = reinterpret_cast<StopFn>(dlsym(lib_, "streamscope_record_stop"));
    ASSERT_NE(start_, nullptr);
    ASSERT_NE(stop_, nullptr);
  }
  void* lib_ = nullptr;
  StartFn start_ = nullptr;
  StopFn stop_ = nullptr;
};

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

TEST_F(RecordApi, StopWithoutStartFailsAndTheProcessGoesOn) {
  EXPECT_NE(stop_(), 0);
  EXPECT_NE(stop_(), 0);
}

TEST_F(RecordApi, UnknownOptionIsRefusedBeforeAnyFileIsMade) {
  std::string path = "/tmp/streamscope-record-api-" + std::to_string(getpid()) + ".sqlite";
  EXPECT_NE(start_(path.c_str(), "kinds=kernel;colour=blue"), 0);
  EXPECT_FALSE(Exists(path));
  EXPECT_NE(start_(path.c_str(), "kinds=nonsense"), 0);
  EXPECT_FALSE(Exists(path));
}

TEST_F(RecordApi, MissingPathIsRefused) {
  EXPECT_NE(start_(nullptr, nullptr), 0);
  EXPECT_NE(start_("", nullptr), 0);
}

}  // namespace
