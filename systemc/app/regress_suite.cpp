// Regression suites: reading and checking a suite file, comparing a run's
// stats with its expectations, and --update-golden's in-place rewrite.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/regress.h"
#include "common/error.h"
#include "workload.h"

namespace relgpu::app::regress {

namespace fs = std::filesystem;

// ---------------------------------------------------------------------------
// Where things are in the suite text.
//
// nlohmann::json keeps no source positions, and dump() would reformat a
// whole file. This scanner records the byte span of every value (and of
// every key), so that errors can name the line and --update-golden can
// replace just the numbers that changed, keeping the file's own layout,
// comments ("_note" keys) and tolerances. It only ever sees text that
// nlohmann has already accepted as valid JSON.

namespace {

struct Node {
  size_t begin = 0, end = 0;  // the value's text is [begin, end)
  char kind = 0;              // '{', '[', or 0 for a scalar
  struct Member;
  std::vector<Member> members;
  std::vector<Node> items;
  const Node* get(const std::string& k) const;
};
struct Node::Member {
  std::string key;
  size_t key_begin;
  Node value;
};
const Node* Node::get(const std::string& k) const {
  for (auto& m : members)
    if (m.key == k) return &m.value;
  return nullptr;
}

class Scanner {
 public:
  Scanner(const std::string& t, const std::string& file) : t_(t), file_(file) {}
  Node parse() {
    if (t_.compare(0, 3, "\xEF\xBB\xBF") == 0) p_ = 3;  // a UTF-8 byte-order mark, as nlohmann allows
    return value();
  }

 private:
  void ws() {
    while (p_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[p_]))) ++p_;
  }
  std::string str() {
    size_t b = p_++;
    while (p_ < t_.size() && t_[p_] != '"') p_ += t_[p_] == '\\' ? 2 : 1;
    ++p_;
    return json::parse(t_.substr(b, p_ - b)).get<std::string>();
  }
  Node value() {
    ws();
    Node n;
    n.begin = p_;
    char c = p_ < t_.size() ? t_[p_] : 0;
    if (c == '{' || c == '[') {
      n.kind = c;
      ++p_;
      ws();
      char close = c == '{' ? '}' : ']';
      if (t_[p_] == close) {
        ++p_;
      } else {
        for (;;) {
          ws();
          if (c == '{') {
            size_t kb = p_;
            std::string key = str();
            for (auto& m : n.members)
              if (m.key == key)  // nlohmann would silently keep one of them
                throw InputError(file_ + ":" + std::to_string(line_of(t_, kb)) + ": duplicate key \"" + key + "\"");
            ws();
            ++p_;  // ':'
            Node v = value();
            n.members.push_back({key, kb, std::move(v)});
          } else {
            n.items.push_back(value());
          }
          ws();
          if (t_[p_++] != ',') break;  // ',' or the closing bracket
        }
      }
    } else if (c == '"') {
      str();
    } else {
      while (p_ < t_.size() && !std::strchr(",]} \t\r\n", t_[p_])) ++p_;
    }
    n.end = p_;
    return n;
  }

 public:
  static size_t line_of(const std::string& t, size_t off) {
    return 1 + size_t(std::count(t.begin(), t.begin() + std::min(off, t.size()), '\n'));
  }

 private:
  const std::string& t_;
  const std::string& file_;
  size_t p_ = 0;
};

// '*' matches any run of characters (including dots).
bool glob_match(const char* p, const char* s) {
  if (!*p) return !*s;
  if (*p == '*') return glob_match(p + 1, s) || (*s && glob_match(p, s + 1));
  return *s == *p && glob_match(p + 1, s + 1);
}

