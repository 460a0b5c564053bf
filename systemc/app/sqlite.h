// A thin RAII layer over the sqlite3 C API: a connection, prepared
// statements and transactions. Every error is an InputError that names the
// database file, so a bad or locked store is a clear message, not a crash.
#pragma once
#include <sqlite3.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "common/error.h"

namespace relgpu::app::sql {

class Stmt;

class Db {
 public:
  // Opens (and with `create`, creates) the database at `path`. Waits up to
  // `busy_ms` for another connection's lock before failing.
  Db(const std::string& path, bool create, bool readonly = false, int busy_ms = 10000);
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;
  sqlite3* get() const { return db_; }
  const std::string& path() const { return path_; }
  void exec(const std::string& sql);
  // A statement prepared once and kept (reset, bindings cleared) for the
  // connection's life: for the statements a campaign runs for every run.
  Stmt& cached(const std::string& sql);
  [[noreturn]] void fail(const std::string& what) const;

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
  std::map<std::string, std::unique_ptr<Stmt>> cache_;
};

class Stmt {
 public:
  Stmt(Db& db, const std::string& sql);
  ~Stmt();
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  // Binds parameter i (1-based).
  Stmt& bind(int i, const std::string& v);
  Stmt& bind(int i, const char* v) { return bind(i, std::string(v)); }
  Stmt& bind(int i, int64_t v);
  Stmt& bind(int i, int v) { return bind(i, int64_t(v)); }
  Stmt& bind(int i, double v);
  Stmt& bind_null(int i);
  template <class T>
  Stmt& bind(int i, const std::optional<T>& v) { return v ? bind(i, *v) : bind_null(i); }
  // True while there is a row to read; false when done.
  bool step();
  // Runs to completion (for statements that return no rows).
  void run();
  void reset();
  bool null(int col) const;
  int64_t i64(int col) const;
  double real(int col) const;
  std::string text(int col) const;

 private:
  Db& db_;
  sqlite3_stmt* st_ = nullptr;
};

// BEGIN IMMEDIATE ... COMMIT; rolled back unless commit() was called.
// Inside another Tx it joins that one (begins and commits nothing).
class Tx {
 public:
  explicit Tx(Db& db);
  ~Tx();
  void commit();

 private:
  Db& db_;
  bool outer_ = true, done_ = false;
};

}  // namespace relgpu::app::sql
