#include "store/run_store.h"

#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <system_error>

#include "store/host_process.h"
#include "store/schema_migrations.h"
#include "store/sqlite_statement.h"
#include "store/sqlite_transaction.h"
#include "store/little_endian_blob.h"
#include "store/topk_blob.h"

namespace hnclip {

namespace fs = std::filesystem;

namespace {

// How long a connection waits for another connection's write lock before SQLITE_BUSY. Metric
// batches are small; 5 s only runs out if something holds a transaction open far too long.
constexpr int kBusyTimeoutMs = 5000;

constexpr const char* kT2I = "t2i";
constexpr const char* kI2T = "i2t";

// Refuses a path whose folder is missing or not writable before sqlite3_open_v2 could create
// anything (SQLite would also need to create the -wal and -shm files next to the database).
void check_folder(const std::string& path) {
  if (path.empty()) throw StoreError("cannot open database: empty path");
  fs::path folder = fs::path(path).parent_path();
  if (folder.empty()) folder = ".";
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) {
    throw StoreError(path + ": cannot open database: folder " + folder.string() +
                     " does not exist or is not a folder");
  }
  if (::access(folder.c_str(), W_OK | X_OK) != 0) {
    throw StoreError(path + ": cannot open database: folder " + folder.string() +
                     " is not writable");
  }
}

constexpr const char* kRunColumns =
    "id, name, status, status_message, config_json, device, git_rev, created_at_ms, "
    "started_at_ms, finished_at_ms, pid, host, best_epoch, tags, data_summary_json";

RunRecord read_run(const Statement& st) {
  RunRecord r;
  r.id = st.column_int64(0);
  r.name = st.column_text(1);
  r.status = run_status_from_string(st.column_text(2));
  r.status_message = st.column_text(3);
  r.config_json = st.column_text(4);
  r.device = st.column_text(5);
  r.git_rev = st.column_text(6);
  r.created_at_ms = st.column_int64(7);
  r.started_at_ms = st.column_int64(8);
  r.finished_at_ms = st.column_int64(9);
  r.pid = st.column_int64(10);
  r.host = st.column_text(11);
  r.best_epoch = static_cast<int>(st.column_int64(12));
  r.tags = st.column_text(13);
  r.data_summary_json = st.column_text(14);
  return r;
}

void check_direction(const std::string& path, const RetrievalResult& result,
                     const std::string& expected) {
  if (!result.direction.empty() && result.direction != expected) {
    throw StoreError(path + ": write epoch eval: result passed as " + expected +
                     " has direction \"" + result.direction + "\"");
  }
  if (!result.topk.empty() && result.topk.size() != result.ranks.size()) {
    throw StoreError(path + ": write epoch eval: " + expected + " has " +
                     std::to_string(result.ranks.size()) + " ranks but " +
                     std::to_string(result.topk.size()) + " top-k lists");
  }
}

}  // namespace

int64_t unix_time_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

RunStore::RunStore(const std::string& path) : path_(path) {
  check_folder(path_);
  const int rc = sqlite3_open_v2(path_.c_str(), &db_,
                                 SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                                 nullptr);
  if (rc != SQLITE_OK) {
    const std::string detail = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close_v2(db_);
    db_ = nullptr;
    throw StoreError(path_ + ": cannot open database: " + detail);
  }
  try {
    configure_connection();
    migrate();
  } catch (...) {
    sqlite3_close_v2(db_);
    db_ = nullptr;
    throw;
  }
}

RunStore::~RunStore() { sqlite3_close_v2(db_); }

void RunStore::configure_connection() {
  sqlite3_extended_result_codes(db_, 1);
  // Set first: switching to WAL and the migration may have to wait for another connection.
  sqlite3_busy_timeout(db_, kBusyTimeoutMs);
  {
    // The first statement that reads the file: a file that is not a database fails here.
    Statement st(db_, path_, "PRAGMA journal_mode=WAL", "enable WAL journal");
    const std::string mode = st.step() ? st.column_text(0) : std::string();
    if (mode != "wal") {
      throw StoreError(path_ + ": enable WAL journal failed: journal mode is \"" + mode + "\"");
    }
  }
  exec_sql(db_, path_, "PRAGMA foreign_keys=ON", "enable foreign keys");
  // NORMAL in WAL mode: a power loss may lose the last commits but never corrupts the file;
  // a killed process loses nothing that was committed.
  exec_sql(db_, path_, "PRAGMA synchronous=NORMAL", "set synchronous=NORMAL");
}

