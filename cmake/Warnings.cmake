# Project-wide warning flags, applied per target with kinetoscope_warnings(target).
# Third-party headers (Qt, torch, simdjson) come in as SYSTEM includes and stay quiet.
function(kinetoscope_warnings target)
  target_compile_options(${target} PRIVATE
    -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wcast-align
    -Woverloaded-virtual -Wimplicit-fallthrough)
endfunction()