std::string num_text(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

struct Tol {
  std::optional<double> rel, abs;
};

// Reads the suite, keeping the file name, the text and the scanned spans
// at hand for error messages.
class Reader {
 public:
  Reader(const std::string& text, const std::string& file, const std::string& root)
      : text_(text), file_(file), root_(root) {}

  Suite read() {
    try {
      json doc = json::parse(text_);
      (void)doc;
    } catch (const json::parse_error& e) {
      size_t line = 1, col = 1;
      for (size_t i = 0; i + 1 < e.byte && i < text_.size(); ++i) {
        if (text_[i] == '\n') ++line, col = 1;
        else ++col;
      }
      std::string what = e.what();
      auto p = what.find("syntax error");
      throw InputError(at(file_, unsigned(line), unsigned(col),
                          "malformed JSON: " + (p == std::string::npos ? what : what.substr(p))));
    }
    Node top = Scanner(text_, file_).parse();
    if (top.kind != '{') fail(top.begin, "", "a suite must be a JSON object with \"runs\"");
    Suite s;
    s.path = file_;
    s.root = root_;
    s.text = text_;
    const Node* defaults = nullptr;
    const Node* runs = nullptr;
    for (auto& m : top.members) {
      if (comment(m.key)) continue;
      if (m.key == "name") s.name = as_string(m.value, m.key);
      else if (m.key == "description") s.description = as_string(m.value, m.key);
      else if (m.key == "defaults") defaults = &m.value;
      else if (m.key == "runs") runs = &m.value;
      else if (m.key == "golden_keys") {
        if (m.value.kind != '[') fail(m.value.begin, m.key, "expected an array of stats keys");
        for (size_t i = 0; i < m.value.items.size(); ++i)
          s.golden_keys.push_back(as_string(m.value.items[i], m.key + "[" + std::to_string(i) + "]"));
      } else unknown(m, "", {"name", "description", "defaults", "golden_keys", "runs"});
    }
    if (s.name.empty()) s.name = fs::path(file_).stem().string();
    if (!runs) fail(top.begin, "", "missing \"runs\" (an array of runs)");
    if (runs->kind != '[') fail(runs->begin, "runs", "expected an array of runs");

    Run base;
    base.size = "default";
    base.timeout_s = kDefaultTimeoutS;
    if (defaults) read_defaults(*defaults, base);

    for (size_t i = 0; i < runs->items.size(); ++i)
      for (Run& r : read_runs(runs->items[i], i, base)) s.runs.push_back(std::move(r));
    for (size_t i = 0; i < s.runs.size(); ++i)
      for (size_t j = 0; j < i; ++j)
        if (s.runs[i].name == s.runs[j].name)
          fail(runs->items[s.runs[i].index].begin, "runs[" + std::to_string(s.runs[i].index) + "]",
               "duplicate run name '" + s.runs[i].name + "' (also runs[" + std::to_string(s.runs[j].index) +
                   "]); give one of them a \"name\"");
    return s;
  }

 private:
  static bool comment(const std::string& k) { return !k.empty() && k[0] == '_'; }

  [[noreturn]] void fail(size_t off, const std::string& path, const std::string& msg) const {
    throw InputError(file_ + ":" + std::to_string(Scanner::line_of(text_, off)) + ": " +
                     (path.empty() ? "" : path + ": ") + msg);
  }
  [[noreturn]] void unknown(const Node::Member& m, const std::string& parent,
                            std::vector<std::string> allowed) const {
    std::string best = config::nearest(m.key, allowed, 2);
    std::string msg = "unknown key '" + m.key + "'";
    if (!best.empty()) msg += " (did you mean '" + best + "'?)";
    msg += "; allowed here:";
    for (auto& a : allowed) msg += " " + a;
    fail(m.key_begin, parent.empty() ? m.key : parent + "." + m.key, msg);
  }
  json value(const Node& n) const { return json::parse(text_.substr(n.begin, n.end - n.begin)); }
  std::string as_string(const Node& n, const std::string& path) const {
    json v = value(n);
    if (!v.is_string()) fail(n.begin, path, "expected a string, got " + v.dump());
    return v.get<std::string>();
  }
  double positive(const Node& n, const std::string& path, bool zero_ok) const {
    json v = value(n);
    if (!v.is_number() || v.get<double>() < 0 || (!zero_ok && v.get<double>() == 0))
      fail(n.begin, path, std::string("expected a ") + (zero_ok ? "non-negative" : "positive") + " number, got " +
                              v.dump());
    return v.get<double>();
  }
  uint64_t seed(const Node& n, const std::string& path) const {
    json v = value(n);
    if (!v.is_number_unsigned()) fail(n.begin, path, "expected a non-negative integer, got " + v.dump());
    return v.get<uint64_t>();
  }
  std::string size(const Node& n, const std::string& path) const {
    std::string v = as_string(n, path);
    if (v != "small" && v != "default") fail(n.begin, path, "must be 'small' or 'default', got '" + v + "'");
    return v;
  }
  std::string config_path(const Node& n, const std::string& path) const {
    std::string v = as_string(n, path);
    if (v.empty()) return v;
    fs::path p(v);
    if (p.is_relative()) p = fs::path(root_) / p;
    p = p.lexically_normal();
    if (!fs::is_regular_file(p))
      fail(n.begin, path,
           "no such config file '" + v + "'" +
               (fs::path(v).is_relative() ? " (relative paths start at the repository root " + root_ + ")" : ""));
    return p.string();
  }
  std::string mode(const Node& n, const std::string& path) const {
    std::string v = as_string(n, path);
    // sim.mode is declared by `relgpu run`; check it where it is known.
    auto it = config::registry().find("sim.mode");
    if (it != config::registry().end() && !it->second.choices.empty() &&
        std::find(it->second.choices.begin(), it->second.choices.end(), v) == it->second.choices.end()) {
      std::string choices;
      for (auto& c : it->second.choices) choices += " '" + c + "'";
      fail(n.begin, path, "mode '" + v + "' is not one of" + choices);
    }
    return v;
  }
  // Nested objects flatten to dotted keys and '_' keys are comments, as in
  // config files; each key is checked against the config registry now, so
  // a typo fails the suite before any run starts.
  void set(const Node& n, const std::string& path, std::vector<std::pair<std::string, json>>& out,
           const std::string& prefix = "") const {
    if (n.kind != '{') fail(n.begin, path, "expected an object of config keys and values");
    for (auto& m : n.members) {
      if (comment(m.key)) continue;
      std::string key = prefix.empty() ? m.key : prefix + "." + m.key;
      if (m.value.kind == '{') {
        set(m.value, path, out, key);
        continue;
      }
      json v = value(m.value);
      config::Config scratch;
      scratch.set_value(key, v, file_ + ":" + std::to_string(Scanner::line_of(text_, m.key_begin)) + ": " + path);
      auto it = std::find_if(out.begin(), out.end(), [&](auto& kv) { return kv.first == key; });
      if (it != out.end()) it->second = v;
      else out.emplace_back(key, v);
    }
  }
  Tol tolerance(const Node& n, const std::string& path) const {
    if (n.kind != '{') fail(n.begin, path, "expected an object like {\"rel\": 0.02} or {\"abs\": 10}");
    Tol t;
    for (auto& m : n.members) {
      if (comment(m.key)) continue;
      if (m.key == "rel") t.rel = positive(m.value, path + ".rel", true);
      else if (m.key == "abs") t.abs = positive(m.value, path + ".abs", true);
      else unknown(m, path, {"rel", "abs"});
    }
    if (!t.rel && !t.abs) fail(n.begin, path, "a tolerance needs \"rel\" or \"abs\"");
    return t;
  }

  void read_defaults(const Node& d, Run& base) {
    if (d.kind != '{') fail(d.begin, "defaults", "expected an object");
    for (auto& m : d.members) {
      std::string p = "defaults." + m.key;
      if (comment(m.key)) continue;
      if (m.key == "size") base.size = size(m.value, p);
      else if (m.key == "config") base.config = config_path(m.value, p);
      else if (m.key == "mode") base.mode = mode(m.value, p);
      else if (m.key == "seed") base.seed = seed(m.value, p);
      else if (m.key == "set") set(m.value, p, base.set);
      else if (m.key == "timeout_s") base.timeout_s = positive(m.value, p, false);
      else if (m.key == "tolerances") {
        if (m.value.kind != '{') fail(m.value.begin, p, "expected an object: stats key or pattern -> {\"rel\": ...}");
        for (auto& t : m.value.members)
          if (!comment(t.key)) tolerances_.emplace_back(t.key, tolerance(t.value, p + "." + t.key));
      } else unknown(m, "defaults", {"size", "config", "mode", "seed", "set", "timeout_s", "tolerances"});
    }
  }

  // The default tolerance for a key: an exact key wins, then the first
  // pattern that matches, in file order.
  const std::pair<std::string, Tol>* family(const std::string& key) const {
    for (auto& t : tolerances_)
      if (t.first == key) return &t;
    for (auto& t : tolerances_)
      if (glob_match(t.first.c_str(), key.c_str())) return &t;
    return nullptr;
  }

  Expect expect(const Node::Member& m, const std::string& path) const {
    Expect e;
    e.key = m.key;
    const Node& n = m.value;
    if (n.kind == '{') {
      for (auto& f : n.members) {
        std::string p = path + "." + f.key;
        if (comment(f.key)) continue;
        if (f.key == "value") {
          e.value = value(f.value);
          if (!(e.value.is_number() || e.value.is_string() || e.value.is_boolean()))
            fail(f.value.begin, p, "expected a number, string or boolean, got " + e.value.dump());
        } else if (f.key == "rel") e.rel = positive(f.value, p, true);
        else if (f.key == "abs") e.abs = positive(f.value, p, true);
        else if (f.key == "min" || f.key == "max") {
          json v = value(f.value);
          if (!v.is_number()) fail(f.value.begin, p, "expected a number, got " + v.dump());
          (f.key == "min" ? e.min : e.max) = v.get<double>();
        } else unknown(f, path, {"value", "rel", "abs", "min", "max"});
      }
      if (e.value.is_null() && !e.min && !e.max)
        fail(n.begin, path, "needs \"value\" (with optional \"rel\"/\"abs\"), or \"min\"/\"max\" bounds");
      if ((e.rel || e.abs) && !e.value.is_number())
        fail(n.begin, path, "\"rel\" and \"abs\" need a numeric \"value\"");
      if (e.rel || e.abs) e.tol_from = "run";
    } else {
      e.value = value(n);
      if (!(e.value.is_number() || e.value.is_string() || e.value.is_boolean()))
        fail(n.begin, path, "expected a number, string, boolean or {\"value\": ..., \"rel\": ...}, got " +
                                e.value.dump());
    }
    if (e.tol_from.empty() && e.value.is_number())
      if (auto* f = family(e.key)) {
        e.rel = f->second.rel;
        e.abs = f->second.abs;
        e.tol_from = "defaults.tolerances." + f->first;
      }
    return e;
  }

  Run read_run(const Node& n, size_t i, const Run& base) {
    std::string p = "runs[" + std::to_string(i) + "]";
    if (n.kind != '{') fail(n.begin, p, "a run must be an object with at least \"workload\"");
    Run r = base;
    r.index = i;
    r.seed.reset();
    bool own_config = false, own_mode = false, own_seed = false;
    for (auto& m : n.members) {
      std::string mp = p + "." + m.key;
      if (comment(m.key)) continue;
      if (m.key == "name") r.name = as_string(m.value, mp);
      else if (m.key == "workload") {
        r.workload = as_string(m.value, mp);
        if (!wl::find(r.workload))
          fail(m.value.begin, mp, "unknown workload '" + r.workload + "'; `relgpu list` shows the workloads");
      } else if (m.key == "size") r.size = size(m.value, mp);
      else if (m.key == "config") r.config = config_path(m.value, mp), own_config = true;
      else if (m.key == "mode") r.mode = mode(m.value, mp), own_mode = true;
      else if (m.key == "seed") r.seed = seed(m.value, mp), own_seed = true;
      else if (m.key == "set") set(m.value, mp, r.set);
      else if (m.key == "timeout_s") r.timeout_s = positive(m.value, mp, false);
      else if (m.key == "sweep") continue;  // read_runs expands it
      else if (m.key == "expect") {
        if (m.value.kind != '{') fail(m.value.begin, mp, "expected an object: stats key -> expected value");
        for (auto& e : m.value.members)
          if (!comment(e.key)) r.expect.push_back(expect(e, mp + "." + e.key));
      } else unknown(m, p, {"name", "workload", "size", "config", "mode", "seed", "set", "timeout_s", "sweep", "expect"});
    }
    if (!own_seed) r.seed = base.seed;
    if (r.workload.empty()) fail(n.begin, p, "missing \"workload\"");
    if (r.name.empty()) {
      // Short by default: what the run itself changes, not what every run shares.
      r.name = r.workload + "/" + r.size;
      if (own_config && !r.config.empty()) r.name += "/" + fs::path(r.config).stem().string();
      if (own_mode) r.name += "/" + r.mode;
      if (own_seed) r.name += "/seed" + std::to_string(*r.seed);
    }
    if (std::none_of(r.expect.begin(), r.expect.end(), [](auto& e) { return e.key == "output_check"; })) {
      Expect e;
      e.key = "output_check";
      e.value = "pass";
      e.implicit = true;
      r.expect.push_back(e);
    }
    return r;
  }

  // A run with "sweep": {"workload": [...], "seed": [...], "size": [...], "CONFIG.KEY": [...]} stands
  // for the cross product of the listed values (in file order, the last key varying fastest). Each
  // expanded run is named after the run plus "/key=value" per swept key (the workload's own name
  // part when the workload is swept). Its expectations apply to every expanded run. An integer
  // range {"from": 1, "to": 100} (both included) stands for the list of its values, for the chips
  // and seeds of a campaign.
  struct Value {
    json v;
    size_t at;  // offset in the text, for errors
  };
  std::vector<Value> axis_values(const Node& n, const std::string& path) const {
    std::vector<Value> out;
    if (n.kind == '[' && !n.items.empty()) {
      for (auto& v : n.items) out.push_back({value(v), v.begin});
      return out;
    }
    if (n.kind != '{') fail(n.begin, path, "expected a non-empty array of values or a range {\"from\": 1, \"to\": 10}");
    std::optional<int64_t> from, to;
    for (auto& m : n.members) {
      if (comment(m.key)) continue;
      json v = value(m.value);
      if (m.key != "from" && m.key != "to") unknown(m, path, {"from", "to"});
      if (!v.is_number_integer()) fail(m.value.begin, path + "." + m.key, "expected an integer, got " + v.dump());
      (m.key == "from" ? from : to) = v.get<int64_t>();
    }
    if (!from || !to) fail(n.begin, path, "a range needs both \"from\" and \"to\"");
    if (*to < *from) fail(n.begin, path, "an empty range: \"to\" is below \"from\"");
    if (*to - *from >= 1'000'000) fail(n.begin, path, "a range of more than 1,000,000 values");
    // Non-negative values as JSON reads them (unsigned), so seeds accept them.
    for (int64_t x = *from; x <= *to; ++x) out.push_back({x >= 0 ? json(uint64_t(x)) : json(x), n.begin});
    return out;
  }
  std::string string_value(const Value& v, const std::string& path) const {
    if (!v.v.is_string()) fail(v.at, path, "expected a string, got " + v.v.dump());
    return v.v.get<std::string>();
  }

  std::vector<Run> read_runs(const Node& n, size_t i, const Run& base) {
    const Node* sw = n.kind == '{' ? n.get("sweep") : nullptr;
    if (!sw) return {read_run(n, i, base)};
    std::string p = "runs[" + std::to_string(i) + "].sweep";
    if (sw->kind != '{') fail(sw->begin, p, "expected an object: key -> array of values");
    struct Axis { std::string key; std::vector<Value> values; };
    std::vector<Axis> axes;
    size_t total = 1;
    for (auto& m : sw->members) {
      if (comment(m.key)) continue;
      Axis a{m.key, axis_values(m.value, p + "." + m.key)};
      total *= a.values.size();
      if (total > 1'000'000) fail(m.value.begin, p, "the sweep expands to more than 1,000,000 runs");
      axes.push_back(std::move(a));
    }
    if (axes.empty()) fail(sw->begin, p, "an empty sweep; list at least one key");
    bool has_workload = n.get("workload") != nullptr;
    const Node* named = n.get("name");  // then the swept workload joins the suffix
    std::vector<Run> out;
    std::vector<size_t> at(axes.size(), 0);
    for (;;) {
      Run r = base;
      std::string suffix;
      std::vector<std::pair<std::string, json>> extra;
      for (size_t k = 0; k < axes.size(); ++k) {
        const Value& v = axes[k].values[at[k]];
        const std::string& key = axes[k].key;
        std::string kp = p + "." + key + "[" + std::to_string(at[k]) + "]";
        const json& jv = v.v;
        std::string shown = jv.is_string() ? jv.get<std::string>() : jv.dump();
        if (key == "workload") {
          if (has_workload) fail(v.at, kp, "the run gives \"workload\" too; sweep it or set it, not both");
          r.workload = string_value(v, kp);
          if (!wl::find(r.workload))
            fail(v.at, kp, "unknown workload '" + r.workload + "'; `relgpu list` shows the workloads");
          if (named) suffix += "/" + r.workload;
          continue;
        }
        if (key == "seed") {
          if (!jv.is_number_unsigned()) fail(v.at, kp, "expected a non-negative integer, got " + jv.dump());
          r.seed = jv.get<uint64_t>();
        } else if (key == "size") {
          r.size = string_value(v, kp);
          if (r.size != "small" && r.size != "default") fail(v.at, kp, "must be 'small' or 'default', got '" + r.size + "'");
        } else {
          config::Config scratch;
          scratch.set_value(key, jv, file_ + ":" + std::to_string(Scanner::line_of(text_, v.at)) + ": " + kp);
          extra.emplace_back(key, jv);
        }
        suffix += "/" + key + "=" + shown;
      }
      Run one = read_run(n, i, r);
      if (!has_workload) one.workload = r.workload;
      if (one.workload.empty()) fail(n.begin, "runs[" + std::to_string(i) + "]", "missing \"workload\"");
      for (auto& kv : extra) {
        auto it = std::find_if(one.set.begin(), one.set.end(), [&](auto& x) { return x.first == kv.first; });
        if (it != one.set.end()) it->second = kv.second;
        else one.set.push_back(kv);
      }
      for (size_t k = 0; k < axes.size(); ++k)
        if (axes[k].key == "seed") one.seed = r.seed;
        else if (axes[k].key == "size") one.size = r.size;
      one.name = (named ? as_string(*named, "name") : one.workload + "/" + one.size) + suffix;
      one.swept = true;
      out.push_back(std::move(one));
      size_t k = axes.size();
      while (k > 0 && ++at[k - 1] == axes[k - 1].values.size()) at[--k] = 0;
      if (k == 0) break;
    }
    return out;
  }

  const std::string& text_;
  std::string file_, root_;
  std::vector<std::pair<std::string, Tol>> tolerances_;
};

}  // namespace

