#include "ptx/parser.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "ptx/parser_impl.h"

namespace relgpu::ptx {
namespace detail {

Type type_from(std::string_view s) {
  static const std::unordered_map<std::string_view, Type> k = {
      {"pred", Type::pred}, {"b8", Type::b8}, {"b16", Type::b16}, {"b32", Type::b32}, {"b64", Type::b64},
      {"b128", Type::b128}, {"u8", Type::u8}, {"u16", Type::u16}, {"u32", Type::u32}, {"u64", Type::u64},
      {"s8", Type::s8}, {"s16", Type::s16}, {"s32", Type::s32}, {"s64", Type::s64}, {"f16", Type::f16},
      {"f16x2", Type::f16x2}, {"bf16", Type::bf16}, {"bf16x2", Type::bf16x2}, {"f32", Type::f32},
      {"f64", Type::f64}};
  auto it = k.find(s);
  return it == k.end() ? Type::none : it->second;
}

Space space_from(std::string_view s) {
  if (s == "global") return Space::global;
  if (s == "shared" || s == "shared::cta") return Space::shared;
  if (s == "local") return Space::local;
  if (s == "param") return Space::param;
  if (s == "const") return Space::const_;
  return Space::none;
}

Parser::Parser(const std::string& text, const std::string& file) : src_(text), file_(file) {
  t_ = lex(text, file);
  m_ = std::make_unique<Module>();
  m_->file = file;
}

const Token& Parser::next() {
  const Token& t = t_[p_];
  if (p_ + 1 < t_.size()) ++p_;
  return t;
}

void Parser::fail(const Token& t, const std::string& msg) const {
  throw InputError(at(file_, t.line, t.col, msg));
}

static std::string shown(const Token& t) {
  return t.kind == Token::end ? "end of file" : "'" + std::string(t.text) + "'";
}

void Parser::expect(char c, const char* what) {
  if (!peek().is(c)) fail(peek(), std::string("expected ") + what + ", found " + shown(peek()));
  next();
}

std::string_view Parser::expect_word(const char* what) {
  if (peek().kind != Token::word) fail(peek(), std::string("expected ") + what + ", found " + shown(peek()));
  return next().text;
}

uint64_t Parser::expect_uint(const char* what) {
  const Token& t = peek();
  if (t.kind != Token::number) fail(t, std::string("expected ") + what + ", found " + shown(t));
  std::string s(t.text);
  int base = 10;
  size_t i = 0;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) base = 16, i = 2;
  if (!s.empty() && (s.back() == 'U' || s.back() == 'u')) s.pop_back();
  char* end = nullptr;
  errno = 0;
  uint64_t v = std::strtoull(s.c_str() + i, &end, base);
  if (errno || !end || *end || end == s.c_str() + i)
    fail(t, std::string("expected ") + what + ", found " + shown(t));
  next();
  return v;
}

void Parser::skip_line(uint32_t line) {
  while (peek().kind != Token::end && peek().line == line) next();
}

void Parser::skip_statement() {
  int depth = 0;
  for (;;) {
    const Token& t = peek();
    if (t.kind == Token::end) fail(t, "expected ';' before end of file");
    if (t.is('{') || t.is('(') || t.is('[')) ++depth;
    if (t.is('}') || t.is(')') || t.is(']')) {
      if (depth == 0) fail(t, "expected ';', found " + shown(t));
      --depth;
    }
    next();
    if (t.is(';') && depth == 0) return;
  }
}

// ---- scopes ---------------------------------------------------------------
void Parser::bind(Ns ns, const std::string& name, int32_t idx) {
  auto& map = ns_map(ns);
  auto it = map.find(name);
  undo_.push_back({ns, name, it == map.end() ? -1 : it->second});
  map[name] = idx;
}

void Parser::pop_scope() {
  size_t depth = scopes_.size();
  for (size_t i = 0; i < label_fixes_.size();) {
    LabelFix& x = label_fixes_[i];
    if (x.depth < depth) { ++i; continue; }
    auto it = labels_.find(x.label);
    if (it != labels_.end()) {
      f_->instrs[x.instr].ops[x.op].imm = it->second;
      label_fixes_[i] = std::move(label_fixes_.back());
      label_fixes_.pop_back();
    } else {
      x.depth = depth - 1;
      ++i;
    }
  }
  size_t mark = scopes_.back();
  scopes_.pop_back();
  while (undo_.size() > mark) {
    Undo& u = undo_.back();
    auto& map = ns_map(u.ns);
    if (u.prev < 0) map.erase(u.name); else map[u.name] = u.prev;
    undo_.pop_back();
  }
}

int32_t Parser::find_reg(std::string_view name) const {
  auto it = regs_.find(std::string(name));
  return it == regs_.end() ? -1 : it->second;
}

int32_t Parser::find_sym(std::string_view name) {
  std::string n(name);
  auto it = syms_.find(n);
  if (it != syms_.end()) return it->second;
  auto g = global_index_.find(n);
  if (g == global_index_.end()) return -1;
  auto c = gsym_.find(g->second);
  if (c != gsym_.end()) return c->second;
  Symbol s = m_->globals[g->second];
  s.module_sym = g->second;
  s.init.clear();       // the module keeps the bytes; functions only refer to them
  s.relocs.clear();
  f_->symbols.push_back(std::move(s));
  int32_t idx = int32_t(f_->symbols.size() - 1);
  gsym_[g->second] = idx;
  return idx;
}

// ---- module ---------------------------------------------------------------
std::unique_ptr<Module> Parser::run() {
  bool seen_version = false;
  while (peek().kind != Token::end) {
    const Token& t = peek();
    if (t.is(';')) { next(); continue; }
    if (t.kind != Token::word) fail(t, "unexpected " + shown(t) + " at module scope");
    std::string_view w = t.text;
    if (w == ".version") {
      next();
      if (peek().kind != Token::number) fail(peek(), "expected a version number after .version");
      m_->version = std::string(next().text);
      seen_version = true;
    } else if (w == ".target") {
      next();
      m_->target = std::string(expect_word("a target such as sm_75"));
      while (peek().is(',')) { next(); expect_word("a target option"); }
    } else if (w == ".address_size") {
      next();
      const Token& nt = peek();
      uint64_t a = expect_uint("32 or 64");
      if (a != 64 && a != 32) fail(nt, ".address_size must be 32 or 64");
      if (a == 32) fail(nt, ".address_size 32 is not supported (only 64-bit PTX)");
      m_->address_size = unsigned(a);
    } else if (w == ".file" || w == ".loc") {
      next();
      skip_line(t.line);
    } else if (w == ".section") {
      // DWARF sections (-G / -lineinfo): not needed to run; skip the block.
      next();
      expect_word("a section name");
      while (peek().kind == Token::word) next();  // `.nv.foo` lexes as several words
      expect('{', "'{' after .section name");
      int depth = 1;
      while (depth > 0) {
        const Token& x = next();
        if (x.kind == Token::end) fail(t, "unterminated .section");
        if (x.is('{')) ++depth;
        if (x.is('}')) --depth;
      }
    } else if (w == ".pragma") {
      next();
      skip_statement();
    } else {
      bool extern_ = false;
      while (peek().text == ".visible" || peek().text == ".extern" || peek().text == ".weak" ||
             peek().text == ".common") {
        if (peek().text == ".extern") extern_ = true;
        next();
      }
      std::string_view d = peek().text;
      if (d == ".entry" || d == ".func") {
        parse_function(extern_);
      } else if (d == ".global" || d == ".const" || d == ".shared") {
        const Token& dt = next();
        Space sp = space_from(d.substr(1));
        if (peek().is('[')) fail(peek(), "constant banks (.const[N]) are not supported");
        for (Symbol& s : parse_var_decl(sp, extern_, true)) {
          if (global_index_.count(s.name)) fail(dt, "duplicate module symbol '" + s.name + "'");
          if (extern_ && sp != Space::shared)
            fail(dt, "'.extern " + std::string(d) + " " + s.name +
                         "' is defined in another module; linking several PTX modules is not supported");
          global_index_[s.name] = int32_t(m_->globals.size());
          global_line_.push_back(dt.line);
          m_->globals.push_back(std::move(s));
        }
      } else if (d == ".tex" || d == ".texref" || d == ".surfref" || d == ".samplerref") {
        fail(peek(), "unsupported directive '" + std::string(d) + "' (textures and surfaces are not modelled)");
      } else if (!d.empty() && d[0] == '.') {
        fail(peek(), "unknown directive '" + std::string(d) + "'");
      } else {
        fail(peek(), "unexpected " + shown(peek()) + " at module scope");
      }
    }
  }
  if (!seen_version) fail(t_.front(), "missing .version directive");
  finish();
  return std::move(m_);
}

// ---- declarations ---------------------------------------------------------------
std::vector<Symbol> Parser::parse_var_decl(Space sp, bool extern_, bool module_scope) {
  Symbol proto;
  proto.space = sp;
  proto.extern_ = extern_;
  unsigned vec = 1;
  for (;;) {
    const Token& t = peek();
    if (t.kind != Token::word || t.text[0] != '.') break;
    std::string_view w = t.text.substr(1);
    next();
    if (w == "align") {
      const Token& at = peek();
      uint64_t a = expect_uint("an alignment");
      if (a == 0 || (a & (a - 1)) || a > 4096) fail(at, "alignment must be a power of two up to 4096");
      proto.align = uint32_t(a);
    } else if (w == "v2" || w == "v4" || w == "v8") {
      vec = unsigned(w[1] - '0');
    } else if (w == "ptr" || w == "global" || w == "shared" || w == "const" || w == "local") {
      // `.param .u64 .ptr .global .align 16 name`: pointer attributes, no effect here.
    } else if (Type ty = type_from(w); ty != Type::none) {
      proto.type = ty;
    } else {
      fail(t, "unknown or unexpected '." + std::string(w) + "' in a declaration");
    }
  }
  if (proto.type == Type::none) fail(peek(), "declaration has no type (e.g. .b32)");
  if (proto.type == Type::pred && sp != Space::reg) fail(peek(), ".pred variables must be in .reg");
  std::vector<Symbol> out;
  for (;;) {
    const Token& nt = peek();
    std::string_view name = expect_word("a variable name");
    if (name[0] == '.' || name[0] == '%') fail(nt, "bad variable name '" + std::string(name) + "'");
    Symbol s = proto;
    s.name = std::string(name);
    uint64_t count = vec;
    bool unsized = false;
    while (peek().is('[')) {
      next();
      if (peek().is(']')) {
        unsized = true;
      } else {
        count *= expect_uint("an array size");
      }
      expect(']', "']'");
    }
    s.size = unsized ? 0 : count * type_bytes(s.type);
    if (s.align == 0) s.align = type_bytes(s.type) * vec;
    if (peek().is('=')) {
      next();
      if (sp != Space::global && sp != Space::const_) fail(nt, "only .global and .const variables may be initialised");
      if (unsized) s.size = 0;
      parse_initializer(s, nt);
      if (unsized) unsized = false;  // sized by the initializer
    }
    if (unsized && !(extern_ && sp == Space::shared))
      fail(nt, "'" + s.name + "[]' has no size (only .extern .shared arrays may be unsized)");
    if (extern_ && sp == Space::shared && !unsized) {
      // `.extern .shared .b32 x;` (sized, extern) is legal PTX but nvcc never emits it.
      fail(nt, "sized .extern .shared variable '" + s.name + "' is not supported; use an unsized array");
    }
    (void)module_scope;
    out.push_back(std::move(s));
    if (peek().is(',')) { next(); continue; }
    expect(';', "';' after a declaration");
    return out;
  }
}

void Parser::parse_reg_decl() {
  next();  // .reg
  Type ty = Type::none;
  while (peek().kind == Token::word && peek().text[0] == '.') {
    const Token& t = next();
    std::string_view w = t.text.substr(1);
    if (w == "v2" || w == "v4") fail(t, "vector registers (.reg .v2) are not supported");
    ty = type_from(w);
    if (ty == Type::none) fail(t, "unknown register type '" + std::string(t.text) + "'");
  }
  if (ty == Type::none) fail(peek(), ".reg declaration has no type");
  for (;;) {
    const Token& nt = peek();
    std::string name(expect_word("a register name"));
    if (name[0] == '.') fail(nt, "bad register name '" + name + "'");
    auto add = [&](const std::string& n) {
      f_->regs.push_back({n, ty});
      bind(kReg, n, int32_t(f_->regs.size() - 1));
    };
    if (peek().is('<')) {
      next();
      const Token& ct = peek();
      uint64_t n = expect_uint("a register count");
      if (n > 1000000) fail(ct, "register range too large");
      expect('>', "'>'");
      for (uint64_t i = 0; i < n; ++i) add(name + std::to_string(i));
    } else {
      add(name);
    }
    if (peek().is(',')) { next(); continue; }
    expect(';', "';' after .reg declaration");
    return;
  }
}

// ---- functions ---------------------------------------------------------------
Symbol Parser::parse_one_param(Function& f) {
  const Token& t = peek();
  if (t.text == ".reg") fail(t, "register parameters (.reg in a parameter list) are not supported");
  if (t.text != ".param") fail(t, "expected .param, found " + shown(t));
  next();
  Token nt = peek();
  std::vector<Symbol> v;
  // Reuse the declaration parser; it consumes a trailing ';', which a
  // parameter list does not have, so parse by hand instead.
  Symbol s;
  s.space = Space::param;
  unsigned vec = 1;
  while (peek().kind == Token::word && peek().text[0] == '.') {
    const Token& mt = next();
    std::string_view w = mt.text.substr(1);
    if (w == "align") {
      const Token& at = peek();
      uint64_t a = expect_uint("an alignment");
      if (a == 0 || (a & (a - 1)) || a > 4096) fail(at, "alignment must be a power of two up to 4096");
      s.align = uint32_t(a);
    } else if (w == "ptr" || w == "global" || w == "shared" || w == "const" || w == "local") {
    } else if (w == "v2" || w == "v4") {
      vec = unsigned(w[1] - '0');
    } else if (Type ty = type_from(w); ty != Type::none && ty != Type::pred) {
      s.type = ty;
    } else {
      fail(mt, "unknown or unexpected '" + std::string(mt.text) + "' in a parameter");
    }
  }
  if (s.type == Type::none) fail(peek(), "parameter has no type");
  nt = peek();
  s.name = std::string(expect_word("a parameter name"));
  uint64_t count = vec;
  while (peek().is('[')) {
    next();
    count *= expect_uint("an array size");
    expect(']', "']'");
  }
  s.size = count * type_bytes(s.type);
  if (s.align == 0) s.align = type_bytes(s.type) * vec;
  (void)f;
  return s;
}

void Parser::parse_params(Function& f, std::vector<int32_t>& out, bool is_ret) {
  expect('(', "'('");
  if (peek().is(')')) { next(); return; }
  for (;;) {
    Symbol s = parse_one_param(f);
    f.symbols.push_back(std::move(s));
    out.push_back(int32_t(f.symbols.size() - 1));
    if (peek().is(',')) { next(); continue; }
    expect(')', is_ret ? "')' after return parameters" : "')' after parameters");
    return;
  }
}

void Parser::parse_perf_directives(Function& f) {
  for (;;) {
    const Token& t = peek();
    std::string_view w = t.text;
    if (t.kind != Token::word) return;
    auto dims = [&](uint32_t* d) {
      next();
      for (int i = 0; i < 3; ++i) {
        d[i] = uint32_t(expect_uint("a thread count"));
        if (!peek().is(',')) break;
        next();
      }
    };
    if (w == ".maxntid") dims(f.maxntid);
    else if (w == ".reqntid") dims(f.reqntid);
    else if (w == ".minnctapersm") { next(); f.minnctapersm = uint32_t(expect_uint("a CTA count")); }
    else if (w == ".maxnctapersm") { next(); expect_uint("a CTA count"); }  // deprecated hint
    else if (w == ".maxnreg") { next(); f.maxnreg = uint32_t(expect_uint("a register count")); }
    else if (w == ".noreturn") next();
    else if (w == ".pragma") { next(); skip_statement(); }
    else return;
  }
}

void Parser::parse_function(bool extern_) {
  const Token& kw = next();
  bool entry = kw.text == ".entry";
  auto f = std::make_unique<Function>();
  f_ = f.get();
  f->is_entry = entry;
  f->line = kw.line;
  regs_.clear();
  syms_.clear();
  labels_.clear();
  undo_.clear();
  scopes_.clear();
  gsym_.clear();
  label_fixes_.clear();
  if (!entry && peek().is('(')) parse_params(*f, f->rets, true);
  const Token& nt = peek();
  f->name = std::string(expect_word("a function name"));
  if (f->name[0] == '.' || f->name[0] == '%') fail(nt, "bad function name '" + f->name + "'");
  if (peek().is('(')) parse_params(*f, f->params, false);
  push_scope();
  for (int32_t i : f->params) bind(kSym, f->symbols[i].name, i);
  for (int32_t i : f->rets) bind(kSym, f->symbols[i].name, i);
  parse_perf_directives(*f);
  int32_t index;
  auto it = m_->function_index.find(f->name);
  if (it != m_->function_index.end()) {
    Function& old = *m_->functions[it->second];
    if (old.defined && peek().is('{')) fail(nt, "function '" + f->name + "' is defined twice");
    if (old.is_entry != entry) fail(nt, "'" + f->name + "' declared both as .entry and .func");
    index = it->second;
  } else {
    index = int32_t(m_->functions.size());
    m_->functions.emplace_back();
    m_->function_index[f->name] = index;
  }
  if (peek().is(';')) {
    next();
    if (!m_->functions[index]) m_->functions[index] = std::move(f);
    f_ = nullptr;
    return;
  }
  if (extern_) fail(peek(), "'.extern' function '" + f->name + "' must not have a body");
  if (!peek().is('{')) fail(peek(), "expected '{' or ';' after the header of '" + f->name + "', found " + shown(peek()));
  next();
  f->defined = true;
  m_->functions[index] = std::move(f);
  f_ = m_->functions[index].get();
  parse_body(*f_);
  f_ = nullptr;
}

void Parser::parse_body(Function& f) {
  int depth = 1;
  push_scope();
  while (depth > 0) {
    const Token& t = peek();
    if (t.kind == Token::end) fail(t, "missing '}' at the end of function '" + f.name + "'");
    if (t.is('}')) { next(); pop_scope(); --depth; continue; }
    if (t.is('{')) { next(); push_scope(); ++depth; continue; }
    if (t.is(';')) { next(); continue; }
    if (t.kind == Token::word && t.text[0] == '.') {
      std::string_view w = t.text;
      if (w == ".reg") { parse_reg_decl(); continue; }
      if (w == ".loc" || w == ".file") { next(); skip_line(t.line); continue; }
      if (w == ".pragma") { next(); skip_statement(); continue; }
      if (w == ".local" || w == ".shared" || w == ".param") {
        const Token& dt = next();
        Space sp = space_from(w.substr(1));
        for (Symbol& s : parse_var_decl(sp, false, false)) {
          if (sp == Space::param) s.offset = 0;  // a call-sequence temporary: its own buffer
          std::string name = s.name;
          f.symbols.push_back(std::move(s));
          bind(kSym, name, int32_t(f.symbols.size() - 1));
        }
        (void)dt;
        continue;
      }
      if (w == ".global" || w == ".const")
        fail(t, "'" + std::string(w) + "' variables inside a function are not supported; declare them at module scope");
      fail(t, "unknown directive '" + std::string(w) + "'");
    }
    if (t.kind == Token::word && peek(1).is(':')) {
      // `prototype_0 : .callprototype ...` declares an indirect-call signature.
      if (peek(2).text == ".callprototype") { skip_statement(); continue; }
      std::string name(t.text);
      if (labels_.count(name)) fail(t, "duplicate label '" + name + "'");
      if (find_reg(name) >= 0) fail(t, "label '" + name + "' has the name of a register");
      f.labels[name] = int32_t(f.instrs.size());
      bind(kLabel, name, int32_t(f.instrs.size()));
      next();
      next();
      continue;
    }
    if (t.is('@') || t.kind == Token::word) { parse_instruction(); continue; }
    fail(t, "unexpected " + shown(t) + " in the body of '" + f.name + "'");
  }
  pop_scope();  // parameters
  if (!label_fixes_.empty()) {
    const LabelFix& x = *std::min_element(label_fixes_.begin(), label_fixes_.end(), [](auto& a, auto& b) {
      return a.line != b.line ? a.line < b.line : a.col < b.col;
    });
    throw InputError(at(file_, x.line, x.col, "unknown label '" + x.label + "'"));
  }
}

}  // namespace detail

std::unique_ptr<Module> parse(const std::string& text, const std::string& file) {
  detail::Parser p(text, file);
  return p.run();
}

}  // namespace relgpu::ptx
