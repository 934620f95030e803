# Compiler warnings and sanitizers for every target of the project.
add_library(spacrbench_warnings INTERFACE)
target_compile_options(spacrbench_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes
  -Wformat=2 -Wconversion -Wno-sign-conversion -Wvla)
if(SPACRBENCH_WERROR)
  target_compile_options(spacrbench_warnings INTERFACE -Werror)
endif()
if(SPACRBENCH_SANITIZE)
  add_compile_options(-fsanitize=${SPACRBENCH_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${SPACRBENCH_SANITIZE})
endif()
