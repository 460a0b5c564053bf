// A campaign's runs with their identity, and a finished run as a Record.
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <map>

#include "app/args.h"
#include "app/campaign.h"

namespace relgpu::app::campaign {

std::string identity(const std::string& workload, const std::string& size, uint64_t seed, const std::string& mode,
                     const std::string& config_text) {
  return hash_hex(workload + "\n" + size + "\n" + std::to_string(seed) + "\n" + mode + "\n" + config_text);
}

std::vector<Planned> plan(regress::Suite& s) {
  // Runs that differ only in workload or seed share a config: compute each
  // distinct (config file, --set list) once; a spec of 10^4 runs has a few
  // hundred.
  std::map<std::string, std::string> configs;
  std::map<std::string, size_t> seen;  // identity -> index in out
  std::vector<Planned> out;
  out.reserve(s.runs.size());
  for (regress::Run& r : s.runs) {
    r.config_hash.clear();
    std::vector<std::string> argv = r.args();
    argv.erase(argv.begin());  // "run"
    Args a(argv, "run");
    RunCommand c;
    std::string text;
    try {
      c = parse_run(a);
      std::string ck = c.config_file;
      for (auto& kv : c.sets) ck += "\n" + kv;
      auto it = configs.find(ck);
      if (it == configs.end()) it = configs.emplace(ck, run_config(c).effective().dump()).first;
      text = it->second;
    } catch (const InputError& e) {
      throw InputError(s.path + ": run '" + r.name + "': " + e.what());
    }
    Planned p;
    p.run = &r;
    p.config = text;
    p.config_hash = r.config_hash = hash_hex(text);
    p.mode = json::parse(text).at("sim.mode").get<std::string>();
    p.seed = c.seed;
    p.key = identity(r.workload, r.size, p.seed, p.mode, text);
    auto [at, fresh] = seen.emplace(p.key, out.size());
    if (!fresh)
      throw InputError(s.path + ": runs '" + out[at->second].run->name + "' and '" + r.name +
                       "' are the same run (same workload, size, seed, mode and effective config); remove one");
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<std::string> run_args(bool launch_detail) {
  std::vector<std::string> a{"--stats-compact"};
  if (!launch_detail) a.push_back("--no-launch-detail");
  return a;
}

std::string now_utc() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char b[32];
  std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return b;
}

std::string host_name() {
  char h[256] = {0};
  return gethostname(h, sizeof h - 1) == 0 ? h : "unknown";
}

Record make_record(const regress::Run& run, const regress::Ended& e, const std::string& started_at,
                   const std::string& job) {
  Record rec;
  rec.wall_s = e.wall_s;
  rec.host = host_name();
  rec.revision = revision();
  rec.job = job;
  rec.started_at = started_at;
  rec.finished_at = now_utc();
  if (e.exit_code >= 0) rec.exit_code = e.exit_code;
  if (e.signal) rec.signal = e.signal;
  // Exit 0 with stats and only the implicit output check: a pass, known
  // without reading a document of up to a few MB.
  bool explicit_expect = std::any_of(run.expect.begin(), run.expect.end(), [](auto& x) { return !x.implicit; });
  if (!e.timed_out && !e.signal && e.exit_code == 0 && !e.stats.empty() && !explicit_expect) {
    rec.status = "done";
    rec.verdict = "pass";
    rec.stats = e.stats;
    return rec;
  }
  static const std::vector<std::string> kKeep;  // only what the expectations reach
  regress::Result r = regress::evaluate(run, e.exit_code, e.signal, e.timed_out, e.wall_s, e.stats, e.log, &kKeep);
  rec.message = r.message;
  if (r.stats.is_null()) {
    rec.status = "failed";
    rec.message = std::string(regress::status_name(r.status)) + ": " + r.message;
    rec.log = r.log;
    return rec;
  }
  rec.status = "done";
  rec.verdict = r.status == regress::Status::pass ? "pass" : "fail";
  rec.stats = e.stats;
  return rec;
}

json record_json(const Record& r) {
  json j = {{"status", r.status},   {"verdict", r.verdict}, {"message", r.message},   {"log", r.log},
            {"wall_s", r.wall_s},   {"host", r.host},       {"revision", r.revision}, {"job", r.job},
            {"started_at", r.started_at}, {"finished_at", r.finished_at}};
  j["exit_code"] = r.exit_code ? json(*r.exit_code) : json();
  j["signal"] = r.signal ? json(*r.signal) : json();
  j["stats"] = r.stats;
  return j;
}

Record record_from_json(const json& j, const std::string& where) {
  try {
    Record r;
    r.status = j.at("status").get<std::string>();
    if (r.status != "done" && r.status != "failed") throw InputError("status must be done or failed");
    r.verdict = j.at("verdict").get<std::string>();
    if (r.status == "done" && r.verdict != "pass" && r.verdict != "fail") throw InputError("verdict must be pass or fail");
    r.message = j.at("message").get<std::string>();
    r.log = j.at("log").get<std::string>();
    r.wall_s = j.at("wall_s").get<double>();
    r.host = j.at("host").get<std::string>();
    r.revision = j.at("revision").get<std::string>();
    r.job = j.at("job").get<std::string>();
    r.started_at = j.at("started_at").get<std::string>();
    r.finished_at = j.at("finished_at").get<std::string>();
    if (!j.at("exit_code").is_null()) r.exit_code = j.at("exit_code").get<int64_t>();
    if (!j.at("signal").is_null()) r.signal = j.at("signal").get<int64_t>();
    r.stats = j.at("stats").get<std::string>();
    if (r.status == "done" && r.stats.empty()) throw InputError("a done run needs its stats");
    return r;
  } catch (const json::exception& e) {
    throw InputError(where + ": not a run result: " + e.what());
  } catch (const InputError& e) {
    throw InputError(where + ": not a run result: " + e.what());
  }
}

json run_json(const regress::Run& r) {
  json set = json::array();
  for (auto& [k, v] : r.set) set.push_back({k, v});
  json expect = json::array();
  for (auto& e : r.expect) {
    json x = {{"key", e.key}, {"value", e.value}, {"implicit", e.implicit}};
    if (e.rel) x["rel"] = *e.rel;
    if (e.abs) x["abs"] = *e.abs;
    if (e.min) x["min"] = *e.min;
    if (e.max) x["max"] = *e.max;
    expect.push_back(x);
  }
  return {{"name", r.name}, {"workload", r.workload}, {"size", r.size},           {"config", r.config},
          {"mode", r.mode}, {"seed", r.seed ? json(*r.seed) : json()}, {"set", set}, {"timeout_s", r.timeout_s},
          {"expect", expect}, {"config_hash", r.config_hash}};
}

regress::Run run_from_json(const json& j, const std::string& where) {
  try {
    regress::Run r;
    r.name = j.at("name").get<std::string>();
    r.workload = j.at("workload").get<std::string>();
    r.size = j.at("size").get<std::string>();
    r.config = j.at("config").get<std::string>();
    r.mode = j.at("mode").get<std::string>();
    if (!j.at("seed").is_null()) r.seed = j.at("seed").get<uint64_t>();
    for (auto& kv : j.at("set")) r.set.emplace_back(kv.at(0).get<std::string>(), kv.at(1));
    r.timeout_s = j.at("timeout_s").get<double>();
    r.config_hash = j.at("config_hash").get<std::string>();
    for (auto& x : j.at("expect")) {
      regress::Expect e;
      e.key = x.at("key").get<std::string>();
      e.value = x.at("value");
      e.implicit = x.at("implicit").get<bool>();
      if (x.contains("rel")) e.rel = x["rel"].get<double>();
      if (x.contains("abs")) e.abs = x["abs"].get<double>();
      if (x.contains("min")) e.min = x["min"].get<double>();
      if (x.contains("max")) e.max = x["max"].get<double>();
      r.expect.push_back(std::move(e));
    }
    return r;
  } catch (const json::exception& e) {
    throw InputError(where + ": malformed run: " + e.what());
  }
}

}  // namespace relgpu::app::campaign
