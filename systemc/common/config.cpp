#include "common/config.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "common/error.h"

namespace relgpu::config {

static std::map<std::string, KeyInfo>& reg() {
  static std::map<std::string, KeyInfo> r;
  return r;
}
const std::map<std::string, KeyInfo>& registry() { return reg(); }

void register_key(KeyInfo k) {
  auto [it, fresh] = reg().emplace(k.name, k);
  // The same key declared twice with different meaning is a programming error.
  if (!fresh && (it->second.kind != k.kind || it->second.def != k.def))
    throw std::logic_error("config key declared twice: " + k.name);
}

static const char* kind_name(Kind k) {
  switch (k) {
    case Kind::boolean: return "bool";
    case Kind::integer: return "int";
    case Kind::real: return "real";
    case Kind::string: return "string";
  }
  return "?";
}

std::string nearest(const std::string& key, const std::vector<std::string>& candidates, size_t max_dist) {
  auto dist = [](const std::string& a, const std::string& b) {
    std::vector<size_t> d(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) d[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
      size_t prev = d[0];
      d[0] = i;
      for (size_t j = 1; j <= b.size(); ++j) {
        size_t cur = d[j];
        d[j] = std::min({d[j] + 1, d[j - 1] + 1, prev + (a[i - 1] != b[j - 1])});
        prev = cur;
      }
    }
    return d[b.size()];
  };
  std::string best;
  size_t bd = max_dist + 1;
  for (auto& c : candidates) {
    size_t d = dist(key, c);
    if (d < bd) bd = d, best = c;
  }
  return best;
}

static std::string nearest_key(const std::string& key) {
  std::vector<std::string> names;
  for (auto& [name, _] : registry()) names.push_back(name);
  return nearest(key, names);
}

static std::string range_text(const KeyInfo& k) {
  std::ostringstream s;
  if (!k.choices.empty()) {
    s << "one of";
    for (auto& c : k.choices) s << " '" << c << "'";
    return s.str();
  }
  s << "[" << k.min << ", " << k.max << "]";
  return s.str();
}

// A value as messages show it. --set text need not be UTF-8, which dump()
// refuses by default: show such bytes as U+FFFD instead.
static std::string show(const json& v) { return v.dump(-1, ' ', false, json::error_handler_t::replace); }

void Config::set_value(const std::string& key, const json& v, const std::string& origin) {
  auto it = registry().find(key);
  if (it == registry().end()) {
    std::string msg = origin + ": unknown config key '" + key + "'";
    std::string near = nearest_key(key);
    if (!near.empty()) msg += " (did you mean '" + near + "'?)";
    msg += "; `relgpu config --explain` lists the keys";
    throw InputError(msg);
  }
  const KeyInfo& k = it->second;
  auto bad_type = [&] {
    return InputError(origin + ": config key '" + key + "' must be of type " + kind_name(k.kind) +
                      ", got " + show(v));
  };
  auto out_of_range = [&] {
    bool bounded = std::isfinite(k.min) || std::isfinite(k.max);
    return InputError(origin + ": config key '" + key + "' = " + show(v) + " is out of range " +
                      (bounded ? range_text(k) : "of a 64-bit integer"));
  };
  json stored;
  switch (k.kind) {
    case Kind::boolean:
      if (!v.is_boolean()) throw bad_type();
      stored = v;
      break;
    case Kind::integer: {
      // Only what an int64_t holds: converting more wraps (unsigned) or is undefined (float).
      if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX)) throw out_of_range();
      if (v.is_number_integer()) {
        stored = v.get<int64_t>();
      } else if (v.is_number_float() && std::floor(v.get<double>()) == v.get<double>()) {
        double d = v.get<double>();
        if (!(d >= -0x1p63 && d < 0x1p63)) throw out_of_range();
        stored = int64_t(d);
      } else {
        throw bad_type();
      }
      break;
    }
    case Kind::real:
      if (!v.is_number()) throw bad_type();
      stored = v.get<double>();
      break;
    case Kind::string:
      if (!v.is_string()) throw bad_type();
      stored = v;
      break;
  }
  if (k.kind == Kind::integer || k.kind == Kind::real) {
    double d = stored.get<double>();
    if (!(d >= k.min && d <= k.max))
      throw InputError(origin + ": config key '" + key + "' = " + show(v) + " is out of range " + range_text(k));
  }
  if (k.kind == Kind::string && !k.choices.empty()) {
    bool ok = false;
    for (auto& c : k.choices) ok |= (c == stored.get<std::string>());
    if (!ok) throw InputError(origin + ": config key '" + key + "' = " + show(v) + " must be " + range_text(k));
  }
  values_[key] = stored;
}

