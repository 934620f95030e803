# The Check suites that need no fork, /proc or cgroups: the ones built and
# run on Windows (tests/windows, under Wine) and macOS as well as on Linux.
set(SPACRBENCH_PORTABLE_CHECKS
  check_builder check_figures check_parse check_plate check_records check_recommend check_report
  check_schedule check_slurm_script)

# spacrbench_check_source(<file>): what a Check suite's source needs on this
# compiler. MinGW-w64's gcc reads check.h's format(printf) declarations as
# msvcrt's format and then rejects C99's %zu and %jd, which our C99 printf
# (and a libcheck built with __USE_MINGW_ANSI_STDIO) print correctly; the
# same files' formats are checked by the Linux builds. A source property,
# so it comes after the warning set's -Wformat=2.
function(spacrbench_check_source file)
  if(MINGW)
    set_property(SOURCE ${file} APPEND PROPERTY COMPILE_OPTIONS -Wno-format)
  endif()
endfunction()

# spacrbench_add_check_test(<name> [TIMEOUT <s>] [ENVIRONMENT <VAR=value>...])
#
# Registers the Check binary <name> (an existing executable target) with
# ctest, and, when SPACRBENCH_VALGRIND is ON, a second test
# valgrind_<name> that runs it under memcheck with CK_FORK=no (valgrind
# cannot follow Check's forked test processes; child processes the tests
# start themselves are not traced). Test subdirectories can call it too.
function(spacrbench_add_check_test name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "RUNS_THE_COMMAND" "TIMEOUT" "ENVIRONMENT")
  if(NOT arg_TIMEOUT)
    set(arg_TIMEOUT 300)
  endif()
  set(env ${arg_ENVIRONMENT})
  if(SPACRBENCH_SANITIZE)
    # Instrumented code is several times slower; keep Check's per-test
    # timeouts meaningful rather than flaky.
    list(APPEND env CK_TIMEOUT_MULTIPLIER=5)
  endif()
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES TIMEOUT ${arg_TIMEOUT} LABELS "check")
  if(env)
    set_tests_properties(${name} PROPERTIES ENVIRONMENT "${env}")
  endif()

  # A suite that runs the spacrbench binary as its child gets no valgrind
  # twin: valgrind does not follow children here, so it would check only
  # the test's own harness. The binary itself runs under valgrind in
  # tests/c/cli (valgrind_spacrbench_*).
  if(SPACRBENCH_VALGRIND AND NOT arg_RUNS_THE_COMMAND)
    if(SPACRBENCH_SANITIZE)
      message(FATAL_ERROR "SPACRBENCH_VALGRIND cannot be combined with SPACRBENCH_SANITIZE")
    endif()
    find_program(SPACRBENCH_VALGRIND_EXECUTABLE valgrind REQUIRED)
    add_test(NAME valgrind_${name}
      COMMAND ${SPACRBENCH_VALGRIND_EXECUTABLE}
        --tool=memcheck --error-exitcode=99 --leak-check=full
        --errors-for-leak-kinds=definite,indirect,possible
        --show-leak-kinds=definite,indirect,possible
        --track-fds=yes --trace-children=no --quiet
        $<TARGET_FILE:${name}>)
    set_tests_properties(valgrind_${name} PROPERTIES
      TIMEOUT ${arg_TIMEOUT}0 LABELS "valgrind"
      ENVIRONMENT "CK_FORK=no;${env}")
  endif()
endfunction()
