# Install rules: library, header, CMake package and pkg-config file.
install(TARGETS spacrbench EXPORT spacrbenchTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  PUBLIC_HEADER DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
