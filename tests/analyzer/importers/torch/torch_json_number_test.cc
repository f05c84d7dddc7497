// Kineto's microsecond times become exact nanoseconds: the number's text is
// converted digit by digit, never through a double.
#include "analyzer/importers/torch/torch_json_number.h"

#include <limits>

#include "gtest/gtest.h"

namespace streamscope {
namespace {

TEST(TorchJsonNumber, KinetoMicrosecondsWithThreeDecimalsAreExactNanoseconds) {
  EXPECT_EQ(MicrosTextToNanos("1234.567"), 1234567);
  EXPECT_EQ(MicrosTextToNanos("55.001"), 55001);
  EXPECT_EQ(MicrosTextToNanos("0.000"), 0);
  EXPECT_EQ(MicrosTextToNanos("20"), 20000);
  EXPECT_EQ(MicrosTextToNanos("-3.5"), -3500);
}

TEST(TorchJsonNumber, AbsoluteEpochTimesKeepEveryNanosecondWhereADoubleWouldNot) {
  // 1.7e18 ns needs 19 digits; a double keeps 15-16.
  EXPECT_EQ(MicrosTextToNanos("1699999999999999.999"), 1699999999999999999);
  EXPECT_NE(static_cast<int64_t>(1699999999999999.999 * 1000), 1699999999999999999);
}

TEST(TorchJsonNumber, ExtraDecimalsRoundToTheNearestNanosecond) {
  EXPECT_EQ(MicrosTextToNanos("1.0004"), 1000);
  EXPECT_EQ(MicrosTextToNanos("1.0005"), 1001);
  EXPECT_EQ(MicrosTextToNanos("0.0005"), 1);
  EXPECT_EQ(MicrosTextToNanos("-0.0005"), -1);
  EXPECT_EQ(MicrosTextToNanos("2.99999999999999999999"), 3000);
}

TEST(TorchJsonNumber, ExponentsShiftThePoint) {
  EXPECT_EQ(MicrosTextToNanos("1.5e3"), 1500000);
  EXPECT_EQ(MicrosTextToNanos("1.5E+3"), 1500000);
  EXPECT_EQ(MicrosTextToNanos("25e-3"), 25);
  EXPECT_EQ(MicrosTextToNanos("1e-400"), 0);
  EXPECT_EQ(ScaledDecimal("7", 0), 7);
}

TEST(TorchJsonNumber, ValuesBeyondInt64AndNonNumbersAreRejected) {
  EXPECT_EQ(MicrosTextToNanos("9223372036854775.808"), std::nullopt);
  EXPECT_EQ(MicrosTextToNanos("9223372036854775.807"), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(MicrosTextToNanos("-9223372036854775.808"), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(MicrosTextToNanos("1e400"), std::nullopt);
  EXPECT_EQ(MicrosTextToNanos(""), std::nullopt);
  EXPECT_EQ(MicrosTextToNanos("-"), std::nullopt);
  EXPECT_EQ(MicrosTextToNanos("1.2.3"), std::nullopt);
  EXPECT_EQ(MicrosTextToNanos("1e"), std::nullopt);
  EXPECT_EQ(MicrosTextToNanos("12abc"), std::nullopt);
}

TEST(TorchJsonNumber, TheInlineKinetoPathAgreesWithTheGeneralOne) {
  // MicrosTextToNanos takes "[-]DIGITS.DDD" inline; everything must come
  // out as ScaledDecimal(text, 3) says, whatever the text.
  for (const char* t : {"1234.567", "-1234.567", "0.001", "-0.000", "000001.500", "999999999999999.999",
                        "-999999999999999.999", "1.5", "1.5000", ".123", "-.123", "1.2.3", "1e.123", "+1.000",
                        "12a.456", "1234567890123456.789", "9223372036854775.807", "--1.000", "1.00x"}) {
    EXPECT_EQ(MicrosTextToNanos(t), ScaledDecimal(t, 3)) << t;
  }
  EXPECT_EQ(MicrosTextToNanos("-1234.567"), -1234567);
  EXPECT_EQ(MicrosTextToNanos("999999999999999.999"), 999999999999999999);
}

}  // namespace
}  // namespace streamscope
