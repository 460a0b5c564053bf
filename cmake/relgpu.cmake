# Shared CMake helpers.

# relgpu_test_main: systemc/tests/test_main.cpp (sc_main running GoogleTest;
# libsystemc defines main()), compiled once for every test executable: it
# parses gtest and systemc, 4 s of CPU that 90 executables each paid.
function(relgpu_test_main_target)
  if(TARGET relgpu_test_main)
    return()
  endif()
  add_library(relgpu_test_main OBJECT ${CMAKE_SOURCE_DIR}/systemc/tests/test_main.cpp)
  target_link_libraries(relgpu_test_main PUBLIC GTest::gtest PkgConfig::SystemC Threads::Threads)
  # test_main.cpp exports these as environment variables (unless already set);
  # the tests that read them directly (test_paths.h) get them too.
  target_compile_definitions(relgpu_test_main PUBLIC RELGPU_SOURCE_DIR_DEFAULT="${CMAKE_SOURCE_DIR}"
                                                     RELGPU_BIN_DEFAULT="${CMAKE_BINARY_DIR}/bin/relgpu")
endfunction()

# relgpu_test(NAME SOURCES... [LIBS libs...])
# A GoogleTest executable whose main is sc_main (relgpu_test_main).
# Each test case runs in its own process (gtest_discover_tests) because
# SystemC allows one elaboration per process.
function(relgpu_test name)
  cmake_parse_arguments(T "" "" "SOURCES;LIBS" ${ARGN})
  relgpu_test_main_target()
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE relgpu_test_main ${T_LIBS})  # gtest, SystemC, threads come with it
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