std::vector<std::string> Run::args() const {
  std::vector<std::string> a{"run", workload, "--size", size};
  if (!config.empty()) a.insert(a.end(), {"--config", config});
  if (!mode.empty()) a.insert(a.end(), {"--mode", mode});
  if (seed) a.insert(a.end(), {"--seed", std::to_string(*seed)});
  for (auto& [k, v] : set) a.insert(a.end(), {"--set", k + "=" + (v.is_string() ? v.get<std::string>() : v.dump())});
  if (!config_hash.empty()) a.insert(a.end(), {"--config-hash", config_hash});
  return a;
}

std::string find_root(const std::string& suite_path) {
  std::error_code ec;
  fs::path start = fs::absolute(suite_path, ec).lexically_normal().parent_path();
  for (fs::path d = start;; d = d.parent_path()) {
    if (fs::exists(d / ".git", ec) || (fs::is_directory(d / "configs", ec) && fs::is_directory(d / "regress", ec)))
      return d.string();
    if (d == d.parent_path()) break;
  }
  return start.string();
}

Suite parse_suite(const std::string& text, const std::string& path, const std::string& root) {
  return Reader(text, path, root).read();
}

Suite load_suite(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw InputError(path + ": cannot open suite file");
  std::stringstream ss;
  ss << f.rdbuf();
  return parse_suite(ss.str(), path, find_root(path));
}

