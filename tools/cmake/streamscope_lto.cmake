# STREAMSCOPE_LTO: the analyzer's libraries and the `streamscope` CLI are
# compiled at -O3 and optimized at link time in optimized builds. The
# analyses call across source files in their hot loops (the dependency
# graph's accessors from the what-if replays and the critical path, the
# model's columns from every pass); only the linker sees both sides. A
# 1M-op report runs 9 % fewer instructions and takes 5-10 % less time; at
# 10M ops the gain was below the 2-core VM's noise. It costs about a
# minute more of building (bench/results/analyzer.md).
#
# - The libraries' objects carry both the intermediate code and ordinary
#   machine code (GCC's -ffat-lto-objects): the tests link the same
#   libraries without link-time optimization, with lld, in a fraction of
#   the time.
# - GCC's intermediate code is read only by a linker with its plugin: the
#   CLI links with gold there (lld reads only clang's).
# - Off under the sanitizers and the fuzzers, and in Debug builds.

option(STREAMSCOPE_LTO "The analyzer and its CLI at -O3 and optimized at link time in optimized builds" ON)

set(STREAMSCOPE_LTO_ACTIVE OFF)
set(_lto_why "")
if(NOT STREAMSCOPE_LTO)
  set(_lto_why "STREAMSCOPE_LTO=OFF")
elseif(STREAMSCOPE_SANITIZE OR STREAMSCOPE_FUZZ)
  set(_lto_why "sanitizer or fuzzer build")
elseif(NOT CMAKE_BUILD_TYPE MATCHES "^(Release|RelWithDebInfo|MinSizeRel)$")
  set(_lto_why "build type '${CMAKE_BUILD_TYPE}'")
else()
  include(CheckIPOSupported)
  check_ipo_supported(RESULT _lto_supported LANGUAGES CXX)
  set(STREAMSCOPE_LTO_LINKER_OPTIONS "")
  if(NOT _lto_supported)
    set(_lto_why "the compiler cannot")
  elseif(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND STREAMSCOPE_HAVE_LLD)
    include(CheckLinkerFlag)
    check_linker_flag(CXX "-fuse-ld=gold;-flto=auto;-Wl,--no-mmap-output-file" STREAMSCOPE_HAVE_GOLD_LTO)
    if(STREAMSCOPE_HAVE_GOLD_LTO)
      set(STREAMSCOPE_LTO_LINKER_OPTIONS -fuse-ld=gold)  # after -fuse-ld=lld: the last one counts
      set(STREAMSCOPE_LTO_ACTIVE ON)
    else()
      set(_lto_why "no linker reads GCC's intermediate code (ld.gold)")
    endif()
  else()
    set(STREAMSCOPE_LTO_ACTIVE ON)
  endif()
endif()
if(STREAMSCOPE_LTO_ACTIVE)
  message(STATUS "streamscope: the analyzer at -O3 and optimized at link time")
else()
  message(STATUS "streamscope: link-time optimization off (${_lto_why})")
endif()

# RelWithDebInfo (the main job's, the test command's and the wheel's build)
# at -O3 like Release, compiled and linked: at -O2 GCC inlines too little
# for the linker's view to matter (instructions of a 1M-op report on one
# thread, cachegrind: -O2 18.48G, -O2 at link time 18.20G, -O3 17.85G, -O3
# at link time 17.05G).
# GCC 12 at -O3 warns of an overlapping memcpy inside std::string's insert
# that cannot happen (a false positive many projects met with GCC 12 only).
set(_lto_flags $<$<CONFIG:RelWithDebInfo>:-O3>)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  list(APPEND _lto_flags -Wno-restrict)
endif()

# A static library of the analyzer (linked into the CLI and into tests) or
# an executable optimized at link time with them (the CLI, plain_read).
function(streamscope_lto target)
  if(NOT STREAMSCOPE_LTO_ACTIVE)
    return()
  endif()
  set_property(TARGET ${target} PROPERTY INTERPROCEDURAL_OPTIMIZATION TRUE)
  target_compile_options(${target} PRIVATE ${_lto_flags})
  get_target_property(_type ${target} TYPE)
  if(_type STREQUAL "EXECUTABLE")
    target_link_options(${target} PRIVATE ${_lto_flags} ${STREAMSCOPE_LTO_LINKER_OPTIONS})
  elseif(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE -ffat-lto-objects)
  endif()
endfunction()
