# The Python wheel's native part (python/pyproject.toml): the CLI and, where
# the CUDA toolkit exists, the collector, installed into the package as
#   streamscope/_native/bin/streamscope
#   streamscope/_native/lib/libstreamscope_collector.so
# (the CLI finds the collector at <bin>/../lib). scikit-build-core builds
# only the target streamscope_wheel and installs only the component `wheel`.
set(_native streamscope/_native)

if(NOT STREAMSCOPE_WHEEL_FROM)
  add_custom_target(streamscope_wheel)
  add_dependencies(streamscope_wheel streamscope)
  install(TARGETS streamscope RUNTIME DESTINATION ${_native}/bin COMPONENT wheel)
  if(TARGET streamscope_collector)
    add_dependencies(streamscope_wheel streamscope_collector)
    install(TARGETS streamscope_collector LIBRARY DESTINATION ${_native}/lib COMPONENT wheel)
  endif()
  return()
endif()

# Packaging the binaries of an existing build (tools/build_wheel.sh --from
# DIR): nothing is compiled. Its CLI must be the self-contained one.
get_filename_component(_from "${STREAMSCOPE_WHEEL_FROM}" ABSOLUTE)
if(NOT EXISTS ${_from}/CMakeCache.txt OR NOT EXISTS ${_from}/bin/streamscope)
  message(FATAL_ERROR "STREAMSCOPE_WHEEL_FROM=${_from}: not a build folder with bin/streamscope")
endif()
load_cache(${_from} READ_WITH_PREFIX _from_ STREAMSCOPE_STATIC_DEPS)
if(NOT _from_STREAMSCOPE_STATIC_DEPS)
  message(FATAL_ERROR "${_from} was configured without -DSTREAMSCOPE_STATIC_DEPS=ON: its CLI "
                      "needs Abseil's shared libraries, which a wheel's user may not have")
endif()
add_custom_target(streamscope_wheel)
set(_installed bin/streamscope)
install(PROGRAMS ${_from}/bin/streamscope DESTINATION ${_native}/bin COMPONENT wheel)
if(EXISTS ${_from}/lib/libstreamscope_collector.so)
  install(FILES ${_from}/lib/libstreamscope_collector.so DESTINATION ${_native}/lib COMPONENT wheel)
  list(APPEND _installed lib/libstreamscope_collector.so)
endif()
# `cmake --install --strip` strips targets only: strip the copies here.
foreach(_file IN LISTS _installed)
  install(CODE "execute_process(COMMAND \"${CMAKE_STRIP}\" --strip-unneeded
                \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${_native}/${_file}\" COMMAND_ERROR_IS_FATAL ANY)"
          COMPONENT wheel)
endforeach()
