# Runs a demo program twice, each writing its CSV file, and checks that the two files are equal
# byte for byte: a run depends on nothing but its arguments (no uninitialized memory, no clock,
# no address-dependent order).
#   cmake -DPROGRAM=path -DARGS="--steps 200" -DWORK_DIR=dir -P check_reproducible.cmake
separate_arguments(args UNIX_COMMAND "${ARGS}")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
foreach(run 1 2)
  execute_process(COMMAND "${PROGRAM}" ${args} --csv "${WORK_DIR}/run${run}.csv"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${PROGRAM} ${ARGS} (run ${run}): exit code ${rc}\n${out}\n${err}")
  endif()
endforeach()
file(SIZE "${WORK_DIR}/run1.csv" size)
if(size EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} ${ARGS}: the CSV file is empty")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${WORK_DIR}/run1.csv"
                        "${WORK_DIR}/run2.csv" RESULT_VARIABLE different)
if(different)
  message(FATAL_ERROR "${PROGRAM} ${ARGS}: two runs wrote different CSV files "
                      "(${WORK_DIR}/run1.csv, run2.csv)")
endif()
