// `relgpu campaign`'s pieces: identities from effective configs, the store
// (resume bookkeeping, exactly-once results, bad files), the lock, result
// records, the sbatch script and the progress line.
#include <gtest/gtest.h>

#include <functional>

#include "campaign_test_util.h"

using namespace relgpu;
using namespace relgpu::app;
using namespace relgpu::app::campaign;
using namespace relgpu::campaigntest;

namespace {

regress::Suite suite(const std::string& text) { return regress::parse_suite(text, "spec.json", "/nonexistent-root"); }

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(CampaignPlan, IdentityIsTheEffectiveConfig) {
  regress::Suite s = suite(R"({"defaults": {"size": "small", "mode": "functional"}, "runs": [
    {"workload": "bfs"},
    {"workload": "bfs", "seed": 2},
    {"name": "other-limit", "workload": "bfs", "set": {"func.max_warp_insn": 12345}}]})");
  std::vector<Planned> p = plan(s);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(s.runs[0].config_hash, p[0].config_hash);  // the run refuses any other config
  EXPECT_EQ(s.runs[0].args().back(), p[0].config_hash);
  EXPECT_EQ(p[0].mode, "functional");
  EXPECT_EQ(p[0].key.size(), 16u);
  EXPECT_NE(p[0].key, p[1].key);                  // the seed is part of it
  EXPECT_EQ(p[0].config_hash, p[1].config_hash);  // the config is not
  EXPECT_NE(p[0].config_hash, p[2].config_hash);
  EXPECT_NE(p[0].config.find("\"func.max_warp_insn\":"), std::string::npos);
  // Planning again gives the same identities: that is what resumes.
  EXPECT_EQ(plan(s)[2].key, p[2].key);

  // Setting a key to its default is the same run: the identity is what runs.
  config::Config cfg;
  std::string def = cfg.value("func.max_warp_insn").dump();
  std::string err = error_of([&] {
    regress::Suite dup = suite(R"({"defaults": {"size": "small"}, "runs": [{"workload": "bfs"},
      {"name": "same", "workload": "bfs", "set": {"func.max_warp_insn": )" + def + "}}]}");
    plan(dup);
  });
  EXPECT_NE(err.find("runs 'bfs/small' and 'same' are the same run"), std::string::npos) << err;
}

TEST(CampaignPlan, ARunsConfigErrorNamesTheRun) {
  Scratch d("plan");
  std::string bad = d.write("bad.json", "{\"rf\": {\"num_bankz\": 4}}");
  regress::Suite s = suite(R"({"runs": [{"name": "r1", "workload": "bfs", "config": ")" + bad + "\"}]}");
  std::string err = error_of([&] { plan(s); });
  EXPECT_NE(err.find("spec.json: run 'r1': "), std::string::npos) << err;
  EXPECT_NE(err.find("num_bankz"), std::string::npos) << err;
}

Record done_record(uint64_t insn) {
  Record r;
  r.status = "done";
  r.verdict = "pass";
  r.stats = config::json{{"gpu_sim_insn", insn}, {"config", {{"x", 1}}}}.dump();
  r.wall_s = 0.5;
  r.host = "h";
  r.revision = "rev";
  r.job = "local";
  r.started_at = r.finished_at = now_utc();
  return r;
}

