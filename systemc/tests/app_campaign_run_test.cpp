// `relgpu campaign` through the binary: kill -9 mid-way and resume, Ctrl-C,
// failures and exit statuses, the Slurm flow with stand-in sbatch/squeue
// (the real Slurm test is regress/slurm_campaign_test.sh), the collector,
// and bad input.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <map>
#include <thread>

#include "campaign_test_util.h"

using namespace relgpu;
using namespace relgpu::app;
using namespace relgpu::app::campaign;
using namespace relgpu::campaigntest;

namespace {

class CampaignRun : public ::testing::Test {
 protected:
  void SetUp() override {
    if (bin().empty()) GTEST_SKIP() << "RELGPU_BIN unset (run through ctest)";
  }
  Shell campaign(const std::string& args, const std::string& env = "") {
    return sh(env + " '" + bin() + "' campaign " + args);
  }
  // Starts `relgpu campaign ARGS` in the background; output to `log`.
  pid_t start(const std::vector<std::string>& args, const std::string& log) {
    pid_t pid = fork();
    if (pid == 0) {
      freopen(log.c_str(), "w", stdout);
      dup2(fileno(stdout), 2);
      std::vector<std::string> a{"relgpu", "campaign"};
      a.insert(a.end(), args.begin(), args.end());
      std::vector<char*> argv;
      for (auto& s : a) argv.push_back(s.data());
      argv.push_back(nullptr);
      execv(bin().c_str(), argv.data());
      _exit(127);
    }
    return pid;
  }
  // Polls the store until `pred(done, running)` or the time is up.
  bool wait_for(const std::string& store, const std::function<bool(int, int)>& pred, double seconds = 120) {
    auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < end) {
      try {
        int done = std::stoi(query(store, "SELECT count(*) FROM runs WHERE status = 'done'"));
        int running = std::stoi(query(store, "SELECT count(*) FROM runs WHERE status = 'running'"));
        if (pred(done, running)) return true;
      } catch (const std::exception&) {
        // not created yet, or its schema is being written
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }
};

// Timing mode at small size: about 0.1 s a run, long enough to be caught mid-way.
const char* kSixteen = R"({"name": "k9", "defaults": {"size": "small", "mode": "timing", "timeout_s": 120},
  "runs": [{"name": "r", "sweep": {"workload": ["bfs", "hotspot", "kmeans", "matmul", "nbody", "scan", "spmv", "vecops"],
                                   "seed": [1, 2]}}]})";

TEST_F(CampaignRun, KillNineMidwayThenResumeEqualsUninterrupted) {
  Scratch d("kill9");
  std::string spec = d.write("spec.json", kSixteen);
  std::string a = (d / "a.db").string(), b = (d / "b.db").string();
  pid_t pid = start({"run", spec, "--store", a, "-j", "2"}, (d / "a.log").string());
  ASSERT_TRUE(wait_for(a, [](int done, int running) { return done >= 4 && running >= 1; }))
      << slurp(d / "a.log");
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  int done_before = std::stoi(query(a, "SELECT count(*) FROM runs WHERE status = 'done'"));
  int in_flight = std::stoi(query(a, "SELECT count(*) FROM runs WHERE status = 'running'"));
  ASSERT_LT(done_before, 16) << "the campaign finished before it was killed; the test proves nothing";
  ASSERT_GE(in_flight, 1);
  std::string done_ids = query(a, "SELECT group_concat(id) FROM runs WHERE status = 'done'");
  std::string flight_ids = query(a, "SELECT group_concat(id) FROM runs WHERE status = 'running'");

  // The same command again resumes: only the runs not done run.
  Shell r = campaign("run " + spec + " --store " + a + " -j 2");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find(std::to_string(16 - done_before) + " to run"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("k9: all 16 runs done as expected"), std::string::npos) << r.out;
  Shell u = campaign("run " + spec + " --store " + b + " -j 2");
  ASSERT_EQ(u.status, 0) << u.out;

  // Every run exactly once; those done before the kill were not redone;
  // those in flight ran a second time.
  EXPECT_EQ(query(a, "SELECT count(*) || '/' || count(DISTINCT key) FROM runs"), "16/16");
  EXPECT_EQ(query(a, "SELECT count(*) FROM runs WHERE status = 'done' AND verdict = 'pass'"), "16");
  EXPECT_EQ(query(a, "SELECT group_concat(attempts) FROM (SELECT attempts FROM runs WHERE id IN (" + done_ids +
                         ") GROUP BY attempts)"),
            "1");
  EXPECT_EQ(query(a, "SELECT min(attempts) FROM runs WHERE id IN (" + flight_ids + ")"), "2");

  // The same stats as the uninterrupted campaign, but for the host's fields.
  std::map<std::string, json> sa, sb;
  for (auto* m : {&sa, &sb}) {
    sql::Db db(m == &sa ? a : b, false, true);
    sql::Stmt s(db, "SELECT key, stats FROM runs");
    while (s.step()) (*m)[s.text(0)] = json::parse(s.text(1));
  }
  ASSERT_EQ(sa.size(), 16u);
  ASSERT_EQ(sb.size(), 16u);
  for (auto& [key, stats] : sa) {
    ASSERT_TRUE(sb.count(key)) << key;
    EXPECT_EQ(deterministic(stats), deterministic(sb[key])) << key;
    EXPECT_TRUE(stats.contains("wall_s"));  // what was left out of the comparison is there
  }
}

