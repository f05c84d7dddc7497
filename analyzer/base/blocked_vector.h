#ifndef STREAMSCOPE_ANALYZER_BASE_BLOCKED_VECTOR_H_
#define STREAMSCOPE_ANALYZER_BASE_BLOCKED_VECTOR_H_

#include <algorithm>
#include <cstddef>
#include <vector>

namespace streamscope {

// A vector kept in blocks of at most 2^kLog2 elements, each allocated on its
// own. For arrays of hundreds of MB made while other large buffers are
// alive: a block fits a hole the heap already has (a buffer freed earlier),
// where one contiguous array needs fresh pages at the heap's top and raises
// the peak, and growing copies one block at most, never the whole array.
// Every block but the last is full; the last holds only what it needs, so a
// small vector takes no more than a std::vector would.
template <typename T, int kLog2 = 20>
class BlockedVector {
 public:
  static constexpr size_t kBlock = size_t{1} << kLog2;

  size_t size() const { return blocks_.empty() ? 0 : (blocks_.size() - 1) * kBlock + blocks_.back().size(); }
  bool empty() const { return blocks_.empty(); }
  T& operator[](size_t k) { return blocks_[k >> kLog2][k & (kBlock - 1)]; }
  const T& operator[](size_t k) const { return blocks_[k >> kLog2][k & (kBlock - 1)]; }

  void push_back(const T& value) {
    if (blocks_.empty() || blocks_.back().size() == kBlock) blocks_.emplace_back();
    blocks_.back().push_back(value);
  }
  // `n` elements; those past the old size value-initialized.
  void resize(size_t n) {
    const size_t count = (n + kBlock - 1) / kBlock;
    blocks_.resize(count);
    for (size_t b = 0; b < count; ++b) blocks_[b].resize(std::min(kBlock, n - b * kBlock));
  }
  void clear() { blocks_.clear(); }

 private:
  std::vector<std::vector<T>> blocks_;  // a vector moved from is empty, as its blocks are
};

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_BASE_BLOCKED_VECTOR_H_
