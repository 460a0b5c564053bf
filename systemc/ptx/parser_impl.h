// Internal to the parser (parser*.cpp). Not part of the public API.
#pragma once
#include <string>
#include <unordered_map>
#include <vector>

#include "common/error.h"
#include "ptx/ir.h"
#include "ptx/lexer.h"

namespace relgpu::ptx::detail {

Type type_from(std::string_view s);     // "u32" -> Type::u32, none if not a type
Space space_from(std::string_view s);   // "global" -> Space::global, none otherwise

// A numeric literal: integer (bits, two's complement), 0fXXXXXXXX (f32 bits),
// or 0dXXXXXXXXXXXXXXXX / decimal float (f64 bits).
struct Num {
  enum Kind : uint8_t { integer, f32, f64 } kind = integer;
  uint64_t bits = 0;
};
// False if `s` is not a valid PTX number.
bool parse_number(std::string_view s, bool negative, Num& out);

class Parser {
 public:
  Parser(const std::string& text, const std::string& file);
  std::unique_ptr<Module> run();

 private:
  friend struct InstrParser;
  // ---- tokens ----
  const Token& peek(size_t k = 0) const { return t_[std::min(p_ + k, t_.size() - 1)]; }
  const Token& next();
  [[noreturn]] void fail(const Token& at, const std::string& msg) const;
  void expect(char c, const char* what);
  std::string_view expect_word(const char* what);
  uint64_t expect_uint(const char* what);
  void skip_line(uint32_t line);         // .loc/.file: no ';', end at the line's end
  void skip_statement();                 // up to and including the next ';' at depth 0

  // ---- module level ----
  void parse_function(bool extern_);
  void parse_params(Function& f, std::vector<int32_t>& out, bool is_ret);
  Symbol parse_one_param(Function& f);
  void parse_perf_directives(Function& f);
  void parse_body(Function& f);
  // Declarations `.global/.const/.shared/.local/.param [.align N] [.vN] .type name[N] = init, ...;`
  std::vector<Symbol> parse_var_decl(Space sp, bool extern_, bool module_scope);
  void parse_initializer(Symbol& s, const Token& name_tok);
  void parse_reg_decl();

  // ---- scopes (function bodies nest `{ }` for call sequences and inline asm) ----
  void push_scope() { scopes_.push_back(undo_.size()); }
  void pop_scope();
  enum Ns : uint8_t { kSym, kReg, kLabel };
  void bind(Ns ns, const std::string& name, int32_t idx);
  int32_t find_reg(std::string_view name) const;
  int32_t find_sym(std::string_view name);   // local, then module; -1 if none

  // ---- instructions (parser_instr.cpp) ----
  void parse_instruction();
  int32_t vec_imm(Instr& in, size_t pos);
  std::vector<Instr> pending_vec_imms_;

  // ---- after all functions (parser_layout.cpp) ----
  void finish();

  const std::string& src_;
  const std::string& file_;
  std::vector<Token> t_;
  size_t p_ = 0;
  std::unique_ptr<Module> m_;
  std::unordered_map<std::string, int32_t> global_index_;
  std::vector<uint32_t> global_line_;        // per Module::globals entry, for messages

  Function* f_ = nullptr;
  std::unordered_map<std::string, int32_t> regs_, syms_, labels_;
  std::unordered_map<std::string, int32_t>& ns_map(Ns n) { return n == kReg ? regs_ : n == kSym ? syms_ : labels_; }
  struct Undo { Ns ns; std::string name; int32_t prev; };
  std::vector<Undo> undo_;
  std::vector<size_t> scopes_;
  std::unordered_map<int32_t, int32_t> gsym_;  // Module::globals index -> f_->symbols index
  // Labels are scoped by `{ }` (inline asm blocks reuse names): a use is
  // resolved when its scope closes, else handed to the enclosing scope.
  struct LabelFix { size_t instr, op; std::string label; uint32_t line, col; size_t depth; };
  std::vector<LabelFix> label_fixes_;
  struct CallFix { Function* f; size_t instr; std::string name; uint32_t line, col; };
  std::vector<CallFix> call_fixes_;
};

}  // namespace relgpu::ptx::detail
