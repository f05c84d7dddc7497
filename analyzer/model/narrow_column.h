// A column of int64 values kept in 4 bytes a row while every value lies
// within 32 bits of the first (row ids, correlation ids, thread ids, graph
// ids, most byte counts): 0.27 GiB less for the model of 10M GPU ops. The
// first value that does not fit turns the whole column into 8 bytes a row,
// once, so any int64 still reads back as written.
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
#include <vector>

namespace streamscope {

class NarrowInt64Column {
 public:
  using value_type = int64_t;
  // Reads the values in row order (range-for, std algorithms that read).
  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = int64_t;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = int64_t;
    const_iterator() = default;
    const_iterator(const NarrowInt64Column* c, size_t i) : c_(c), i_(i) {}
    int64_t operator*() const { return (*c_)[i_]; }
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
    const NarrowInt64Column* c_ = nullptr;
    size_t i_ = 0;
  };
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size()}; }

  size_t size() const { return wide_mode_ ? wide_.size() : narrow_.size(); }
  bool empty() const { return size() == 0; }
  int64_t operator[](size_t i) const { return wide_mode_ ? wide_[i] : base_ + narrow_[i]; }
  // Whether the rows take 8 bytes (a value beyond 32 bits of the first).
  bool wide() const { return wide_mode_; }

  void reserve(size_t n) {
    if (wide_mode_) {
      wide_.reserve(n);
    } else {
      narrow_.reserve(n);
    }
  }
  void push_back(int64_t v) {
    if (!wide_mode_) {
      if (narrow_.empty()) base_ = v;
      if (Fits(v)) {
        narrow_.push_back(static_cast<int32_t>(v - base_));
        return;
      }
      Widen();
    }
    wide_.push_back(v);
  }
  void Set(size_t i, int64_t v) {
    if (!wide_mode_) {
      if (Fits(v)) {
        narrow_[i] = static_cast<int32_t>(v - base_);
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
  void shrink_to_fit() {
    narrow_.shrink_to_fit();
    wide_.shrink_to_fit();
  }
  // Row `order[k]` becomes row k.
  void Permute(const std::vector<uint32_t>& order) {
    if (empty()) return;
    if (wide_mode_) {
      std::vector<int64_t> out;
      out.reserve(order.size());
      for (uint32_t i : order) out.push_back(wide_[i]);
      wide_.swap(out);
    } else {
      std::vector<int32_t> out;
      out.reserve(order.size());
      for (uint32_t i : order) out.push_back(narrow_[i]);
      narrow_.swap(out);
    }
  }

  friend bool operator==(const NarrowInt64Column& a, const NarrowInt64Column& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (a[i] != b[i]) return false;
    }
    return true;
  }

 private:
  bool Fits(int64_t v) const {
    int64_t d = 0;
    return !__builtin_sub_overflow(v, base_, &d) && d >= std::numeric_limits<int32_t>::min() &&
           d <= std::numeric_limits<int32_t>::max();
  }
  void Widen() {
    wide_.reserve(narrow_.capacity());
    for (int32_t x : narrow_) wide_.push_back(base_ + x);
    std::vector<int32_t>().swap(narrow_);
    wide_mode_ = true;
  }

  bool wide_mode_ = false;
  int64_t base_ = 0;  // the first value: row i holds base_ + narrow_[i]
  std::vector<int32_t> narrow_;
  std::vector<int64_t> wide_;
};

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_MODEL_NARROW_COLUMN_H_
