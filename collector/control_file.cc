#include "collector/control_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace streamscope::collector {

std::string ControlDir(const EnvLookup& env) {
  for (std::string_view var : {"STREAMSCOPE_CONTROL_DIR", "XDG_RUNTIME_DIR"}) {
    if (std::optional<std::string> v = env(var); v.has_value() && !v->empty()) return *v;
  }
  return "/tmp";
}

std::string ControlFilePath(std::string_view dir, pid_t pid) {
  return StrCat(dir, dir.ends_with('/') ? "" : "/", "streamscope-", pid, ".control");
}

StatusOr<std::optional<std::string>> TakeControlCommand(const std::string& path, uid_t uid) {
  int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return std::optional<std::string>();
    return FailedPreconditionError(StrCat("control file '", path, "' cannot be read: ", std::strerror(errno)));
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != uid) {
    close(fd);
    return FailedPreconditionError(
        StrCat("control file '", path, "' is not a regular file of this user: ignored (remove it)"));
  }
  char buf[64];
  ssize_t n = read(fd, buf, sizeof(buf));
  close(fd);
  unlink(path.c_str());
  std::string word(buf, n > 0 ? static_cast<size_t>(n) : 0);
  while (!word.empty() && (word.back() == '\n' || word.back() == ' ' || word.back() == '\r')) word.pop_back();
  if (word == "start" || word == "stop" || word == "dump") return std::optional<std::string>(word);
  return InvalidArgumentError(StrCat("control file '", path, "': unknown command '", word, "' (start, stop, dump)"));
}

}  // namespace streamscope::collector
