# spacrbench_add_check_test(<name> [TIMEOUT <s>] [ENVIRONMENT <VAR=value>...])
#
# Registers the Check binary <name> (an existing executable target) with
# ctest, and, when SPACRBENCH_VALGRIND is ON, a second test
# valgrind_<name> that runs it under memcheck with CK_FORK=no (valgrind
# cannot follow Check's forked test processes; child processes the tests
# start themselves are not traced). Test subdirectories can call it too.
function(spacrbench_add_check_test name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "TIMEOUT" "ENVIRONMENT")
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

  if(SPACRBENCH_VALGRIND)
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