int RunStore::latest_schema_version() { return schema_migrations().back().version; }

int RunStore::read_user_version() const {
  Statement st(db_, path_, "PRAGMA user_version", "read schema version");
  return st.step() ? static_cast<int>(st.column_int64(0)) : 0;
}

int RunStore::schema_version() const { return read_user_version(); }

void RunStore::migrate() {
  const int latest = latest_schema_version();
  auto refuse_newer = [&](int found) {
    throw StoreError(path_ + ": database schema version " + std::to_string(found) +
                     " is newer than the newest this program knows (" + std::to_string(latest) +
                     "); use a newer HN-CLIP Workbench");
  };
  const int found = read_user_version();
  if (found > latest) refuse_newer(found);
  if (found == latest) return;
  for (const auto& step : schema_migrations()) {
    if (step.version <= found) continue;
    const std::string op = "migrate schema to version " + std::to_string(step.version) + " (" +
                           step.description + ")";
    Transaction tx(db_, path_, op);
    // Another connection may have migrated while we waited for the write lock.
    const int now = read_user_version();
    if (now > latest) refuse_newer(now);
    if (now < step.version) {
      exec_sql(db_, path_, step.sql, op);
      exec_sql(db_, path_, "PRAGMA user_version = " + std::to_string(step.version), op);
    }
    tx.commit();
  }
}

// ---- runs ----

int64_t RunStore::create_run(const RunRecord& record) {
  Statement st(db_, path_,
               "INSERT INTO runs (name, status, status_message, config_json, device, git_rev, "
               "created_at_ms, started_at_ms, finished_at_ms, pid, host, best_epoch, tags, "
               "data_summary_json) "
               "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
               "create run \"" + record.name + "\"");
  st.bind_text(1, record.name)
      .bind_text(2, to_string(record.status))
      .bind_text(3, record.status_message)
      .bind_text(4, record.config_json)
      .bind_text(5, record.device)
      .bind_text(6, record.git_rev)
      .bind_int64(7, record.created_at_ms != 0 ? record.created_at_ms : unix_time_ms())
      .bind_int64(8, record.started_at_ms)
      .bind_int64(9, record.finished_at_ms)
      .bind_int64(10, record.pid)
      .bind_text(11, record.host)
      .bind_int64(12, record.best_epoch)
      .bind_text(13, record.tags)
      .bind_text(14, record.data_summary_json.empty() ? "{}" : record.data_summary_json);
  st.run();
  return sqlite3_last_insert_rowid(db_);
}

bool RunStore::delete_run(int64_t id) {
  Statement st(db_, path_, "DELETE FROM runs WHERE id = ?1", "delete run " + std::to_string(id));
  st.bind_int64(1, id);
  st.run();
  return sqlite3_changes(db_) > 0;
}

std::optional<RunRecord> RunStore::find_run(int64_t id) const {
  Statement st(db_, path_,
               (std::string("SELECT ") + kRunColumns + " FROM runs WHERE id = ?1").c_str(),
               "find run " + std::to_string(id));
  st.bind_int64(1, id);
  if (!st.step()) return std::nullopt;
  return read_run(st);
}

std::vector<RunRecord> RunStore::list_runs() const {
  Statement st(db_, path_,
               (std::string("SELECT ") + kRunColumns +
                " FROM runs ORDER BY created_at_ms DESC, id DESC")
                   .c_str(),
               "list runs");
  std::vector<RunRecord> runs;
  while (st.step()) runs.push_back(read_run(st));
  return runs;
}

namespace {
// Runs a one-row UPDATE of `runs` and insists the run existed.
void update_one_run(sqlite3* db, const std::string& path, Statement& st, int64_t run,
                    const std::string& op) {
  st.run();
  if (sqlite3_changes(db) == 0) {
    throw StoreError(path + ": " + op + " failed: no run with id " + std::to_string(run));
  }
}
}  // namespace

void RunStore::set_status(int64_t run, RunStatus status, const std::string& message) {
  const std::string op = "set status of run " + std::to_string(run);
  Statement st(db_, path_, "UPDATE runs SET status = ?1, status_message = ?2 WHERE id = ?3", op);
  st.bind_text(1, to_string(status)).bind_text(2, message).bind_int64(3, run);
  update_one_run(db_, path_, st, run, op);
}

