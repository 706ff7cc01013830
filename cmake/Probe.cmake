# The probe (python/: pure Python, no build step) is copied beside the build's bin/ at
# build/share/kinetoscope/python, where `kinetoscope profile` looks for it, as the package
# installs it beside /usr/bin at /usr/share/kinetoscope/python (core/lab/probe_process.h).
file(GLOB_RECURSE _kinetoscope_probe_sources CONFIGURE_DEPENDS
     RELATIVE ${PROJECT_SOURCE_DIR}/python ${PROJECT_SOURCE_DIR}/python/*.py)
set(_kinetoscope_probe_copies)
foreach(_file IN LISTS _kinetoscope_probe_sources)
  set(_copy ${CMAKE_BINARY_DIR}/share/kinetoscope/python/${_file})
  add_custom_command(OUTPUT ${_copy}
    COMMAND ${CMAKE_COMMAND} -E copy_if_different ${PROJECT_SOURCE_DIR}/python/${_file} ${_copy}
    DEPENDS ${PROJECT_SOURCE_DIR}/python/${_file} VERBATIM)
  list(APPEND _kinetoscope_probe_copies ${_copy})
endforeach()
add_custom_target(kinetoscope_probe ALL DEPENDS ${_kinetoscope_probe_copies})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/ DESTINATION ${CMAKE_INSTALL_DATADIR}/kinetoscope/python
        FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
