# Third-party libraries the weft program takes from their static archives (start-up, issue 19,
# item 5). Each shared library a program loads costs it a mapping and symbol lookups at every start:
# yaml-cpp, protobuf-lite and zlib cost `weft --version` 0.73 M of its 3.1 M instructions (callgrind)
# and about 0.5 ms of CPU. Debian ships their archives (not fmt's). A target whose WEFT_STATIC_DEPS
# property is on links the archive; every other target links the shared library, the Python module
# above all: a shared object cannot take Debian's archives, built without -fPIC.
#
#   weft_static_dependency(NAME SHARED_TARGET ARCHIVE)
#
# makes the interface target NAME, to link in place of SHARED_TARGET. Without the archive (another
# distribution), NAME is SHARED_TARGET everywhere.
function(weft_static_dependency name shared archive)
  find_library(WEFT_ARCHIVE_${name} NAMES ${archive})
  add_library(${name} INTERFACE)
  if(WEFT_ARCHIVE_${name})
    target_link_libraries(${name} INTERFACE
      "$<IF:$<BOOL:$<TARGET_PROPERTY:WEFT_STATIC_DEPS>>,${WEFT_ARCHIVE_${name}},${shared}>")
  else()
    target_link_libraries(${name} INTERFACE ${shared})
  endif()
endfunction()