// ---------------------------------------------------------------------------
// Comparing stats with expectations.

static const json* lookup_from(const json& j, const std::vector<std::string>& seg, size_t i) {
  if (i == seg.size()) return &j;
  if (j.is_object()) {
    for (size_t n = seg.size() - i; n >= 1; --n) {
      std::string key = seg[i];
      for (size_t k = 1; k < n; ++k) key += "." + seg[i + k];
      auto it = j.find(key);
      if (it != j.end())
        if (const json* r = lookup_from(*it, seg, i + n)) return r;
    }
  } else if (j.is_array()) {
    const std::string& s = seg[i];
    if (!s.empty() && std::all_of(s.begin(), s.end(), ::isdigit) && s.size() < 10 && std::stoul(s) < j.size())
      return lookup_from(j[std::stoul(s)], seg, i + 1);
  }
  return nullptr;
}

const json* lookup(const json& stats, const std::string& path) {
  std::vector<std::string> seg;
  std::stringstream ss(path);
  for (std::string s; std::getline(ss, s, '.');) seg.push_back(s);
  if (seg.empty()) return nullptr;
  return lookup_from(stats, seg, 0);
}

std::string tolerance_text(const Expect& e) {
  std::string t;
  if (e.value.is_number()) {
    if (e.rel) t = "±" + num_text(*e.rel * 100) + "%";
    if (e.abs) t += (t.empty() ? "±" : " or ±") + num_text(*e.abs);
    if (t.empty()) t = "exact";
  } else if (!e.value.is_null()) {
    t = "exact";
  }
  std::string b;
  if (e.min && e.max) b = "[" + num_text(*e.min) + ", " + num_text(*e.max) + "]";
  else if (e.min) b = ">= " + num_text(*e.min);
  else if (e.max) b = "<= " + num_text(*e.max);
  if (!b.empty()) t += (t.empty() ? "" : "; ") + b;
  return t;
}

