# Runs inside `cmake --install`: writes spacrbench.pc for the prefix being
# installed to. Inputs (set by SpacrbenchInstall.cmake): SPACRBENCH_PC_TEMPLATE,
# SPACRBENCH_PC_OUTPUT, SPACRBENCH_PC_LIBDIR, SPACRBENCH_PC_INCLUDEDIR,
# PROJECT_VERSION, PROJECT_DESCRIPTION; CMAKE_INSTALL_PREFIX comes from cmake.
set(prefix "${CMAKE_INSTALL_PREFIX}")
# GNUInstallDirs may hand absolute directories; keep them, otherwise express
# them relative to ${prefix} as pkg-config users expect.
foreach(kind LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${SPACRBENCH_PC_${kind}}")
    set(SPACRBENCH_PC_${kind}_VALUE "${SPACRBENCH_PC_${kind}}")
  else()
    set(SPACRBENCH_PC_${kind}_VALUE "\${prefix}/${SPACRBENCH_PC_${kind}}")
  endif()
endforeach()
configure_file("${SPACRBENCH_PC_TEMPLATE}" "${SPACRBENCH_PC_OUTPUT}" @ONLY)
