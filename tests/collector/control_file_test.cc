// `streamscope capture start|stop PID` reaches the collector through a
// control file: where it lives, and which files are obeyed.
#include "collector/control_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>

namespace streamscope::collector {
namespace {

class ControlFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/streamscope-control-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    path_ = ControlFilePath(dir_, 1234);
  }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }
  void Write(const std::string& text) { std::ofstream(path_) << text; }
  bool Exists() {
    struct stat st;
    return lstat(path_.c_str(), &st) == 0;
  }
  std::string dir_, path_;
};

TEST_F(ControlFileTest, TheFolderComesFromTheEnvironmentElseTmp) {
  auto env = [](std::map<std::string, std::string> vars) {
    return [vars](std::string_view name) -> std::optional<std::string> {
      auto it = vars.find(std::string(name));
      if (it == vars.end()) return std::nullopt;
      return it->second;
    };
  };
  EXPECT_EQ(ControlDir(env({})), "/tmp");
  EXPECT_EQ(ControlDir(env({{"XDG_RUNTIME_DIR", "/run/user/7"}})), "/run/user/7");
  EXPECT_EQ(ControlDir(env({{"XDG_RUNTIME_DIR", "/run/user/7"}, {"STREAMSCOPE_CONTROL_DIR", "/x"}})), "/x");
  EXPECT_EQ(ControlFilePath("/x/", 42), "/x/streamscope-42.control");
}

TEST_F(ControlFileTest, ACommandIsTakenOnceAndTheFileRemoved) {
  auto none = TakeControlCommand(path_, getuid());
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  Write("stop\n");
  auto cmd = TakeControlCommand(path_, getuid());
  ASSERT_TRUE(cmd.ok()) << cmd.status().message();
  EXPECT_EQ(**cmd, "stop");
  EXPECT_FALSE(Exists()) << "removing it tells the command it was taken";
}

TEST_F(ControlFileTest, AnUnknownCommandIsRefusedAndRemoved) {
  Write("reboot");
  EXPECT_FALSE(TakeControlCommand(path_, getuid()).ok());
  EXPECT_FALSE(Exists());
}

TEST_F(ControlFileTest, AnotherUsersFileOrASymlinkIsNotObeyed) {
  Write("start");
  EXPECT_FALSE(TakeControlCommand(path_, getuid() + 1).ok());
  EXPECT_TRUE(Exists()) << "left for its owner to see";
  std::remove(path_.c_str());
  std::string target = dir_ + "/target";
  std::ofstream(target) << "start";
  ASSERT_EQ(symlink(target.c_str(), path_.c_str()), 0);
  EXPECT_FALSE(TakeControlCommand(path_, getuid()).ok());
}

}  // namespace
}  // namespace streamscope::collector
