# json-c, the JSON parser and writer under src/util/json_*.c, linked
# statically into the library and the command (the library's version map
# and hidden visibility keep its symbols inside). The system's static
# library when there is one (Debian: libjson-c-dev); otherwise, and always
# when cross-compiling, Debian's own source tarball, pinned by its hash,
# built for the same toolchain with only the static library.
# Defines the target spacrbench_json_c.
add_library(spacrbench_json_c INTERFACE)
if(NOT CMAKE_CROSSCOMPILING)
  find_package(json-c CONFIG QUIET)
endif()
if(TARGET json-c::json-c-static)
  message(STATUS "json-c: the system's static library ${json-c_DIR}")
  target_link_libraries(spacrbench_json_c INTERFACE json-c::json-c-static)
  return()
endif()

include(ExternalProject)
set(_sb_jc_src ${CMAKE_CURRENT_BINARY_DIR}/json-c/src)
set(_sb_jc_bin ${CMAKE_CURRENT_BINARY_DIR}/json-c/build)
set(_sb_jc_lib ${_sb_jc_bin}/${CMAKE_STATIC_LIBRARY_PREFIX}json-c${CMAKE_STATIC_LIBRARY_SUFFIX})
message(STATUS "json-c: Debian's json-c 0.16 source, built static (no system libjson-c-dev)")
set(_sb_jc_args
  -DCMAKE_BUILD_TYPE=Release
  -DCMAKE_C_COMPILER=${CMAKE_C_COMPILER}
  -DCMAKE_AR=${CMAKE_AR}
  -DCMAKE_RANLIB=${CMAKE_RANLIB}
  -DCMAKE_POSITION_INDEPENDENT_CODE=ON
  -DCMAKE_C_VISIBILITY_PRESET=hidden
  -DCMAKE_POLICY_DEFAULT_CMP0063=NEW # the preset on a static library too
  -DBUILD_SHARED_LIBS=OFF
  -DBUILD_STATIC_LIBS=ON
  -DBUILD_TESTING=OFF
  -DDISABLE_WERROR=ON
  -DDISABLE_EXTRA_LIBS=ON
  -DDISABLE_THREAD_LOCAL_STORAGE=ON)
foreach(_sb_var CMAKE_TOOLCHAIN_FILE SPACRBENCH_ZIG_TARGET SPACRBENCH_ZIG_PYTHON)
  if(DEFINED ${_sb_var})
    list(APPEND _sb_jc_args -D${_sb_var}=${${_sb_var}})
  endif()
endforeach()
ExternalProject_Add(spacrbench_json_c_build
  URL http://deb.debian.org/debian/pool/main/j/json-c/json-c_0.16.orig.tar.gz
  URL_HASH SHA256=3ecaeedffd99a60b1262819f9e60d7d983844073abc74e495cb822b251904185
  DOWNLOAD_EXTRACT_TIMESTAMP ON
  SOURCE_DIR ${_sb_jc_src}
  BINARY_DIR ${_sb_jc_bin}
  CMAKE_ARGS ${_sb_jc_args}
  BUILD_COMMAND ${CMAKE_COMMAND} --build ${_sb_jc_bin} --target json-c
  INSTALL_COMMAND ""
  BUILD_BYPRODUCTS ${_sb_jc_lib})
# The headers: the sources' and the generated json_config.h (include
# directories must exist when the build system is generated).
file(MAKE_DIRECTORY ${_sb_jc_src} ${_sb_jc_bin})
add_library(spacrbench_json_c_static STATIC IMPORTED GLOBAL)
set_target_properties(spacrbench_json_c_static PROPERTIES
  IMPORTED_LOCATION ${_sb_jc_lib}
  INTERFACE_INCLUDE_DIRECTORIES "${_sb_jc_src};${_sb_jc_bin}")
add_dependencies(spacrbench_json_c_static spacrbench_json_c_build)
target_link_libraries(spacrbench_json_c INTERFACE spacrbench_json_c_static)
