// The campaign store: one SQLite file, one row per run (README, "Campaigns"
// has the schema and example queries).
//
// WAL mode with synchronous=NORMAL: a commit is one append to the WAL, no
// fsync, and survives the process being killed at any moment (a power loss
// may lose the last commits; those runs are simply redone). Each result is
// its own transaction, so a killed campaign loses only the runs in flight.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "app/campaign.h"

namespace relgpu::app::campaign {

namespace {

constexpr int kSchemaVersion = 1;

const char* kSchema = R"(
CREATE TABLE campaigns(
  name TEXT PRIMARY KEY,
  spec TEXT NOT NULL,              -- the spec file, as last given
  updated_at TEXT NOT NULL);
CREATE TABLE configs(
  hash TEXT PRIMARY KEY,           -- hash of the effective config's JSON text
  json TEXT NOT NULL);             -- every config key with its value
CREATE TABLE runs(
  id INTEGER PRIMARY KEY,
  campaign TEXT NOT NULL REFERENCES campaigns(name),
  name TEXT NOT NULL,              -- the run's name in the spec
  key TEXT NOT NULL,               -- identity: hash of workload, size, seed, mode, config
  workload TEXT NOT NULL,
  size TEXT NOT NULL,
  seed INTEGER NOT NULL,
  mode TEXT NOT NULL,
  config_hash TEXT NOT NULL REFERENCES configs(hash),
  args TEXT NOT NULL,              -- JSON array: the relgpu arguments that reproduce it
  current INTEGER NOT NULL DEFAULT 1,  -- 1: in the campaign's latest spec
  status TEXT NOT NULL DEFAULT 'queued'
    CHECK (status IN ('queued', 'submitted', 'running', 'done', 'failed')),
  verdict TEXT,                    -- done: 'pass' (met its expectations) or 'fail'
  exit_code INTEGER,
  signal INTEGER,
  message TEXT,                    -- failed: why; verdict fail: the first mismatch
  log TEXT,                        -- failed: the tail of the run's output
  stats TEXT,                      -- done: the stats JSON as the run wrote it (one line)
  wall_s REAL,                     -- the run's process, start to exit
  host TEXT,
  revision TEXT,                   -- relgpu's git revision that ran it
  job TEXT,                        -- 'local' or the Slurm array job_task
  submission INTEGER,              -- Slurm: the submission that holds it
  attempts INTEGER NOT NULL DEFAULT 0,
  started_at TEXT,
  finished_at TEXT,
  UNIQUE(campaign, key));
CREATE INDEX runs_by_status ON runs(campaign, status);
CREATE TABLE submissions(
  id INTEGER PRIMARY KEY,
  campaign TEXT NOT NULL,
  job_id TEXT,                     -- sbatch's job id; null until sbatch returned
  spool TEXT NOT NULL,             -- the submission's directory on the shared file system
  runs INTEGER NOT NULL,
  tasks INTEGER NOT NULL,
  submitted_at TEXT NOT NULL,
  active INTEGER NOT NULL DEFAULT 1);
CREATE VIEW results AS
  SELECT runs.*, configs.json AS config FROM runs JOIN configs ON configs.hash = runs.config_hash;
)";

std::string read_file(const std::string& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

Store::Store(const std::string& path, bool create, bool readonly) : db_(path, create, readonly) {
  int64_t version = 0, tables = 0;
  {
    sql::Stmt v(db_, "PRAGMA user_version");
    if (v.step()) version = v.i64(0);
  }
  {
    // A file that is not a database fails here, with SQLite's own words.
    sql::Stmt t(db_, "SELECT count(*) FROM sqlite_master");
    if (t.step()) tables = t.i64(0);
  }
  if (version > kSchemaVersion)
    throw InputError(path + ": a store of schema version " + std::to_string(version) +
                     ", made by a newer relgpu (this one reads version " + std::to_string(kSchemaVersion) + ")");
  if (version == 0 && tables > 0) throw InputError(path + ": an SQLite file, but not a relgpu campaign store");
  if (readonly) {
    if (version == 0) throw InputError(path + ": not a relgpu campaign store (empty)");
    return;
  }
  db_.exec("PRAGMA journal_mode=WAL");
  db_.exec("PRAGMA synchronous=NORMAL");
  db_.exec("PRAGMA foreign_keys=ON");
  if (version == 0) {
    sql::Tx tx(db_);
    db_.exec(kSchema);
    db_.exec("PRAGMA user_version=" + std::to_string(kSchemaVersion));
    tx.commit();
  }
}

void Store::sync(const std::string& campaign, const std::string& spec, const std::vector<Planned>& p,
                 bool retry_failed) {
  sql::Tx tx(db_);
  sql::Stmt(db_,
            "INSERT INTO campaigns(name, spec, updated_at) VALUES(?1, ?2, ?3) "
            "ON CONFLICT(name) DO UPDATE SET spec = ?2, updated_at = ?3")
      .bind(1, campaign)
      .bind(2, spec)
      .bind(3, now_utc())
      .run();
  sql::Stmt(db_, "UPDATE runs SET current = 0 WHERE campaign = ?").bind(1, campaign).run();
  sql::Stmt cfg(db_, "INSERT INTO configs(hash, json) VALUES(?, ?) ON CONFLICT(hash) DO NOTHING");
  sql::Stmt cfg_get(db_, "SELECT json FROM configs WHERE hash = ?");
  sql::Stmt run(db_,
                "INSERT INTO runs(campaign, name, key, workload, size, seed, mode, config_hash, args) "
                "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) "
                "ON CONFLICT(campaign, key) DO UPDATE SET name = ?2, args = ?9, current = 1");
  sql::Stmt run_get(db_, "SELECT workload, size, seed, mode, config_hash FROM runs WHERE campaign = ? AND key = ?");
  for (const Planned& x : p) {
    cfg.bind(1, x.config_hash).bind(2, x.config).run();
    cfg_get.bind(1, x.config_hash);
    // A 64-bit hash can collide; a collision is caught here, never stored.
    if (!cfg_get.step() || cfg_get.text(0) != x.config)
      throw InputError(path() + ": two different configs share the hash " + x.config_hash + " (run '" + x.run->name +
                       "'); please report this");
    cfg_get.reset();
    json args = json::array();
    for (auto& a : x.run->args()) args.push_back(a);
    run.bind(1, campaign)
        .bind(2, x.run->name)
        .bind(3, x.key)
        .bind(4, x.run->workload)
        .bind(5, x.run->size)
        .bind(6, int64_t(x.seed))
        .bind(7, x.mode)
        .bind(8, x.config_hash)
        .bind(9, args.dump())
        .run();
    run_get.bind(1, campaign).bind(2, x.key);
    if (!run_get.step() || run_get.text(0) != x.run->workload || run_get.text(1) != x.run->size ||
        run_get.i64(2) != int64_t(x.seed) || run_get.text(3) != x.mode || run_get.text(4) != x.config_hash)
      throw InputError(path() + ": two different runs share the identity " + x.key + " (run '" + x.run->name +
                       "'); please report this");
    run_get.reset();
  }
  sql::Stmt(db_, "UPDATE runs SET status = 'queued' WHERE campaign = ? AND status = 'running'").bind(1, campaign).run();
  if (retry_failed)
    sql::Stmt(db_,
              "UPDATE runs SET status = 'queued', message = NULL, log = NULL, exit_code = NULL, signal = NULL "
              "WHERE campaign = ? AND status = 'failed' AND current = 1")
        .bind(1, campaign)
        .run();
  tx.commit();
}

std::vector<Todo> Store::todo(const std::string& campaign) {
  std::vector<Todo> out;
  sql::Stmt s(db_, "SELECT id, key FROM runs WHERE campaign = ? AND current = 1 AND status = 'queued' ORDER BY id");
  s.bind(1, campaign);
  while (s.step()) out.push_back({s.i64(0), s.text(1)});
  return out;
}

void Store::mark_running(int64_t id, const std::string& started_at, const std::string& job) {
  db_.cached("UPDATE runs SET status = 'running', started_at = ?2, job = ?3, attempts = attempts + 1 "
             "WHERE id = ?1 AND status = 'queued'")
      .bind(1, id)
      .bind(2, started_at)
      .bind(3, job)
      .run();
}

bool Store::finish(int64_t id, const std::string& key, const Record& r) {
  sql::Tx tx(db_);
  // A text that is not JSON fails the run, not the campaign.
  Record checked = r;
  if (r.status == "done") {
    sql::Stmt& v = db_.cached("SELECT json_valid(?)");
    v.bind(1, r.stats);
    bool valid = v.step() && v.i64(0);
    v.reset();
    if (!valid) {
      checked.status = "failed";
      checked.message = "the stats file is not valid JSON";
      checked.stats.clear();
    }
  }
  const Record& x = checked;
  sql::Stmt& s = db_.cached(
      "UPDATE runs SET status = ?3, verdict = ?4, exit_code = ?5, signal = ?6, message = ?7, log = ?8, "
      "stats = ?9, wall_s = ?10, host = ?11, revision = ?12, job = ?13, started_at = ?14, finished_at = ?15, "
      "attempts = CASE WHEN status = 'running' THEN attempts ELSE attempts + 1 END "
      "WHERE id = ?1 AND key = ?2 AND status != 'done'");
  s.bind(1, id).bind(2, key).bind(3, x.status);
  if (x.status == "done") s.bind(4, x.verdict);
  else s.bind_null(4);
  s.bind(5, x.exit_code).bind(6, x.signal);
  if (x.message.empty()) s.bind_null(7);
  else s.bind(7, x.message);
  if (x.log.empty()) s.bind_null(8);
  else s.bind(8, x.log);
  if (x.status == "done") s.bind(9, x.stats);
  else s.bind_null(9);
  s.bind(10, x.wall_s).bind(11, x.host).bind(12, x.revision).bind(13, x.job).bind(14, x.started_at);
  s.bind(15, x.finished_at);
  s.run();
  bool stored = sqlite3_changes(db_.get()) > 0;
  tx.commit();
  return stored;
}

void Store::requeue(const std::vector<int64_t>& ids, const std::string& message) {
  if (ids.empty()) return;
  sql::Tx tx(db_);
  sql::Stmt s(db_, "UPDATE runs SET status = 'queued', message = ?2 WHERE id = ?1 AND status IN ('running', 'submitted')");
  for (int64_t id : ids) s.bind(1, id).bind(2, message).run();
  tx.commit();
}

Counts Store::counts(const std::string& campaign) {
  Counts c;
  sql::Stmt s(db_, "SELECT status, current, verdict = 'fail', count(*) FROM runs WHERE campaign = ? GROUP BY 1, 2, 3");
  s.bind(1, campaign);
  while (s.step()) {
    int64_t n = s.i64(3);
    if (!s.i64(1)) {
      c.stale += n;
      continue;
    }
    c.total += n;
    std::string st = s.text(0);
    if (st == "queued") c.queued += n;
    else if (st == "submitted") c.submitted += n;
    else if (st == "running") c.running += n;
    else if (st == "done") c.done += n, c.unmet += s.i64(2) ? n : 0;
    else c.failed += n;
  }
  return c;
}

std::map<std::string, std::string> Store::statuses(const std::string& campaign) {
  std::map<std::string, std::string> out;
  sql::Stmt s(db_, "SELECT key, status FROM runs WHERE campaign = ?");
  s.bind(1, campaign);
  while (s.step()) out[s.text(0)] = s.text(1);
  return out;
}

std::map<std::string, std::string> Store::done_configs(const std::string& campaign) {
  std::map<std::string, std::string> out;
  sql::Stmt s(db_,
              "SELECT r.name, c.json FROM runs r JOIN configs c ON c.hash = r.config_hash "
              "WHERE r.campaign = ? AND r.status = 'done' ORDER BY r.id");
  s.bind(1, campaign);
  while (s.step()) out[s.text(0)] = s.text(1);
  return out;
}

std::vector<std::string> Store::campaigns() {
  std::vector<std::string> out;
  sql::Stmt s(db_, "SELECT name FROM campaigns ORDER BY name");
  while (s.step()) out.push_back(s.text(0));
  return out;
}

Submission Store::add_submission(const std::string& campaign, const std::string& spool_root,
                                 const std::vector<int64_t>& ids, int64_t tasks) {
  sql::Tx tx(db_);
  sql::Stmt(db_, "INSERT INTO submissions(campaign, spool, runs, tasks, submitted_at) VALUES(?, '', ?, ?, ?)")
      .bind(1, campaign)
      .bind(2, int64_t(ids.size()))
      .bind(3, tasks)
      .bind(4, now_utc())
      .run();
  Submission sub;
  sub.id = sqlite3_last_insert_rowid(db_.get());
  sub.campaign = campaign;
  sub.spool = spool_root + "/sub-" + std::to_string(sub.id);
  sub.runs = int64_t(ids.size());
  sub.tasks = tasks;
  sql::Stmt(db_, "UPDATE submissions SET spool = ? WHERE id = ?").bind(1, sub.spool).bind(2, sub.id).run();
  sql::Stmt s(db_, "UPDATE runs SET status = 'submitted', submission = ?2, message = NULL WHERE id = ?1");
  for (int64_t id : ids) s.bind(1, id).bind(2, sub.id).run();
  tx.commit();
  return sub;
}

void Store::set_job(int64_t submission, const std::string& job_id) {
  sql::Stmt(db_, "UPDATE submissions SET job_id = ? WHERE id = ?").bind(1, job_id).bind(2, submission).run();
}

std::vector<Submission> Store::active_submissions(const std::string& campaign) {
  std::vector<Submission> out;
  sql::Stmt s(db_,
              "SELECT id, campaign, coalesce(job_id, ''), spool, runs, tasks FROM submissions "
              "WHERE active = 1 AND (?1 = '' OR campaign = ?1) ORDER BY id");
  s.bind(1, campaign);
  while (s.step()) out.push_back({s.i64(0), s.text(1), s.text(2), s.text(3), s.i64(4), s.i64(5)});
  return out;
}

int64_t Store::close_submission(int64_t submission, const std::string& message) {
  sql::Tx tx(db_);
  sql::Stmt(db_, "UPDATE runs SET status = 'queued', message = ?2 WHERE submission = ?1 AND status = 'submitted'")
      .bind(1, submission)
      .bind(2, message)
      .run();
  int64_t n = sqlite3_changes(db_.get());
  sql::Stmt(db_, "UPDATE submissions SET active = 0 WHERE id = ?").bind(1, submission).run();
  tx.commit();
  return n;
}

Lock::Lock(const std::string& store_path) {
  std::string p = store_path + ".lock";
  fd_ = open(p.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw InputError(p + ": cannot open the store's lock file: " + std::strerror(errno));
  if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    std::string holder = read_file(p);
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
    close(fd_);
    fd_ = -1;
    throw InputError(store_path + " is in use by another campaign process" +
                     (holder.empty() ? std::string() : " (" + holder + ")") +
                     "; wait for it to finish or stop it (Ctrl-C), then run the command again");
  }
  std::string me = "pid " + std::to_string(getpid()) + " on " + host_name() + "\n";
  if (ftruncate(fd_, 0) == 0) (void)!pwrite(fd_, me.data(), me.size(), 0);
}

Lock::~Lock() {
  if (fd_ >= 0) close(fd_);  // releases the flock
}

}  // namespace relgpu::app::campaign
