#include "analyzer/export/text_escape.h"

#include <cstdint>

namespace streamscope {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

inline uint8_t Byte(std::string_view s, size_t i) { return static_cast<uint8_t>(s[i]); }

// Calls emit_plain(run) for runs that need no escaping and
// emit_special(byte, seq_len) for each byte or sequence that does
// (seq_len 0 = invalid UTF-8 byte).
template <typename NeedsEscape, typename Plain, typename Special>
void Scan(std::string_view s, NeedsEscape needs_escape, Plain emit_plain, Special emit_special) {
  size_t run = 0, i = 0;
  while (i < s.size()) {
    uint8_t b = Byte(s, i);
    if (b < 0x80) {
      if (needs_escape(b)) {
        emit_plain(s.substr(run, i - run));
        emit_special(b);
        run = ++i;
      } else {
        ++i;
      }
      continue;
    }
    int len = Utf8SequenceLength(s.substr(i));
    if (len == 0) {
      emit_plain(s.substr(run, i - run));
      emit_special(-1);
      run = ++i;
    } else {
      i += len;
    }
  }
  emit_plain(s.substr(run));
}

}  // namespace

int Utf8SequenceLength(std::string_view s) {
  uint8_t b0 = Byte(s, 0);
  if (b0 < 0x80) return 1;
  auto cont = [&](size_t i, uint8_t lo = 0x80, uint8_t hi = 0xBF) {
    if (i >= s.size()) return false;
    uint8_t b = Byte(s, i);
    return b >= lo && b <= hi;
  };
  if (b0 >= 0xC2 && b0 <= 0xDF) return cont(1) ? 2 : 0;
  if (b0 == 0xE0) return cont(1, 0xA0) && cont(2) ? 3 : 0;
  if ((b0 >= 0xE1 && b0 <= 0xEC) || b0 == 0xEE || b0 == 0xEF) return cont(1) && cont(2) ? 3 : 0;
  if (b0 == 0xED) return cont(1, 0x80, 0x9F) && cont(2) ? 3 : 0;  // no surrogates
  if (b0 == 0xF0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (b0 >= 0xF1 && b0 <= 0xF3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (b0 == 0xF4) return cont(1, 0x80, 0x8F) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

void AppendJsonString(std::string_view s, std::string* out) {
  out->push_back('"');
  Scan(
      s, [](uint8_t b) { return b < 0x20 || b == '"' || b == '\\' || b == 0x7F || b == '<'; },
      [out](std::string_view run) { out->append(run); },
      [out](int b) {
        static constexpr char kHex[] = "0123456789abcdef";
        switch (b) {
          case -1: out->append(kReplacement); return;
          case '"': out->append("\\\""); return;
          case '\\': out->append("\\\\"); return;
          case '\b': out->append("\\b"); return;
          case '\f': out->append("\\f"); return;
          case '\n': out->append("\\n"); return;
          case '\r': out->append("\\r"); return;
          case '\t': out->append("\\t"); return;
          default: {
            char u[6] = {'\\', 'u', '0', '0', kHex[(b >> 4) & 0xF], kHex[b & 0xF]};
            out->append(u, 6);
          }
        }
      });
  out->push_back('"');
}

std::string JsonString(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  AppendJsonString(s, &out);
  return out;
}

void AppendHtmlEscaped(std::string_view s, std::string* out) {
  Scan(
      s,
      [](uint8_t b) {
        return (b < 0x20 && b != '\t' && b != '\n') || b == 0x7F || b == '&' || b == '<' || b == '>' || b == '"' ||
               b == '\'';
      },
      [out](std::string_view run) { out->append(run); },
      [out](int b) {
        switch (b) {
          case '&': out->append("&amp;"); return;
          case '<': out->append("&lt;"); return;
          case '>': out->append("&gt;"); return;
          case '"': out->append("&quot;"); return;
          case '\'': out->append("&#39;"); return;
          default: out->append(kReplacement); return;
        }
      });
}

std::string HtmlEscaped(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  AppendHtmlEscaped(s, &out);
  return out;
}

std::string TruncatedUtf8(std::string_view s, size_t n) {
  if (s.size() <= n) return std::string(s);
  size_t cut = n;
  while (cut > 0 && (static_cast<uint8_t>(s[cut]) & 0xC0) == 0x80) --cut;  // keep UTF-8 whole
  return std::string(s.substr(0, cut)) + "…";
}

}  // namespace streamscope
