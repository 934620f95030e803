# Compiler warnings for every target of the project (link spacrbench_warnings
# PRIVATE), and sanitizers for the whole build when SPACRBENCH_SANITIZE is set.
add_library(spacrbench_warnings INTERFACE)
target_compile_options(spacrbench_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes
  -Wformat=2 -Wconversion -Wno-sign-conversion -Wvla)
if(SPACRBENCH_WERROR)
  target_compile_options(spacrbench_warnings INTERFACE -Werror)
endif()

# MinGW-w64 (Windows, cross or native): C99 printf (%zu, %lld) instead of
# msvcrt's, which -Wformat would reject; its isfinite/isnan expand to a type
# switch whose unused float branch warns under -Wfloat-conversion at every
# use; and the GCC runtime (libgcc, winpthread) goes into each binary, so
# the DLL and the .exe need nothing beside them but Windows' own DLLs.
# On the interface every target links, so a project that adds its own
# targets beside ours (tests/windows) gets them too.
if(MINGW)
  target_compile_definitions(spacrbench_warnings INTERFACE __USE_MINGW_ANSI_STDIO=1)
  target_compile_options(spacrbench_warnings INTERFACE -Wno-float-conversion)
  target_link_options(spacrbench_warnings INTERFACE -static-libgcc -static)
endif()

if(SPACRBENCH_SANITIZE)
  if(NOT SPACRBENCH_SANITIZE MATCHES "^(address|undefined|address,undefined|undefined,address|thread)$")
    message(FATAL_ERROR "SPACRBENCH_SANITIZE='${SPACRBENCH_SANITIZE}': use 'address,undefined' or 'thread'")
  endif()
  # Directory-wide so the library, the internal archive and the tests all
  # carry the same instrumentation (mixing TSan and plain objects misses races).
  add_compile_options(-fsanitize=${SPACRBENCH_SANITIZE} -fno-omit-frame-pointer
                      -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${SPACRBENCH_SANITIZE})
  # One spelling for GCC and clang, so tests can tell that shadow memory
  # (ASan: 1/8 plus quarantine; TSan: several times the touched memory)
  # inflates every resident-memory figure and skip upper bounds visibly.
  add_compile_definitions(SPACRBENCH_SANITIZED=1)
  if(SPACRBENCH_SANITIZE MATCHES "address")
    add_compile_definitions(SPACRBENCH_SANITIZED_ADDRESS=1)
  endif()
  if(SPACRBENCH_SANITIZE MATCHES "thread")
    add_compile_definitions(SPACRBENCH_SANITIZED_THREAD=1)
  endif()
endif()

