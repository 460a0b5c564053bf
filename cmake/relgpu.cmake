# Shared CMake helpers.

# relgpu_test(NAME SOURCES... [LIBS libs...])
# A GoogleTest executable whose main is sc_main (libsystemc defines main()).
# Each test case runs in its own process (gtest_discover_tests) because
# SystemC allows one elaboration per process.
function(relgpu_test name)
  cmake_parse_arguments(T "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${T_SOURCES} ${CMAKE_SOURCE_DIR}/systemc/tests/test_main.cpp)
  target_link_libraries(${name} PRIVATE ${T_LIBS} GTest::gtest PkgConfig::SystemC Threads::Threads)
  # test_main.cpp exports these as environment variables (unless already set).
  target_compile_definitions(${name} PRIVATE RELGPU_SOURCE_DIR_DEFAULT="${CMAKE_SOURCE_DIR}"
                                             RELGPU_BIN_DEFAULT="${CMAKE_BINARY_DIR}/bin/relgpu")
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60)
endfunction()

# relgpu_embed_text(OUT_CPP SYMBOL INPUT)
# Writes a .cpp defining `extern const char SYMBOL[]` holding INPUT's text.
function(relgpu_embed_text out_cpp symbol input)
  add_custom_command(OUTPUT ${out_cpp}
    COMMAND ${CMAKE_COMMAND} -DIN=${input} -DOUT=${out_cpp} -DSYM=${symbol}
            -P ${CMAKE_SOURCE_DIR}/cmake/embed.cmake
    DEPENDS ${input} ${CMAKE_SOURCE_DIR}/cmake/embed.cmake
    COMMENT "Embedding ${input}")
endfunction()
