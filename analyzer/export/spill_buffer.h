// A writer's bytes held for later (a parallel writer's part of one output
// file): kept in memory up to kKeepBytes, then in an unnamed temporary file
// next to the output, so memory stays bounded whatever the part's size.
// AppendTo copies everything into the output in the order written.
//
// Not thread-safe; one writer at a time. Errors (ENOSPC) are sticky and
// reported by AppendTo.
#ifndef STREAMSCOPE_ANALYZER_EXPORT_SPILL_BUFFER_H_
#define STREAMSCOPE_ANALYZER_EXPORT_SPILL_BUFFER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "analyzer/export/output_file.h"

namespace streamscope {

class SpillBuffer final : public ByteOutput {
 public:
  // `dir`: the folder of the output (the temporary file goes there).
  explicit SpillBuffer(std::string dir) : dir_(std::move(dir)) {}
  ~SpillBuffer() override;
  SpillBuffer(const SpillBuffer&) = delete;
  SpillBuffer& operator=(const SpillBuffer&) = delete;

  void Write(std::string_view data) override {
    buffer_.append(data);
    if (buffer_.size() >= kKeepBytes) Spill();
  }
  // Appends every byte written to `out`.
  absl::Status AppendTo(OutputFile* out);

  int64_t bytes() const { return spilled_ + static_cast<int64_t>(buffer_.size()); }
  bool spilled() const { return fd_ >= 0; }

  static constexpr size_t kKeepBytes = 4 << 20;

 private:
  void Spill();

  std::string dir_;
  std::string buffer_;
  int fd_ = -1;
  int error_ = 0;  // first errno seen
  int64_t spilled_ = 0;
};

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_EXPORT_SPILL_BUFFER_H_
