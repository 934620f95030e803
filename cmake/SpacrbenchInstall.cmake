# Install rules: the library (with its SONAME links), the public headers, the
# CMake package (spacrbench::spacrbench) and the pkg-config file.
set(SPACRBENCH_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/spacrbench)

install(TARGETS spacrbench EXPORT spacrbenchTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          COMPONENT Runtime NAMELINK_COMPONENT Development
  PUBLIC_HEADER DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT Development)
# spacrbench.h (the target's PUBLIC_HEADER) includes the tiers beneath it.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/spacrbench
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT Development
  FILES_MATCHING PATTERN "*.h")

install(EXPORT spacrbenchTargets
  NAMESPACE spacrbench::
  DESTINATION ${SPACRBENCH_CMAKE_DIR}
  COMPONENT Development)

configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/spacrbenchConfig.cmake.in
  ${PROJECT_BINARY_DIR}/spacrbenchConfig.cmake
  INSTALL_DESTINATION ${SPACRBENCH_CMAKE_DIR})
# The major version is the SONAME: 1.x consumers accept any 1.y.
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/spacrbenchConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMajorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/spacrbenchConfig.cmake
  ${PROJECT_BINARY_DIR}/spacrbenchConfigVersion.cmake
  DESTINATION ${SPACRBENCH_CMAKE_DIR}
  COMPONENT Development)

# The licence (BSD-3-Clause, as spaCR's) with the documentation.
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE
  DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/spacrbench
  COMPONENT Runtime)

# spacrbench.pc is written at install time so that its prefix is the one
# actually installed to (`cmake --install build --prefix DIR` included), not
# the CMAKE_INSTALL_PREFIX guessed at configure time.
set(SPACRBENCH_PC_STAGED ${PROJECT_BINARY_DIR}/pkgconfig/spacrbench.pc)
install(CODE "
  set(SPACRBENCH_PC_TEMPLATE \"${CMAKE_CURRENT_LIST_DIR}/spacrbench.pc.in\")
  set(SPACRBENCH_PC_OUTPUT \"${SPACRBENCH_PC_STAGED}\")
  set(SPACRBENCH_PC_LIBDIR \"${CMAKE_INSTALL_LIBDIR}\")
  set(SPACRBENCH_PC_INCLUDEDIR \"${CMAKE_INSTALL_INCLUDEDIR}\")
  set(PROJECT_VERSION \"${PROJECT_VERSION}\")
  set(PROJECT_DESCRIPTION \"${PROJECT_DESCRIPTION}\")
  include(\"${CMAKE_CURRENT_LIST_DIR}/SpacrbenchPkgConfig.cmake\")
" COMPONENT Development)
install(FILES ${SPACRBENCH_PC_STAGED}
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
  COMPONENT Development)