bool meets(const Expect& e, const json* got, std::string& note) {
  note.clear();
  if (!got) {
    note = "missing from the stats";
    return false;
  }
  if (e.value.is_number() || e.min || e.max) {
    if (!got->is_number()) {
      note = "not a number";
      return false;
    }
  }
  const double g = got->is_number() ? got->get<double>() : 0;
  if (e.value.is_number()) {
    const double v = e.value.get<double>();
    bool ok;
    if (e.rel || e.abs) {
      double allowed = std::max(e.abs.value_or(0), e.rel.value_or(0) * std::fabs(v));
      ok = std::fabs(g - v) <= allowed * (1 + 1e-12);
    } else {
      ok = *got == e.value;  // integers compare exactly, whatever their signedness
    }
    if (!ok) {
      std::string d;
      if (got->is_number_integer() && e.value.is_number_integer())
        d = (g >= v ? "+" : "") + std::to_string(got->get<int64_t>() - e.value.get<int64_t>());
      else
        d = (g >= v ? "+" : "") + num_text(g - v);
      if (v != 0) {
        char pct[32];
        std::snprintf(pct, sizeof pct, "%+.3g%%", (g - v) / std::fabs(v) * 100);
        d += std::string(", ") + pct;
      }
      note = d;
      return false;
    }
  } else if (!e.value.is_null() && *got != e.value) {
    return false;
  }
  if (e.min && g < *e.min) {
    note = "below the minimum";
    return false;
  }
  if (e.max && g > *e.max) {
    note = "above the maximum";
    return false;
  }
  return true;
}

