// Tokeniser for PTX text. Tokens point into the source string, which must
// outlive them. Opcodes with their modifiers (`ld.global.nc.v2.f64`),
// directives (`.reg`), registers (`%r12`, `%tid.x`) and identifiers are one
// `word` token each; the parser splits words at dots where it needs to.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace relgpu::ptx {

struct Token {
  enum Kind : uint8_t { end, word, number, string, punct };
  Kind kind = end;
  std::string_view text;
  uint32_t line = 0, col = 0;
  bool is(char c) const { return kind == punct && text.size() == 1 && text[0] == c; }
};

// Throws InputError "file:line:col: ..." for characters PTX cannot contain
// and for unterminated comments or strings. The last token is `end`.
std::vector<Token> lex(const std::string& text, const std::string& file);

}  // namespace relgpu::ptx