TEST(CampaignStore, ResumeBookkeepingAndExactlyOnceResults) {
  Scratch d("store");
  std::string db = (d / "runs.db").string();
  regress::Suite s = suite(R"({"name": "c", "defaults": {"size": "small", "mode": "functional"},
    "runs": [{"workload": "bfs", "sweep": {"seed": {"from": 1, "to": 4}}}]})");
  std::vector<Planned> p = plan(s);
  {
    Store st(db, true);
    st.sync("c", "spec.json", p, false);
    std::vector<Todo> t = st.todo("c");
    ASSERT_EQ(t.size(), 4u);
    EXPECT_EQ(t[0].key, p[0].key);
    st.mark_running(t[0].id, now_utc(), "local");
    st.mark_running(t[1].id, now_utc(), "local");
    EXPECT_TRUE(st.finish(t[0].id, t[0].key, done_record(7)));
    EXPECT_FALSE(st.finish(t[0].id, t[0].key, done_record(8)));   // a second result for a done run is dropped
    EXPECT_FALSE(st.finish(t[2].id, "0000000000000000", done_record(9)));  // not this run's identity
    Record f;
    f.status = "failed";
    f.message = "ERROR: exit status 3";
    f.exit_code = 3;
    EXPECT_TRUE(st.finish(t[3].id, t[3].key, f));
    Counts c = st.counts("c");
    EXPECT_EQ(c.total, 4);
    EXPECT_EQ(c.done, 1);
    EXPECT_EQ(c.running, 1);  // t[1]: its process was "killed"
    EXPECT_EQ(c.failed, 1);
    EXPECT_EQ(c.queued, 1);
  }
  EXPECT_EQ(query(db, "SELECT json_extract(stats, '$.gpu_sim_insn') FROM runs WHERE seed = 1"), "7");
  EXPECT_EQ(query(db, "SELECT stats FROM runs WHERE seed = 1"), done_record(7).stats);  // as written
  EXPECT_EQ(query(db, "PRAGMA journal_mode"), "wal");
  {
    // Run again: the dead process's run is queued again; done and failed stay.
    Store st(db, true);
    st.sync("c", "spec.json", p, false);
    std::vector<Todo> t = st.todo("c");
    ASSERT_EQ(t.size(), 2u);
    EXPECT_EQ(t[0].key, p[1].key);
    EXPECT_EQ(t[1].key, p[2].key);
    st.sync("c", "spec.json", p, true);  // --retry-failed
    EXPECT_EQ(st.todo("c").size(), 3u);
    // A smaller spec: the dropped runs stay, counted apart.
    std::vector<Planned> fewer(p.begin(), p.begin() + 2);
    st.sync("c", "spec.json", fewer, false);
    Counts c = st.counts("c");
    EXPECT_EQ(c.total, 2);
    EXPECT_EQ(c.stale, 2);
    EXPECT_EQ(st.todo("c").size(), 1u);
  }
  EXPECT_EQ(query(db, "SELECT count(*) FROM results WHERE config LIKE '%func.max_warp_insn%'"), "4");
}