std::vector<Mismatch> check(const Run& r, const json& stats) {
  std::vector<Mismatch> out;
  for (auto& e : r.expect) {
    const json* got = lookup(stats, e.key);
    std::string note;
    if (meets(e, got, note)) continue;
    if (e.key == "output_check" && got && stats.contains("output_message")) {
      const json& m = stats["output_message"];
      if (m.is_string() && !m.get<std::string>().empty()) note = m.get<std::string>();
    }
    out.push_back({e.key, e.value, got ? *got : json(), tolerance_text(e), note});
  }
  return out;
}

const char* status_name(Status s) {
  switch (s) {
    case Status::pass: return "PASS";
    case Status::fail: return "FAIL";
    case Status::error: return "ERROR";
    case Status::timeout: return "TIMEOUT";
    case Status::crash: return "CRASH";
  }
  return "?";
}

static std::string tail(const std::string& s, size_t n) {
  if (s.size() <= n) return s;
  size_t cut = s.size() - n;
  auto nl = s.find('\n', cut);
  if (nl != std::string::npos && nl + 1 < s.size()) cut = nl + 1;
  return "[...]\n" + s.substr(cut);
}

// The last line the child's CLI wrote as "relgpu: ...", the reason it gave.
static std::string reason(const std::string& log) {
  std::string best, line;
  std::istringstream ss(log);
  while (std::getline(ss, line))
    if (line.rfind("relgpu: ", 0) == 0) best = line;
  return best;
}

