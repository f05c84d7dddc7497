#include "analyzer/export/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"

namespace streamscope {
namespace {

absl::Status ErrnoStatus(int err, std::string_view what, std::string_view path) {
  std::string msg = absl::StrCat(std::string(what), " ", std::string(path), ": ", std::strerror(err));
  if (err == EEXIST) return absl::AlreadyExistsError(msg);
  return absl::PermissionDeniedError(msg);
}

// Refuses symlinks and non-regular files; NOT_FOUND-free: a missing path is fine.
absl::Status CheckDestination(const std::string& path, bool overwrite) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return absl::OkStatus();
    return ErrnoStatus(errno, "cannot inspect", path);
  }
  if (S_ISLNK(st.st_mode)) {
    return absl::PermissionDeniedError(absl::StrCat(path, " is a symbolic link; refusing to write through it"));
  }
  if (!S_ISREG(st.st_mode)) {
    return absl::PermissionDeniedError(absl::StrCat(path, " exists and is not a regular file"));
  }
  if (!overwrite) {
    return absl::AlreadyExistsError(absl::StrCat(path, ": exists; pass --force to replace it"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<OutputFile>> OutputFile::Create(const std::string& path, bool overwrite) {
  if (path.empty()) return absl::InvalidArgumentError("empty output path");
  if (absl::Status s = CheckDestination(path, overwrite); !s.ok()) return s;
  std::string temp = absl::StrCat(path, ".tmp-XXXXXX");
  std::vector<char> name(temp.begin(), temp.end());
  name.push_back('\0');
  int fd = mkostemp(name.data(), O_CLOEXEC);  // O_EXCL, mode 0600
  if (fd < 0) return ErrnoStatus(errno, "cannot create a file next to", path);
  fchmod(fd, 0644);  // like a file created with open(..., 0644) under umask 022
  return std::unique_ptr<OutputFile>(new OutputFile(path, std::string(name.data()), fd, overwrite));
}

OutputFile::OutputFile(std::string path, std::string temp_path, int fd, bool overwrite)
    : path_(std::move(path)), temp_path_(std::move(temp_path)), fd_(fd), overwrite_(overwrite) {
  buffer_.reserve(kFlushBytes + (64 << 10));
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) close(fd_);
  if (!committed_) unlink(temp_path_.c_str());
}

int WriteFully(int fd, std::string_view bytes, int64_t* written) {
  size_t done = 0;
  int err = 0;
  while (done < bytes.size()) {
    ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      err = errno;
      break;
    }
    done += static_cast<size_t>(n);
  }
  *written += static_cast<int64_t>(done);
  return err;
}

void OutputFile::Flush() {
  if (error_ == 0) error_ = WriteFully(fd_, buffer_, &bytes_written_);
  buffer_.clear();
}

void OutputFile::AppendFile(int fd, int64_t size) {
  Flush();
  loff_t in_offset = 0;
  while (error_ == 0 && in_offset < size) {
    ssize_t n = copy_file_range(fd, &in_offset, fd_, nullptr, static_cast<size_t>(size - in_offset), 0);
    if (n > 0) {
      bytes_written_ += n;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EXDEV && errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP) {
      error_ = errno;
      return;
    }
    // Across file systems (or a kernel without it): read and write.
    std::string block(std::min<int64_t>(size - in_offset, kFlushBytes), '\0');
    ssize_t r = pread(fd, block.data(), block.size(), in_offset);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      error_ = r < 0 ? errno : EIO;  // the spill file is shorter than it was written
      return;
    }
    in_offset += r;
    buffer_.append(block.data(), static_cast<size_t>(r));
    Flush();
  }
}

absl::Status OutputFile::Commit() {
  if (committed_) return absl::OkStatus();
  Flush();
  if (error_ != 0) return ErrnoStatus(error_, "cannot write", path_);
  if (close(fd_) != 0) {
    fd_ = -1;
    return ErrnoStatus(errno, "cannot write", path_);
  }
  fd_ = -1;
  // Re-check: the destination may have appeared (or become a link) meanwhile.
  if (absl::Status s = CheckDestination(path_, overwrite_); !s.ok()) return s;
  if (overwrite_) {
    // rename() replaces a link itself, never its target.
    if (rename(temp_path_.c_str(), path_.c_str()) != 0) return ErrnoStatus(errno, "cannot create", path_);
  } else {
    // link() fails with EEXIST instead of replacing anything.
    if (link(temp_path_.c_str(), path_.c_str()) != 0) return ErrnoStatus(errno, "cannot create", path_);
    unlink(temp_path_.c_str());
  }
  committed_ = true;
  return absl::OkStatus();
}

}  // namespace streamscope
