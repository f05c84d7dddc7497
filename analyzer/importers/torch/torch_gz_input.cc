#include "analyzer/importers/torch/torch_gz_input.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

#include "absl/strings/str_cat.h"

namespace streamscope {

absl::StatusOr<std::unique_ptr<GzInput>> GzInput::Open(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return absl::NotFoundError(absl::StrCat(path, ": ", std::strerror(errno)));
  gzFile file = gzdopen(fd, "rb");
  if (file == nullptr) {
    close(fd);
    return absl::NotFoundError(absl::StrCat(path, ": cannot open for reading"));
  }
  gzbuffer(file, 1 << 17);
  auto input = std::unique_ptr<GzInput>(new GzInput(file));
  return input;
}

GzInput::~GzInput() { gzclose(file_); }

size_t GzInput::Read(char* dst, size_t n) {
  if (!error_.empty() || n == 0) return 0;
  int got = gzread(file_, dst, static_cast<unsigned>(std::min<size_t>(n, size_t{1} << 30)));
  if (bytes_read_ == 0 && got > 0) compressed_ = gzdirect(file_) == 0;
  if (got <= 0) {
    int code = Z_OK;
    const char* message = gzerror(file_, &code);
    if (got < 0 || (code != Z_OK && code != Z_STREAM_END)) {
      error_ = message != nullptr && *message != '\0' ? message : "read error";
    }
    return 0;
  }
  bytes_read_ += got;
  return static_cast<size_t>(got);
}

GzInput::int_type GzInput::underflow() {
  if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
  const size_t n = Read(buffer_.data(), buffer_.size());
  if (n == 0) return traits_type::eof();
  setg(buffer_.data(), buffer_.data(), buffer_.data() + n);
  return traits_type::to_int_type(*gptr());
}

std::string PeekDecompressed(const std::string& path, size_t n) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return {};
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  gzFile file = gzdopen(fd, "rb");
  if (file == nullptr) {
    close(fd);
    return {};
  }
  std::string out(n, '\0');
  int got = gzread(file, out.data(), static_cast<unsigned>(n));
  gzclose(file);
  out.resize(got > 0 ? static_cast<size_t>(got) : 0);
  return out;
}

}  // namespace streamscope
