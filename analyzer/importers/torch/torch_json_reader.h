// A streaming JSON reader for torch.profiler traces: one pass over blocks of
// the file, no DOM, no per-token allocation. It calls the same SAX methods
// as nlohmann::json::sax_parse (null, boolean, number_integer,
// number_unsigned, number_float, string, key, start/end_object,
// start/end_array), with strings and keys as views into its buffer (valid
// during the call only) and floats as their text (the double is not
// computed: pass NaN), and it accepts exactly the documents nlohmann's
// strict parser accepts (RFC 8259 grammar, UTF-8 checked, escapes and
// surrogate pairs checked, a float that overflows a double refused, one
// leading UTF-8 byte order mark). On any error it only says where: the
// importer then reparses with nlohmann for its exact message.
//
// Why: nlohmann's lexer reads an std::istream one character at a time and
// builds every key and string in an std::string (~90 MB/s); this reader
// scans strings 16 bytes at a time and hands out views (~several 100 MB/s).
//
// Not thread-safe; the source and handler must outlive the reader.
#ifndef STREAMSCOPE_ANALYZER_IMPORTERS_TORCH_JSON_READER_H_
#define STREAMSCOPE_ANALYZER_IMPORTERS_TORCH_JSON_READER_H_

#include <emmintrin.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace streamscope {

// Bytes of the document, block by block.
class JsonByteSource {
 public:
  virtual ~JsonByteSource() = default;
  // Up to `n` bytes into `dst`; 0 at the end (or on an error the source
  // reports itself).
  virtual size_t Read(char* dst, size_t n) = 0;
  // The whole document in memory (a mapped file), or empty: then the
  // reader scans it in place instead of calling Read.
  virtual std::string_view Whole() { return {}; }
  // Mapped documents: the reader is done with everything before `upto`
  // (its pages may be dropped, so that they do not stay resident).
  virtual void Release(const char* upto) { (void)upto; }
};

