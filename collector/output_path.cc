#include "collector/output_path.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "collector/status.h"

#include <cerrno>
#include <cstring>

namespace streamscope::collector {

StatusOr<std::string> ExpandOutputTemplate(std::string_view tmpl, long pid, std::string_view host,
                                           const EnvLookup& env) {
  if (tmpl.empty()) return InvalidArgumentError("empty output path");
  std::string out;
  for (size_t i = 0; i < tmpl.size(); ++i) {
    char c = tmpl[i];
    if (c != '%') {
      out.push_back(c);
      continue;
    }
    if (i + 1 >= tmpl.size()) {
      return InvalidArgumentError(StrCat("output path '", tmpl, "' ends with a lone '%'"));
    }
    char e = tmpl[++i];
    switch (e) {
      case '%': out.push_back('%'); break;
      case 'p': out += StrCat(pid); break;
      case 'h': out += StrCat(host); break;
      case 'q': {
        if (i + 1 >= tmpl.size() || tmpl[i + 1] != '{') {
          return InvalidArgumentError(StrCat("output path '", tmpl, "': %q must be followed by {VAR}"));
        }
        size_t close = tmpl.find('}', i + 2);
        if (close == std::string_view::npos || close == i + 2) {
          return InvalidArgumentError(StrCat("output path '", tmpl, "': unterminated or empty %q{VAR}"));
        }
        std::string_view var = tmpl.substr(i + 2, close - i - 2);
        std::optional<std::string> value = env(var);
        if (!value.has_value()) {
          return InvalidArgumentError(StrCat("output path '", tmpl, "': environment variable ", var, " is not set"));
        }
        out += *value;
        i = close;
        break;
      }
      default:
        return InvalidArgumentError(
            StrCat("output path '", tmpl, "': unknown escape '%", std::string(1, e), "' (use %p, %h, %q{VAR} or %%)"));
    }
  }
  return out;
}

Status CreateTraceFile(const std::string& path, bool overwrite) {
  if (overwrite) {
    struct stat st;
    if (lstat(path.c_str(), &st) == 0) {
      if (!S_ISREG(st.st_mode)) {
        return PermissionDeniedError(StrCat("cannot write trace '", path, "': exists and is not a regular file (",
                                            S_ISLNK(st.st_mode) ? "a symlink" : "special file", "); not replaced"));
      }
      if (unlink(path.c_str()) != 0) {
        return PermissionDeniedError(StrCat("cannot replace trace '", path, "': ", std::strerror(errno)));
      }
      for (const char* suffix : {"-wal", "-shm", "-journal"}) {
        std::string companion = path + suffix;
        if (lstat(companion.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
          unlink(companion.c_str());
        }
      }
    }
  }
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) {
    int err = errno;
    if (err == EEXIST) {
      return AlreadyExistsError(
          StrCat("trace '", path, "' already exists (not overwritten; set STREAMSCOPE_OVERWRITE=1 or use --force)"));
    }
    return PermissionDeniedError(StrCat("cannot create trace '", path, "': ", std::strerror(err)));
  }
  close(fd);
  return OkStatus();
}

void RemoveTraceFiles(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
    std::string file = path + suffix;
    struct stat st;
    if (lstat(file.c_str(), &st) == 0 && S_ISREG(st.st_mode)) unlink(file.c_str());
  }
}

}  // namespace streamscope::collector
