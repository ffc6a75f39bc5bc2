# How every gcbridge target is declared: the warnings, the C++ standard and, for the libraries,
# the namespaced alias, the include folders, the install rules and the export set.

# The warnings of every target built from gcbridge's own sources.
function(gcbridge_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
endfunction()

# gcbridge_add_library(<component> SOURCES ... [PUBLIC ...] [PRIVATE ...])
# Declares the installed library gcbridge_<component> with the alias gcbridge::<component>, its
# public headers in <folder>/include (installed under include/gcbridge), and links PUBLIC and
# PRIVATE as given. Its sources compile in batches of eight with GCBRIDGE_UNITY_BUILD.
function(gcbridge_add_library component)
  cmake_parse_arguments(ARG "" "" "SOURCES;PUBLIC;PRIVATE" ${ARGN})
  set(target gcbridge_${component})
  add_library(${target} ${ARG_SOURCES})
  add_library(gcbridge::${component} ALIAS ${target})
  # Installed, each library finds the gcbridge libraries it needs beside itself ($ORIGIN): a
  # program's own RUNPATH does not reach its libraries' dependencies, and a linker with
  # --as-needed (Debian's default) records only the gcbridge libraries a program calls.
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${component} OUTPUT_NAME ${target}
                        POSITION_INDEPENDENT_CODE ON UNITY_BUILD ${GCBRIDGE_UNITY_BUILD}
                        UNITY_BUILD_BATCH_SIZE 8 INSTALL_RPATH "$ORIGIN")
  target_compile_features(${target} PUBLIC cxx_std_17)
  gcbridge_warnings(${target})
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/generated>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_link_libraries(${target} PUBLIC ${ARG_PUBLIC} PRIVATE ${ARG_PRIVATE})
  install(TARGETS ${target} EXPORT gcbridgeTargets
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/include/gcbridge DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endfunction()