// nlohmann::json copies and prints values recursively, as flatten() walks
// them, so a value nested thousands of levels deep would overflow the stack.
// Configs nest a few levels; deeper input is refused before it is parsed.
constexpr int kMaxDepth = 32;

// The offset of the first '{' or '[' nested deeper than kMaxDepth, or npos.
static size_t too_deep(const std::string& t) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < t.size(); ++i) {
    char c = t[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > kMaxDepth) return i;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return std::string::npos;
}

// 1-based line and column of byte offset `off` of `text`.
static std::pair<size_t, size_t> line_col(const std::string& text, size_t off) {
  size_t line = 1, col = 1;
  for (size_t i = 0; i < off && i < text.size(); ++i) {
    if (text[i] == '\n') ++line, col = 1;
    else ++col;
  }
  return {line, col};
}

static void flatten(const json& j, const std::string& prefix, std::vector<std::pair<std::string, json>>& out) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    std::string key = prefix.empty() ? it.key() : prefix + "." + it.key();
    // Keys starting with '_' are comments ("_note": "..."), allowed anywhere.
    if (!it.key().empty() && it.key()[0] == '_') continue;
    if (it->is_object()) flatten(*it, key, out);
    else out.emplace_back(key, *it);
  }
}

void Config::load_json_text(const std::string& text, const std::string& origin) {
  if (size_t off = too_deep(text); off != std::string::npos) {
    auto [line, col] = line_col(text, off);
    throw InputError(at(origin, line, col, "objects and arrays nested deeper than " + std::to_string(kMaxDepth) +
                                               " levels; a config needs a few"));
  }
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    // e.byte is 1-based: the offset of the byte after the error.
    auto [line, col] = line_col(text, e.byte ? e.byte - 1 : 0);
    std::string what = e.what();
    auto p = what.find("syntax error");
    throw InputError(at(origin, line, col, "malformed JSON: " + (p == std::string::npos ? what : what.substr(p))));
  } catch (const json::exception& e) {
    // A number too large for a double (1e999): nlohmann gives no position.
    std::string what = e.what();
    auto p = what.find("] ");
    throw InputError(origin + ": malformed JSON: " + (p == std::string::npos ? what : what.substr(p + 2)));
  }
  if (!j.is_object()) throw InputError(origin + ": a config file must hold a JSON object");
  std::vector<std::pair<std::string, json>> flat;
  flatten(j, "", flat);
  for (auto& [k, v] : flat) set_value(k, v, origin);
  sources_.push_back(origin);
}

void Config::load_file(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw InputError(path + ": cannot open config file");
  std::stringstream ss;
  ss << f.rdbuf();
  load_json_text(ss.str(), path);
}

void Config::set(const std::string& a) {
  auto eq = a.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError("--set '" + a + "': expected key=value");
  std::string key = a.substr(0, eq), text = a.substr(eq + 1);
  auto it = registry().find(key);
  json v;
  if (it != registry().end() && it->second.kind == Kind::string) {
    // A config file cannot hold other text (the JSON parser refuses it), and
    // the stats write the value back as JSON.
    try {
      (void)json(text).dump();
    } catch (const json::type_error&) {
      throw InputError("--set " + key + ": the value is not UTF-8 text");
    }
    v = text;
  } else if (too_deep(text) != std::string::npos) {
    throw InputError("--set " + key + ": the value nests deeper than " + std::to_string(kMaxDepth) + " levels");
  } else {
    try {
      v = json::parse(text);
    } catch (...) {
      v = text;  // let set_value report the type error
    }
  }
  set_value(key, v, "--set " + key);
}

const json& Config::value(const std::string& key) const {
  auto it = values_.find(key);
  if (it != values_.end()) return it->second;
  auto r = registry().find(key);
  if (r == registry().end()) throw std::logic_error("config key read but never declared: " + key);
  return r->second.def;
}

json Config::effective() const {
  json out = json::object();
  for (auto& [name, _] : registry()) out[name] = value(name);
  return out;
}

std::string explain(const std::string& prefix) {
  std::ostringstream s;
  for (auto& [name, k] : registry()) {
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    s << name << "  (" << kind_name(k.kind) << ", default " << k.def.dump();
    if (!k.unit.empty()) s << ", " << k.unit;
    if (k.kind == Kind::integer || k.kind == Kind::real) {
      if (std::isfinite(k.min) || std::isfinite(k.max)) s << ", range " << range_text(k);
    } else if (!k.choices.empty()) {
      s << ", " << range_text(k);
    }
    s << ")\n    " << k.doc << "\n";
  }
  return s.str();
}

}  // namespace relgpu::config
