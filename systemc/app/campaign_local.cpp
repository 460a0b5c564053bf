// The local backend: the queued runs through regress's process pool, each
// result written to the store the moment its process ends.
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <utility>

#include "app/campaign.h"

namespace relgpu::app::campaign {

namespace fs = std::filesystem;

namespace {

// The store's writes, on a thread of their own: the pool reaps and refills
// while a result is committed (every 1000 pages a commit checkpoints the
// WAL into the database and syncs it). One transaction per result; the
// 'running' marks of runs started meanwhile ride along with it (a run
// started but not yet marked is redone after a kill -9 all the same).
class Writer {
 public:
  explicit Writer(Store& st) : store_(st), thread_([this] { loop(); }) {}
  ~Writer() { join(); }
  void mark_running(int64_t id, std::string at) { push({id, "", std::move(at), std::nullopt}); }
  void finish(int64_t id, std::string key, Record r) { push({id, std::move(key), "", std::move(r)}); }
  // Writes what is queued and stops; rethrows the writer's error, if any.
  void close() {
    join();
    check();
  }
  // Rethrows an error the writer met (a full disk), so the campaign stops.
  void check() {
    std::lock_guard<std::mutex> l(m_);
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  }

 private:
  struct Job {
    int64_t id;
    std::string key, started_at;
    std::optional<Record> record;  // none: mark the run 'running'
  };
  void join() {
    {
      std::lock_guard<std::mutex> l(m_);
      stop_ = true;
    }
    cv_.notify_one();
    if (thread_.joinable()) thread_.join();
  }
  void push(Job j) {
    {
      std::lock_guard<std::mutex> l(m_);
      q_.push_back(std::move(j));
    }
    cv_.notify_one();
  }
  void loop() {
    for (;;) {
      std::vector<Job> batch;
      {
        std::unique_lock<std::mutex> l(m_);
        cv_.wait(l, [&] { return stop_ || !q_.empty(); });
        if (q_.empty() || error_) return;
        batch.swap(q_);
      }
      try {
        // One transaction per result; marks ride along with the next one.
        size_t first = 0;
        for (size_t i = 0; i <= batch.size(); ++i) {
          if (i < batch.size() ? !batch[i].record : first == i) continue;
          sql::Tx tx(store_.db());
          for (size_t m = first; m < i && m < batch.size(); ++m)
            store_.mark_running(batch[m].id, batch[m].started_at, "local");
          if (i < batch.size()) store_.finish(batch[i].id, batch[i].key, *batch[i].record);
          tx.commit();
          first = i + 1;
        }
      } catch (...) {
        std::lock_guard<std::mutex> l(m_);
        error_ = std::current_exception();
      }
    }
  }
  Store& store_;
  std::mutex m_;
  std::condition_variable cv_;
  std::vector<Job> q_;
  bool stop_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

struct ToStore : regress::PoolEvents {
  Writer& writer;
  const std::vector<const Planned*>& todo;
  const std::vector<int64_t>& ids;
  Progress& progress;
  std::vector<std::string> started_at;
  std::set<size_t> in_flight;

  ToStore(Writer& w, const std::vector<const Planned*>& t, const std::vector<int64_t>& i, Progress& p)
      : writer(w), todo(t), ids(i), progress(p), started_at(t.size()) {}
  void started(size_t k) override {
    started_at[k] = now_utc();
    writer.mark_running(ids[k], started_at[k]);
    in_flight.insert(k);
    progress.set_running(int64_t(in_flight.size()));
  }
  void finished(size_t k, const regress::Ended& e) override {
    writer.check();
    Record rec = make_record(*todo[k]->run, e, started_at[k].empty() ? now_utc() : started_at[k], "local");
    in_flight.erase(k);
    progress.set_running(int64_t(in_flight.size()));
    progress.finished(todo[k]->run->name, rec);
    writer.finish(ids[k], todo[k]->key, std::move(rec));
  }
  void tick(const std::vector<std::pair<std::string, double>>&) override {
    writer.check();
    progress.tick();
  }
};

}  // namespace

std::string scratch_dir(const std::string& store_path) {
  // In memory when there is /dev/shm: the runs write, and the pool reads and
  // truncates, a stats file each, which on a disk file system costs block
  // allocation. Named after the store, so that a resumed campaign (which
  // holds the store's lock) finds and removes what a killed one left.
  std::error_code ec;
  std::string name = "relgpu-campaign-" + hash_hex(fs::absolute(store_path, ec).lexically_normal().string());
  if (access("/dev/shm", W_OK | X_OK) == 0) return "/dev/shm/" + name;
  return store_path + ".tmp";
}

int run_local(const regress::Suite& s, const std::vector<Planned>& p, Store& store, const Options& o) {
  std::map<std::string, const Planned*> by_key;
  for (auto& x : p) by_key[x.key] = &x;
  std::vector<const Planned*> todo;
  std::vector<const regress::Run*> runs;
  std::vector<int64_t> ids;
  for (const Todo& t : store.todo(s.name)) {
    const Planned* x = by_key.at(t.key);
    todo.push_back(x);
    runs.push_back(x->run);
    ids.push_back(t.id);
  }
  Counts c = store.counts(s.name);
  unsigned jobs = std::max(1u, std::min<unsigned>(o.jobs, unsigned(std::max<size_t>(1, todo.size()))));
  if (o.out) {
    *o.out << "relgpu campaign: " << s.name << " (" << s.path << "): " << c.total << " runs, " << c.done << " done, "
           << c.failed << " failed, " << todo.size() << " to run, " << jobs << " at a time; store " << o.store_path;
    if (c.stale) *o.out << " (also holds " << c.stale << " runs no longer in the spec)";
    *o.out << "\n" << std::flush;
  }
  auto t0 = std::chrono::steady_clock::now();
  auto wall = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  if (todo.empty()) return summary(store, s.name, o, wall());

  std::string scratch = scratch_dir(o.store_path);
  std::error_code ec;
  fs::remove_all(scratch, ec);  // what a killed campaign left
  fs::create_directories(scratch, ec);
  if (ec) throw InputError(scratch + ": cannot create the runs' scratch directory: " + ec.message());
  struct Cleanup {
    std::string dir;
    ~Cleanup() {
      std::error_code e;
      fs::remove_all(dir, e);
    }
  } cleanup{scratch};

  Progress progress(o.out, o.tty, c);
  Writer writer(store);
  ToStore ev(writer, todo, ids, progress);
  regress::RunnerOptions ro;
  ro.exe = o.exe;
  ro.jobs = jobs;
  ro.run_args = run_args(o.launch_detail);
  ro.timeout_s = o.timeout_s;
  ro.scratch_dir = scratch;
  try {
    regress::run_pool(runs, ro, ev);
    writer.close();
  } catch (const regress::Interrupted&) {
    progress.clear();
    writer.close();  // the results that came in before Ctrl-C are kept
    std::vector<int64_t> stopped;
    for (size_t k : ev.in_flight) stopped.push_back(ids[k]);
    store.requeue(stopped, "interrupted; redone when the campaign is resumed");
    Counts now = store.counts(s.name);
    if (o.out)
      *o.out << "relgpu campaign: interrupted: " << now.done << " of " << now.total << " runs done, " << now.failed
             << " failed; the " << stopped.size() << " in flight were stopped and will be redone.\n"
             << "resume with: " << o.command << "\n"
             << std::flush;
    return 130;
  }
  progress.clear();
  return summary(store, s.name, o, wall());
}

}  // namespace relgpu::app::campaign