// A document held in memory (tests, streams).
class JsonMemorySource : public JsonByteSource {
 public:
  explicit JsonMemorySource(std::string_view text) : text_(text) {}
  size_t Read(char* dst, size_t n) override {
    n = std::min(n, text_.size() - pos_);
    std::memcpy(dst, text_.data() + pos_, n);
    pos_ += n;
    return n;
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

namespace torch_json_internal {

// Length of the valid UTF-8 sequence (2-4 bytes, RFC 3629 ranges, as
// nlohmann checks them) at p; -1 if invalid; 0 if p..end is too short to
// tell.
int Utf8Sequence(const unsigned char* p, const unsigned char* end);

// Whether strtod(text) is finite (text: a JSON number).
bool FiniteDouble(std::string_view text);

}  // namespace torch_json_internal

template <typename Handler>
class TorchJsonReader {
 public:
  TorchJsonReader(JsonByteSource& source, Handler& handler) : src_(source), h_(handler) {}
  TorchJsonReader(const TorchJsonReader&) = delete;
  TorchJsonReader& operator=(const TorchJsonReader&) = delete;

  // True if the whole input is one JSON value and every handler call
  // returned true.
  bool Parse();

  // Parsing one document in pieces on several threads (a mapped document
  // only, Whole() non-empty; torch_trace_importer.cc): with StopAt(q),
  // Parse and ParseElementsFrom stop with true where an element of an
  // array at depth 2 (the top-level object's event list) ends and the next
  // one starts at q, and fail if they pass q without such a boundary.
  void StopAt(const char* q) { stop_at_ = q; }
  bool stopped() const { return stopped_; }
  // Parses from `begin`, the first byte of an element of the top-level
  // object's array, as if "{...[" came before it: to the end of the
  // document (which must close both), or to the StopAt point.
  bool ParseElementsFrom(const char* begin);

  // After a failed Parse: what and at which byte (of the input).
  const char* error() const { return error_; }
  int64_t error_offset() const { return error_offset_; }
  int64_t bytes_read() const { return consumed_ + (end_ - base_); }

 private:
  static constexpr size_t kBlock = size_t{1} << 20;
  static constexpr size_t kMinAvail = size_t{1} << 16;  // refill below this, between tokens
  static constexpr size_t kPad = 64;

  static bool IsWs(char c) {
    const auto u = static_cast<unsigned char>(c);
    return u <= ' ' && ((uint64_t{1} << u) & ((uint64_t{1} << ' ') | (1u << '\n') | (1u << '\r') | (1u << '\t'))) != 0;
  }
  static bool IsDigit(char c) { return c >= '0' && c <= '9'; }

  bool Fail(const char* p, const char* what) {
    error_ = what;
    error_offset_ = consumed_ + (p - base_);
    return false;
  }

  // Moves [keep, end_) to the buffer's start, reads more after it; returns
  // where `keep` now is. Grows the buffer for tokens longer than a block.
  const char* Refill(const char* keep) {
    if (mapped_end_ != nullptr) {  // in place: extend the window, drop what is behind
      src_.Release(keep);
      end_ = mapped_end_ - end_ > static_cast<ptrdiff_t>(kBlock) ? end_ + kBlock : mapped_end_;
      eof_ = end_ == mapped_end_;
      return keep;
    }
    const size_t kept = static_cast<size_t>(end_ - keep);
    if (kept + kMinAvail > cap_ || buf_ == nullptr) {
      const size_t cap = std::max(cap_ * 2, kept + kBlock);
      std::unique_ptr<char[]> bigger(new char[cap + kPad]);
      if (kept > 0) std::memcpy(bigger.get(), keep, kept);
      if (buf_ != nullptr) consumed_ += keep - buf_.get();
      buf_ = std::move(bigger);
      cap_ = cap;
    } else {
      consumed_ += keep - buf_.get();
      if (kept > 0) std::memmove(buf_.get(), keep, kept);
    }
    char* w = buf_.get() + kept;
    size_t room = cap_ - kept;
    while (room > 0 && !eof_) {
      const size_t n = src_.Read(w, room);
      if (n == 0) {
        eof_ = true;
        break;
      }
      w += n;
      room -= n;
    }
    end_ = w;
    std::memset(w, 0, kPad);
    base_ = buf_.get();
    return buf_.get();
  }

  // Skips whitespace; refills first when little is left. False at the end.
  [[gnu::always_inline]] bool SkipWs(const char*& p) {
    if (static_cast<size_t>(end_ - p) >= kMinAvail) [[likely]] {
      while (p < end_ && IsWs(*p)) ++p;
      if (p < end_) [[likely]]
        return true;
    }
    return SkipWsSlow(p);
  }
  [[gnu::noinline]] bool SkipWsSlow(const char*& p) {
    for (;;) {
      if (static_cast<size_t>(end_ - p) < kMinAvail && !eof_) p = Refill(p);
      while (p < end_ && IsWs(*p)) ++p;
      if (p < end_) return true;
      if (eof_) return false;
    }
  }

  // The grammar from p (a value expected) with the current stack.
  bool Run(const char* p);
  bool ScanString(const char*& p, std::string_view& out);
  bool ScanStringSlow(const char* start, const char*& p, std::string_view& out);
  bool ScanNumber(const char*& p);
  bool ScanLiteral(const char*& p);

  JsonByteSource& src_;
  Handler& h_;
  std::unique_ptr<char[]> buf_;
  size_t cap_ = 0;
  const char* base_ = nullptr;        // input byte consumed_ (buf_, or the mapping)
  const char* mapped_end_ = nullptr;  // a mapped document's end; null when buffered
  const char* end_ = nullptr;
  bool eof_ = false;
  int64_t consumed_ = 0;  // input bytes before buf_[0]
  std::string scratch_;   // strings with escapes, or across a refill
  std::vector<char> stack_;
  const char* stop_at_ = nullptr;
  bool stopped_ = false;
  const char* error_ = "";
  int64_t error_offset_ = -1;
};

template <typename Handler>
bool TorchJsonReader<Handler>::Parse() {
  const char* p;
  if (const std::string_view whole = src_.Whole(); whole.data() != nullptr) {
    base_ = p = end_ = whole.data();
    mapped_end_ = whole.data() + whole.size();
    p = Refill(p);
  } else {
    p = Refill(nullptr);
  }
  // One UTF-8 byte order mark (nlohmann's lexer skips it too).
  if (end_ - p >= 1 && static_cast<unsigned char>(p[0]) == 0xEF) {
    if (end_ - p < 3 || std::memcmp(p, "\xEF\xBB\xBF", 3) != 0) return Fail(p, "bad byte order mark");
    p += 3;
  }
  return Run(p);
}

template <typename Handler>
bool TorchJsonReader<Handler>::ParseElementsFrom(const char* begin) {
  const std::string_view whole = src_.Whole();
  if (whole.data() == nullptr || begin < whole.data() || begin >= whole.data() + whole.size()) {
    return Fail(begin, "no mapped document");
  }
  base_ = whole.data();
  end_ = begin;
  mapped_end_ = whole.data() + whole.size();
  const char* p = Refill(begin);
  stack_ = {'{', '['};
  return Run(p);
}

template <typename Handler>
bool TorchJsonReader<Handler>::Run(const char* p) {
  std::string_view text;
value:
  if (!SkipWs(p)) return Fail(p, "unexpected end of input; expected a value");
  switch (*p) {
    case '{':
      if (!h_.start_object(std::size_t(-1))) return Fail(p, "stopped");
      stack_.push_back('{');
      ++p;
      if (!SkipWs(p)) return Fail(p, "unexpected end of input in an object");
      if (*p == '}') {
        ++p;
        stack_.pop_back();
        if (!h_.end_object()) return Fail(p, "stopped");
        goto after_value;
      }
      goto key;
    case '[':
      if (!h_.start_array(std::size_t(-1))) return Fail(p, "stopped");
      stack_.push_back('[');
      ++p;
      if (!SkipWs(p)) return Fail(p, "unexpected end of input in an array");
      if (*p == ']') {
        ++p;
        stack_.pop_back();
        if (!h_.end_array()) return Fail(p, "stopped");
        goto after_value;
      }
      goto value;
    case '"':
      if (!ScanString(p, text)) return false;
      if (!h_.string(text)) return Fail(p, "stopped");
      goto after_value;
    case '-':
    case '0':
    case '1':
    case '2':
    case '3':
    case '4':
    case '5':
    case '6':
    case '7':
    case '8':
    case '9':
      if (!ScanNumber(p)) return false;
      goto after_value;
    case 't':
    case 'f':
    case 'n':
      if (!ScanLiteral(p)) return false;
      goto after_value;
    default: return Fail(p, "expected a value");
  }
key:  // p at the first non-blank byte after '{' or ','
  if (*p != '"') return Fail(p, "expected a string key");
  if (!ScanString(p, text)) return false;
  if (!h_.key(text)) return Fail(p, "stopped");
  if (!SkipWs(p) || *p != ':') return Fail(p, "expected ':'");
  ++p;
  goto value;
after_value:
  if (stack_.empty()) {
    if (SkipWs(p)) return Fail(p, "expected end of input");
    return true;
  }
  if (!SkipWs(p)) return Fail(p, "unexpected end of input; expected ',' or a closing bracket");
  if (*p == ',') {
    ++p;
    if (stack_.back() == '[') {
      if (stop_at_ != nullptr && stack_.size() == 2) {  // between two events of a piece
        if (!SkipWs(p)) return Fail(p, "unexpected end of input; expected a value");
        if (p == stop_at_) {
          stopped_ = true;
          return true;
        }
        if (p > stop_at_) return Fail(p, "no element boundary at the piece's end");
      }
      goto value;
    }
    if (!SkipWs(p)) return Fail(p, "unexpected end of input; expected a key");
    goto key;
  }
  if (*p == '}' && stack_.back() == '{') {
    ++p;
    stack_.pop_back();
    if (!h_.end_object()) return Fail(p, "stopped");
    goto after_value;
  }
  if (*p == ']' && stack_.back() == '[') {
    ++p;
    stack_.pop_back();
    if (!h_.end_array()) return Fail(p, "stopped");
    goto after_value;
  }
  return Fail(p, "expected ',' or a closing bracket");
}

// p at the opening quote; on success after the closing one.
template <typename Handler>
bool TorchJsonReader<Handler>::ScanString(const char*& p, std::string_view& out) {
  const char* start = ++p;
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), space = _mm_set1_epi8(' ');
  for (;;) {
    if (end_ - p >= 16) {
      // '"', '\\', control bytes and (as negative signed bytes) non-ASCII.
      const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      const __m128i hit =
          _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, backslash)), _mm_cmplt_epi8(x, space));
      const int mask = _mm_movemask_epi8(hit);
      if (mask == 0) {
        p += 16;
        continue;
      }
      p += __builtin_ctz(static_cast<unsigned>(mask));
    } else {
      while (p < end_ && *p != '"' && *p != '\\' && static_cast<signed char>(*p) >= ' ') ++p;
      if (p == end_) break;
    }
    const unsigned char c = static_cast<unsigned char>(*p);
    if (c == '"') {
      out = std::string_view(start, static_cast<size_t>(p - start));
      ++p;
      return true;
    }
    if (c >= 0x80) {
      const int n = torch_json_internal::Utf8Sequence(reinterpret_cast<const unsigned char*>(p),
                                                      reinterpret_cast<const unsigned char*>(end_));
      if (n > 0) {
        p += n;
        continue;
      }
      if (n < 0) return Fail(p, "invalid UTF-8 in a string");
    }
    break;  // an escape, a control byte, or the block's end
  }
  return ScanStringSlow(start, p, out);
}

