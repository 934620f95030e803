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

# C99 printf (%zu, %lld) instead of msvcrt's, which -Wformat would reject.
# MinGW's isfinite/isnan expand to a type switch whose unused float branch
# warns under -Wfloat-conversion at every use: that one warning is off here.
set(CMAKE_C_FLAGS_INIT "-D__USE_MINGW_ANSI_STDIO=1 -Wno-float-conversion")

# The GCC runtime (libgcc, and winpthread that the posix flavour's libgcc
# may pull in) goes into each binary, so the DLL and the .exe need nothing
# beside them but Windows' own DLLs.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static-libgcc -static")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-static-libgcc -static")
