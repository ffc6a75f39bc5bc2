# CTest test install_consumer: installs the build to a scratch prefix and uses it from outside as a
# user would, with LD_LIBRARY_PATH unset and from another folder, on the installed iiwa model: the
# README's quick start (examples/quickstart), a small consumer (tests/install/consumer) and one
# program per gcbridge target linking that target alone (tests/install/targets), each built
# through CMake (find_package(gcbridge)) and through pkg-config + the compiler with its default
# link flags (Debian's link with --as-needed, so a program records only the libraries it calls);
# the installed command-line tool and a demo.
#
# cmake -DBUILD_DIR=<gcbridge build> -DWORK_DIR=<scratch dir> -DCONSUMER_DIR=<consumer sources>
#       -DQUICKSTART_DIR=<examples/quickstart> -DTARGETS_DIR=<tests/install/targets>
#       -DLIBDIR=<CMAKE_INSTALL_LIBDIR> -DPRECISION=<double|single> -DCXX_COMPILER=<c++>
#       [-DDEMOS=ON] -P install_consumer.cmake
cmake_minimum_required(VERSION 3.20)
include(${CMAKE_CURRENT_LIST_DIR}/run_step.cmake)
require_variables(BUILD_DIR WORK_DIR CONSUMER_DIR QUICKSTART_DIR TARGETS_DIR LIBDIR PRECISION
                  CXX_COMPILER)
# Nothing here may find the libraries through the environment.
unset(ENV{LD_LIBRARY_PATH})

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