// The pids of processes whose command line mentions `text`.
std::vector<pid_t> processes_with(const std::string& text) {
  std::vector<pid_t> out;
  for (auto& e : fs::directory_iterator("/proc")) {
    std::string n = e.path().filename().string();
    if (n.find_first_not_of("0123456789") != std::string::npos) continue;
    if (slurp(e.path() / "cmdline").find(text) != std::string::npos) out.push_back(pid_t(std::stoi(n)));
  }
  return out;
}

TEST_F(CampaignRun, RunsDieWithAKilledCampaign) {
  Scratch d("orphans");
  // Default-size timing runs take minutes: an orphan would still be there.
  std::string spec = d.write("spec.json", R"({"name": "o", "defaults": {"size": "default", "mode": "timing"},
    "runs": [{"workload": "bfs"}, {"workload": "spmv"}]})");
  std::string db = (d / "runs.db").string();
  pid_t pid = start({"run", spec, "--store", db, "-j", "2"}, (d / "log").string());
  ASSERT_TRUE(wait_for(db, [](int, int running) { return running == 2; })) << slurp(d / "log");
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  std::string scratch = scratch_dir(db) + "/";  // the runs' --stats files live there
  ASSERT_EQ(processes_with(scratch).size(), 2u);
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  // A run still starting when the pool died sets PR_SET_PDEATHSIG late, sees
  // the pool gone and exits itself (app/main.cpp); one being killed may take
  // a while to go. Under scripts/test --sanitize on a loaded machine either
  // took longer than the 200 ms this waited: allow 10 s, far less than a run.
  std::vector<pid_t> left;
  for (int i = 0; i < 100; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    left = processes_with(scratch);
    if (left.empty()) break;
  }
  for (pid_t p : left) kill(p, SIGKILL);
  EXPECT_TRUE(left.empty()) << left.size() << " runs outlived the killed campaign";
  // What the kill left in the scratch directory goes when the campaign resumes
  // (here with a time limit that stops both runs at once).
  EXPECT_TRUE(fs::exists(scratch));
  Shell r = campaign("run " + spec + " --store " + db + " --timeout 0.1");
  EXPECT_NE(r.out.find("2 to run"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("failed: bfs/default: TIMEOUT"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(scratch));
}

TEST_F(CampaignRun, FailuresStatusRetryAndExitCodes) {
  Scratch d("fail");
  std::string spec = d.write("spec.json", R"({"name": "f", "defaults": {"size": "small", "mode": "functional"},
    "runs": [{"workload": "vecops"},
             {"name": "runaway", "workload": "vecops", "set": {"func.max_warp_insn": 1}},
             {"name": "unmet", "workload": "reduce", "expect": {"gpu_sim_insn": 1}}]})");
  std::string db = (d / "runs.db").string();
  Shell r = campaign("run " + spec + " --store " + db + " -j 3");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("failed: runaway: ERROR: exit status 3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("not as expected: unmet: gpu_sim_insn: expected 1, got"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("f: 2 of 3 runs done (1 not as expected), 1 failed"), std::string::npos) << r.out;
  EXPECT_EQ(query(db, "SELECT exit_code || ' ' || (log LIKE '%kernel error%') FROM runs WHERE name = 'runaway'"), "3 1");

  Shell st = campaign("status " + db);
  EXPECT_EQ(st.status, 0) << st.out;
  EXPECT_NE(st.out.find("3 runs: 2 done (1 not as expected), 1 failed, 0 running"), std::string::npos) << st.out;
  EXPECT_NE(st.out.find("  failed:\n    runaway: ERROR: exit status 3"), std::string::npos) << st.out;
  EXPECT_NE(st.out.find("  not as expected:\n    unmet: gpu_sim_insn"), std::string::npos) << st.out;

  // Resuming redoes nothing; --retry-failed redoes the failed run only.
  Shell again = campaign("run " + spec + " --store " + db);
  EXPECT_EQ(again.status, 1);
  EXPECT_NE(again.out.find("0 to run"), std::string::npos) << again.out;
  Shell retry = campaign("run " + spec + " --store " + db + " --retry-failed");
  EXPECT_NE(retry.out.find("1 to run"), std::string::npos) << retry.out;
  EXPECT_EQ(query(db, "SELECT group_concat(name || '=' || attempts, ' ') FROM runs"), "vecops/small=1 runaway=2 unmet=1");

  // A changed config is a new run; the old one is kept apart.
  std::string text = slurp(spec);
  text.replace(text.find("\"func.max_warp_insn\": 1}"), 24, "\"func.max_warp_insn\": 100000000}");
  d.write("spec.json", text);
  Shell changed = campaign("run " + spec + " --store " + db);
  EXPECT_NE(changed.out.find("1 to run"), std::string::npos) << changed.out;
  EXPECT_NE(changed.out.find("also holds 1 runs no longer in the spec"), std::string::npos) << changed.out;
  EXPECT_EQ(query(db, "SELECT count(*) FROM runs WHERE name = 'runaway' AND status = 'done'"), "1");
}

TEST_F(CampaignRun, CtrlCStopsCleanlyAndSaysHowToResume) {
  Scratch d("sigint");
  // Default sizes, functional: about a second a run.
  std::string spec = d.write("spec.json", R"({"name": "i", "defaults": {"size": "default", "mode": "functional"},
    "runs": [{"name": "t", "sweep": {"workload": ["bfs", "nw", "spmv", "nbody"]}}]})");
  std::string db = (d / "runs.db").string(), log = (d / "log").string();
  pid_t pid = start({"run", spec, "--store", db, "-j", "2"}, log);
  ASSERT_TRUE(wait_for(db, [](int, int running) { return running >= 1; })) << slurp(log);
  kill(pid, SIGINT);
  int st = 0;
  waitpid(pid, &st, 0);
  EXPECT_EQ(WIFEXITED(st) ? WEXITSTATUS(st) : -1, 130) << slurp(log);
  std::string out = slurp(log);
  EXPECT_NE(out.find("relgpu campaign: interrupted: "), std::string::npos) << out;
  EXPECT_NE(out.find("resume with: relgpu campaign run " + spec + " --store " + db + " -j 2"), std::string::npos) << out;
  EXPECT_EQ(query(db, "SELECT count(*) FROM runs WHERE status = 'running'"), "0");
  Shell r = campaign("run " + spec + " --store " + db + " -j 2");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(query(db, "SELECT count(*) FROM runs WHERE status = 'done'"), "4");
}

