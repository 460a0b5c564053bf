# cmake -DIN=file -DOUT=file.cpp -DSYM=name -P embed.cmake
# Emits the text as a raw string literal, split in chunks to stay well
# inside compiler limits on one literal.
file(READ "${IN}" text)
string(LENGTH "${text}" n)
set(body "")
set(pos 0)
while(pos LESS n)
  string(SUBSTRING "${text}" ${pos} 16000 chunk)
  string(APPEND body "R\"RELGPU_EMBED(${chunk})RELGPU_EMBED\"\n")
  math(EXPR pos "${pos} + 16000")
endwhile()
if(body STREQUAL "")
  set(body "\"\"")
endif()
file(WRITE "${OUT}" "// Generated from ${IN}; do not edit.\nextern const char ${SYM}[];\nconst char ${SYM}[] =\n${body};\n")