# Install.
run_step("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
set(libdir ${prefix}/${LIBDIR})
set(model ${prefix}/share/gcbridge/models/kuka_iiwa/model.urdf)

# One program per target, each linking that target alone (tests/install/targets): run from another
# folder, each must start (every library finds the gcbridge libraries it needs) and print its line.
set(gcbridge_targets dynamics controllers bridge plugin viewer)
function(run_target_programs route dir)
  set(arguments_dynamics ${model})
  set(arguments_viewer ${prefix}/share/gcbridge/models/kuka_iiwa/meshes/link_0.stl)
  set(expected_dynamics "dynamics: nv = 7,")
  set(expected_controllers "controllers: solved, x = \\(0.50, 0.50\\)")
  set(expected_bridge "bridge: nv = 1, bullet precision = ${PRECISION}")
  set(expected_plugin "plugin: 24 substeps, 0 errors")
  set(expected_viewer "viewer: [0-9]+ triangles, [0-9]+ after decimation")
  foreach(target ${gcbridge_targets})
    run_step("running the ${route}-built ${target} program (it links gcbridge::${target} alone)"
             ${CMAKE_COMMAND} -E chdir ${WORK_DIR} ${dir}/${target}_program ${arguments_${target}})
    expect_output("${route}-built ${target} program" "${expected_${target}}")
  endforeach()
endfunction()
foreach(file include/gcbridge/config.hpp include/gcbridge/dynamics.hpp
             include/gcbridge/bridge/bullet_precision.hpp
             ${LIBDIR}/cmake/gcbridge/gcbridgeConfig.cmake ${LIBDIR}/pkgconfig/gcbridge.pc
             share/gcbridge/models/kuka_iiwa/model.urdf share/gcbridge/models/README.md
             share/doc/gcbridge/LICENSE)
  if(NOT EXISTS ${prefix}/${file})
    message(FATAL_ERROR "cmake --install did not install ${file} under ${prefix}")
  endif()
endforeach()

# The installed command-line tool and demos run without LD_LIBRARY_PATH (their RPATH finds the
# libraries), the demos on the installed models.
if(DEMOS)
  run_step("installed gcbridge --version" ${prefix}/bin/gcbridge --version)
  expect_output("installed gcbridge --version" "Bullet precision: ${PRECISION}")
  run_step("installed gcbridge-iiwa-kinematics, from another folder"
           ${CMAKE_COMMAND} -E chdir ${WORK_DIR} ${prefix}/bin/gcbridge-iiwa-kinematics)
  expect_output("installed gcbridge-iiwa-kinematics" "\\(${model}\\)" "centre of mass")
  foreach(demo gcbridge-iiwa-tracking gcbridge-task-space gcbridge-pendulum gcbridge-ragdoll)
    if(NOT EXISTS ${prefix}/bin/${demo})
      message(FATAL_ERROR "cmake --install did not install the demo ${demo}")
    endif()
  endforeach()
endif()

# The CMake route: find_package(gcbridge) must find this prefix, and nothing else.
foreach(project consumer quickstart targets)
  if(project STREQUAL "consumer")
    set(source_dir ${CONSUMER_DIR})
  elseif(project STREQUAL "quickstart")
    set(source_dir ${QUICKSTART_DIR})
  else()
    set(source_dir ${TARGETS_DIR})
  endif()
  set(cmake_build ${WORK_DIR}/cmake-${project})
  run_step("configuring ${project}" ${CMAKE_COMMAND} -S ${source_dir} -B ${cmake_build}
           -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
  file(STRINGS ${cmake_build}/CMakeCache.txt found_dir REGEX "^gcbridge_DIR:")
  if(NOT found_dir STREQUAL "gcbridge_DIR:PATH=${libdir}/cmake/gcbridge")
    message(FATAL_ERROR "find_package(gcbridge) found '${found_dir}', not the scratch prefix "
                        "${prefix}")
  endif()
  run_step("building ${project}" ${CMAKE_COMMAND} --build ${cmake_build} -j1)
endforeach()
run_step("running the CMake-built consumer, from another folder"
         ${CMAKE_COMMAND} -E chdir ${WORK_DIR} ${WORK_DIR}/cmake-consumer/consumer ${model})
expect_output("CMake-built consumer" "nv = 7\n" "bullet precision = ${PRECISION}\n")
run_step("running the CMake-built quick start, from another folder"
         ${CMAKE_COMMAND} -E chdir ${WORK_DIR} ${WORK_DIR}/cmake-quickstart/quickstart ${model})
expect_output("CMake-built quick start" "lbr_iiwa: 7 joints, 2 s in Bullet, tracking error RMS [0-9.]+ mrad")
run_target_programs(cmake ${WORK_DIR}/cmake-targets)

# The pkg-config route: its -I and -L must name the prefix (compared as normalized paths).
run_step("pkg-config --cflags --libs gcbridge"
         ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${libdir}/pkgconfig
         pkg-config --cflags --libs gcbridge)
string(STRIP "${STEP_OUTPUT}" pc_output)
separate_arguments(pc_flags UNIX_COMMAND "${pc_output}")
set(pc_dirs "")
foreach(flag IN LISTS pc_flags)
  if(flag MATCHES "^-([IL])(.+)$")
    set(kind ${CMAKE_MATCH_1})
    cmake_path(SET dir NORMALIZE "${CMAKE_MATCH_2}")
    list(APPEND pc_dirs "-${kind}${dir}")
  endif()
endforeach()
foreach(wanted "-I${prefix}/include" "-L${libdir}")
  if(NOT wanted IN_LIST pc_dirs)
    file(STRINGS ${libdir}/pkgconfig/gcbridge.pc pc_prefix REGEX "^prefix=")
    message(FATAL_ERROR "pkg-config gives '${pc_output}', without ${wanted}: the installed "
                        "gcbridge.pc says '${pc_prefix}', so it does not describe the prefix it "
                        "was installed to (cmake --install --prefix ${prefix}).")
  endif()
endforeach()
run_step("pkg-config --variable=modelsdir gcbridge"
         ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${libdir}/pkgconfig
         pkg-config --variable=modelsdir gcbridge)
string(STRIP "${STEP_OUTPUT}" pc_models)
cmake_path(SET pc_models NORMALIZE "${pc_models}")
if(NOT pc_models STREQUAL "${prefix}/share/gcbridge/models")
  message(FATAL_ERROR "pkg-config's modelsdir is '${pc_models}', not ${prefix}/share/gcbridge/models")
endif()
# Built with pkg-config's flags alone, run without LD_LIBRARY_PATH from another folder.
foreach(project consumer quickstart)
  if(project STREQUAL "consumer")
    set(source ${CONSUMER_DIR}/main.cpp)
  else()
    set(source ${QUICKSTART_DIR}/main.cpp)
  endif()
  run_step("compiling ${project} with pkg-config's flags"
           ${CXX_COMPILER} -std=c++17 ${source} -o ${WORK_DIR}/pkg-config-${project} ${pc_flags})
endforeach()
run_step("running the pkg-config-built consumer"
         ${CMAKE_COMMAND} -E chdir ${WORK_DIR} ${WORK_DIR}/pkg-config-consumer ${model})
expect_output("pkg-config-built consumer" "nv = 7\n" "bullet precision = ${PRECISION}\n")
run_step("running the pkg-config-built quick start"
         ${CMAKE_COMMAND} -E chdir ${WORK_DIR} ${WORK_DIR}/pkg-config-quickstart ${model})
expect_output("pkg-config-built quick start" "tracking error RMS [0-9.]+ mrad")
file(MAKE_DIRECTORY ${WORK_DIR}/pkg-config-targets)
foreach(target ${gcbridge_targets})
  run_step("compiling the ${target} program with pkg-config's flags"
           ${CXX_COMPILER} -std=c++17 ${TARGETS_DIR}/${target}_program.cpp
           -o ${WORK_DIR}/pkg-config-targets/${target}_program ${pc_flags})
endforeach()
run_target_programs(pkg-config ${WORK_DIR}/pkg-config-targets)
