# -DKINETOSCOPE_SANITIZE=ON builds everything with ASan + UBSan; any report fails the
# test that triggered it (halt_on_error, no recovery).
if(KINETOSCOPE_SANITIZE)
  set(_san -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_compile_options(${_san})
  add_link_options(${_san})
endif()