void RunStore::set_started(int64_t run, int64_t pid, const std::string& host,
                           const std::string& device, int64_t started_at_ms) {
  const std::string op = "set start of run " + std::to_string(run);
  Statement st(db_, path_,
               "UPDATE runs SET pid = ?1, host = ?2, device = ?3, started_at_ms = ?4 WHERE id = ?5",
               op);
  st.bind_int64(1, pid).bind_text(2, host).bind_text(3, device).bind_int64(4, started_at_ms);
  st.bind_int64(5, run);
  update_one_run(db_, path_, st, run, op);
}

void RunStore::set_finished(int64_t run, int64_t finished_at_ms) {
  const std::string op = "set finish time of run " + std::to_string(run);
  Statement st(db_, path_, "UPDATE runs SET finished_at_ms = ?1 WHERE id = ?2", op);
  st.bind_int64(1, finished_at_ms).bind_int64(2, run);
  update_one_run(db_, path_, st, run, op);
}

void RunStore::set_best_epoch(int64_t run, int epoch) {
  const std::string op = "set best epoch of run " + std::to_string(run);
  Statement st(db_, path_, "UPDATE runs SET best_epoch = ?1 WHERE id = ?2", op);
  st.bind_int64(1, epoch).bind_int64(2, run);
  update_one_run(db_, path_, st, run, op);
}

void RunStore::rename_run(int64_t run, const std::string& name) {
  const std::string op = "rename run " + std::to_string(run);
  if (name.empty()) throw StoreError(path_ + ": " + op + ": the name is empty");
  Statement st(db_, path_, "UPDATE runs SET name = ?1 WHERE id = ?2", op);
  st.bind_text(1, name).bind_int64(2, run);
  update_one_run(db_, path_, st, run, op);
}

void RunStore::set_tags(int64_t run, const std::string& tags) {
  const std::string op = "set tags of run " + std::to_string(run);
  Statement st(db_, path_, "UPDATE runs SET tags = ?1 WHERE id = ?2", op);
  st.bind_text(1, tags).bind_int64(2, run);
  update_one_run(db_, path_, st, run, op);
}

void RunStore::set_data_summary(int64_t run, const std::string& summary_json) {
  const std::string op = "set data summary of run " + std::to_string(run);
  Statement st(db_, path_, "UPDATE runs SET data_summary_json = ?1 WHERE id = ?2", op);
  st.bind_text(1, summary_json).bind_int64(2, run);
  update_one_run(db_, path_, st, run, op);
}

int RunStore::mark_dead_runs_interrupted() {
  const std::string op = "mark dead runs interrupted";
  const std::string host = current_host_name();
  Transaction tx(db_, path_, op);
  struct Candidate {
    int64_t id;
    int64_t pid;
  };
  std::vector<Candidate> dead;
  {
    Statement st(db_, path_,
                 "SELECT id, pid FROM runs WHERE status = ?1 AND host = ?2 AND pid > 0", op);
    st.bind_text(1, to_string(RunStatus::Running)).bind_text(2, host);
    while (st.step()) {
      const Candidate c{st.column_int64(0), st.column_int64(1)};
      if (!process_exists(c.pid)) dead.push_back(c);
    }
  }
  Statement update(db_, path_,
                   "UPDATE runs SET status = ?1, status_message = ?2 "
                   "WHERE id = ?3 AND status = ?4 AND pid = ?5",
                   op);
  for (const auto& c : dead) {
    update.bind_text(1, to_string(RunStatus::Interrupted))
        .bind_text(2, "interrupted: its process " + std::to_string(c.pid) + " on " + host +
                          " ended without finishing the run")
        .bind_int64(3, c.id)
        .bind_text(4, to_string(RunStatus::Running))
        .bind_int64(5, c.pid);
    update.run();
    update.reset();
  }
  tx.commit();
  return static_cast<int>(dead.size());
}

// ---- step metrics ----

