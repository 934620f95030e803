# Cross-compiles the library for macOS from Linux with zig's bundled clang,
# macOS headers and libSystem stubs (pip install ziglang), for compile and
# link checks without a Mac (tests/macos/run.sh). Nothing built here runs.
#   cmake -S . -B build-mac -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-zig-macos.cmake \
#         -DSPACRBENCH_ZIG_TARGET=aarch64-macos
set(CMAKE_SYSTEM_NAME Darwin)
set(SPACRBENCH_ZIG_TARGET "x86_64-macos" CACHE STRING
    "zig target: x86_64-macos or aarch64-macos, optionally with the oldest macOS, e.g. aarch64-macos.11.0")
if(NOT SPACRBENCH_ZIG_TARGET MATCHES "^(x86_64|aarch64)-macos(\\.([0-9]+)[0-9.]*)?$")
  message(FATAL_ERROR "SPACRBENCH_ZIG_TARGET='${SPACRBENCH_ZIG_TARGET}': use x86_64-macos or aarch64-macos[.VERSION]")
endif()
set(CMAKE_SYSTEM_PROCESSOR ${CMAKE_MATCH_1})
# The Darwin kernel version of that macOS (11 -> 20), which CMake's Darwin
# platform reads and cannot ask a machine it does not run on.
if(CMAKE_MATCH_3 GREATER_EQUAL 11)
  math(EXPR CMAKE_SYSTEM_VERSION "${CMAKE_MATCH_3} + 9")
else()
  set(CMAKE_SYSTEM_VERSION 20)
endif()
if(NOT SPACRBENCH_ZIG_PYTHON)
  # The interpreter itself, not a version manager's shim (pyenv), so the
  # build uses the python3 that has ziglang even if the shim's choice moves.
  find_program(_sb_python3 NAMES python3 REQUIRED)
  execute_process(COMMAND "${_sb_python3}" -c "import sys; print(sys.executable)"
                  OUTPUT_VARIABLE _sb_python OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
  set(SPACRBENCH_ZIG_PYTHON "${_sb_python}" CACHE FILEPATH "python3 with the ziglang package")
endif()
# try_compile projects reread this file: hand them the same choices.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES SPACRBENCH_ZIG_TARGET SPACRBENCH_ZIG_PYTHON)

# CMake wants one executable per tool, so each is a two-line script that
# pins the interpreter and the target (written where the build lives).
set(_sb_zig_dir "${CMAKE_BINARY_DIR}/zig-${SPACRBENCH_ZIG_TARGET}")
foreach(_sb_tool cc ar ranlib)
  set(_sb_args "${_sb_tool}")
  if(_sb_tool STREQUAL "cc")
    set(_sb_args "cc -target ${SPACRBENCH_ZIG_TARGET}")
  endif()
  file(WRITE "${_sb_zig_dir}/zig-${_sb_tool}"
       "#!/bin/sh\nexec \"${SPACRBENCH_ZIG_PYTHON}\" -m ziglang ${_sb_args} \"$@\"\n")
  file(CHMOD "${_sb_zig_dir}/zig-${_sb_tool}" PERMISSIONS
       OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
endforeach()
# CMake's Darwin platform turns on -rpath (and with it @rpath install
# names) only after running sw_vers on the host; zig's linker has both, so
# a rules override, read after the platform files, turns them on.
file(WRITE "${_sb_zig_dir}/rules.cmake" "set(CMAKE_SHARED_LIBRARY_RUNTIME_C_FLAG \"-Wl,-rpath,\")\n")
set(CMAKE_USER_MAKE_RULES_OVERRIDE_C "${_sb_zig_dir}/rules.cmake")
set(CMAKE_C_COMPILER "${_sb_zig_dir}/zig-cc")
set(CMAKE_AR "${_sb_zig_dir}/zig-ar" CACHE FILEPATH "zig's ar" FORCE)
set(CMAKE_RANLIB "${_sb_zig_dir}/zig-ranlib" CACHE FILEPATH "zig's ranlib" FORCE)

# zig supplies the SDK: no Xcode sysroot, no -arch flags from CMake.
set(CMAKE_OSX_SYSROOT "" CACHE PATH "" FORCE)
set(CMAKE_OSX_ARCHITECTURES "" CACHE STRING "" FORCE)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
# No macOS .pc files exist here: pkg-config must find none rather than the
# host's (a host libcheck would be taken for the target's). A
# PKG_CONFIG_LIBDIR of the user's own (a macOS sysroot's) wins.
if(NOT DEFINED ENV{PKG_CONFIG_LIBDIR})
  set(ENV{PKG_CONFIG_LIBDIR} "${_sb_zig_dir}/no-pkgconfig")
endif()
