# Installation and the Debian package.
#   cmake --install build --prefix /usr/local    # CLI, collector, docs
#   cpack --config build/CPackConfig.cmake -G DEB  # streamscope_<ver>_<arch>.deb
# Layout: bin/streamscope, lib/streamscope/libstreamscope_collector.so (the
# CLI looks there, beside its own ../lib), share/doc/streamscope/ (README and
# every user doc, with their relative links intact).
include(GNUInstallDirs)

install(TARGETS streamscope RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT streamscope)
if(TARGET streamscope_collector)
  install(TARGETS streamscope_collector LIBRARY DESTINATION lib/streamscope
          COMPONENT streamscope)
endif()
if(TARGET streamscope_workloads)
  install(TARGETS streamscope_workloads RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
          COMPONENT streamscope)
endif()

set(STREAMSCOPE_DOC_DIR ${CMAKE_INSTALL_DOCDIR})
install(FILES README.md DESTINATION ${STREAMSCOPE_DOC_DIR} COMPONENT streamscope)
foreach(dir docs analyzer collector workloads schema)
  install(DIRECTORY ${dir}/ DESTINATION ${STREAMSCOPE_DOC_DIR}/${dir} COMPONENT streamscope
          FILES_MATCHING PATTERN "*.md" PATTERN "*.png" PATTERN "*.sql")
endforeach()

set(CPACK_PACKAGE_NAME streamscope)
set(CPACK_PACKAGE_VENDOR "streamscope developers")
set(CPACK_PACKAGE_CONTACT "streamscope developers <streamscope@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "CUDA timeline profiler and analyzer: what ran at the same time on the GPU, and why")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_STRIP_FILES ON)
# Library dependencies (Abseil, SQLite, libstdc++) from the binaries
# themselves; the CUDA driver and CUPTI are the user's, not a dependency.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CMAKE_BINARY_DIR}/lib)
include(CPack)
