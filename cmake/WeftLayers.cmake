# The layers of weft (ARCHITECTURE.md): a static library per layer, each linking only the layers
# below it, and a check that turns an include of a layer a file may not see into a build error.
#
#   weft_layer(NAME [SOURCES ...] FOLDERS ... [FILES ...] [DEPS layer ...])
#
# makes the library weft_NAME from SOURCES (none: only the include check) and records that the files
# of FOLDERS (not their subfolders) and FILES may include headers of this layer and of the layers in
# DEPS and below them. FILES wins over FOLDERS, so one file of a folder can belong to another layer.
# Third-party libraries are linked by the layer's own CMakeLists, PRIVATE where its headers do not
# show them.
function(weft_layer name)
  cmake_parse_arguments(L "" "" "SOURCES;FOLDERS;FILES;DEPS" ${ARGN})
  if(L_SOURCES)
    add_library(weft_${name} STATIC ${L_SOURCES})
    target_include_directories(weft_${name} PUBLIC ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR}/generated)
    foreach(dep IN LISTS L_DEPS)
      target_link_libraries(weft_${name} PUBLIC weft_${dep})
    endforeach()
    set_property(GLOBAL APPEND PROPERTY WEFT_LAYER_LIBRARIES weft_${name})
  endif()
  string(REPLACE ";" "," folders "${L_FOLDERS}")
  string(REPLACE ";" "," files "${L_FILES}")
  string(REPLACE ";" "," deps "${L_DEPS}")
  set_property(GLOBAL APPEND PROPERTY WEFT_LAYER_ROWS "${name}|${folders}|${files}|${deps}")
endfunction()

# After every layer is declared: writes <build>/layers.txt and the check, run before any library is
# compiled (and again whenever a source file changes).
function(weft_layer_check)
  get_property(rows GLOBAL PROPERTY WEFT_LAYER_ROWS)
  string(REPLACE ";" "\n" text "${rows}")
  file(WRITE ${CMAKE_BINARY_DIR}/layers.txt "# layer|folders|files|deps (written by cmake/WeftLayers.cmake)\n${text}\n")
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS
    ${CMAKE_SOURCE_DIR}/sim/*.h ${CMAKE_SOURCE_DIR}/sim/*.cpp ${CMAKE_SOURCE_DIR}/topologies/*.h
    ${CMAKE_SOURCE_DIR}/topologies/*.cpp ${CMAKE_SOURCE_DIR}/collectives/*.h ${CMAKE_SOURCE_DIR}/collectives/*.cpp
    ${CMAKE_SOURCE_DIR}/workloads/*.h ${CMAKE_SOURCE_DIR}/workloads/*.cpp ${CMAKE_SOURCE_DIR}/cost/*.h
    ${CMAKE_SOURCE_DIR}/cost/*.cpp ${CMAKE_SOURCE_DIR}/scenarios/*.h ${CMAKE_SOURCE_DIR}/scenarios/*.cpp
    ${CMAKE_SOURCE_DIR}/cli/*.h ${CMAKE_SOURCE_DIR}/cli/*.cpp ${CMAKE_SOURCE_DIR}/executor/*.h
    ${CMAKE_SOURCE_DIR}/executor/*.cpp ${CMAKE_SOURCE_DIR}/executor/*.cu ${CMAKE_SOURCE_DIR}/bindings/*.h
    ${CMAKE_SOURCE_DIR}/bindings/*.cpp ${CMAKE_SOURCE_DIR}/fuzz/*.h ${CMAKE_SOURCE_DIR}/fuzz/*.cpp
    ${CMAKE_SOURCE_DIR}/bench/*.h ${CMAKE_SOURCE_DIR}/bench/*.cpp)
  set(stamp ${CMAKE_BINARY_DIR}/layers.checked)
  add_custom_command(OUTPUT ${stamp}
    COMMAND ${WEFT_PYTHON3} ${CMAKE_SOURCE_DIR}/scripts/check-layers ${CMAKE_BINARY_DIR}/layers.txt ${CMAKE_SOURCE_DIR}
    COMMAND ${CMAKE_COMMAND} -E touch ${stamp}
    DEPENDS ${sources} ${CMAKE_BINARY_DIR}/layers.txt ${CMAKE_SOURCE_DIR}/scripts/check-layers
    COMMENT "Checking that no file includes a layer above its own"
    VERBATIM)
  add_custom_target(weft_layer_check ALL DEPENDS ${stamp})
  get_property(libraries GLOBAL PROPERTY WEFT_LAYER_LIBRARIES)
  foreach(lib IN LISTS libraries)
    add_dependencies(${lib} weft_layer_check)
  endforeach()
endfunction()
