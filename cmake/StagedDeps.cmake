# Third-party parts from a folder staged by scripts/stage-deps.sh, for a machine that has
# a compiler, CMake and LibTorch but not the Debian -dev packages (the lent GPU machine):
#   include/simdjson.h  include/nlohmann/  include/zlib.h include/zconf.h
#   lib/libsimdjson.so.14  lib/zlib/libz.so.1 (only where the machine has no zlib)
# The same headers and libraries that the development machine builds against, so both
# builds parse traces with the same simdjson.
set(_deps "${KINETOSCOPE_DEPS_DIR}")
if(NOT EXISTS "${_deps}/include/simdjson.h")
  message(FATAL_ERROR "KINETOSCOPE_DEPS_DIR=${_deps} has no include/simdjson.h: run scripts/stage-deps.sh")
endif()

add_library(simdjson::simdjson SHARED IMPORTED)
file(GLOB _simdjson_lib "${_deps}/lib/libsimdjson.so.*")
set_target_properties(simdjson::simdjson PROPERTIES
  IMPORTED_LOCATION "${_simdjson_lib}"
  INTERFACE_INCLUDE_DIRECTORIES "${_deps}/include"
  INTERFACE_COMPILE_DEFINITIONS "SIMDJSON_THREADS_ENABLED=1"
  INTERFACE_LINK_LIBRARIES Threads::Threads)

add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
set_target_properties(nlohmann_json::nlohmann_json PROPERTIES
  INTERFACE_INCLUDE_DIRECTORIES "${_deps}/include")

# zlib: the machine's own when it has the -dev package, else the staged headers with the
# machine's libz.so.1 (every Linux has it), else the staged copy.
find_package(ZLIB QUIET)
if(NOT ZLIB_FOUND)
  find_library(_zlib_runtime NAMES libz.so.1 PATHS "${_deps}/lib/zlib" NO_CACHE)
  if(NOT _zlib_runtime)
    message(FATAL_ERROR "no zlib found, and ${_deps}/lib/zlib has no libz.so.1")
  endif()
  add_library(ZLIB::ZLIB SHARED IMPORTED)
  set_target_properties(ZLIB::ZLIB PROPERTIES
    IMPORTED_LOCATION "${_zlib_runtime}"
    INTERFACE_INCLUDE_DIRECTORIES "${_deps}/include")
endif()
message(STATUS "Staged dependencies from ${_deps} (simdjson ${_simdjson_lib})")