// Stand-ins for sbatch and squeue: sbatch runs the array's tasks itself,
// one after another (only task FAKE_SBATCH_TASK when set, as if the others
// died), and prints a job id; squeue lists nothing (the job is over).
void fake_slurm(const Scratch& d) {
  fs::create_directories(d / "bin");
  d.write("bin/sbatch", R"(#!/bin/bash
script="${@: -1}"
last=$(sed -n 's/^#SBATCH --array=0-\(.*\)$/\1/p' "$script")
for t in $(seq 0 "$last"); do
  if [ -z "$FAKE_SBATCH_TASK" ] || [ "$FAKE_SBATCH_TASK" = "$t" ]; then
    SLURM_ARRAY_JOB_ID=42 SLURM_ARRAY_TASK_ID=$t bash "$script" >/dev/null 2>&1
  fi
done
echo 42
)");
  d.write("bin/squeue", "#!/bin/sh\nexit 0\n");
  fs::permissions(d / "bin/sbatch", fs::perms::owner_all);
  fs::permissions(d / "bin/squeue", fs::perms::owner_all);
}

TEST_F(CampaignRun, SlurmFlowWithStandInSbatch) {
  Scratch d("fakeslurm");
  fake_slurm(d);
  std::string spec = d.write("spec.json", R"({"name": "s", "defaults": {"size": "small", "mode": "functional"},
    "runs": [{"name": "w", "sweep": {"workload": ["vecops", "reduce", "scan"], "seed": [1, 2]}}]})");
  std::string db = (d / "runs.db").string();
  std::string path = "PATH=" + (d / "bin").string() + ":$PATH";

  Shell dry = campaign("run " + spec + " --store " + db + " --backend slurm --chunk 2 --dry-run");
  EXPECT_EQ(dry.status, 0) << dry.out;
  EXPECT_NE(dry.out.find("# dry run: s: 6 runs, 6 to run; nothing was changed"), std::string::npos) << dry.out;
  EXPECT_NE(dry.out.find("#SBATCH --array=0-2\n"), std::string::npos) << dry.out;
  EXPECT_FALSE(fs::exists(db));

  // Only task 0 reports: its 2 runs are stored, the other 4 go back to the queue.
  Shell first =
      campaign("run " + spec + " --store " + db + " --backend slurm --chunk 2 --poll 0.1", path + " FAKE_SBATCH_TASK=0");
  EXPECT_EQ(first.status, 1) << first.out;
  EXPECT_NE(first.out.find("submitted Slurm job 42: 6 runs in 3 array tasks of up to 2"), std::string::npos) << first.out;
  EXPECT_NE(first.out.find("ended with 4 runs unreported; queued again"), std::string::npos) << first.out;
  EXPECT_EQ(query(db, "SELECT group_concat(status || ':' || coalesce(job, ''), ' ') FROM runs"),
            "done:42_0 done:42_0 queued: queued: queued: queued:");
  EXPECT_NE(query(db, "SELECT message FROM runs WHERE status = 'queued'").find("Slurm task ended without a result"),
            std::string::npos);
  // The same command submits what is left.
  Shell second = campaign("run " + spec + " --store " + db + " --backend slurm --chunk 2 --poll 0.1", path);
  EXPECT_EQ(second.status, 0) << second.out;
  EXPECT_NE(second.out.find("4 to submit"), std::string::npos) << second.out;
  EXPECT_NE(second.out.find("s: all 6 runs done as expected"), std::string::npos) << second.out;
  EXPECT_EQ(query(db, "SELECT count(*) || ' ' || count(DISTINCT key) FROM runs WHERE status = 'done'"), "6 6");
  EXPECT_EQ(query(db, "SELECT count(*) FROM submissions WHERE active = 1"), "0");
  EXPECT_FALSE(fs::exists(d / "runs.db.spool/sub-2"));  // complete: removed
  EXPECT_TRUE(fs::exists(d / "runs.db.spool/sub-1/logs"));  // kept for the lost tasks' output

  // sbatch failing is an error that leaves the runs queued.
  d.write("bin/sbatch", "#!/bin/sh\necho 'sbatch: error: invalid partition specified: nope' >&2\nexit 1\n");
  Shell bad = campaign("run " + spec + " --store " + (d / "runs2.db").string() + " --backend slurm", path);
  EXPECT_EQ(bad.status, 2) << bad.out;
  EXPECT_NE(bad.out.find("sbatch exit status 1: sbatch: error: invalid partition specified: nope"), std::string::npos)
      << bad.out;
}

