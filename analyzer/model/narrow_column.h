// A column of integers kept in fewer bytes a row while every value lies
// within the narrow type's range of the first: int64 ids and byte counts in
// 4 bytes (row ids, correlation ids, thread ids, most byte counts) or 2
// (graph ids), int32 indices and codes in 1 or 2 (devices, streams, names,
// callback ids, return codes). For the model of 10M GPU ops 0.45 GiB less
// than plain columns. The first value that does not fit turns the whole
// column into the wide type, once, so any value still reads back as
// written.
//
// Reads return values (there is no reference to an element); writes go
// through push_back() and Set(). Not thread-safe for writes; concurrent
// reads are fine.
#ifndef STREAMSCOPE_ANALYZER_MODEL_NARROW_COLUMN_H_
#define STREAMSCOPE_ANALYZER_MODEL_NARROW_COLUMN_H_

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <utility>
#include <vector>

namespace streamscope {

template <typename Wide, typename Narrow>
class NarrowColumn {
 public:
  using value_type = Wide;
  // Reads the values in row order (range-for, std algorithms that read).
  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = Wide;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = Wide;
    const_iterator() = default;
    const_iterator(const NarrowColumn* c, size_t i) : c_(c), i_(i) {}
    Wide operator*() const { return (*c_)[i_]; }
    const_iterator& operator++() {
      ++i_;
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator old = *this;
      ++i_;
      return old;
    }
    friend bool operator==(const const_iterator& a, const const_iterator& b) { return a.i_ == b.i_; }

   private:
    const NarrowColumn* c_ = nullptr;
    size_t i_ = 0;
  };
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size()}; }

  size_t size() const { return wide_mode_ ? wide_.size() : narrow_.size(); }
  bool empty() const { return size() == 0; }
  Wide operator[](size_t i) const { return wide_mode_ ? wide_[i] : static_cast<Wide>(base_ + narrow_[i]); }
  Wide back() const { return (*this)[size() - 1]; }
  // Whether the rows take the wide type's bytes (a value beyond the narrow
  // type's range from the first).
  bool wide() const { return wide_mode_; }

  void reserve(size_t n) {
    if (wide_mode_) {
      wide_.reserve(n);
    } else {
      narrow_.reserve(n);
    }
  }
  void push_back(Wide v) {
    if (!wide_mode_) {
      if (narrow_.empty()) base_ = v;
      if (Fits(v)) {
        narrow_.push_back(static_cast<Narrow>(v - base_));
        return;
      }
      Widen();
    }
    wide_.push_back(v);
  }
  void Set(size_t i, Wide v) {
    if (!wide_mode_) {
      if (Fits(v)) {
        narrow_[i] = static_cast<Narrow>(v - base_);
        return;
      }
      Widen();
    }
    wide_[i] = v;
  }
  void clear() {
    narrow_.clear();
    wide_.clear();
    wide_mode_ = false;
  }
  void swap(NarrowColumn& other) noexcept {
    std::swap(wide_mode_, other.wide_mode_);
    std::swap(base_, other.base_);
    narrow_.swap(other.narrow_);
    wide_.swap(other.wide_);
  }
  void shrink_to_fit() {
    narrow_.shrink_to_fit();
    wide_.shrink_to_fit();
  }
  // Row `order[k]` becomes row k.
  void Permute(const std::vector<uint32_t>& order) {
    if (empty()) return;
    if (wide_mode_) {
      std::vector<Wide> out;
      out.reserve(order.size());
      for (uint32_t i : order) out.push_back(wide_[i]);
      wide_.swap(out);
    } else {
      std::vector<Narrow> out;
      out.reserve(order.size());
      for (uint32_t i : order) out.push_back(narrow_[i]);
      narrow_.swap(out);
    }
  }

  friend bool operator==(const NarrowColumn& a, const NarrowColumn& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (a[i] != b[i]) return false;
    }
    return true;
  }

 private:
  bool Fits(Wide v) const {
    Wide d = 0;
    return !__builtin_sub_overflow(v, base_, &d) && d >= std::numeric_limits<Narrow>::min() &&
           d <= std::numeric_limits<Narrow>::max();
  }
  void Widen() {
    wide_.reserve(narrow_.capacity());
    for (Narrow x : narrow_) wide_.push_back(static_cast<Wide>(base_ + x));
    std::vector<Narrow>().swap(narrow_);
    wide_mode_ = true;
  }

  bool wide_mode_ = false;
  Wide base_ = 0;  // the first value: row i holds base_ + narrow_[i]
  std::vector<Narrow> narrow_;
  std::vector<Wide> wide_;
};

// Ids and byte counts: 4 bytes a row while within 32 bits of the first.
using NarrowInt64Column = NarrowColumn<int64_t, int32_t>;
// CUDA graph ids (-1 outside graphs; a process numbers its graphs from 1):
// 2 bytes a row while within 16 bits of the first.
using Int64In16Column = NarrowColumn<int64_t, int16_t>;
// Device ids and return codes (1 byte a row), stream indices, name ids
// and callback ids (2 bytes) while within the narrow range of the first.
using Int32In8Column = NarrowColumn<int32_t, int8_t>;
using Int32In16Column = NarrowColumn<int32_t, int16_t>;

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_MODEL_NARROW_COLUMN_H_
