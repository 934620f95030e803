# Cross-compile for 64-bit Windows with MinGW-w64 (Debian:
# gcc-mingw-w64-x86-64-posix). Use:
#   cmake -S . -B build-win -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-mingw-w64-x86_64.cmake
# The programs run under Wine (tests/windows/run.sh) or on Windows.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(SPACRBENCH_MINGW_TRIPLE x86_64-w64-mingw32)

# The posix flavour first: it is the one Debian's package name promises;
# the plain name is whichever flavour update-alternatives selected.
find_program(CMAKE_C_COMPILER NAMES ${SPACRBENCH_MINGW_TRIPLE}-gcc-posix ${SPACRBENCH_MINGW_TRIPLE}-gcc REQUIRED)
find_program(CMAKE_RC_COMPILER NAMES ${SPACRBENCH_MINGW_TRIPLE}-windres)
find_program(CMAKE_AR NAMES ${SPACRBENCH_MINGW_TRIPLE}-gcc-ar-posix ${SPACRBENCH_MINGW_TRIPLE}-ar)
find_program(CMAKE_RANLIB NAMES ${SPACRBENCH_MINGW_TRIPLE}-gcc-ranlib-posix ${SPACRBENCH_MINGW_TRIPLE}-ranlib)
find_program(SPACRBENCH_MINGW_OBJDUMP NAMES ${SPACRBENCH_MINGW_TRIPLE}-objdump)

set(CMAKE_FIND_ROOT_PATH /usr/${SPACRBENCH_MINGW_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# pkg-config answers for the target: the MinGW tree's .pc files only, never
# the host's (a host libcheck made the documented build fail at check.h).
# A PKG_CONFIG_LIBDIR of the user's own wins.
if(NOT DEFINED ENV{PKG_CONFIG_LIBDIR})
  set(ENV{PKG_CONFIG_LIBDIR} "${CMAKE_FIND_ROOT_PATH}/lib/pkgconfig")
endif()

# The MinGW settings themselves (C99 printf, the static GCC runtime) are
# the project's (cmake/SpacrbenchWarnings.cmake), so a native MinGW build on
# Windows gets them too.
