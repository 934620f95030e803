# The man page and the bash and zsh completions of the `spacrbench` command,
# generated at build time by the built command from its option tables
# (`spacrbench --generate man|bash|zsh FILE`), so they can never disagree
# with `--help`. Installed by `cmake --install`; a wheel built by
# scikit-build-core ships them in its data (share/...) too. A cross or a
# Windows build skips them (and says so): the command it built may not run
# on the build machine, and the build tree's spacrbench.exe does not find its
# DLL (issue 20, item 6).
if(CMAKE_CROSSCOMPILING OR WIN32)
  message(STATUS "spacrbench man page and completions: skipped (cross or Windows build)")
  return()
endif()

set(SPACRBENCH_MAN_PAGE ${PROJECT_BINARY_DIR}/share/man/man1/spacrbench.1)
set(SPACRBENCH_BASH_COMPLETION ${PROJECT_BINARY_DIR}/share/bash-completion/completions/spacrbench)
set(SPACRBENCH_ZSH_COMPLETION ${PROJECT_BINARY_DIR}/share/zsh/site-functions/_spacrbench)
set(_generated)
foreach(kind man bash zsh)
  if(kind STREQUAL "man")
    set(_file ${SPACRBENCH_MAN_PAGE})
  elseif(kind STREQUAL "bash")
    set(_file ${SPACRBENCH_BASH_COMPLETION})
  else()
    set(_file ${SPACRBENCH_ZSH_COMPLETION})
  endif()
  get_filename_component(_dir ${_file} DIRECTORY)
  add_custom_command(OUTPUT ${_file}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${_dir}
    COMMAND $<TARGET_FILE:spacrbench_cli> --generate ${kind} ${_file}
    DEPENDS spacrbench_cli
    COMMENT "Generating ${kind} from the option tables"
    VERBATIM)
  list(APPEND _generated ${_file})
endforeach()
add_custom_target(spacrbench_docs ALL DEPENDS ${_generated})

install(FILES ${SPACRBENCH_MAN_PAGE} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT Runtime)
install(FILES ${SPACRBENCH_BASH_COMPLETION}
  DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/bash-completion/completions COMPONENT Runtime)
install(FILES ${SPACRBENCH_ZSH_COMPLETION}
  DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/zsh/site-functions COMPONENT Runtime)
# The wheel's data directory (scikit-build-core): pip puts share/... under the
# environment's prefix, where man and bash-completion look.
if(DEFINED SKBUILD_DATA_DIR)
  install(FILES ${SPACRBENCH_MAN_PAGE} DESTINATION ${SKBUILD_DATA_DIR}/share/man/man1
    COMPONENT python)
  install(FILES ${SPACRBENCH_BASH_COMPLETION}
    DESTINATION ${SKBUILD_DATA_DIR}/share/bash-completion/completions COMPONENT python)
  install(FILES ${SPACRBENCH_ZSH_COMPLETION}
    DESTINATION ${SKBUILD_DATA_DIR}/share/zsh/site-functions COMPONENT python)
endif()
