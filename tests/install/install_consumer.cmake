# CTest test install_consumer: installs the build to a scratch prefix and uses it from outside,
# once through CMake (find_package(gcbridge) in tests/install/consumer) and once through
# pkg-config + g++, then runs both programs on the iiwa model and checks what they print.
#
# cmake -DBUILD_DIR=<gcbridge build> -DWORK_DIR=<scratch dir> -DCONSUMER_DIR=<consumer sources>
#       -DLIBDIR=<CMAKE_INSTALL_LIBDIR> -DMODEL=<iiwa URDF> -DPRECISION=<double|single>
#       -DCXX_COMPILER=<c++> -P install_consumer.cmake
cmake_minimum_required(VERSION 3.20)
include(${CMAKE_CURRENT_LIST_DIR}/run_step.cmake)
require_variables(BUILD_DIR WORK_DIR CONSUMER_DIR LIBDIR MODEL PRECISION CXX_COMPILER)

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

# Install.
run_step("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
set(libdir ${prefix}/${LIBDIR})
foreach(file include/gcbridge/config.hpp include/gcbridge/dynamics.hpp
             include/gcbridge/bridge/bullet_precision.hpp
             ${LIBDIR}/cmake/gcbridge/gcbridgeConfig.cmake ${LIBDIR}/pkgconfig/gcbridge.pc)
  if(NOT EXISTS ${prefix}/${file})
    message(FATAL_ERROR "cmake --install did not install ${file} under ${prefix}")
  endif()
endforeach()

# The installed command-line tool runs without LD_LIBRARY_PATH (its RPATH finds the libraries).
if(EXISTS ${prefix}/bin/gcbridge)
  run_step("installed gcbridge --version" ${prefix}/bin/gcbridge --version)
  expect_output("installed gcbridge --version" "Bullet precision: ${PRECISION}")
endif()

# The CMake route: find_package(gcbridge) must find this prefix, and nothing else.
set(cmake_build ${WORK_DIR}/cmake-consumer)
run_step("configuring the consumer project" ${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${cmake_build}
         -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
file(STRINGS ${cmake_build}/CMakeCache.txt found_dir REGEX "^gcbridge_DIR:")
if(NOT found_dir STREQUAL "gcbridge_DIR:PATH=${libdir}/cmake/gcbridge")
  message(FATAL_ERROR "find_package(gcbridge) found '${found_dir}', not the scratch prefix "
                      "${prefix}")
endif()
run_step("building the consumer project" ${CMAKE_COMMAND} --build ${cmake_build} -j1)
run_step("running the CMake-built consumer" ${cmake_build}/consumer ${MODEL})
expect_output("CMake-built consumer" "nv = 7\n" "bullet precision = ${PRECISION}\n")

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
run_step("compiling the consumer with pkg-config's flags"
         ${CXX_COMPILER} -std=c++17 ${CONSUMER_DIR}/main.cpp -o ${WORK_DIR}/pkg-config-consumer
         ${pc_flags})
run_step("running the pkg-config-built consumer"
         ${CMAKE_COMMAND} -E env LD_LIBRARY_PATH=${libdir}
         ${WORK_DIR}/pkg-config-consumer ${MODEL})
expect_output("pkg-config-built consumer" "nv = 7\n" "bullet precision = ${PRECISION}\n")