// Byte by byte into scratch_, refilling as needed.
template <typename Handler>
bool TorchJsonReader<Handler>::ScanStringSlow(const char* start, const char*& p, std::string_view& out) {
  scratch_.assign(start, p);
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  auto code_unit = [&](const char* q) -> int32_t {  // q after "\u"
    int32_t v = 0;
    for (int k = 0; k < 4; ++k) {
      const int d = q + k < end_ ? hex(q[k]) : -1;
      if (d < 0) return -1;
      v = v * 16 + d;
    }
    return v;
  };
  for (;;) {
    if (end_ - p < 12 && !eof_) p = Refill(p);
    if (p == end_) return Fail(p, "unexpected end of input in a string");
    const unsigned char c = static_cast<unsigned char>(*p);
    if (c == '"') {
      ++p;
      out = scratch_;
      return true;
    }
    if (c < 0x20) return Fail(p, "control character in a string (must be escaped)");
    if (c < 0x80 && c != '\\') {
      scratch_.push_back(static_cast<char>(c));
      ++p;
      continue;
    }
    if (c >= 0x80) {
      const int n = torch_json_internal::Utf8Sequence(reinterpret_cast<const unsigned char*>(p),
                                                      reinterpret_cast<const unsigned char*>(end_));
      if (n <= 0) return Fail(p, "invalid UTF-8 in a string");
      scratch_.append(p, static_cast<size_t>(n));
      p += n;
      continue;
    }
    // An escape.
    if (end_ - p < 2) return Fail(p, "unexpected end of input in a string");
    char e = p[1];
    switch (e) {
      case '"': scratch_.push_back('"'); break;
      case '\\': scratch_.push_back('\\'); break;
      case '/': scratch_.push_back('/'); break;
      case 'b': scratch_.push_back('\b'); break;
      case 'f': scratch_.push_back('\f'); break;
      case 'n': scratch_.push_back('\n'); break;
      case 'r': scratch_.push_back('\r'); break;
      case 't': scratch_.push_back('\t'); break;
      case 'u': {
        int32_t cp = code_unit(p + 2);
        if (cp < 0) return Fail(p, "bad \\u escape");
        int len = 6;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          if (end_ - p < 12 || p[6] != '\\' || p[7] != 'u') return Fail(p, "high surrogate without its low one");
          const int32_t low = code_unit(p + 8);
          if (low < 0xDC00 || low > 0xDFFF) return Fail(p, "high surrogate without its low one");
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          len = 12;
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
          return Fail(p, "low surrogate without a high one");
        }
        if (cp < 0x80) {
          scratch_.push_back(static_cast<char>(cp));
        } else if (cp < 0x800) {
          scratch_.push_back(static_cast<char>(0xC0 | (cp >> 6)));
          scratch_.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        } else if (cp < 0x10000) {
          scratch_.push_back(static_cast<char>(0xE0 | (cp >> 12)));
          scratch_.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
          scratch_.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        } else {
          scratch_.push_back(static_cast<char>(0xF0 | (cp >> 18)));
          scratch_.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
          scratch_.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
          scratch_.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        }
        p += len;
        continue;
      }
      default: return Fail(p, "bad escape");
    }
    p += 2;
  }
}

