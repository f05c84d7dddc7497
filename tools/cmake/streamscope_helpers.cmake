# Shared CMake helpers.

# streamscope_unity_target(TARGET): compile TARGET's sources as unity batches
# when STREAMSCOPE_UNITY_BUILD is on. The files of a batch share one
# translation unit, anonymous namespaces included: tools/dev/unity_names_check.py
# (CTest: unity_names_test) fails where that changes what a file means.
# A batch #includes its .cc files, so GCC no longer sees them as the main
# file and warns (-Wsubobject-linkage) where a class of the file holds a type
# from the file's anonymous namespace: a check meant for headers that several
# units include, which a .cc in one batch is not.
function(streamscope_unity_target target)
  set_target_properties(${target} PROPERTIES UNITY_BUILD ${STREAMSCOPE_UNITY_BUILD})
  if(STREAMSCOPE_UNITY_BUILD AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE -Wno-subobject-linkage)
  endif()
endfunction()

# streamscope_add_source_check(NAME COMMAND...): a test that checks the
# source tree and runs no built code. It carries the label `source`, which
# the sanitizer step (tools/ci_sanitizers.sh) leaves out.
function(streamscope_add_source_check name)
  add_test(NAME ${name} COMMAND ${ARGN})
  set_tests_properties(${name} PROPERTIES LABELS source)
endfunction()

# streamscope_add_gtest(NAME SOURCES... LIBS ... [COST S]): a
# GoogleTest binary whose tests are each registered with CTest. Its main()
# (tests/scratch_dir_main.cc, the object library streamscope_test_main of
# tests/CMakeLists.txt) gives each run a temporary folder of its own and
# removes it after a pass. COST: about the seconds its slowest test takes
# under sanitizers, for a binary with one that takes a minute or more: CTest
# starts costly tests first, and a fresh folder has no timings of its own.
include(GoogleTest)
function(streamscope_add_gtest name)
  cmake_parse_arguments(ARG "" "COST" "SOURCES;LIBS" ${ARGN})
  set(properties "")
  if(ARG_COST)
    set(properties PROPERTIES COST ${ARG_COST})
  endif()
  add_executable(${name} ${ARG_SOURCES})
  streamscope_unity_target(${name})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} streamscope_test_main GTest::gtest)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR})
  gtest_discover_tests(${name}
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    ${properties}
    DISCOVERY_TIMEOUT 60)
endfunction()

# streamscope_add_gpu_test(NAME COMMAND ...): a test that needs a CUDA GPU.
# It carries the label `gpu`. Its command must exit 77 after printing
# "SKIPPED: <why>" when no GPU is present; CTest then reports it as skipped
# (never as passed). tools/gpu_test_guard.sh does that check for scripts.
function(streamscope_add_gpu_test name)
  cmake_parse_arguments(ARG "" "" "COMMAND" ${ARGN})
  add_test(NAME ${name}
           COMMAND ${PROJECT_SOURCE_DIR}/tools/gpu_test_guard.sh ${ARG_COMMAND}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(${name} PROPERTIES LABELS gpu SKIP_RETURN_CODE 77
    ENVIRONMENT "STREAMSCOPE_BUILD_DIR=${CMAKE_BINARY_DIR}")
endfunction()
