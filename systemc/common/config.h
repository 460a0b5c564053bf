// Configuration registry.
//
// Every key is declared once, beside the component that reads it, as an
// `inline const` Key in that component's header:
//
//   inline const config::Key<int64_t> kMaxWarpInsn{
//       "func.max_warp_insn", 4'000'000'000, "warp instructions",
//       "runaway guard: a launch stops with an error past this many", 1, INT64_MAX};
//
// Declaring the key registers it (static initialisation), so the registry
// knows every key: it rejects unknown keys by name, checks types and ranges,
// applies --set overrides, prints `relgpu config --explain`, and dumps the
// effective config into the stats. Components read a key once, at
// construction, with cfg.get(kKey); never in a hot loop.
#pragma once
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace relgpu::config {

using json = nlohmann::ordered_json;

enum class Kind { boolean, integer, real, string };

// Type-erased description of one key, as the registry stores it.
struct KeyInfo {
  std::string name;
  Kind kind;
  json def;
  std::string unit;
  std::string doc;
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  std::vector<std::string> choices;  // for strings; empty = any
};

// All declared keys, sorted by name.
const std::map<std::string, KeyInfo>& registry();
void register_key(KeyInfo k);

template <class T> struct KindOf;
template <> struct KindOf<bool> { static constexpr Kind v = Kind::boolean; };
template <> struct KindOf<int64_t> { static constexpr Kind v = Kind::integer; };
template <> struct KindOf<double> { static constexpr Kind v = Kind::real; };
template <> struct KindOf<std::string> { static constexpr Kind v = Kind::string; };

template <class T>
struct Key {
  std::string name;
  Key(std::string n, T def, std::string unit, std::string doc,
      double min = -std::numeric_limits<double>::infinity(),
      double max = std::numeric_limits<double>::infinity())
      : name(n) {
    register_key({std::move(n), KindOf<T>::v, json(def), std::move(unit), std::move(doc), min, max, {}});
  }
  // String key restricted to a set of choices.
  Key(std::string n, T def, std::string unit, std::string doc, std::vector<std::string> choices)
      : name(n) {
    register_key({std::move(n), KindOf<T>::v, json(def), std::move(unit), std::move(doc),
                  -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(),
                  std::move(choices)});
  }
};

// The values in effect for one run: defaults, then a JSON file, then --set.
class Config {
 public:
  Config() = default;
  // Reads a JSON file. Nested objects flatten to dotted keys, so
  // {"rf": {"num_banks": 32}} and {"rf.num_banks": 32} are the same.
  // Throws InputError naming the file (and line for syntax errors) and key.
  void load_file(const std::string& path);
  void load_json_text(const std::string& text, const std::string& origin);
  // "key=value"; the value is parsed according to the key's declared type.
  void set(const std::string& assignment);
  void set_value(const std::string& key, const json& value, const std::string& origin);

  template <class T> T get(const Key<T>& k) const { return value(k.name).template get<T>(); }
  const json& value(const std::string& key) const;
  bool is_set(const std::string& key) const { return values_.count(key) != 0; }

  // Every key with its effective value, for the stats JSON.
  json effective() const;
  // Which file(s) were loaded, for messages.
  const std::vector<std::string>& sources() const { return sources_; }

 private:
  std::map<std::string, json> values_;
  std::vector<std::string> sources_;
};

// The candidate closest to `key` by edit distance (at most max_dist edits),
// or "" if none is that close: the "did you mean" of every error about a
// misspelt name.
std::string nearest(const std::string& key, const std::vector<std::string>& candidates, size_t max_dist = 3);

// `relgpu config --explain [prefix]`
std::string explain(const std::string& prefix);

}  // namespace relgpu::config
