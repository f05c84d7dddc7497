// A plain (not compressed) torch.profiler trace mapped into memory for the
// JSON reader to scan in place: no read() copy of hundreds of MB. Pages
// the reader is done with are dropped as it goes, so resident memory stays
// a few MB whatever the file's size.
//
// Ownership: owns the mapping. Not thread-safe.
#ifndef STREAMSCOPE_ANALYZER_IMPORTERS_TORCH_MAPPED_INPUT_H_
#define STREAMSCOPE_ANALYZER_IMPORTERS_TORCH_MAPPED_INPUT_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "analyzer/importers/torch/torch_json_reader.h"

namespace streamscope {

class MappedInput : public JsonByteSource {
 public:
  // Null if the file is empty, gzip-compressed, or cannot be mapped (the
  // caller then reads it through GzInput).
  static std::unique_ptr<MappedInput> Open(const std::string& path);
  ~MappedInput() override;
  MappedInput(const MappedInput&) = delete;
  MappedInput& operator=(const MappedInput&) = delete;

  size_t Read(char*, size_t) override { return 0; }
  std::string_view Whole() override { return {data_, size_}; }
  void Release(const char* upto) override;

  // The same document for a reader that starts at `begin` (a piece parsed
  // on another thread): it drops only pages from `begin` on.
  std::unique_ptr<JsonByteSource> Piece(const char* begin) const;

 private:
  MappedInput(const char* data, size_t size) : data_(data), size_(size) {}
  const char* data_;
  size_t size_;
  size_t released_ = 0;  // bytes from the start already dropped
};

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_IMPORTERS_TORCH_MAPPED_INPUT_H_
