# Shared by systemc/cosim (relgpu run --rtl) and verilator_tb (lockstep tests):
# the Verilator parameters of a block from its configs/blocks/<block>.json.
include_guard(GLOBAL)

# relgpu_block_gparams(<json file> <block> <out-var>)
# The integer keys of blocks.<block> in a parameter file, as Verilator -G
# arguments: snake_case key -> CamelCase parameter (num_entries -> NumEntries).
function(relgpu_block_gparams file block out)
  file(READ ${file} txt)
  string(JSON obj GET "${txt}" blocks ${block})
  string(JSON n LENGTH "${obj}")
  set(args "")
  if(n GREATER 0)
    math(EXPR last "${n} - 1")
    foreach(i RANGE ${last})
      string(JSON key MEMBER "${obj}" ${i})
      if(key MATCHES "^_")
        continue()  # "_note" keys are comments
      endif()
      string(JSON type TYPE "${obj}" ${key})
      string(JSON val GET "${obj}" ${key})
      if(type STREQUAL "BOOLEAN")
        if(val)
          set(val 1)
        else()
          set(val 0)
        endif()
      elseif(NOT type STREQUAL "NUMBER")
        message(FATAL_ERROR "${file}: blocks.${block}.${key} must be a number or a boolean")
      endif()
      string(REPLACE "_" ";" parts ${key})
      set(camel "")
      foreach(p ${parts})
        string(SUBSTRING ${p} 0 1 head)
        string(TOUPPER ${head} head)
        string(SUBSTRING ${p} 1 -1 tail)
        string(APPEND camel "${head}${tail}")
      endforeach()
      list(APPEND args "-G${camel}=${val}")
    endforeach()
  endif()
  set(${out} ${args} PARENT_SCOPE)
endfunction()

# relgpu_verilator_sanitize(TARGET...): call after the verilate() calls for
# each TARGET, in the directory that compiles them. Under RELGPU_SANITIZE,
# UBSan checks are off for Verilator's third-party code only: gtkwave's FST
# writer (fstapi.c, included by verilated_fst_c.cpp) stores words at
# unaligned addresses (x86 allows it) and shifts negative values left
# (undefined before C++20; gcc does the arithmetic shift); the trace code
# Verilator generates (V*__Trace__*.cpp, with verilated_trace.h inlined)
# loads 64-bit values from its 4-byte aligned buffer (chgQData).
function(relgpu_verilator_sanitize)
  if(NOT RELGPU_SANITIZE)
    return()
  endif()
  set_source_files_properties(${VERILATOR_ROOT}/include/verilated_fst_c.cpp
                              PROPERTIES COMPILE_OPTIONS -fno-sanitize=alignment,shift)
  foreach(target ${ARGN})
    get_target_property(srcs ${target} SOURCES)
    foreach(src ${srcs})
      if(src MATCHES "__Trace__")
        set_property(SOURCE ${src} APPEND PROPERTY COMPILE_OPTIONS -fno-sanitize=alignment)
      endif()
    endforeach()
  endforeach()
endfunction()

# relgpu_verilated_runtime(TARGET...): call after the verilate() calls for each
# TARGET. verilate() compiles Verilator's runtime (verilated*.cpp, about 30 s of
# CPU) into every target it is given, nine here; this compiles it once, into
# relgpu_verilated, and links that instead. The definitions are the ones
# verilate() gives with TRACE_FST, the only tracing any target asks for; the
# Verilated models get them from verilate() itself.
function(relgpu_verilated_runtime)
  if(NOT TARGET relgpu_verilated)
    set(inc ${VERILATOR_ROOT}/include)
    add_library(relgpu_verilated STATIC ${inc}/verilated.cpp ${inc}/verilated_fst_c.cpp ${inc}/verilated_threads.cpp)
    target_include_directories(relgpu_verilated PUBLIC ${inc} ${inc}/vltstd)
    target_compile_definitions(relgpu_verilated PRIVATE VM_COVERAGE=0 VM_SC=0 VM_TRACE=1 VM_TRACE_FST=1 VM_TRACE_VCD=0)
    target_compile_options(relgpu_verilated PRIVATE -w)
    target_link_libraries(relgpu_verilated PUBLIC Threads::Threads z)
    if(RELGPU_SANITIZE)  # see relgpu_verilator_sanitize
      set_source_files_properties(${inc}/verilated_fst_c.cpp PROPERTIES COMPILE_OPTIONS -fno-sanitize=alignment,shift)
    endif()
  endif()
  foreach(target ${ARGN})
    get_target_property(srcs ${target} SOURCES)
    list(FILTER srcs EXCLUDE REGEX "/include/verilated[a-z_]*\\.cpp$")
    set_property(TARGET ${target} PROPERTY SOURCES ${srcs})
    target_link_libraries(${target} PUBLIC relgpu_verilated)
  endforeach()
endfunction()
