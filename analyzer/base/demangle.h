// C++ and CUDA symbol names as people read them. CUPTI and Nsight Systems
// record kernel names mangled (Itanium ABI: "_Z12JacobiMethodPKfPKdfPdS3_S3_");
// every text, table and timeline shows them demangled ("JacobiMethod(float
// const*, double const*, float, double*, double*, double*)") and keeps the
// recorded name beside it where the output is data (JSON, CSV, saved
// tables). Pure; thread-safe.
#ifndef STREAMSCOPE_ANALYZER_BASE_DEMANGLE_H_
#define STREAMSCOPE_ANALYZER_BASE_DEMANGLE_H_

#include <string>
#include <string_view>

namespace streamscope {

// Whether `name` looks like an Itanium-mangled symbol ("_Z...").
bool LooksMangled(std::string_view name);

// The demangled form of `name`; `name` itself when it is not mangled or
// cannot be demangled.
std::string Demangle(std::string_view name);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_BASE_DEMANGLE_H_