void RunStore::append_step_metrics(int64_t run, const std::vector<StepMetricRow>& rows) {
  if (rows.empty()) return;
  const std::string op = "append " + std::to_string(rows.size()) + " step metrics to run " +
                         std::to_string(run);
  Transaction tx(db_, path_, op);
  Statement st(db_, path_,
               "INSERT INTO step_metrics (run_id, step, epoch, wall_time_s, loss, loss_standard, "
               "lr, logit_scale, grad_norm) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
               op);
  for (const auto& r : rows) {
    st.bind_int64(1, run)
        .bind_int64(2, r.step)
        .bind_int64(3, r.epoch)
        .bind_double(4, r.wall_time_s)
        .bind_double(5, r.loss)
        .bind_double(6, r.loss_standard)
        .bind_double(7, r.lr)
        .bind_double(8, r.logit_scale)
        .bind_double(9, r.grad_norm);
    st.run();
    st.reset();
  }
  tx.commit();
}

std::vector<StepMetricRow> RunStore::step_metrics(int64_t run) const {
  Statement st(db_, path_,
               "SELECT step, epoch, wall_time_s, loss, loss_standard, lr, logit_scale, grad_norm "
               "FROM step_metrics WHERE run_id = ?1 ORDER BY step",
               "read step metrics of run " + std::to_string(run));
  st.bind_int64(1, run);
  std::vector<StepMetricRow> rows;
  while (st.step()) {
    StepMetricRow r;
    r.step = st.column_int64(0);
    r.epoch = static_cast<int>(st.column_int64(1));
    r.wall_time_s = st.column_double(2);
    r.loss = st.column_double(3);
    r.loss_standard = st.column_double(4);
    r.lr = st.column_double(5);
    r.logit_scale = st.column_double(6);
    r.grad_norm = st.column_double(7);
    rows.push_back(r);
  }
  return rows;
}

void RunStore::delete_step_metrics_after(int64_t run, int64_t step) {
  Statement st(db_, path_, "DELETE FROM step_metrics WHERE run_id = ?1 AND step > ?2",
               "delete step metrics of run " + std::to_string(run) + " after step " +
                   std::to_string(step));
  st.bind_int64(1, run).bind_int64(2, step);
  st.run();
}

// ---- gradient probes ----

void RunStore::append_probes(int64_t run, const std::vector<ProbeRow>& rows) {
  if (rows.empty()) return;
  const std::string op = "append " + std::to_string(rows.size()) + " gradient probes to run " +
                         std::to_string(run);
  Transaction tx(db_, path_, op);
  Statement st(db_, path_,
               "INSERT INTO probes (run_id, step, epoch, loss_standard, loss_boosted, "
               "grad_norm_standard, grad_norm_boosted, grad_ratio, grad_cosine) "
               "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
               op);
  for (const auto& r : rows) {
    st.bind_int64(1, run)
        .bind_int64(2, r.step)
        .bind_int64(3, r.epoch)
        .bind_double(4, r.loss_standard)
        .bind_double(5, r.loss_boosted)
        .bind_double(6, r.grad_norm_standard)
        .bind_double(7, r.grad_norm_boosted)
        .bind_double(8, r.grad_ratio)
        .bind_double(9, r.grad_cosine);
    st.run();
    st.reset();
  }
  tx.commit();
}

std::vector<ProbeRow> RunStore::probes(int64_t run) const {
  Statement st(db_, path_,
               "SELECT step, epoch, loss_standard, loss_boosted, grad_norm_standard, "
               "grad_norm_boosted, grad_ratio, grad_cosine FROM probes WHERE run_id = ?1 "
               "ORDER BY step",
               "read gradient probes of run " + std::to_string(run));
  st.bind_int64(1, run);
  std::vector<ProbeRow> rows;
  while (st.step()) {
    ProbeRow r;
    r.step = st.column_int64(0);
    r.epoch = static_cast<int>(st.column_int64(1));
    r.loss_standard = st.column_double(2);
    r.loss_boosted = st.column_double(3);
    r.grad_norm_standard = st.column_double(4);
    r.grad_norm_boosted = st.column_double(5);
    r.grad_ratio = st.column_double(6);
    r.grad_cosine = st.column_double(7);
    rows.push_back(r);
  }
  return rows;
}

void RunStore::delete_probes_after(int64_t run, int64_t step) {
  Statement st(db_, path_, "DELETE FROM probes WHERE run_id = ?1 AND step > ?2",
               "delete gradient probes of run " + std::to_string(run) + " after step " +
                   std::to_string(step));
  st.bind_int64(1, run).bind_int64(2, step);
  st.run();
}

// ---- Ḡ snapshots ----

