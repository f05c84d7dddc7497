#include "analyzer/render/text_layout.h"

#include <cctype>

namespace streamscope {
namespace {

bool IsContinuationByte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// Byte offset of the `n`-th code point of `s` (s.size() if there are fewer).
size_t OffsetOfCodePoint(std::string_view s, size_t n) {
  size_t seen = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (IsContinuationByte(s[i])) continue;
    if (seen == n) return i;
    ++seen;
  }
  return s.size();
}

bool OpensQuote(std::string_view s, size_t i) {
  if (i + 1 >= s.size() || s[i + 1] == ' ') return false;
  if (i == 0) return true;
  char p = s[i - 1];
  return p == ' ' || p == '(' || p == '[' || p == '=' || p == ',';
}

bool ClosesQuote(std::string_view s, size_t i) {
  if (i + 1 >= s.size()) return true;
  unsigned char n = static_cast<unsigned char>(s[i + 1]);
  return !std::isalnum(n) && n != '_';
}

// Spaces of `line` where it may break: outside quoted names.
std::vector<bool> BreakableSpaces(std::string_view line) {
  std::vector<bool> ok(line.size(), false);
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\'' && OpensQuote(line, i)) {
      size_t j = i + 1;
      while (j < line.size() && !(line[j] == '\'' && ClosesQuote(line, j))) ++j;
      if (j < line.size()) {  // a quoted name: no break inside
        i = j;
        continue;
      }
    }
    ok[i] = line[i] == ' ';
  }
  return ok;
}

// `continuation`: the prefix of continuation lines; null: the line's own
// indentation plus 4 spaces.
void WrapOneLine(std::string_view line, size_t width, const std::string* continuation_prefix, std::string* out) {
  if (TextColumns(line) <= width) {
    out->append(line);
    return;
  }
  size_t indent = 0;
  while (indent < line.size() && line[indent] == ' ') ++indent;
  const std::vector<bool> breakable = BreakableSpaces(line);
  std::vector<size_t> cols(line.size() + 1, 0);  // columns before each byte
  for (size_t i = 0; i < line.size(); ++i) cols[i + 1] = cols[i] + (IsContinuationByte(line[i]) ? 0 : 1);
  const std::string continuation = continuation_prefix != nullptr ? *continuation_prefix : std::string(indent + 4, ' ');
  std::string_view prefix = line.substr(0, indent);
  size_t start = indent;
  const size_t n = line.size();
  while (start < n) {
    const size_t avail = width > prefix.size() + 8 ? width - prefix.size() : 8;
    if (cols[n] - cols[start] <= avail) {
      out->append(prefix);
      out->append(line.substr(start));
      return;
    }
    size_t cut = std::string_view::npos;
    for (size_t i = start + 1; i < n; ++i) {
      if (!breakable[i]) continue;
      if (cols[i] - cols[start] <= avail) {
        cut = i;
      } else {
        if (cut == std::string_view::npos) cut = i;  // a word longer than the line stays whole
        break;
      }
    }
    if (cut == std::string_view::npos) {
      out->append(prefix);
      out->append(line.substr(start));
      return;
    }
    size_t end = cut;
    while (end > start && line[end - 1] == ' ') --end;
    out->append(prefix);
    out->append(line.substr(start, end - start));
    out->push_back('\n');
    start = cut;
    while (start < n && line[start] == ' ') ++start;
    prefix = continuation;
  }
}

}  // namespace

size_t TextColumns(std::string_view text) {
  size_t n = 0;
  for (char c : text) n += IsContinuationByte(c) ? 0 : 1;
  return n;
}

std::string ShortenName(std::string_view name, size_t max_columns) {
  const size_t cols = TextColumns(name);
  if (cols <= max_columns) return std::string(name);
  if (max_columns <= 3) return std::string(name.substr(0, OffsetOfCodePoint(name, max_columns)));
  std::string out(name.substr(0, OffsetOfCodePoint(name, max_columns - 3)));
  out += "...";
  return out;
}

std::string WrapLines(std::string_view text, size_t width) {
  std::string out;
  out.reserve(text.size() + text.size() / 16);
  size_t from = 0;
  while (from < text.size()) {
    size_t nl = text.find('\n', from);
    if (nl == std::string_view::npos) {
      WrapOneLine(text.substr(from), width, nullptr, &out);
      break;
    }
    WrapOneLine(text.substr(from, nl - from), width, nullptr, &out);
    out.push_back('\n');
    from = nl + 1;
  }
  return out;
}

std::vector<std::string> WrapParagraph(std::string_view text, size_t width, std::string_view first_indent,
                                       std::string_view indent) {
  std::string line(first_indent);
  line.append(text);
  const std::string continuation(indent);
  std::string wrapped;
  WrapOneLine(line, width, &continuation, &wrapped);
  std::vector<std::string> out;
  size_t from = 0;
  while (from <= wrapped.size()) {
    size_t nl = wrapped.find('\n', from);
    if (nl == std::string::npos) nl = wrapped.size();
    out.push_back(wrapped.substr(from, nl - from));
    from = nl + 1;
  }
  return out;
}

}  // namespace streamscope