TEST(CampaignDrift, NamesTheKeysThatMakeStoredRunsRunAgain) {
  Scratch d("drift");
  std::string db = (d / "runs.db").string();
  const char* spec = R"({"name": "c", "defaults": {"size": "small", "mode": "functional"},
    "runs": [{"name": "r", "workload": "bfs", "sweep": {"seed": [1, 2]}%s}]})";
  auto with = [&](const std::string& set) {
    std::string t = spec;
    return suite(t.replace(t.find("%s"), 2, set));
  };
  regress::Suite s1 = with("");
  std::vector<Planned> p1 = plan(s1);
  Store st(db, true);
  st.sync("c", "spec.json", p1, false);
  for (const Todo& t : st.todo("c")) ASSERT_TRUE(st.finish(t.id, t.key, done_record(7)));
  // Nothing to do again: no drift, nothing said.
  EXPECT_TRUE(runs_to_do(p1, st.statuses("c"), false).empty());
  EXPECT_EQ(describe(drift(runs_to_do(p1, st.statuses("c"), false), st.done_configs("c")), db, "c", "# "), "");

  // The spec's `set` edited: both runs run again, and the key is named.
  regress::Suite s2 = with(R"(, "set": {"func.max_warp_insn": 12345})");
  std::vector<Planned> p2 = plan(s2);
  Drift changed = drift(runs_to_do(p2, st.statuses("c"), false), st.done_configs("c"));
  EXPECT_EQ(changed.runs, 2);
  EXPECT_EQ(changed.changed, (std::map<std::string, int64_t>{{"func.max_warp_insn", 2}}));
  EXPECT_TRUE(changed.added.empty() && changed.removed.empty());
  std::string text = describe(changed, db, "c", "# ");
  EXPECT_NE(text.find("# 2 of the runs to do were done before under the same name with another config:\n"
                      "#   keys whose value changed: func.max_warp_insn\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("rerun_store"), std::string::npos) << text;  // a changed value is a new run, not a check

  // A key relgpu added since the store was made (the stored config lacks it).
  std::string name = p1[0].run->name;
  json old = json::parse(p1[0].config);
  old.erase("func.max_warp_insn");
  Drift added = drift({&p1[0]}, {{name, old.dump()}});
  EXPECT_EQ(added.runs, 1);
  EXPECT_EQ(added.added, (std::map<std::string, int64_t>{{"func.max_warp_insn", 1}}));
  text = describe(added, db, "c", "");
  EXPECT_NE(text.find("1 of the runs to do was done before"), std::string::npos) << text;
  EXPECT_NE(text.find("  keys relgpu has added since: func.max_warp_insn\n"), std::string::npos) << text;
  EXPECT_NE(text.find("`scripts/rerun_store " + db + " --campaign c --limit 5`"), std::string::npos) << text;
  // ...and one it removed; a key in only some runs says in how many.
  Planned without = p1[0], other = p1[1];
  without.config = other.config = old.dump();
  Drift removed = drift({&without, &other}, {{name, p1[0].config}, {p1[1].run->name, old.dump()}});
  EXPECT_EQ(removed.runs, 2);
  EXPECT_EQ(removed.removed, (std::map<std::string, int64_t>{{"func.max_warp_insn", 1}}));
  EXPECT_NE(describe(removed, db, "c", "").find("keys relgpu no longer has: func.max_warp_insn (1 runs)"),
            std::string::npos);
}

TEST(CampaignStore, StatsThatAreNotJsonFailTheRunNotTheCampaign) {
  Scratch d("garbled");
  std::string db = (d / "runs.db").string();
  regress::Suite s = suite(R"({"name": "c", "runs": [{"workload": "bfs"}]})");
  std::vector<Planned> p = plan(s);
  Store st(db, true);
  st.sync("c", "spec.json", p, false);
  Record garbled = done_record(1);
  garbled.stats = "{\"gpu_sim_insn\": ";  // cut short
  EXPECT_TRUE(st.finish(st.todo("c")[0].id, p[0].key, garbled));
  EXPECT_EQ(query(db, "SELECT status || ': ' || message || ' ' || (stats IS NULL) FROM runs"),
            "failed: the stats file is not valid JSON 1");
}

TEST(CampaignStore, BadFilesAreClearErrors) {
  Scratch d("badstore");
  std::string text = d.write("text.db", "this is not a database, just some text that is long enough......\n");
  std::string err = error_of([&] { Store s(text, true); });
  EXPECT_NE(err.find(text + ": "), std::string::npos) << err;
  EXPECT_NE(err.find("not a database"), std::string::npos) << err;

  std::string other = (d / "other.db").string();
  {
    sql::Db db(other, true);
    db.exec("CREATE TABLE t(x)");
  }
  EXPECT_NE(error_of([&] { Store s(other, true); }).find("not a relgpu campaign store"), std::string::npos);

  std::string newer = (d / "newer.db").string();
  {
    sql::Db db(newer, true);
    db.exec("CREATE TABLE t(x); PRAGMA user_version = 99");
  }
  EXPECT_NE(error_of([&] { Store s(newer, true); }).find("made by a newer relgpu"), std::string::npos);
  EXPECT_NE(error_of([&] { Store s((d / "missing.db").string(), false, true); }).find("cannot open the store"),
            std::string::npos);
}

TEST(CampaignStore, OneProcessAtATime) {
  Scratch d("lock");
  std::string db = (d / "runs.db").string();
  Lock first(db);
  std::string err = error_of([&] { Lock second(db); });
  EXPECT_NE(err.find("is in use by another campaign process (pid " + std::to_string(getpid())), std::string::npos) << err;
}

regress::Ended ended(int code, int sig, const std::string& stats, const std::string& log = "") {
  regress::Ended e;
  e.exit_code = code;
  e.signal = sig;
  e.wall_s = 1.5;
  e.stats = stats;
  e.log = log;
  return e;
}

TEST(CampaignRecord, JudgesAResultAndRoundTrips) {
  regress::Suite s = suite(R"({"runs": [{"workload": "bfs", "expect": {"launches.0.gpu_sim_insn": 5}},
                                        {"workload": "nw"}]})");
  const regress::Run& run = s.runs[0];
  config::json cfg = {{"a", 1}};
  std::string good = config::json{{"launches", {{{"gpu_sim_insn", 5}}}}, {"output_check", "pass"}, {"config", cfg},
                                  {"big", std::string(1000, 'x')}}
                         .dump(2);
  Record r = make_record(run, ended(0, 0, good), "t0", "local");
  EXPECT_EQ(r.status, "done");
  EXPECT_EQ(r.verdict, "pass");  // "launches" was parsed for the expectation
  EXPECT_EQ(r.stats, good);      // the text as the run wrote it
  EXPECT_EQ(*r.exit_code, 0);
  EXPECT_EQ(r.wall_s, 1.5);

  std::string off = config::json{{"launches", {{{"gpu_sim_insn", 6}}}}, {"output_check", "pass"}, {"config", cfg}}.dump();
  Record unmet = make_record(run, ended(0, 0, off), "t0", "local");
  EXPECT_EQ(unmet.verdict, "fail");
  EXPECT_NE(unmet.message.find("launches.0.gpu_sim_insn: expected 5, got 6"), std::string::npos) << unmet.message;

  // Only the implicit output check: exit 0 says it all, the text is not read
  // (the store checks it is JSON when it compacts it).
  Record fast = make_record(s.runs[1], ended(0, 0, "{not json"), "t0", "local");
  EXPECT_EQ(fast.status, "done");
  EXPECT_EQ(fast.verdict, "pass");
  std::string fail = config::json{{"output_check", "fail"}, {"output_message", "x[3] off"}}.dump();
  Record oc = make_record(s.runs[1], ended(1, 0, fail), "t0", "local");
  EXPECT_EQ(oc.verdict, "fail");
  EXPECT_NE(oc.message.find("x[3] off"), std::string::npos) << oc.message;

  Record crash = make_record(run, ended(-1, 11, "", "segv\n"), "t0", "local");
  EXPECT_EQ(crash.status, "failed");
  EXPECT_EQ(*crash.signal, 11);
  EXPECT_EQ(crash.message.rfind("CRASH: killed by signal 11", 0), 0u) << crash.message;
  EXPECT_EQ(crash.log, "segv\n");

  Record back = record_from_json(config::json::parse(record_json(r).dump()), "f.json");
  EXPECT_EQ(back.stats, r.stats);
  EXPECT_EQ(back.verdict, "pass");
  EXPECT_EQ(*back.exit_code, 0);
  EXPECT_FALSE(back.signal.has_value());
  EXPECT_NE(error_of([] { record_from_json(config::json{{"status", "done"}}, "f.json"); }).find("f.json: not a run result"),
            std::string::npos);

  regress::Run rt = run_from_json(run_json(run), "m");
  EXPECT_EQ(rt.args(), run.args());
  ASSERT_EQ(rt.expect.size(), run.expect.size());
  EXPECT_EQ(rt.expect[0].value, 5);
  EXPECT_EQ(rt.config_hash, run.config_hash);
}