void RunStore::write_gbar_snapshot(int64_t run, const GbarSnapshotRow& row) {
  const size_t n = row.captions.size();
  const std::string op = "write Ḡ snapshot of run " + std::to_string(run) + " epoch " +
                         std::to_string(row.epoch) + " batch " + std::to_string(row.batch);
  if (row.matrix.size() != n * n) {
    throw StoreError(path_ + ": " + op + ": matrix has " + std::to_string(row.matrix.size()) +
                     " values for " + std::to_string(n) + " captions");
  }
  Statement st(db_, path_,
               "INSERT OR REPLACE INTO gbar_snapshots (run_id, epoch, batch, size, captions, matrix, "
               "max_value, max_i, max_j) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
               op);
  st.bind_int64(1, run)
      .bind_int64(2, row.epoch)
      .bind_int64(3, row.batch)
      .bind_int64(4, static_cast<int64_t>(n))
      .bind_blob(5, encode_int64_blob(row.captions))
      .bind_blob(6, encode_float32_blob(row.matrix))
      .bind_double(7, row.max_value)
      .bind_int64(8, row.max_i)
      .bind_int64(9, row.max_j);
  st.run();
}

std::vector<GbarSnapshotRow> RunStore::gbar_snapshots(int64_t run) const {
  const std::string op = "read Ḡ snapshots of run " + std::to_string(run);
  Statement st(db_, path_,
               "SELECT epoch, batch, captions, matrix, max_value, max_i, max_j FROM gbar_snapshots "
               "WHERE run_id = ?1 ORDER BY epoch, batch",
               op);
  st.bind_int64(1, run);
  std::vector<GbarSnapshotRow> rows;
  while (st.step()) {
    GbarSnapshotRow r;
    r.epoch = static_cast<int>(st.column_int64(0));
    r.batch = static_cast<int>(st.column_int64(1));
    r.captions = decode_int64_blob(st.column_blob(2), path_ + ": " + op);
    r.matrix = decode_float32_blob(st.column_blob(3), path_ + ": " + op);
    r.max_value = static_cast<float>(st.column_double(4));
    r.max_i = st.column_int64(5);
    r.max_j = st.column_int64(6);
    rows.push_back(std::move(r));
  }
  return rows;
}

void RunStore::delete_gbar_snapshots_after(int64_t run, int epoch) {
  Statement st(db_, path_, "DELETE FROM gbar_snapshots WHERE run_id = ?1 AND epoch > ?2",
               "delete Ḡ snapshots of run " + std::to_string(run) + " after epoch " + std::to_string(epoch));
  st.bind_int64(1, run).bind_int64(2, epoch);
  st.run();
}

// ---- evaluations ----

