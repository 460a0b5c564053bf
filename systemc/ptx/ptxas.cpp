#include "ptx/ptxas.h"

#include <sstream>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "ptx/analysis.h"

namespace relgpu::ptx {

namespace {

// The text between the first pair of quotes after `from`, or "".
std::string quoted(const std::string& line, size_t from) {
  size_t a = line.find('\'', from);
  if (a == std::string::npos) return "";
  size_t b = line.find('\'', a + 1);
  return b == std::string::npos ? "" : line.substr(a + 1, b - a - 1);
}

}  // namespace

PtxasInfo parse_ptxas_log(const std::string& log, const std::string& what) {
  PtxasInfo info;
  std::istringstream in(log);
  std::string entry;  // the kernel whose "Used" line comes next
  for (std::string line; std::getline(in, line);) {
    static const std::string kEntry = "Compiling entry function ", kProps = "Function properties for ",
                             kUsed = "Used ";
    if (size_t p = line.find(kEntry); p != std::string::npos) {
      entry = quoted(line, p + kEntry.size());
      size_t f = line.find(" for ", p + kEntry.size() + entry.size() + 2);
      if (f != std::string::npos && info.arch.empty()) info.arch = quoted(line, f);
    } else if (size_t p = line.find(kProps); p != std::string::npos) {
      // Only an entry's own properties are followed by its "Used" line.
      std::string name = line.substr(p + kProps.size());
      while (!name.empty() && (name.back() == '\r' || name.back() == ' ')) name.pop_back();
      if (name != entry) entry.clear();
    } else if (size_t p = line.find(kUsed); p != std::string::npos && !entry.empty()) {
      // "Used N registers": digits, then the word.
      size_t d = p + kUsed.size(), e = d;
      uint32_t n = 0;
      while (e < line.size() && e - d < 4 && line[e] >= '0' && line[e] <= '9') n = n * 10 + uint32_t(line[e++] - '0');
      if (e == d || line.compare(e, 10, " registers") != 0) continue;
      info.registers[entry] = n;
      entry.clear();
    }
  }
  if (info.registers.empty())
    throw InputError(what + ": no \"Used N registers\" line for any kernel in the ptxas output");
  return info;
}

std::string to_json(const PtxasInfo& info) {
  std::ostringstream o;
  o << "{\n  \"_note\": \"ptxas -v: registers per thread of each kernel; generated, do not edit\",\n"
    << "  \"ptxas\": " << nlohmann::json(info.version).dump() << ",\n"
    << "  \"arch\": " << nlohmann::json(info.arch).dump() << ",\n  \"registers\": {";
  bool first = true;
  for (const auto& [k, n] : info.registers) {
    o << (first ? "\n" : ",\n") << "    " << nlohmann::json(k).dump() << ": " << n;
    first = false;
  }
  o << "\n  }\n}\n";
  return o.str();
}

PtxasInfo from_json(const std::string& text, const std::string& file) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(file + ": not valid JSON: " + e.what());
  }
  auto bad = [&](const std::string& why) { return InputError(file + ": " + why + " (expected a .ptxinfo file)"); };
  if (!j.is_object()) throw bad("not a JSON object");
  PtxasInfo info;
  for (const char* k : {"ptxas", "arch"}) {
    if (!j.contains(k) || !j[k].is_string()) throw bad(std::string("\"") + k + "\" must be a string");
  }
  info.version = j["ptxas"].get<std::string>();
  info.arch = j["arch"].get<std::string>();
  if (!j.contains("registers") || !j["registers"].is_object() || j["registers"].empty())
    throw bad("\"registers\" must be an object with one count per kernel");
  for (auto it = j["registers"].begin(); it != j["registers"].end(); ++it) {
    if (!it->is_number_unsigned() || it->get<uint64_t>() > 255)
      throw bad("registers of '" + it.key() + "' must be an integer from 0 to 255");
    info.registers[it.key()] = it->get<uint32_t>();
  }
  return info;
}

void apply(Module& m, const PtxasInfo& info, bool fit) {
  for (auto& f : m.functions) {
    if (!f->is_entry) continue;
    auto it = info.registers.find(f->name);
    f->regs_ptxas = it == info.registers.end() ? 0 : it->second;
    if (fit) fit_to_ptxas(*f);
  }
}

}  // namespace relgpu::ptx
