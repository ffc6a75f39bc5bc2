# CTest test bullet_precision_guard: mixing Bullet precisions with gcbridge must fail loudly.
# (a) A TU including gcbridge/bridge/bullet_precision.hpp compiles with the Bullet flags gcbridge
#     was built with, and fails with gcbridge's static_assert message with the other precision's.
# (b) The bridge library's symbols live in gcbridge::bt_f64:: (double) or gcbridge::bt_f32::
#     (single) and none in the other namespace, so a mismatched object file cannot link.
#
# cmake -DSOURCE_DIR=<gcbridge sources> -DBUILD_DIR=<gcbridge build> -DBRIDGE_LIBRARY=<file>
#       -DBULLET_DOUBLE=<ON|OFF> -DCXX_COMPILER=<c++> -P bullet_precision_guard.cmake
cmake_minimum_required(VERSION 3.20)
include(${CMAKE_CURRENT_LIST_DIR}/run_step.cmake)
require_variables(SOURCE_DIR BUILD_DIR BRIDGE_LIBRARY BULLET_DOUBLE CXX_COMPILER)

if(BULLET_DOUBLE)
  set(matching_pc bullet-float64)
  set(opposite_pc bullet)
  set(own_namespace bt_f64)
  set(other_namespace bt_f32)
else()
  set(matching_pc bullet)
  set(opposite_pc bullet-float64)
  set(own_namespace bt_f32)
  set(other_namespace bt_f64)
endif()

# (a) Compile the TU with each precision's flags (syntax only: the static_assert fires there).
function(compile_guard_tu pc_module)
  run_step("pkg-config --cflags ${pc_module}" pkg-config --cflags ${pc_module})
  string(STRIP "${STEP_OUTPUT}" flags)
  separate_arguments(flags UNIX_COMMAND "${flags}")
  set(command ${CXX_COMPILER} -std=c++17 -fsyntax-only -I${SOURCE_DIR}/bridge/include
              -I${BUILD_DIR}/generated ${flags} ${CMAKE_CURRENT_LIST_DIR}/precision_guard_tu.cpp)
  execute_process(COMMAND ${command} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  list(JOIN command " " command_line)
  set(compile_rc ${rc} PARENT_SCOPE)
  set(compile_output "command: ${command_line}\n--- compiler output ---\n${out}${err}--- end ---"
      PARENT_SCOPE)
endfunction()

compile_guard_tu(${matching_pc})
if(NOT compile_rc EQUAL 0)
  message(FATAL_ERROR "the guard TU must compile with the matching flags (${matching_pc}), "
                      "but did not (exit code ${compile_rc})\n${compile_output}")
endif()
compile_guard_tu(${opposite_pc})
if(compile_rc EQUAL 0)
  message(FATAL_ERROR "the guard TU compiled with the opposite precision's flags "
                      "(${opposite_pc}): the static_assert did not fire\n${compile_output}")
endif()
if(NOT compile_output MATCHES "gcbridge: this code is compiled with a Bullet precision")
  message(FATAL_ERROR "compiling with ${opposite_pc} failed, but not with gcbridge's "
                      "static_assert message\n${compile_output}")
endif()

# (b) The bridge library's symbols are in the precision's namespace only.
run_step("nm -C ${BRIDGE_LIBRARY}" nm -C --defined-only ${BRIDGE_LIBRARY})
foreach(symbol bulletPrecisionName bulletScalarSize)
  if(NOT STEP_OUTPUT MATCHES "gcbridge::${own_namespace}::${symbol}\\(")
    message(FATAL_ERROR "${BRIDGE_LIBRARY} does not define gcbridge::${own_namespace}::${symbol}\n"
                        "--- nm -C --defined-only ---\n${STEP_OUTPUT}--- end ---")
  endif()
endforeach()
if(STEP_OUTPUT MATCHES "gcbridge::${other_namespace}::")
  message(FATAL_ERROR "${BRIDGE_LIBRARY} defines symbols in gcbridge::${other_namespace}::\n"
                      "--- nm -C --defined-only ---\n${STEP_OUTPUT}--- end ---")
endif()
message(STATUS "guard TU: compiles with ${matching_pc}, static_assert with ${opposite_pc}; "
               "bridge symbols in gcbridge::${own_namespace}:: only")
