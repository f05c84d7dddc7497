// A std::streambuf over a file that may be gzip-compressed (zlib's gzread
// reads plain files unchanged), so the torch.profiler importer streams a
// `.json` or `.json.gz` trace of hundreds of MB without holding it in memory.
//
// Ownership: owns the zlib handle. Not thread-safe.
#ifndef STREAMSCOPE_ANALYZER_IMPORTERS_TORCH_GZ_INPUT_H_
#define STREAMSCOPE_ANALYZER_IMPORTERS_TORCH_GZ_INPUT_H_

#include <zlib.h>

#include <array>
#include <cstdint>
#include <memory>
#include <streambuf>
#include <string>

#include "absl/status/statusor.h"

namespace streamscope {

class GzInput : public std::streambuf {
 public:
  // NOT_FOUND if the file cannot be opened.
  static absl::StatusOr<std::unique_ptr<GzInput>> Open(const std::string& path);
  ~GzInput() override;
  GzInput(const GzInput&) = delete;
  GzInput& operator=(const GzInput&) = delete;

  // Empty while the data read fine; else zlib's message ("unexpected end
  // of file" for a truncated .gz, "incorrect header check", ...).
  const std::string& error() const { return error_; }
  bool compressed() const { return compressed_; }
  int64_t bytes_read() const { return bytes_read_; }  // uncompressed

  // Up to `n` uncompressed bytes straight into `dst` (the block reader's
  // path, no streambuf copy); 0 at the end or on an error (see error()).
  size_t Read(char* dst, size_t n);

 protected:
  int_type underflow() override;

 private:
  explicit GzInput(gzFile file) : file_(file) {}
  gzFile file_;
  std::array<char, 1 << 16> buffer_{};
  std::string error_;
  bool compressed_ = false;
  int64_t bytes_read_ = 0;
};

// The first up to `n` bytes of the file, decompressed if it is gzip; empty
// if it cannot be read.
std::string PeekDecompressed(const std::string& path, size_t n);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_IMPORTERS_TORCH_GZ_INPUT_H_
