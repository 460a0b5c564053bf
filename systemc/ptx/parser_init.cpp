// Numeric literals and variable initializers.
#include <cmath>
#include <cstring>

#include "ptx/parser_impl.h"

namespace relgpu::ptx::detail {

static bool hexval(char c, unsigned& v) {
  if (c >= '0' && c <= '9') v = unsigned(c - '0');
  else if (c >= 'a' && c <= 'f') v = unsigned(c - 'a' + 10);
  else if (c >= 'A' && c <= 'F') v = unsigned(c - 'A' + 10);
  else return false;
  return true;
}

bool parse_number(std::string_view s, bool negative, Num& out) {
  if (s.empty()) return false;
  if (s.size() >= 2 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F' || s[1] == 'd' || s[1] == 'D')) {
    bool f = s[1] == 'f' || s[1] == 'F';
    if (s.size() != (f ? 10u : 18u)) return false;
    uint64_t b = 0;
    for (size_t i = 2; i < s.size(); ++i) {
      unsigned v;
      if (!hexval(s[i], v)) return false;
      b = (b << 4) | v;
    }
    if (negative) b ^= f ? 0x80000000ull : 0x8000000000000000ull;
    out.kind = f ? Num::f32 : Num::f64;
    out.bits = b;
    return true;
  }
  if (s.find_first_of(".eE") != std::string_view::npos && !(s.size() > 1 && (s[1] == 'x' || s[1] == 'X'))) {
    std::string t(s);
    char* end = nullptr;
    double d = std::strtod(t.c_str(), &end);
    if (!end || *end) return false;
    if (negative) d = -d;
    std::memcpy(&out.bits, &d, 8);
    out.kind = Num::f64;
    return true;
  }
  if (s.back() == 'U' || s.back() == 'u') s.remove_suffix(1);
  unsigned base = 10;
  size_t i = 0;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) base = 16, i = 2;
  else if (s.size() > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) base = 2, i = 2;
  else if (s.size() > 1 && s[0] == '0') base = 8, i = 1;
  if (i >= s.size()) return false;
  uint64_t v = 0;
  for (; i < s.size(); ++i) {
    unsigned d;
    if (!hexval(s[i], d) || d >= base) return false;
    if (v > (UINT64_MAX - d) / base) return false;  // does not fit 64 bits
    v = v * base + d;
  }
  out.kind = Num::integer;
  out.bits = negative ? uint64_t(0) - v : v;
  return true;
}

// `= 7`, `= 0f3F800000`, `= {1, 2, 3}`, `= {{1, 2}, {3, 4}}`,
// `= generic(x)`, `= {x, y+8}`. Elements have the variable's element type;
// missing trailing elements are zero.
void Parser::parse_initializer(Symbol& s, const Token& name_tok) {
  const unsigned eb = type_bytes(s.type);
  std::vector<uint8_t> bytes;
  auto put = [&](uint64_t v) {
    for (unsigned i = 0; i < eb; ++i) bytes.push_back(uint8_t(v >> (8 * i)));
  };
  auto element = [&]() {
    const Token& t = peek();
    bool neg = false;
    if (t.is('-')) { next(); neg = true; }
    const Token& v = peek();
    if (v.kind == Token::number) {
      Num n;
      if (!parse_number(v.text, neg, n)) fail(v, "bad number '" + std::string(v.text) + "'");
      next();
      uint64_t bits = n.bits;
      if (type_is_float(s.type)) {
        if (s.type == Type::f32) {
          if (n.kind == Num::integer) { float f = float(int64_t(n.bits)); uint32_t b; std::memcpy(&b, &f, 4); bits = b; }
          else if (n.kind == Num::f64) { double d; std::memcpy(&d, &n.bits, 8); float f = float(d); uint32_t b; std::memcpy(&b, &f, 4); bits = b; }
        } else if (s.type == Type::f64) {
          if (n.kind == Num::integer) { double d = double(int64_t(n.bits)); std::memcpy(&bits, &d, 8); }
          else if (n.kind == Num::f32) { float f; uint32_t b = uint32_t(n.bits); std::memcpy(&f, &b, 4); double d = f; std::memcpy(&bits, &d, 8); }
        } else if (n.kind != Num::integer) {
          fail(v, "float initializers for ." + std::string(type_name(s.type)) + " are not supported; write the bits");
        }
      } else if (n.kind != Num::integer) {
        fail(v, "floating-point value in an initializer of integer type ." + std::string(type_name(s.type)));
      }
      put(bits);
      return;
    }
    if (v.kind == Token::word && !neg) {
      // An address: `sym`, `sym+8`, `generic(sym)`, `generic(sym+8)`.
      bool generic = false;
      if (v.text == "generic" && peek(1).is('(')) { generic = true; next(); next(); }
      const Token& st = peek();
      std::string name(expect_word("a variable name"));
      int64_t addend = 0;
      if (peek().is('+') || peek().is('-')) {
        bool minus = next().is('-');
        Num n;
        if (peek().kind != Token::number || !parse_number(peek().text, minus, n) || n.kind != Num::integer)
          fail(peek(), "expected an integer offset after '" + name + "'");
        addend = int64_t(n.bits);
        next();
      }
      if (generic) expect(')', "')' after generic(");
      if (eb != 8) fail(st, "an address in an initializer needs a 64-bit element type, not ." + std::string(type_name(s.type)));
      auto g = global_index_.find(name);
      if (g == global_index_.end()) {
        if (m_->function_index.count(name)) fail(st, "function addresses in initializers ('" + name + "') are not supported");
        fail(st, "unknown variable '" + name + "' in initializer");
      }
      Symbol::Reloc r;
      r.offset = bytes.size();
      r.target = g->second;
      r.addend = addend;
      r.generic = generic;
      s.relocs.push_back(r);
      put(0);
      return;
    }
    fail(v, "bad initializer element " + (v.kind == Token::end ? std::string("end of file") : "'" + std::string(v.text) + "'"));
  };
  // Nested braces flatten in order (row-major arrays).
  std::vector<char> stack;
  if (!peek().is('{')) {
    element();
  } else {
    next();
    int depth = 1;
    bool need_elem = true;
    while (depth > 0) {
      if (peek().is('{')) { next(); ++depth; need_elem = true; continue; }
      if (peek().is('}')) {
        next();
        --depth;
        need_elem = false;
        continue;
      }
      if (!need_elem) {
        expect(',', "',' or '}' in initializer");
        need_elem = true;
        continue;
      }
      element();
      need_elem = false;
    }
  }
  if (s.size == 0) s.size = bytes.size();  // `x[] = {...}`
  if (bytes.size() > s.size)
    fail(name_tok, "initializer of '" + s.name + "' has " + std::to_string(bytes.size()) + " bytes, more than its size " +
                       std::to_string(s.size));
  bytes.resize(s.size, 0);
  s.init = std::move(bytes);
}

}  // namespace relgpu::ptx::detail
