// Parser errors: each class of malformed input gives InputError naming
// file:line:col, and mutated real PTX never crashes the parser.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>

#include "common/error.h"
#include "ptx/analysis.h"
#include "ptx/parser.h"
#include "test_paths.h"

using namespace relgpu::ptx;
namespace testpaths = relgpu::testpaths;

namespace {

const char* kHeader = ".version 9.0\n.target sm_75\n.address_size 64\n";

// Kernel body starts on line 6: header(3) + entry(4) + `{`(5).
std::string kernel(const std::string& body, const std::string& pre = "") {
  return std::string(kHeader) + pre + ".visible .entry k(.param .u64 p)\n{\n" + body + "\n}\n";
}

std::string error_of(const std::string& src) {
  try {
    parse(src, "t.ptx");
  } catch (const relgpu::InputError& e) {
    return e.what();
  }
  return "(no error)";
}

struct Case { const char* name; std::string src; std::string want; };

}  // namespace

TEST(PtxErrors, EachClassNamesLineAndColumn) {
  const std::string regs = ".reg .b32 %r<4>; .reg .pred %p<2>; .reg .b64 %rd<2>;\n";
  const Case cases[] = {
      {"unknown opcode", kernel(regs + "  frobnicate.u32 %r1, %r2;"), "t.ptx:7:3: unknown instruction 'frobnicate'"},
      {"unknown directive in body", kernel(regs + ".bogus 3;"), "t.ptx:7:1: unknown directive '.bogus'"},
      {"unknown module directive", std::string(kHeader) + ".blah x;\n", "t.ptx:4:1: unknown directive '.blah'"},
      {"missing semicolon", kernel(regs + "add.s32 %r1, %r2, %r3\nmov.u32 %r1, %r2;"), "t.ptx:7:22: expected ';' after 'add.s32' instruction"},
      {"missing operand", kernel(regs + "add.s32 %r1, %r2;"), "t.ptx:7:1: 'add.s32' takes 3 operands, found 2"},
      {"bad operand", kernel(regs + "add.s32 %r1, %r2, );"), "t.ptx:7:19: bad operand ')'"},
      {"undeclared register", kernel(regs + "add.s32 %r1, %r9, 1;"), "t.ptx:7:14: undeclared register '%r9'"},
      {"undeclared symbol", kernel(regs + "mov.u64 %rd1, nothere;"), "t.ptx:7:15: undeclared identifier 'nothere'"},
      {"unknown label", kernel(regs + "bra $L_missing;"), "t.ptx:7:5: unknown label '$L_missing'"},
      {"duplicate label", kernel(regs + "$L1: ret;\n$L1: ret;"), "t.ptx:8:1: duplicate label '$L1'"},
      {"bad type", kernel(regs + "add.s33 %r1, %r2, %r3;"), "t.ptx:7:5: unknown type '.s33' in 'add.s33'"},
      {"bad reg type", kernel(".reg .q32 %r<2>;"), "t.ptx:6:6: unknown register type '.q32'"},
      {"guard not pred", kernel(regs + "@%r1 bra $L;\n$L: ret;"), "t.ptx:7:2: guard '%r1' is not a .pred register"},
      {"store to immediate address missing", kernel(regs + "st.global.u32 %rd1, %r1;"), "t.ptx:7:1: operand 1 of 'st.global.u32' must be an address"},
      {"destination not a register", kernel(regs + "add.s32 5, %r1, %r2;"), "t.ptx:7:1: the destination of 'add.s32' must be a register"},
      {"bad number", kernel(regs + "add.s32 %r1, %r2, 0x;"), "t.ptx:7:19: bad number '0x'"},
      {"bad float literal", kernel(regs + "add.f32 %r1, %r2, 0f3F80;"), "t.ptx:7:19: bad number '0f3F80'"},
      {"indirect call", kernel(regs + "call (%r1), %rd1, (%r2);"), "t.ptx:7:7: call arguments must be .param variables, not registers ('%r1')"},
      {"indirect call via reg callee", kernel(regs + "call %rd1;"), "t.ptx:7:6: indirect call through register '%rd1' is not supported"},
      {"call undeclared function", kernel(regs + "call nofunc;"), "t.ptx:7:6: call to undeclared function 'nofunc'"},
      {"unknown special register", kernel(regs + "mov.u32 %r1, %tid.w;"), "t.ptx:7:14: undeclared register '%tid.w'"},
      {"missing brace", std::string(kHeader) + ".visible .entry k()\n{\nret;\n", "t.ptx:7:1: missing '}' at the end of function 'k'"},
      {"unterminated comment", std::string(kHeader) + "/* oops\n", "t.ptx:4:1: unterminated /* comment"},
      {"bad character", kernel(regs + "add.s32 %r1, %r2, #3;"), "t.ptx:7:19: unexpected character '#'"},
      {"pair on wrong opcode", kernel(regs + "add.s32 %r1|%p1, %r2, %r3;"), "t.ptx:7:12: '|' (a second destination) is only allowed"},
      {"negated non-pred", kernel(regs + "selp.b32 %r1, 1, 2, !%r2;"), "t.ptx:7:22: '!' applies to predicates only"},
      {"initializer too long", std::string(kHeader) + ".global .u32 x[1] = {1, 2};\n", "t.ptx:4:14: initializer of 'x' has 8 bytes, more than its size 4"},
      {"float in int initializer", std::string(kHeader) + ".global .u32 x = 1.5;\n", "t.ptx:4:18: floating-point value in an initializer of integer type .u32"},
      {"function address", std::string(kHeader) + ".func f() { ret; }\n.global .u64 x = f;\n", "t.ptx:5:18: function addresses in initializers ('f') are not supported"},
      {"texture directive", std::string(kHeader) + ".global .texref t;\n", "t.ptx:4:9: unknown or unexpected '.texref' in a declaration"},
      {"unsized global", std::string(kHeader) + ".global .u32 x[];\n", "t.ptx:4:14: 'x[]' has no size"},
      {"duplicate definition", std::string(kHeader) + ".func f() { ret; }\n.func f() { ret; }\n", "t.ptx:5:7: function 'f' is defined twice"},
      {"missing version", ".target sm_75\n", "t.ptx:1:1: missing .version directive"},
      {"address size 32", std::string(".version 9.0\n.target sm_75\n.address_size 32\n"), "t.ptx:3:15: .address_size 32 is not supported"},
      {"eof in instruction", std::string(kHeader) + ".visible .entry k()\n{\n.reg .b32 %r<2>;\nmov.u32 %r1", "t.ptx:7:12: expected ';' before end of file"},
      {"argument count", std::string(kHeader) + ".func f(.param .b32 a) { ret; }\n.visible .entry k()\n{\ncall f;\n}\n",
       "t.ptx:7:6: call to 'f' passes 0 arguments and 0 return values; it takes 1 and 0"},
      {"register as label name", kernel(regs + "bra %r1;"), "t.ptx:7:1: bra needs a label"},
      {"address in alu op", kernel(regs + "add.s32 %r1, [%rd1], 1;"), "t.ptx:7:1: operand 2 of 'add.s32' must not be an address"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::string got = error_of(c.src);
    EXPECT_EQ(got.substr(0, c.want.size()), c.want) << "full message: " << got;
  }
}

TEST(PtxErrors, ValidInputStillParses) {
  // Guard against the cases above passing because everything fails.
  const std::string regs = ".reg .b32 %r<4>; .reg .pred %p<2>; .reg .b64 %rd<2>;\n";
  EXPECT_NO_THROW(parse(kernel(regs + "add.s32 %r1, %r2, %r3;\n@%p1 bra $L;\n$L: ret;"), "t.ptx"));
}

namespace {
std::string nvcc_ptx() {
  std::ifstream f(testpaths::source_path("systemc/tests/data/ptx/nvcc_b_O3.ptx"));
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Parses; true if it worked, false on InputError. Any other exception fails
// the test (and a crash kills it).
bool survives(const std::string& src) {
  try {
    auto m = parse(src, "fuzz.ptx");
    analyse(*m);  // whatever parses must also analyse without crashing
    return true;
  } catch (const relgpu::InputError& e) {
    std::string w = e.what();
    EXPECT_EQ(w.rfind("fuzz.ptx:", 0), 0u) << w;
    return false;
  }
}
}  // namespace

TEST(PtxErrors, FuzzTruncatedAndMutatedNeverCrash) {
  const std::string base = nvcc_ptx();
  ASSERT_GT(base.size(), 1000u);
  ASSERT_TRUE(survives(base));
  std::mt19937_64 rng(12345);
  int failed = 0;
  // Truncations at many points.
  for (size_t cut = 0; cut < base.size(); cut += 37) failed += !survives(base.substr(0, cut));
  // Byte mutations: replace, delete, duplicate a random span.
  ASSERT_TRUE(survives(base + "\n.visible .entry z() { bra.bogus x; ret; }\n"));  // undecoded branch
  const char alphabet[] = "%.;,{}[]()<>+-!@|_:=0123456789abcfxXrdpLU$ \n\t\"/*";
  for (int i = 0; i < 1500; ++i) {
    std::string s = base;
    int edits = 1 + int(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      size_t pos = rng() % s.size();
      switch (rng() % 3) {
        case 0: s[pos] = alphabet[rng() % (sizeof(alphabet) - 1)]; break;
        case 1: s.erase(pos, 1 + rng() % 8); break;
        case 2: s.insert(pos, s.substr(rng() % s.size(), 1 + rng() % 16)); break;
      }
      if (s.empty()) s = ".";
    }
    failed += !survives(s);
  }
  EXPECT_GT(failed, 100);  // most mutations must be rejected, not silently accepted
}