// p at '-' or a digit. Integers that fit go to number_integer (negative) or
// number_unsigned, as nlohmann does; everything else to number_float.
template <typename Handler>
bool TorchJsonReader<Handler>::ScanNumber(const char*& p) {
  for (;;) {
    const char* q = p;
    bool negative = false, is_float = false, more = false;
    int64_t exponent = 0;
    const char* digits = nullptr;
    size_t int_digits = 0;
    uint64_t value = 0;
    do {  // break: stopped before the end of the data
      if (*q == '-') {
        negative = true;
        ++q;
        if (q == end_) {
          more = true;
          break;
        }
      }
      digits = q;
      if (*q == '0') {
        ++q;
      } else if (*q >= '1' && *q <= '9') {
        while (q < end_ && IsDigit(*q)) {
          value = value * 10 + static_cast<uint64_t>(*q - '0');  // exact up to 19 digits
          ++q;
        }
      } else {
        return Fail(q, "bad number");
      }
      int_digits = static_cast<size_t>(q - digits);
      if (q == end_) {
        more = true;
        break;
      }
      if (*q == '.') {
        is_float = true;
        ++q;
        if (q == end_) {
          more = true;
          break;
        }
        if (!IsDigit(*q)) return Fail(q, "bad number: no digit after '.'");
        while (q < end_ && IsDigit(*q)) ++q;
        if (q == end_) {
          more = true;
          break;
        }
      }
      if (*q == 'e' || *q == 'E') {
        is_float = true;
        ++q;
        if (q == end_) {
          more = true;
          break;
        }
        bool exp_negative = false;
        if (*q == '+' || *q == '-') {
          exp_negative = *q == '-';
          ++q;
          if (q == end_) {
            more = true;
            break;
          }
        }
        if (!IsDigit(*q)) return Fail(q, "bad number: no digit in the exponent");
        while (q < end_ && IsDigit(*q)) {
          if (exponent < 100'000) exponent = exponent * 10 + (*q - '0');
          ++q;
        }
        if (q == end_) {
          more = true;
          break;
        }
        if (exp_negative) exponent = -exponent;
      }
    } while (false);
    if (more && !eof_) {
      p = Refill(p);
      continue;
    }
    if (more && (q == digits || q[-1] < '0' || q[-1] > '9')) return Fail(q, "unexpected end of input in a number");
    const std::string_view text(p, static_cast<size_t>(q - p));
    if (!is_float) {
      if (int_digits <= 20) {
        uint64_t v = value;  // wrapped if 20 digits: redo with checks
        bool overflow = false;
        if (int_digits == 20) {
          v = 0;
          for (size_t k = 0; k < int_digits; ++k) {
            overflow |= __builtin_mul_overflow(v, uint64_t{10}, &v);
            overflow |= __builtin_add_overflow(v, static_cast<uint64_t>(digits[k] - '0'), &v);
          }
        }
        if (!overflow && !negative) {
          p = q;
          if (!h_.number_unsigned(v)) return Fail(p, "stopped");
          return true;
        }
        if (!overflow && v <= (uint64_t{1} << 63)) {
          p = q;
          const int64_t s = v == (uint64_t{1} << 63) ? std::numeric_limits<int64_t>::min() : -static_cast<int64_t>(v);
          if (!h_.number_integer(s)) return Fail(p, "stopped");
          return true;
        }
      }
      // Beyond 64 bits: a float, as in nlohmann.
    }
    // Only a large decimal exponent can overflow a double.
    if ((exponent > 0 ? static_cast<int64_t>(int_digits) + exponent : static_cast<int64_t>(int_digits)) > 300 &&
        !torch_json_internal::FiniteDouble(text)) {
      return Fail(p, "number overflow");
    }
    p = q;
    if (!h_.number_float(std::numeric_limits<double>::quiet_NaN(), text)) return Fail(p, "stopped");
    return true;
  }
}

template <typename Handler>
bool TorchJsonReader<Handler>::ScanLiteral(const char*& p) {
  if (end_ - p < 5 && !eof_) p = Refill(p);
  const size_t left = static_cast<size_t>(end_ - p);
  auto is = [&](std::string_view word) { return left >= word.size() && std::memcmp(p, word.data(), word.size()) == 0; };
  bool ok = true;
  if (is("true")) {
    p += 4;
    ok = h_.boolean(true);
  } else if (is("false")) {
    p += 5;
    ok = h_.boolean(false);
  } else if (is("null")) {
    p += 4;
    ok = h_.null();
  } else {
    return Fail(p, "invalid literal");
  }
  return ok || Fail(p, "stopped");
}

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_IMPORTERS_TORCH_JSON_READER_H_
