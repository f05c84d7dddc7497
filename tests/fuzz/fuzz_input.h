// Reads a fuzz input as a stream of small decisions (bytes, integers,
// strings). Runs out gracefully: past the end everything reads as zero or
// empty, so every input is a valid program for the structure-aware fuzzers.
#ifndef STREAMSCOPE_TESTS_FUZZ_FUZZ_INPUT_H_
#define STREAMSCOPE_TESTS_FUZZ_FUZZ_INPUT_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace streamscope::fuzz {

class FuzzInput {
 public:
  FuzzInput(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  bool empty() const { return pos_ >= size_; }
  uint8_t Byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  int64_t Int64() {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = (v << 8) | Byte();
    int64_t out;
    std::memcpy(&out, &v, sizeof(out));
    return out;
  }
  // A length byte, then up to that many bytes (fewer at the end of input).
  std::string String() {
    size_t n = Byte();
    std::string out;
    while (n-- > 0 && pos_ < size_) out.push_back(static_cast<char>(data_[pos_++]));
    return out;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

}  // namespace streamscope::fuzz

#endif  // STREAMSCOPE_TESTS_FUZZ_FUZZ_INPUT_H_
