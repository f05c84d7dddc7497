// The fast JSON reader against nlohmann's strict SAX parser, the reference:
// on every document, valid or damaged, both must accept or both refuse, and
// where they accept they must make the same calls with the same values.
// Documents larger than the reader's 1 MiB block put tokens across every
// kind of block boundary; plain files go through the mapped input too.
#include "analyzer/importers/torch/torch_json_reader.h"

#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "analyzer/importers/torch/torch_mapped_input.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/analyzer/importers/torch/torch_test_util.h"

namespace streamscope {
namespace {

using testing::ReadFile;
using testing::TempPath;
using testing::WriteText;

// Writes every call as a line. Floats by their text: the fast reader does
// not compute the double.
struct Recorder {
  std::string log;
  bool null() { return Add("null"); }
  bool boolean(bool v) { return Add(v ? "true" : "false"); }
  bool number_integer(int64_t v) { return Add(absl::StrCat("int ", v)); }
  bool number_unsigned(uint64_t v) { return Add(absl::StrCat("unsigned ", v)); }
  bool number_float(double, std::string_view text) { return Add("float " + std::string(text)); }
  bool string(std::string_view v) { return Add(absl::StrCat("string ", v.size(), " ") + std::string(v)); }
  bool binary(nlohmann::json::binary_t&) { return Add("binary"); }
  bool key(std::string_view v) { return Add(absl::StrCat("key ", v.size(), " ") + std::string(v)); }
  bool start_object(std::size_t) { return Add("{"); }
  bool end_object() { return Add("}"); }
  bool start_array(std::size_t) { return Add("["); }
  bool end_array() { return Add("]"); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }
  bool Add(const std::string& line) {
    log += line;
    log += "\n";
    return true;
  }
};

struct Outcome {
  bool ok;
  std::string log;
};

Outcome Reference(const std::string& text) {
  Recorder r;
  bool ok = false;
  try {
    ok = nlohmann::json::sax_parse(text, &r, nlohmann::json::input_format_t::json, /*strict=*/true,
                                   /*ignore_comments=*/false);
  } catch (const std::exception&) {
    ok = false;
  }
  return {ok, ok ? r.log : ""};
}

Outcome Fast(JsonByteSource& source) {
  Recorder r;
  TorchJsonReader<Recorder> reader(source, r);
  const bool ok = reader.Parse();
  if (!ok) {
    EXPECT_GE(reader.error_offset(), 0);
  }
  return {ok, ok ? r.log : ""};
}

Outcome FastFromMemory(const std::string& text) {
  JsonMemorySource source(text);
  return Fast(source);
}

// Both parsers agree on `text`; returns whether it was accepted.
bool ExpectSameAsReference(const std::string& text, const std::string& what) {
  const Outcome want = Reference(text);
  const Outcome got = FastFromMemory(text);
  EXPECT_EQ(got.ok, want.ok) << what;
  EXPECT_EQ(got.log, want.log) << what;
  return want.ok;
}

TEST(TorchJsonReader, NumbersAreTypedAsNlohmannTypesThem) {
  for (const char* n : {"0",
                        "-0",
                        "7",
                        "-7",
                        "9223372036854775807",
                        "-9223372036854775808",
                        "-9223372036854775809",
                        "18446744073709551615",
                        "18446744073709551616",
                        "99999999999999999999",
                        "123456789012345678901234",
                        "1.5",
                        "-0.0",
                        "1e3",
                        "1E+3",
                        "25e-3",
                        "1e400",
                        "-1e400",
                        "1e-400",
                        "1.7976931348623157e308",
                        "1.8e308",
                        "0.000001e310"}) {
    ExpectSameAsReference(absl::StrCat("[", n, "]"), n);
  }
  // A number with 400 digits overflows a double: refused by both.
  EXPECT_FALSE(ExpectSameAsReference("[1" + std::string(400, '0') + "]", "400 digits"));
  EXPECT_TRUE(ExpectSameAsReference("[1" + std::string(300, '0') + "]", "300 digits"));
}

TEST(TorchJsonReader, BadNumbersLiteralsAndStructureAreRefusedLikeNlohmann) {
  for (const char* bad : {"",
                          " ",
                          "[",
                          "]",
                          "[1,]",
                          "{\"a\":1,}",
                          "[01]",
                          "[1.]",
                          "[.5]",
                          "[1e]",
                          "[1e+]",
                          "[-]",
                          "[+1]",
                          "[tru]",
                          "[truex]",
                          "[nul]",
                          "{\"a\"}",
                          "{\"a\" 1}",
                          "{1: 2}",
                          "[1 2]",
                          "[] []",
                          "{} x",
                          "[\"a]",
                          "\"\\x\"",
                          "[\"\\u12\"]",
                          "[\"\\ud800\"]",
                          "[\"\\udc00\"]",
                          "[\"\\ud800\\u0041\"]",
                          "[\"tab\there\"]",
                          "[\"\x01\"]",
                          "\xEF\xBB[]",
                          "[\"\xC0\x80\"]",
                          "[\"\xED\xA0\x80\"]",
                          "[\"\xF4\x90\x80\x80\"]",
                          "[\"\xE2\x82\"]",
                          "[\"\xFF\"]"}) {
    EXPECT_FALSE(ExpectSameAsReference(bad, absl::StrCat("'", bad, "'"))) << bad;
  }
  for (const char* good : {"[]", "{}", " \n\t\r[ ] ", "\xEF\xBB\xBF{}", "null", "\"top\"", "-1", "true",
                           "[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u0041\\u00e9\\u20AC\\ud83d\\ude00\\u0000\"]",
                           "[\"\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\x7F\"]", "{\"a\":{\"b\":[1,{\"c\":null}]}}"}) {
    EXPECT_TRUE(ExpectSameAsReference(good, good)) << good;
  }
}

TEST(TorchJsonReader, EveryTruncationAndRandomChangeOfATraceIsJudgedLikeNlohmann) {
  const std::string good = ReadFile(testing::kSyntheticTorchTrace);
  ASSERT_GT(good.size(), 1000u);
  int accepted = 0, refused = 0;
  for (size_t n = 0; n <= good.size(); n += 3) {
    (ExpectSameAsReference(good.substr(0, n), absl::StrCat("first ", n, " bytes")) ? accepted : refused)++;
  }
  const std::string alphabet = "{}[],:\"0123456789.eE-+ntfx\\ \x01\x7f\xc3\xa9\xed\xff";
  std::mt19937 rng(18);
  for (int variant = 0; variant < 2000; ++variant) {
    std::string bad = good;
    for (int c = 0; c <= variant % 3; ++c) bad[rng() % bad.size()] = alphabet[rng() % alphabet.size()];
    (ExpectSameAsReference(bad, absl::StrCat("variant ", variant)) ? accepted : refused)++;
  }
  EXPECT_GT(accepted, 100);
  EXPECT_GT(refused, 1000);
}

// Several MiB of events with escapes, non-ASCII text and numbers of every
// kind, so that block boundaries fall inside every kind of token.
std::string BigDocument(size_t long_string) {
  std::string doc = "{\"traceEvents\": [\n";
  std::mt19937 rng(7);
  const char* names[] = {"aten::mm", "caf\xC3\xA9 \\\"quoted\\\"", "\\u00e9\\ud83d\\ude00 emoji", "tab\\tand\\nnewline",
                         "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>"};
  for (int i = 0; i < 40000; ++i) {
    absl::StrAppend(&doc, i ? ",\n" : "", "  {\"ph\": \"X\", \"name\": \"", names[rng() % 5],
                    "\", \"ts\": ", rng() % 100000, ".", rng() % 1000, ", \"dur\": ", rng() % 100,
                    ", \"id\": ", static_cast<int64_t>(rng()) - (int64_t{1} << 31), ", \"big\": 1844674407370955161",
                    rng() % 10, ", \"e\": ", rng() % 9 + 1, "e", static_cast<int>(rng() % 40) - 20,
                    ", \"args\": {\"grid\": [1, 2, 3], \"ok\": true, \"none\": null, \"f\": false}}");
  }
  absl::StrAppend(&doc, ",\n  \"", std::string(long_string, 'x'), "\\u00e9\"\n]}");
  return doc;
}

TEST(TorchJsonReader, TokensAcrossBlockBoundariesReadTheSameFromMemoryAndFromAMappedFile) {
  const std::string doc = BigDocument(3 << 20);  // a string longer than a block, too
  ASSERT_GT(doc.size(), 6u << 20);
  const Outcome want = Reference(doc);
  ASSERT_TRUE(want.ok);
  EXPECT_EQ(FastFromMemory(doc).log, want.log);
  const std::string path = TempPath("big.json");
  WriteText(path, doc);
  auto mapped = MappedInput::Open(path);
  ASSERT_NE(mapped, nullptr);
  const Outcome got = Fast(*mapped);
  EXPECT_TRUE(got.ok);
  EXPECT_EQ(got.log, want.log);
  // Cut inside the long string and at many places near block ends: refused.
  for (size_t cut : {size_t{1} << 20, (size_t{1} << 20) + 1, (size_t{2} << 20) - 7, doc.size() - 2, doc.size() - 1}) {
    WriteText(path, doc.substr(0, cut));
    auto part = MappedInput::Open(path);
    ASSERT_NE(part, nullptr);
    EXPECT_FALSE(Fast(*part).ok) << cut;
    EXPECT_FALSE(FastFromMemory(doc.substr(0, cut)).ok) << cut;
  }
}

TEST(TorchJsonReader, AGzipFileIsNotMappedButReadThroughZlib) {
  const std::string path = TempPath("trace.json.gz");
  ASSERT_TRUE(testing::WriteGzip(path, "[]"));
  EXPECT_EQ(MappedInput::Open(path), nullptr);
  const std::string empty = TempPath("empty.json");
  WriteText(empty, "");
  EXPECT_EQ(MappedInput::Open(empty), nullptr);
}

}  // namespace
}  // namespace streamscope
