// A buffered output file created the safe way (docs/DEFINITIONS.md "Reliability and
// safety"): it never follows a symlink and never replaces an existing file
// unless asked to (and then only a regular file). Data goes to a temporary
// file next to the destination, which Commit() moves into place, so a failed
// or interrupted export leaves no half-written file behind.
//
// Not thread-safe; one writer per file. Errors (ENOSPC, EIO) are sticky and
// reported by Commit().
#ifndef STREAMSCOPE_ANALYZER_EXPORT_OUTPUT_FILE_H_
#define STREAMSCOPE_ANALYZER_EXPORT_OUTPUT_FILE_H_

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace streamscope {

// Writes all of `bytes` to `fd` (again after EINTR and short writes);
// returns 0 or the errno that stopped it, and adds what was written to
// `*written`.
int WriteFully(int fd, std::string_view bytes, int64_t* written);

// Where a streaming writer puts its bytes: an OutputFile, or a SpillBuffer
// (spill_buffer.h) that a parallel writer appends to one later.
class ByteOutput {
 public:
  virtual ~ByteOutput() = default;
  virtual void Write(std::string_view data) = 0;
};

class OutputFile final : public ByteOutput {
 public:
  // ALREADY_EXISTS if `path` exists and !overwrite; PERMISSION_DENIED if it
  // is a symlink or not a regular file, or the folder is not writable.
  static absl::StatusOr<std::unique_ptr<OutputFile>> Create(const std::string& path, bool overwrite);
  ~OutputFile() override;  // removes the temporary file unless committed
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  void Write(std::string_view data) override {
    buffer_.append(data);
    if (buffer_.size() >= kFlushBytes) Flush();
  }
  // Appends the first `size` bytes of file `fd` (copied by the kernel
  // where it can).
  void AppendFile(int fd, int64_t size);
  // Flushes, closes and moves the file to its destination.
  absl::Status Commit();

  const std::string& path() const { return path_; }
  int64_t bytes_written() const { return bytes_written_ + static_cast<int64_t>(buffer_.size()); }

 private:
  static constexpr size_t kFlushBytes = 1 << 20;
  OutputFile(std::string path, std::string temp_path, int fd, bool overwrite);
  void Flush();

  std::string path_, temp_path_;
  int fd_ = -1;
  bool overwrite_ = false;
  bool committed_ = false;
  int error_ = 0;  // first errno seen
  int64_t bytes_written_ = 0;
  std::string buffer_;
};

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_EXPORT_OUTPUT_FILE_H_