Result evaluate(const Run& r, int exit_code, int signal, bool timed_out, double wall_s, const std::string& stats_text,
                const std::string& log, const std::vector<std::string>* keep) {
  Result res;
  res.wall_s = wall_s;
  res.exit_code = exit_code;
  res.signal = signal;
  res.log = tail(log, 4000);
  if (timed_out) {
    res.status = Status::timeout;
    res.message = "timed out: killed after " + num_text(wall_s) + " s";
    return res;
  }
  if (signal) {
    res.status = Status::crash;
    const char* n = strsignal(signal);
    res.message = "killed by signal " + std::to_string(signal) + (n ? std::string(" (") + n + ")" : "");
    return res;
  }
  // relgpu run: 0 pass, 1 output check failed (stats written), 2 bad input,
  // 3 kernel error, 4 internal error.
  if (exit_code != 0 && exit_code != 1) {
    res.status = Status::error;
    std::string why = reason(log);
    res.message = "exit status " + std::to_string(exit_code) + (why.empty() ? "" : ": " + why);
    return res;
  }
  if (stats_text.empty()) {
    res.status = Status::error;
    res.message = "exit status " + std::to_string(exit_code) + " but no stats were written";
    return res;
  }
  try {
    if (keep) {
      // A top-level key may be any prefix of an expectation's dotted path
      // (lookup() finds flattened keys).
      std::vector<std::string> names = *keep;
      names.push_back("output_message");
      for (auto& e : r.expect) {
        names.push_back(e.key);
        for (size_t dot = e.key.find('.'); dot != std::string::npos; dot = e.key.find('.', dot + 1))
          names.push_back(e.key.substr(0, dot));
      }
      json::parser_callback_t only = [&](int depth, json::parse_event_t ev, json& parsed) {
        if (depth != 1 || ev != json::parse_event_t::key) return true;
        return std::find(names.begin(), names.end(), parsed.get<std::string>()) != names.end();
      };
      res.stats = json::parse(stats_text, only);
    } else {
      res.stats = json::parse(stats_text);
    }
  } catch (const std::exception& e) {
    res.status = Status::error;
    res.message = std::string("unreadable stats: ") + e.what();
    return res;
  }
  res.mismatches = check(r, res.stats);
  if (res.mismatches.empty() && exit_code == 0) {
    res.status = Status::pass;
  } else {
    res.status = Status::fail;
    if (!res.mismatches.empty()) res.message = mismatch_line(res.mismatches.front());
    if (res.mismatches.size() > 1) res.message += " (and " + std::to_string(res.mismatches.size() - 1) + " more)";
    // An expected output-check failure: relgpu run still exits 1.
    if (res.mismatches.empty()) res.status = Status::pass;
  }
  return res;
}

// ---------------------------------------------------------------------------
// --update-golden

namespace {

struct Edit {
  size_t begin, end;
  std::string text;
};

// Text that adds members to an object, in the object's own style: one per
// line with the same indentation when it spans lines, else inline.
Edit add_members(const std::string& text, const Node& obj,
                 const std::vector<std::pair<std::string, std::string>>& kv) {
  std::string ins;
  if (obj.members.empty()) {
    for (size_t i = 0; i < kv.size(); ++i) ins += (i ? ", " : "") + json(kv[i].first).dump() + ": " + kv[i].second;
    return {obj.begin + 1, obj.begin + 1, ins};
  }
  size_t first = obj.members.front().key_begin;
  bool multiline = text.find('\n', obj.begin) < first;
  std::string indent;
  if (multiline) {
    size_t ls = text.rfind('\n', first) + 1;
    indent = text.substr(ls, first - ls);
  }
  for (auto& [k, v] : kv) ins += (multiline ? ",\n" + indent : ", ") + json(k).dump() + ": " + v;
  size_t at = obj.members.back().value.end;
  return {at, at, ins};
}

}  // namespace

GoldenUpdate update_golden(const Suite& s, const std::vector<Outcome>& outcomes) {
  GoldenUpdate u;
  Node top = Scanner(s.text, s.path).parse();
  const Node* runs = top.get("runs");
  std::vector<Edit> edits;
  for (auto& o : outcomes) {
    const Run& r = *o.run;
    const Result& res = *o.result;
    if (res.stats.is_null()) {
      u.skipped.push_back(r.name + ": " + status_name(res.status) + " (" + res.message + "); expectations kept");
      continue;
    }
    // Never bless a wrong answer: the output check must come out as expected.
    auto oc = std::find_if(r.expect.begin(), r.expect.end(), [](auto& e) { return e.key == "output_check"; });
    const json* got_oc = lookup(res.stats, "output_check");
    if (oc != r.expect.end() && (!got_oc || *got_oc != oc->value)) {
      u.skipped.push_back(r.name + ": output check " + (got_oc ? got_oc->dump() : "missing") + ", expected " +
                          oc->value.dump() + "; expectations kept");
      continue;
    }
    if (r.swept) {
      u.skipped.push_back(r.name + ": a swept run holds no golden values (bounds only); kept");
      continue;
    }
    if (!runs || runs->kind != '[' || r.index >= runs->items.size()) continue;
    const Node& rn = runs->items[r.index];
    const Node* ex = rn.get("expect");
    for (auto& e : r.expect) {
      if (e.implicit) continue;
      const json* got = lookup(res.stats, e.key);
      if (!got) {
        u.skipped.push_back(r.name + ": " + e.key + " is missing from the stats; kept");
        continue;
      }
      if (e.value.is_null()) {  // bounds only: nothing to rewrite
        std::string note;
        if (!meets(e, got, note))
          u.skipped.push_back(r.name + ": " + e.key + " = " + got->dump() + " is out of its bounds " +
                              tolerance_text(e) + "; bounds kept");
        continue;
      }
      if (*got == e.value) continue;
      const Node* vn = ex ? ex->get(e.key) : nullptr;
      if (vn && vn->kind == '{') vn = vn->get("value");
      if (!vn) continue;
      edits.push_back({vn->begin, vn->end, got->dump()});
      u.changes.push_back(r.name + ": " + e.key + " " + e.value.dump() + " -> " + got->dump());
    }
    std::vector<std::pair<std::string, std::string>> add;
    for (auto& k : s.golden_keys) {
      if (std::any_of(r.expect.begin(), r.expect.end(), [&](auto& e) { return e.key == k && !e.implicit; })) continue;
      // A key this run's stats lack (gpu_sim_cycle in functional mode) is
      // simply not added: golden_keys serve every kind of run in a suite.
      const json* got = lookup(res.stats, k);
      if (!got) continue;
      add.emplace_back(k, got->dump());
      u.changes.push_back(r.name + ": " + k + " added = " + got->dump());
    }
    if (add.empty()) continue;
    if (ex && ex->kind == '{') {
      edits.push_back(add_members(s.text, *ex, add));
    } else {
      std::string obj = "{";
      for (size_t i = 0; i < add.size(); ++i) obj += (i ? ", " : "") + json(add[i].first).dump() + ": " + add[i].second;
      edits.push_back(add_members(s.text, rn, {{"expect", obj + "}"}}));
    }
  }
  // Back to front, so earlier offsets stay valid; at one offset, an
  // insertion (empty span) goes after a replacement ending there.
  std::stable_sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.begin > b.begin; });
  u.text = s.text;
  for (auto& e : edits) u.text.replace(e.begin, e.end - e.begin, e.text);
  return u;
}

