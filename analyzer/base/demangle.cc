#include "analyzer/base/demangle.h"

#include <cxxabi.h>

#include <cstdlib>

namespace streamscope {

bool LooksMangled(std::string_view name) { return name.size() > 2 && name.substr(0, 2) == "_Z"; }

std::string Demangle(std::string_view name) {
  if (!LooksMangled(name)) return std::string(name);
  std::string mangled(name);
  int status = -1;
  char* demangled = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  std::string out = (status == 0 && demangled != nullptr) ? std::string(demangled) : mangled;
  std::free(demangled);
  return out;
}

}  // namespace streamscope
