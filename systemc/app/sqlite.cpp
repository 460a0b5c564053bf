#include "app/sqlite.h"

namespace relgpu::app::sql {

Db::Db(const std::string& path, bool create, bool readonly, int busy_ms) : path_(path) {
  int flags = readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
  int rc = sqlite3_open_v2(path.c_str(), &db_, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    db_ = nullptr;
    throw InputError(path + ": cannot open the store: " + msg);
  }
  sqlite3_extended_result_codes(db_, 1);
  sqlite3_busy_timeout(db_, busy_ms);
}

Db::~Db() {
  cache_.clear();  // finalized before the connection closes
  sqlite3_close_v2(db_);
}

Stmt& Db::cached(const std::string& sql) {
  auto it = cache_.find(sql);
  if (it == cache_.end()) it = cache_.emplace(sql, std::make_unique<Stmt>(*this, sql)).first;
  it->second->reset();
  return *it->second;
}

void Db::fail(const std::string& what) const {
  throw InputError(path_ + ": " + what + ": " + sqlite3_errmsg(db_));
}

void Db::exec(const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    throw InputError(path_ + ": " + msg);
  }
}

Stmt::Stmt(Db& db, const std::string& sql) : db_(db) {
  if (sqlite3_prepare_v2(db.get(), sql.c_str(), int(sql.size()), &st_, nullptr) != SQLITE_OK)
    db.fail("cannot prepare \"" + sql.substr(0, 60) + "\"");
}

Stmt::~Stmt() { sqlite3_finalize(st_); }

Stmt& Stmt::bind(int i, const std::string& v) {
  if (sqlite3_bind_text(st_, i, v.data(), int(v.size()), SQLITE_TRANSIENT) != SQLITE_OK) db_.fail("bind");
  return *this;
}
Stmt& Stmt::bind(int i, int64_t v) {
  if (sqlite3_bind_int64(st_, i, v) != SQLITE_OK) db_.fail("bind");
  return *this;
}
Stmt& Stmt::bind(int i, double v) {
  if (sqlite3_bind_double(st_, i, v) != SQLITE_OK) db_.fail("bind");
  return *this;
}
Stmt& Stmt::bind_null(int i) {
  if (sqlite3_bind_null(st_, i) != SQLITE_OK) db_.fail("bind");
  return *this;
}

bool Stmt::step() {
  int rc = sqlite3_step(st_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  std::string sql = sqlite3_sql(st_);
  sqlite3_reset(st_);
  db_.fail("\"" + sql.substr(0, 60) + "\" failed");
}

void Stmt::run() {
  while (step()) {
  }
  reset();
}

void Stmt::reset() {
  sqlite3_reset(st_);
  sqlite3_clear_bindings(st_);
}

bool Stmt::null(int col) const { return sqlite3_column_type(st_, col) == SQLITE_NULL; }
int64_t Stmt::i64(int col) const { return sqlite3_column_int64(st_, col); }
double Stmt::real(int col) const { return sqlite3_column_double(st_, col); }
std::string Stmt::text(int col) const {
  const unsigned char* t = sqlite3_column_text(st_, col);
  return t ? std::string(reinterpret_cast<const char*>(t), size_t(sqlite3_column_bytes(st_, col))) : std::string();
}

Tx::Tx(Db& db) : db_(db), outer_(sqlite3_get_autocommit(db.get()) != 0) {
  if (outer_) db_.cached("BEGIN IMMEDIATE").run();
}
Tx::~Tx() {
  if (outer_ && !done_) sqlite3_exec(db_.get(), "ROLLBACK", nullptr, nullptr, nullptr);
}
void Tx::commit() {
  if (outer_) db_.cached("COMMIT").run();
  done_ = true;
}

}  // namespace relgpu::app::sql