TEST(CampaignSlurm, ScriptCarriesTheOptions) {
  Options o;
  o.chunk = 5;
  o.partition = "short";
  o.account = "gpu-lab";
  o.time = "0-01:30:00";
  o.mem = "500M";
  o.cpus_per_task = 2;
  std::string s = sbatch_script(o, "grguard study", "/nfs/spool/sub-3", 23, 5, "/opt/relgpu/bin/relgpu");
  EXPECT_EQ(s.rfind("#!/bin/bash\n", 0), 0u);
  for (const char* line : {"#SBATCH --array=0-4\n", "#SBATCH --time=0-01:30:00\n", "#SBATCH --mem=500M\n",
                           "#SBATCH --cpus-per-task=2\n", "#SBATCH --partition=short\n", "#SBATCH --account=gpu-lab\n",
                           "#SBATCH --job-name=relgpu-grguard_study\n",
                           "#SBATCH --output=/nfs/spool/sub-3/logs/task-%a.out\n",
                           "exec /opt/relgpu/bin/relgpu campaign worker /nfs/spool/sub-3 --task \"$SLURM_ARRAY_TASK_ID\"\n"})
    EXPECT_NE(s.find(line), std::string::npos) << line << "\n" << s;
  Options plain;
  std::string p = sbatch_script(plain, "c", "/s/sub-1", 1, 1, "/b/relgpu");
  EXPECT_EQ(p.find("--partition"), std::string::npos);
  EXPECT_EQ(p.find("--account"), std::string::npos);
  EXPECT_NE(p.find("#SBATCH --mem=2G\n"), std::string::npos);
}

TEST(CampaignProgress, CountsRateAndEta) {
  Counts c;
  c.total = 10;
  c.done = 4;
  c.queued = 6;
  std::ostringstream out;
  Progress p(&out, false, c, 0);
  EXPECT_EQ(p.line(), "done 4  failed 0  running 0  of 10");  // no rate before this command finished a run
  p.set_running(2);
  Record f;
  f.status = "failed";
  f.message = "TIMEOUT: timed out";
  p.finished("r9", f);
  EXPECT_NE(out.str().find("failed: r9: TIMEOUT: timed out\n"), std::string::npos);
  std::string l = p.line();
  EXPECT_EQ(l.rfind("done 4  failed 1  running 2  of 10  ", 0), 0u) << l;
  EXPECT_NE(l.find(" runs/s  ETA "), std::string::npos) << l;
  p.tick();  // a log gets the line itself
  EXPECT_NE(out.str().find("done 4  failed 1"), std::string::npos) << out.str();
}

}  // namespace
