# Shared by the install tests (cmake -P scripts).
#
# run_step(<description> <command> [<arg>...]) runs one command; if it fails, the script stops with
# the command line, its exit code, stdout and stderr. Its combined output is left in STEP_OUTPUT.
function(run_step description)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    list(JOIN ARGN " " command)
    message(FATAL_ERROR "${description} failed (exit code ${rc})\ncommand: ${command}\n"
                        "--- stdout ---\n${out}\n--- stderr ---\n${err}--- end ---")
  endif()
  set(STEP_OUTPUT "${out}${err}" PARENT_SCOPE)
endfunction()

# expect_output(<description> <regex>...) stops the script unless STEP_OUTPUT matches every regex.
function(expect_output description)
  foreach(regex IN LISTS ARGN)
    if(NOT STEP_OUTPUT MATCHES "${regex}")
      message(FATAL_ERROR "${description}: output does not match '${regex}'\n"
                          "--- output ---\n${STEP_OUTPUT}--- end ---")
    endif()
  endforeach()
endfunction()

# require_variables(<name>...) stops the script unless every -D<name>=... was given.
function(require_variables)
  foreach(name IN LISTS ARGN)
    if(NOT DEFINED ${name})
      message(FATAL_ERROR "missing -D${name}=... (see the comment at the top of the script)")
    endif()
  endforeach()
endfunction()
