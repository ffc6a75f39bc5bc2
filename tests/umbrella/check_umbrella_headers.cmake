# CTest test umbrella_headers_complete: every public header of each gcbridge library
# (<library>/include/gcbridge/<library>/*.hpp) is included by the library's umbrella header
# (<library>/include/gcbridge/<library>.hpp). Headers under detail/ are not public API.
#
# cmake -DSOURCE_DIR=<gcbridge sources> -P check_umbrella_headers.cmake
cmake_minimum_required(VERSION 3.20)
if(NOT DEFINED SOURCE_DIR)
  message(FATAL_ERROR "missing -DSOURCE_DIR=... (see the comment at the top of the script)")
endif()

set(missing "")
foreach(library dynamics controllers bridge plugin viewer)
  set(include_dir ${SOURCE_DIR}/${library}/include/gcbridge)
  set(umbrella ${include_dir}/${library}.hpp)
  if(NOT EXISTS ${umbrella})
    string(APPEND missing "\n  gcbridge/${library}.hpp does not exist")
    continue()
  endif()
  file(READ ${umbrella} umbrella_text)
  file(GLOB headers RELATIVE ${include_dir} ${include_dir}/${library}/*.hpp)
  if(NOT headers)
    string(APPEND missing "\n  ${include_dir}/${library}/ holds no header")
  endif()
  foreach(header IN LISTS headers)
    string(FIND "${umbrella_text}" "#include \"gcbridge/${header}\"" at)
    if(at EQUAL -1)
      string(APPEND missing "\n  gcbridge/${library}.hpp does not include gcbridge/${header}")
    endif()
  endforeach()
endforeach()
if(missing)
  message(FATAL_ERROR "umbrella headers that leave out part of their library:${missing}")
endif()
