// Numbers for humans: durations with an automatic unit (ns, us, ms, s),
// shares as percentages, byte counts. Pure functions; thread-safe.
#ifndef STREAMSCOPE_ANALYZER_BASE_UNITS_H_
#define STREAMSCOPE_ANALYZER_BASE_UNITS_H_

#include <cstdint>
#include <string>

namespace streamscope {

// "850 ns", "12.3 us", "2.41 ms", "1.25 s" (three significant digits).
std::string FormatDuration(int64_t ns);
// Offset from a window start: "+2.41 ms".
std::string FormatOffset(int64_t ns);
// "78%", "0.4%", "100%"; "-" when the whole is 0.
std::string FormatShare(int64_t part, int64_t whole);
std::string FormatShare(double share);
// part / whole as a fraction; 0 when the whole is not positive.
double ShareOf(int64_t part, int64_t whole);
// A fraction as a whole percentage: "78%", "0%" (no decimals, unlike FormatShare).
std::string FormatWholePercent(double fraction);
// "4.00 MiB".
std::string FormatBytes(int64_t bytes);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_BASE_UNITS_H_