TEST(CampaignCollect, MergesOnceAndSetsBadFilesAside) {
  Scratch d("collect");
  std::string db = (d / "runs.db").string();
  regress::Suite s = regress::parse_suite(R"({"name": "c", "runs": [{"workload": "bfs", "sweep": {"seed": [1, 2, 3]}}]})",
                                          "spec.json", "/nonexistent-root");
  std::vector<Planned> p = plan(s);
  Store st(db, true);
  st.sync("c", "spec.json", p, false);
  std::vector<Todo> t = st.todo("c");
  Submission sub = st.add_submission("c", (d / "spool").string(), {t[0].id, t[1].id, t[2].id}, 1);
  fs::create_directories(fs::path(sub.spool) / "results");
  Record r;
  r.status = "done";
  r.verdict = "pass";
  r.stats = "{\"gpu_sim_insn\": 1}";
  json file = {{"id", t[0].id}, {"key", t[0].key}, {"record", record_json(r)}};
  d.write("spool/sub-1/results/" + std::to_string(t[0].id) + ".json", file.dump());
  d.write("spool/sub-1/results/dup.json", file.dump());  // the same result again
  d.write("spool/sub-1/results/" + std::to_string(t[1].id) + ".json", "{\"id\": 2, \"key\"");  // cut short
  d.write("spool/sub-1/results/.tmp-" + std::to_string(t[2].id) + ".json-h-1", file.dump());  // still being written
  std::ostringstream out;
  // The job id is empty (sbatch never answered): the submission is over.
  EXPECT_EQ(collect(st, &out), 1);
  EXPECT_NE(out.str().find(std::to_string(t[1].id) + ".json: not a run result"), std::string::npos) << out.str();
  EXPECT_TRUE(fs::exists(d / ("spool/sub-1/results/" + std::to_string(t[1].id) + ".json.bad")));
  EXPECT_FALSE(fs::exists(d / ("spool/sub-1/results/" + std::to_string(t[0].id) + ".json")));
  Counts c = st.counts("c");
  EXPECT_EQ(c.done, 1);
  EXPECT_EQ(c.queued, 2);
  EXPECT_EQ(c.submitted, 0);
}

