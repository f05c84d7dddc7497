#include "analyzer/export/spill_buffer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"

namespace streamscope {

SpillBuffer::~SpillBuffer() {
  if (fd_ >= 0) close(fd_);
}

void SpillBuffer::Spill() {
  if (error_ != 0) {
    buffer_.clear();
    return;
  }
  if (fd_ < 0) {
    const std::string dir = dir_.empty() ? "." : dir_;
    fd_ = open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd_ < 0) {  // a file system without O_TMPFILE: a named file, unlinked at once
      std::string temp = absl::StrCat(dir, "/.streamscope-part-XXXXXX");
      std::vector<char> name(temp.begin(), temp.end());
      name.push_back('\0');
      fd_ = mkostemp(name.data(), O_CLOEXEC);
      if (fd_ >= 0) unlink(name.data());
    }
    if (fd_ < 0) {
      error_ = errno;
      buffer_.clear();
      return;
    }
  }
  error_ = WriteFully(fd_, buffer_, &spilled_);
  buffer_.clear();
}

absl::Status SpillBuffer::AppendTo(OutputFile* out) {
  if (error_ != 0) {
    return absl::ResourceExhaustedError(absl::StrCat("cannot hold part of ", out->path(), " in a temporary file in ",
                                                     dir_.empty() ? "." : dir_, ": ", std::strerror(error_)));
  }
  if (fd_ >= 0) out->AppendFile(fd_, spilled_);
  out->Write(buffer_);
  return absl::OkStatus();
}

}  // namespace streamscope