std::string unified_diff(const std::string& a, const std::string& b, const std::string& a_name,
                         const std::string& b_name) {
  auto lines = [](const std::string& t) {
    std::vector<std::string> v;
    std::istringstream ss(t);
    for (std::string l; std::getline(ss, l);) v.push_back(l);
    return v;
  };
  auto A = lines(a), B = lines(b);
  // Common prefix and suffix, then a longest-common-subsequence table on
  // what is left (suites are small; past a size, the middle is one change).
  size_t pre = 0;
  while (pre < A.size() && pre < B.size() && A[pre] == B[pre]) ++pre;
  size_t suf = 0;
  while (suf < A.size() - pre && suf < B.size() - pre && A[A.size() - 1 - suf] == B[B.size() - 1 - suf]) ++suf;
  size_t n = A.size() - pre - suf, m = B.size() - pre - suf;
  struct Op {
    char c;
    size_t ai, bi;  // line numbers (0-based) in A and B at this op
  };
  std::vector<Op> ops;
  for (size_t i = 0; i < pre; ++i) ops.push_back({' ', i, i});
  if ((n + 1) * (m + 1) <= 16'000'000) {
    std::vector<uint32_t> L((n + 1) * (m + 1), 0);
    auto at = [&](size_t i, size_t j) -> uint32_t& { return L[i * (m + 1) + j]; };
    for (size_t i = n; i-- > 0;)
      for (size_t j = m; j-- > 0;)
        at(i, j) = A[pre + i] == B[pre + j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
    size_t i = 0, j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && A[pre + i] == B[pre + j]) ops.push_back({' ', pre + i++, pre + j++});
      else if (i < n && (j == m || at(i + 1, j) >= at(i, j + 1))) ops.push_back({'-', pre + i++, pre + j});
      else ops.push_back({'+', pre + i, pre + j++});
    }
  } else {
    for (size_t i = 0; i < n; ++i) ops.push_back({'-', pre + i, pre});
    for (size_t j = 0; j < m; ++j) ops.push_back({'+', pre + n, pre + j});
  }
  for (size_t k = 0; k < suf; ++k) ops.push_back({' ', pre + n + k, pre + m + k});

  std::string out;
  const size_t ctx = 3;
  size_t k = 0;
  while (k < ops.size()) {
    while (k < ops.size() && ops[k].c == ' ') ++k;
    if (k == ops.size()) break;
    size_t start = k >= ctx ? k - ctx : 0, end = k;
    // Extend the hunk while the next change is within 2*ctx unchanged lines.
    for (;;) {
      while (end < ops.size() && ops[end].c != ' ') ++end;
      size_t next = end;
      while (next < ops.size() && ops[next].c == ' ') ++next;
      if (next < ops.size() && next - end <= 2 * ctx) {
        end = next;
        continue;
      }
      end = std::min(ops.size(), end + ctx);
      break;
    }
    size_t a0 = ops[start].ai, b0 = ops[start].bi, na = 0, nb = 0;
    for (size_t q = start; q < end; ++q) na += ops[q].c != '+', nb += ops[q].c != '-';
    if (out.empty()) out = "--- " + a_name + "\n+++ " + b_name + "\n";
    out += "@@ -" + std::to_string(na ? a0 + 1 : a0) + "," + std::to_string(na) + " +" +
           std::to_string(nb ? b0 + 1 : b0) + "," + std::to_string(nb) + " @@\n";
    for (size_t q = start; q < end; ++q) {
      const Op& op = ops[q];
      out += op.c;
      out += (op.c == '+' ? B[op.bi] : A[op.ai]) + "\n";
    }
    k = end;
  }
  return out;
}

}  // namespace relgpu::app::regress
