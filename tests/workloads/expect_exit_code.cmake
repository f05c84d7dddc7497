# cmake -DCMD=program -DARGS="a;b" -DEXPECT=N -P expect_exit_code.cmake:
# passes when the program exits with N (CTest has no "expect exit code N").
execute_process(COMMAND ${CMD} ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL EXPECT)
  message(FATAL_ERROR "${CMD} ${ARGS}: exit ${rc}, expected ${EXPECT}")
endif()