void RunStore::write_epoch_eval(int64_t run, int epoch, int64_t step, const std::string& split,
                                const RetrievalResult& t2i, const RetrievalResult& i2t) {
  check_direction(path_, t2i, kT2I);
  check_direction(path_, i2t, kI2T);
  const std::string op = "write " + split + " evaluation of run " + std::to_string(run) +
                         " epoch " + std::to_string(epoch);
  Transaction tx(db_, path_, op);
  for (const char* table : {"epoch_evals", "query_ranks"}) {
    Statement del(db_, path_,
                  (std::string("DELETE FROM ") + table +
                   " WHERE run_id = ?1 AND epoch = ?2 AND split = ?3")
                      .c_str(),
                  op);
    del.bind_int64(1, run).bind_int64(2, epoch).bind_text(3, split);
    del.run();
  }
  Statement recall(db_, path_,
                   "INSERT INTO epoch_evals (run_id, epoch, step, split, direction, k, recall) "
                   "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                   op);
  Statement rank(db_, path_,
                 "INSERT INTO query_ranks (run_id, epoch, split, direction, query, rank, topk) "
                 "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                 op);
  const std::pair<const char*, const RetrievalResult*> directions[] = {{kT2I, &t2i},
                                                                       {kI2T, &i2t}};
  for (const auto& [direction, result] : directions) {
    for (const auto& [k, value] : result->recall) {
      recall.bind_int64(1, run)
          .bind_int64(2, epoch)
          .bind_int64(3, step)
          .bind_text(4, split)
          .bind_text(5, direction)
          .bind_int64(6, k)
          .bind_double(7, value);
      recall.run();
      recall.reset();
    }
    for (std::size_t q = 0; q < result->ranks.size(); ++q) {
      rank.bind_int64(1, run)
          .bind_int64(2, epoch)
          .bind_text(3, split)
          .bind_text(4, direction)
          .bind_int64(5, static_cast<int64_t>(q))
          .bind_int64(6, result->ranks[q])
          .bind_blob(7, result->topk.empty() ? std::vector<unsigned char>()
                                             : encode_topk(result->topk[q]));
      rank.run();
      rank.reset();
    }
  }
  tx.commit();
}

std::vector<EpochEvalRow> RunStore::epoch_evals(int64_t run) const {
  Statement st(db_, path_,
               "SELECT epoch, step, split, direction, k, recall FROM epoch_evals "
               "WHERE run_id = ?1 ORDER BY epoch, direction, k, split",
               "read evaluations of run " + std::to_string(run));
  st.bind_int64(1, run);
  std::vector<EpochEvalRow> rows;
  while (st.step()) {
    EpochEvalRow r;
    r.epoch = static_cast<int>(st.column_int64(0));
    r.step = st.column_int64(1);
    r.split = st.column_text(2);
    r.direction = st.column_text(3);
    r.k = static_cast<int>(st.column_int64(4));
    r.recall = st.column_double(5);
    rows.push_back(r);
  }
  return rows;
}

std::vector<QueryRankRow> RunStore::query_ranks(int64_t run, int epoch, const std::string& split,
                                                const std::string& direction) const {
  const std::string op = "read " + direction + " query ranks of run " + std::to_string(run) +
                         " epoch " + std::to_string(epoch) + " (" + split + ")";
  Statement st(db_, path_,
               "SELECT query, rank, topk FROM query_ranks WHERE run_id = ?1 AND epoch = ?2 "
               "AND split = ?3 AND direction = ?4 ORDER BY query",
               op);
  st.bind_int64(1, run).bind_int64(2, epoch).bind_text(3, split).bind_text(4, direction);
  std::vector<QueryRankRow> rows;
  while (st.step()) {
    QueryRankRow r;
    r.query = st.column_int64(0);
    r.rank = st.column_int64(1);
    r.topk = decode_topk(st.column_blob(2), path_ + ": " + op);
    rows.push_back(std::move(r));
  }
  return rows;
}

void RunStore::delete_epoch_evals_after(int64_t run, int epoch) {
  const std::string op = "delete evaluations of run " + std::to_string(run) + " after epoch " +
                         std::to_string(epoch);
  Transaction tx(db_, path_, op);
  for (const char* table : {"epoch_evals", "query_ranks"}) {
    Statement st(db_, path_,
                 (std::string("DELETE FROM ") + table + " WHERE run_id = ?1 AND epoch > ?2").c_str(),
                 op);
    st.bind_int64(1, run).bind_int64(2, epoch);
    st.run();
  }
  tx.commit();
}

// ---- checkpoints ----

void RunStore::add_checkpoint(int64_t run, const CheckpointRow& row) {
  Statement st(db_, path_,
               "INSERT OR REPLACE INTO checkpoints (run_id, epoch, step, path, mean_r1, "
               "created_at_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
               "add checkpoint of run " + std::to_string(run) + " epoch " +
                   std::to_string(row.epoch));
  st.bind_int64(1, run)
      .bind_int64(2, row.epoch)
      .bind_int64(3, row.step)
      .bind_text(4, row.path)
      .bind_double(5, row.mean_r1)
      .bind_int64(6, row.created_at_ms != 0 ? row.created_at_ms : unix_time_ms());
  st.run();
}

std::vector<CheckpointRow> RunStore::checkpoints(int64_t run) const {
  Statement st(db_, path_,
               "SELECT epoch, step, path, mean_r1, created_at_ms FROM checkpoints "
               "WHERE run_id = ?1 ORDER BY epoch",
               "read checkpoints of run " + std::to_string(run));
  st.bind_int64(1, run);
  std::vector<CheckpointRow> rows;
  while (st.step()) {
    CheckpointRow r;
    r.epoch = static_cast<int>(st.column_int64(0));
    r.step = st.column_int64(1);
    r.path = st.column_text(2);
    r.mean_r1 = st.column_double(3);
    r.created_at_ms = st.column_int64(4);
    rows.push_back(r);
  }
  return rows;
}

}  // namespace hnclip
