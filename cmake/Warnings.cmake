# Project-wide warning flags, applied per target with kinetoscope_warnings(target).
# Third-party headers (Qt, torch, simdjson) come in as SYSTEM includes and stay quiet.
# KINETOSCOPE_WERROR=ON (CI's builds, gcc and clang) makes each warning an error, so that
# the build stays warning-free; it is off by default, so that a newer compiler's new
# warning does not stop someone else's build.
option(KINETOSCOPE_WERROR "Treat the project's compiler warnings as errors" OFF)
function(kinetoscope_warnings target)
  target_compile_options(${target} PRIVATE
    -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wcast-align
    -Woverloaded-virtual -Wimplicit-fallthrough)
  # GCC 12 at -O3 (Release) reports -Wrestrict on `"literal" + std::string` temporaries
  # inside libstdc++'s own memcpy: a false positive (GCC bug 105329, fixed in 13).
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(${target} PRIVATE $<$<CONFIG:Release>:-Wno-restrict>)
  endif()
  if(KINETOSCOPE_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
