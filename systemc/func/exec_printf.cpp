// Built-in callees: vprintf (device printf), __assertfail (device assert),
// malloc and free (the device heap, GlobalMemory::heap_malloc).
// CUDA lowers printf(fmt, ...) to vprintf(fmt, buf): fmt is a generic
// pointer to the format string, buf a generic pointer to a local buffer
// holding the arguments, each at its natural alignment (ints 4 bytes, long
// and pointers 8, floats promoted to double).
#include <cstring>
#include <iostream>
#include <sstream>

#include "common/error.h"
#include "func/exec.h"

namespace relgpu::func {

uint64_t Executor::param_u64(const Warp& w, unsigned lane, int32_t sym) const {
  const Frame& fr = w.frames.back();
  uint64_t v = 0, sz = fr.code->fn->symbols[sym].size;
  std::memcpy(&v, &fr.param[lane * fr.code->param_area + fr.code->param_slot[sym]], sz < 8 ? sz : 8);
  return v;
}

std::string Executor::read_cstring(Cta& cta, Warp& w, int pc, unsigned lane, uint64_t g) {
  std::string s;
  for (unsigned i = 0; i < 65536; ++i) {
    ptx::Space sp = generic_space(g + i);
    char c = char(*resolve(cta, w, pc, int(lane), sp, g + i - window_base(sp), 1, false, "string read"));
    if (!c) return s;
    s += c;
  }
  fail(cta, w, pc, int(lane), "string at " + hex(g) + " is not terminated within 64 KiB");
}

void Executor::builtin_call(Cta& cta, Warp& w, InFlight& f) {
  const DInstr& d = *f.d;
  auto arg = [&](unsigned lane, unsigned k) -> uint64_t {
    if (k >= d.nargs) fail(cta, w, f.pc, int(lane), "built-in call has too few arguments");
    return param_u64(w, lane, d.arg_syms[k]);
  };
  if (d.builtin == DInstr::Builtin::assertfail) {
    unsigned l = __builtin_ctz(f.exec);
    std::string msg = read_cstring(cta, w, f.pc, l, arg(l, 0));
    std::string file = read_cstring(cta, w, f.pc, l, arg(l, 1));
    uint32_t line = uint32_t(arg(l, 2));
    std::string fn = read_cstring(cta, w, f.pc, l, arg(l, 3));
    fail(cta, w, f.pc, int(l),
         "device assertion `" + msg + "` failed at " + file + ":" + std::to_string(line) + " in " + fn);
  }
  if (d.builtin == DInstr::Builtin::malloc || d.builtin == DInstr::Builtin::free) {
    heap_call(cta, w, f);
    return;
  }
  std::ostream& out = ctx_.out ? *ctx_.out : std::cout;
  for (unsigned l = 0; l < kWarpSize; ++l) {
    if (!(f.exec >> l & 1)) continue;
    std::string fmt = read_cstring(cta, w, f.pc, l, arg(l, 0));
    uint64_t buf = d.nargs > 1 ? arg(l, 1) : 0, off = 0;
    int nargs = 0;
    std::string text;
    auto fetch = [&](unsigned n) -> uint64_t {
      off = (off + n - 1) / n * n;
      uint64_t g = buf + off, v = 0;
      ptx::Space sp = generic_space(g);
      std::memcpy(&v, resolve(cta, w, f.pc, int(l), sp, g - window_base(sp), n, false, "printf argument read"), n);
      off += n;
      ++nargs;
      return v;
    };
    for (size_t i = 0; i < fmt.size(); ++i) {
      if (fmt[i] != '%') {
        text += fmt[i];
        continue;
      }
      size_t j = i + 1;
      std::string spec = "%";
      while (j < fmt.size() && std::strchr("-+ #0", fmt[j])) spec += fmt[j++];
      while (j < fmt.size() && (std::isdigit((unsigned char)fmt[j]) || fmt[j] == '.')) spec += fmt[j++];
      bool wide = false;
      while (j < fmt.size() && std::strchr("hlLqjzt", fmt[j])) {
        if (std::strchr("lLqjzt", fmt[j])) wide = true;
        ++j;
      }
      if (j >= fmt.size()) {
        text += fmt.substr(i);
        break;
      }
      char conv = fmt[j];
      char tmp[512];
      switch (conv) {
        case '%': text += '%'; break;
        case 'd': case 'i':
          if (wide) snprintf(tmp, sizeof tmp, (spec + "lld").c_str(), (long long)fetch(8));
          else snprintf(tmp, sizeof tmp, (spec + "d").c_str(), int32_t(fetch(4)));
          text += tmp;
          break;
        case 'u': case 'x': case 'X': case 'o':
          if (wide) snprintf(tmp, sizeof tmp, (spec + "ll" + conv).c_str(), (unsigned long long)fetch(8));
          else snprintf(tmp, sizeof tmp, (spec + conv).c_str(), uint32_t(fetch(4)));
          text += tmp;
          break;
        case 'c': snprintf(tmp, sizeof tmp, (spec + "c").c_str(), int(fetch(4))); text += tmp; break;
        case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A': {
          uint64_t b = fetch(8);
          double v;
          std::memcpy(&v, &b, 8);
          snprintf(tmp, sizeof tmp, (spec + conv).c_str(), v);
          text += tmp;
          break;
        }
        case 'p': snprintf(tmp, sizeof tmp, "0x%llx", (unsigned long long)fetch(8)); text += tmp; break;
        case 's': {
          uint64_t p = fetch(8);
          std::string s = p ? read_cstring(cta, w, f.pc, l, p) : "(null)";
          // Width/precision apply to the string as in C.
          std::vector<char> big(s.size() + 512);
          snprintf(big.data(), big.size(), (spec + "s").c_str(), s.c_str());
          text += big.data();
          break;
        }
        default: text += fmt.substr(i, j - i + 1); break;  // unknown conversion: printed as written
      }
      i = j;
    }
    out << text;
    // vprintf returns the number of arguments, as CUDA's printf does.
    if (d.ret_sym >= 0) {
      Frame& fr = w.frames.back();
      int32_t r = nargs;
      std::memcpy(&fr.param[l * fr.code->param_area + fr.code->param_slot[d.ret_sym]], &r, 4);
    }
  }
  out.flush();
}

// Lane by lane, in lane order, as the device heap serves a warp.
void Executor::heap_call(Cta& cta, Warp& w, InFlight& f) {
  const DInstr& d = *f.d;
  for (unsigned l = 0; l < kWarpSize; ++l) {
    if (!(f.exec >> l & 1)) continue;
    if (d.nargs < 1) fail(cta, w, f.pc, int(l), "built-in call has too few arguments");
    uint64_t a = param_u64(w, l, d.arg_syms[0]);
    if (d.builtin == DInstr::Builtin::free) {
      if (a && !ctx_.gmem->heap_free(a)) {
        std::ostringstream s;
        s << "free(0x" << std::hex << a << "): not a block from device malloc (or freed already)";
        fail(cta, w, f.pc, int(l), s.str());
      }
      continue;
    }
    uint64_t p = ctx_.gmem->heap_malloc(a);  // 0 (NULL) when the heap is full, as CUDA's
    if (d.ret_sym >= 0) {
      Frame& fr = w.frames.back();
      std::memcpy(&fr.param[l * fr.code->param_area + fr.code->param_slot[d.ret_sym]], &p, 8);
    }
  }
}

}  // namespace relgpu::func