TEST_F(CampaignRun, DryRunAndRunSayWhichKeysMakeStoredRunsRunAgain) {
  Scratch d("drift");
  std::string db = (d / "runs.db").string();
  std::string a = d.write("a.json", R"({"name": "c", "runs": [{"name": "v", "workload": "vecops", "size": "small",
    "mode": "functional"}]})");
  std::string b = d.write("b.json", R"({"name": "c", "runs": [{"name": "v", "workload": "vecops", "size": "small",
    "mode": "functional", "set": {"func.max_warp_insn": 12345678}}]})");
  ASSERT_EQ(campaign("run " + a + " --store " + db + " -j 1").status, 0);
  Shell dry = campaign("run " + b + " --store " + db + " --dry-run");
  EXPECT_EQ(dry.status, 0) << dry.out;
  EXPECT_NE(dry.out.find("# 1 of the runs to do was done before under the same name with another config:\n"
                         "#   keys whose value changed: func.max_warp_insn\n"), std::string::npos) << dry.out;
  Shell run = campaign("run " + b + " --store " + db + " -j 1");
  EXPECT_EQ(run.status, 0) << run.out;
  EXPECT_NE(run.out.find("relgpu campaign: 1 of the runs to do was done before"), std::string::npos) << run.out;
  // Done now under this config: nothing to say.
  dry = campaign("run " + b + " --store " + db + " --dry-run");
  EXPECT_EQ(dry.out.find("done before"), std::string::npos) << dry.out;
}

TEST_F(CampaignRun, BadInputIsExitTwoWithAMessage) {
  Scratch d("badin");
  std::string spec = d.write("spec.json", R"({"runs": [{"workload": "vecops", "size": "small"}]})");
  std::string db = (d / "runs.db").string();
  struct Case {
    std::string args, message;
  } cases[] = {
      {"run " + spec, "missing --store FILE"},
      {"run --store " + db, "missing SPEC.json"},
      {"run " + spec + " --store " + db + " --backend pbs", "--backend must be 'local' or 'slurm'"},
      {"run " + spec + " --store " + db + " --backend slurm --time 1h", "--time '1h': expected a Slurm time limit"},
      {"run " + spec + " --store " + db + " --backend slurm --mem lots", "--mem 'lots': expected a size"},
      {"run " + spec + " --store " + db + " --backend slurm --partition 'a b'", "--partition 'a b'"},
      {"run " + spec + " --store " + db + " --backend slurm --spool '" + (d / "my spool").string() + "'",
       "must not contain blanks"},
      {"run " + spec + " --store " + db + " -j 0", "-j must be between 1 and 1024"},
      {"run " + d.write("bad.json", "{\"runs\": [{\"workload\": \"nope\"}]}") + " --store " + db,
       "unknown workload 'nope'"},
      {"run " + spec + " --store " + d.write("text.db", std::string(200, 'x')), "not a database"},
      {"status " + (d / "none.db").string(), "none.db: no such store"},
      {"status", "missing STORE"},
      {"frobnicate", "unknown subcommand 'frobnicate'"},
      {"worker " + d.dir.string() + " --task 0", "runs.json: missing or empty"},
  };
  // The run itself refuses another config than the campaign planned.
  Shell r = sh("'" + bin() + "' run vecops --size small --config-hash 0123456789abcdef");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("is not the one expected (--config-hash 0123456789abcdef)"), std::string::npos) << r.out;
  for (auto& c : cases) {
    Shell r = campaign(c.args);
    EXPECT_EQ(r.status, 2) << c.args << "\n" << r.out;
    EXPECT_NE(r.out.find(c.message), std::string::npos) << c.args << "\n" << r.out;
  }
  EXPECT_EQ(campaign("--help").status, 0);
}

}  // namespace
