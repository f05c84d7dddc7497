# Shared CMake helpers.

# streamscope_add_gtest(NAME SOURCES... LIBS ...): a GoogleTest binary whose
# tests are each registered with CTest. Its main() (tests/scratch_dir_main.cc,
# the object library streamscope_test_main of tests/CMakeLists.txt) gives
# each run a temporary folder of its own and removes it after a pass.
include(GoogleTest)
function(streamscope_add_gtest name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} streamscope_test_main GTest::gtest)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR})
  gtest_discover_tests(${name}
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    PROPERTIES LABELS "${ARG_LABELS}"
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
