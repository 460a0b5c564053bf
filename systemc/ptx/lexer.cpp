#include "ptx/lexer.h"

#include "common/error.h"

namespace relgpu::ptx {

namespace {
bool word_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || c == '%' || c == '.';
}
bool word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '$' || c == '.';
}
bool digit(char c) { return c >= '0' && c <= '9'; }
bool alnum(char c) { return digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
}  // namespace

std::vector<Token> lex(const std::string& s, const std::string& file) {
  std::vector<Token> out;
  out.reserve(s.size() / 4);
  const size_t n = s.size();
  size_t i = 0, line_start = 0;
  uint32_t line = 1;
  auto col = [&](size_t pos) { return uint32_t(pos - line_start + 1); };
  while (i < n) {
    char c = s[i];
    if (c == '\n') { ++line; line_start = ++i; continue; }
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') { ++i; continue; }
    if (c == '/' && i + 1 < n && s[i + 1] == '/') {
      while (i < n && s[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && s[i + 1] == '*') {
      uint32_t l0 = line, c0 = col(i);
      i += 2;
      while (i < n && !(s[i] == '*' && i + 1 < n && s[i + 1] == '/')) {
        if (s[i] == '\n') { ++line; line_start = i + 1; }
        ++i;
      }
      if (i >= n) throw InputError(at(file, l0, c0, "unterminated /* comment"));
      i += 2;
      continue;
    }
    Token t;
    t.line = line;
    t.col = col(i);
    size_t b = i;
    if (c == '"') {
      ++i;
      while (i < n && s[i] != '"' && s[i] != '\n') i += (s[i] == '\\' && i + 1 < n) ? 2 : 1;
      if (i >= n || s[i] != '"') throw InputError(at(file, t.line, t.col, "unterminated string"));
      ++i;
      t.kind = Token::string;
    } else if (word_start(c)) {
      ++i;
      // A directive ends at the next dot: `.reg.b32` is `.reg` `.b32`.
      const bool directive = c == '.';
      for (;;) {
        while (i < n && word_char(s[i]) && !(directive && s[i] == '.')) ++i;
        // `.L2::evict_last`, `.shared::cta`: `::` joins a modifier's parts.
        if (i + 2 < n && s[i] == ':' && s[i + 1] == ':' && (alnum(s[i + 2]) || s[i + 2] == '_')) {
          i += 2;
          continue;
        }
        break;
      }
      t.kind = Token::word;
    } else if (digit(c)) {
      ++i;
      for (;;) {
        if (i < n && alnum(s[i])) {
          // Exponent sign of a decimal float: 1e-5, 2.5E+3 (not in hex forms).
          bool hexish = i - b >= 2 && s[b] == '0' && (s[b + 1] | 0x20) != 'e' && !digit(s[b + 1]) && s[b + 1] != '.';
          if ((s[i] | 0x20) == 'e' && !hexish && i + 2 < n && (s[i + 1] == '-' || s[i + 1] == '+') && digit(s[i + 2])) {
            i += 2;
            continue;
          }
          ++i;
          continue;
        }
        if (i + 1 < n && s[i] == '.' && digit(s[i + 1])) { ++i; continue; }
        break;
      }
      t.kind = Token::number;
    } else if (std::string_view(",;:()[]{}<>+-!|=@*").find(c) != std::string_view::npos) {
      ++i;
      t.kind = Token::punct;
    } else {
      std::string shown = (c >= 32 && c < 127) ? std::string(1, c) : "\\x" + std::to_string(uint8_t(c));
      throw InputError(at(file, t.line, t.col, "unexpected character '" + shown + "'"));
    }
    t.text = std::string_view(s.data() + b, i - b);
    out.push_back(t);
  }
  Token e;
  e.line = line;
  e.col = col(i);
  out.push_back(e);
  return out;
}

}  // namespace relgpu::ptx
