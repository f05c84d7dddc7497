# STREAMSCOPE_STATIC_DEPS: the CLI carries Abseil and protobuf inside it, so
# that it needs only glibc (2.34+), libstdc++ (GCC 11+), SQLite and zlib,
# which every Linux system has, and can ship in the Python wheel. libstdc++
# stays shared on purpose: its static archive pulls in glibc 2.36 symbols
# (arc4random, _dl_find_object), which Ubuntu 22.04 lacks. Debian's libabsl-dev
# exports only its shared libraries to CMake; its static archives sit next
# to them and link into executables only (the collector, a shared library,
# links no Abseil).

# Call after find_package(absl): points every imported absl:: library at
# its static archive.
function(streamscope_link_abseil_statically)
  get_directory_property(_imported IMPORTED_TARGETS)
  foreach(_target IN LISTS _imported)
    if(NOT _target MATCHES "^absl::")
      continue()
    endif()
    get_target_property(_type ${_target} TYPE)
    if(NOT _type STREQUAL "SHARED_LIBRARY")
      continue()
    endif()
    get_target_property(_configs ${_target} IMPORTED_CONFIGURATIONS)
    set(_props IMPORTED_LOCATION)
    foreach(_config IN LISTS _configs)
      list(APPEND _props IMPORTED_LOCATION_${_config})
    endforeach()
    foreach(_prop IN LISTS _props)
      get_target_property(_location ${_target} ${_prop})
      if(NOT _location)
        continue()
      endif()
      string(REGEX REPLACE "\\.so(\\.[0-9.]+)?$" ".a" _archive "${_location}")
      if(NOT EXISTS "${_archive}")
        message(FATAL_ERROR "STREAMSCOPE_STATIC_DEPS: no static archive ${_archive} for ${_target} "
                            "(install Abseil's static libraries, or configure with -DSTREAMSCOPE_STATIC_DEPS=OFF)")
      endif()
      set_target_properties(${_target} PROPERTIES ${_prop} "${_archive}")
    endforeach()
  endforeach()
endfunction()
