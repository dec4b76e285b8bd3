#include "store/run_store.h"

#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <limits>
#include <system_error>
#include <thread>

#include "fault/fault_point.h"
#include "store/column.h"
#include "store/host_process.h"
#include "store/little_endian_blob.h"
#include "store/schema_migrations.h"
#include "store/sqlite_statement.h"
#include "store/sqlite_transaction.h"
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

// ---- the row types' columns (custom hooks first) ----

void read_run_id(const Statement& st, int i, RunRecord& r) { r.id = st.column_int64(i); }
void bind_status(Statement& st, int i, const RunRecord& r) { st.bind_text(i, to_string(r.status)); }
void read_status(const Statement& st, int i, RunRecord& r) {
  r.status = run_status_from_string(st.column_text(i));
}
// created_at_ms of 0 is stored as "now".
template <typename Row>
void bind_created_at(Statement& st, int i, const Row& r) {
  st.bind_int64(i, r.created_at_ms != 0 ? r.created_at_ms : unix_time_ms());
}
template <typename Row>
void read_created_at(const Statement& st, int i, Row& r) {
  r.created_at_ms = st.column_int64(i);
}
void bind_data_summary(Statement& st, int i, const RunRecord& r) {
  st.bind_text(i, r.data_summary_json.empty() ? "{}" : r.data_summary_json);
}
void read_data_summary(const Statement& st, int i, RunRecord& r) {
  r.data_summary_json = st.column_text(i);
}

constexpr Column<RunRecord> kRunColumns[] = {
    {"id", nullptr, read_run_id},  // the rowid, assigned by SQLite
    {"name", &RunRecord::name},
    {"status", bind_status, read_status},
    {"status_message", &RunRecord::status_message},
    {"config_json", &RunRecord::config_json},
    {"device", &RunRecord::device},
    {"git_rev", &RunRecord::git_rev},
    {"created_at_ms", bind_created_at<RunRecord>, read_created_at<RunRecord>},
    {"started_at_ms", &RunRecord::started_at_ms},
    {"finished_at_ms", &RunRecord::finished_at_ms},
    {"pid", &RunRecord::pid},
    {"host", &RunRecord::host},
    {"best_epoch", &RunRecord::best_epoch},
    {"tags", &RunRecord::tags},
    {"data_summary_json", bind_data_summary, read_data_summary},
};

// Rows of a run's tables follow its run_id key.
constexpr Column<StepMetricRow> kStepMetricColumns[] = {
    {"step", &StepMetricRow::step},
    {"epoch", &StepMetricRow::epoch},
    {"wall_time_s", &StepMetricRow::wall_time_s},
    {"loss", &StepMetricRow::loss},
    {"loss_standard", &StepMetricRow::loss_standard},
    {"lr", &StepMetricRow::lr},
    {"logit_scale", &StepMetricRow::logit_scale},
    {"grad_norm", &StepMetricRow::grad_norm},
};

constexpr Column<ProbeRow> kProbeColumns[] = {
    {"step", &ProbeRow::step},
    {"epoch", &ProbeRow::epoch},
    {"loss_standard", &ProbeRow::loss_standard},
    {"loss_boosted", &ProbeRow::loss_boosted},
    {"grad_norm_standard", &ProbeRow::grad_norm_standard},
    {"grad_norm_boosted", &ProbeRow::grad_norm_boosted},
    {"grad_ratio", &ProbeRow::grad_ratio},
    {"grad_cosine", &ProbeRow::grad_cosine},
};

void bind_gbar_size(Statement& st, int i, const GbarSnapshotRow& r) {
  st.bind_int64(i, static_cast<int64_t>(r.captions.size()));
}
void bind_gbar_captions(Statement& st, int i, const GbarSnapshotRow& r) {
  st.bind_blob(i, encode_int64_blob(r.captions));
}
void read_gbar_captions(const Statement& st, int i, GbarSnapshotRow& r) {
  r.captions = decode_int64_blob(st.column_blob(i), st.context());
}
void bind_gbar_matrix(Statement& st, int i, const GbarSnapshotRow& r) {
  st.bind_blob(i, encode_float32_blob(r.matrix));
}
void read_gbar_matrix(const Statement& st, int i, GbarSnapshotRow& r) {
  r.matrix = decode_float32_blob(st.column_blob(i), st.context());
}

constexpr Column<GbarSnapshotRow> kGbarSnapshotColumns[] = {
    {"epoch", &GbarSnapshotRow::epoch},
    {"batch", &GbarSnapshotRow::batch},
    {"size", bind_gbar_size, nullptr},  // the captions' count, for SQL readers of the table
    {"captions", bind_gbar_captions, read_gbar_captions},
    {"matrix", bind_gbar_matrix, read_gbar_matrix},
    {"max_value", &GbarSnapshotRow::max_value},
    {"max_i", &GbarSnapshotRow::max_i},
    {"max_j", &GbarSnapshotRow::max_j},
};

constexpr Column<EpochEvalRow> kEpochEvalColumns[] = {
    {"epoch", &EpochEvalRow::epoch}, {"step", &EpochEvalRow::step},
    {"split", &EpochEvalRow::split}, {"direction", &EpochEvalRow::direction},
    {"k", &EpochEvalRow::k},         {"recall", &EpochEvalRow::recall},
};

void bind_topk(Statement& st, int i, const QueryRankRow& r) {
  st.bind_blob(i, encode_topk(r.topk));
}
void read_topk(const Statement& st, int i, QueryRankRow& r) {
  r.topk = decode_topk(st.column_blob(i), st.context());
}

// Follow the keys run_id, epoch, split, direction.
constexpr Column<QueryRankRow> kQueryRankColumns[] = {
    {"query", &QueryRankRow::query},
    {"rank", &QueryRankRow::rank},
    {"topk", bind_topk, read_topk},
};

constexpr Column<CheckpointRow> kCheckpointColumns[] = {
    {"epoch", &CheckpointRow::epoch},
    {"step", &CheckpointRow::step},
    {"path", &CheckpointRow::path},
    {"mean_r1", &CheckpointRow::mean_r1},
    {"created_at_ms", bind_created_at<CheckpointRow>, read_created_at<CheckpointRow>},
};

// Runs "PRAGMA journal_mode=WAL" and returns the mode it reports. Switching a new file to WAL
// takes its exclusive lock; when two connections ask at once (two `hnclip train` started together
// on a new --db), each holds the read lock the other waits for, and SQLite answers one of them
// SQLITE_BUSY at once instead of calling its busy handler, which would deadlock. That one asks
// again until the busy timeout, as the handler would have waited.
std::string switch_to_wal_journal(sqlite3* db, const std::string& path) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  for (;;) {
    sqlite3_stmt* stmt = nullptr;
    int rc = sqlite3_prepare_v2(db, "PRAGMA journal_mode=WAL", -1, &stmt, nullptr);
    std::string mode;
    if (rc == SQLITE_OK) {
      rc = sqlite3_step(stmt);
      if (rc == SQLITE_ROW) {
        const auto* text = sqlite3_column_text(stmt, 0);
        mode = text ? reinterpret_cast<const char*>(text) : "";
        rc = SQLITE_OK;
      }
    }
    sqlite3_finalize(stmt);
    if (rc == SQLITE_OK) return mode;
    if ((rc & 0xff) != SQLITE_BUSY || std::chrono::steady_clock::now() >= deadline) {
      throw_sqlite_error(db, path, "enable WAL journal", rc);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
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
  const int rc =
      sqlite3_open_v2(path_.c_str(), &db_,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
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
  // Before anything writes (switching to WAL already rewrites the header): a file that is not a
  // database fails in this first read, another program's database is refused untouched.
  refuse_foreign_database();
  const std::string mode = switch_to_wal_journal(db_, path_);
  if (mode != "wal") {
    throw StoreError(path_ + ": enable WAL journal failed: journal mode is \"" + mode + "\"");
  }
  exec_sql(db_, path_, "PRAGMA foreign_keys=ON", "enable foreign keys");
  // NORMAL in WAL mode: a power loss may lose the last commits but never corrupts the file;
  // a killed process loses nothing that was committed.
  exec_sql(db_, path_, "PRAGMA synchronous=NORMAL", "set synchronous=NORMAL");
}

void RunStore::check_creatable(const std::string& path) { check_folder(path); }

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
  // An existing database is copied before its first migration: a migration that does what it
  // should can still surprise a user whose other tools read the old layout.
  if (found > 0) backup_before_migration(found);
  // Every pending step in one transaction: a kill or a failing step leaves the old version
  // whole, never a file half-way between two versions.
  const std::string op = "migrate schema from version " + std::to_string(found) + " to " +
                         std::to_string(latest);
  Transaction tx(db_, path_, op);
  // Another connection may have migrated while we waited for the write lock.
  const int now = read_user_version();
  if (now > latest) refuse_newer(now);
  for (const auto& step : schema_migrations()) {
    if (step.version <= now) continue;
    const std::string step_op =
        op + ": step " + std::to_string(step.version) + " (" + step.description + ")";
    exec_sql(db_, path_, step.sql, step_op);
    exec_sql(db_, path_, "PRAGMA user_version = " + std::to_string(step.version), step_op);
  }
  tx.commit();
}

void RunStore::refuse_foreign_database() const {
  std::vector<std::string> tables;
  int version = 0;
  // One read transaction, so the tables and the version come from one snapshot: a connection
  // that migrates a new file between two separate reads makes it look like another program's
  // database (no tables, version 9).
  {
    const ReadTransaction snapshot(db_, path_, "read the schema");
    Statement st(db_, path_,
                 "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE "
                 "'sqlite_%' ORDER BY name",
                 "read the schema");
    while (st.step()) tables.push_back(st.column_text(0));
    version = read_user_version();
  }
  const bool has_runs = std::find(tables.begin(), tables.end(), "runs") != tables.end();
  // Empty (a new file) is ours to create; a workbench file always has `runs` from version 1 on.
  if (tables.empty() && version == 0) return;
  if (has_runs && version > 0) return;
  std::string listed;
  for (size_t i = 0; i < tables.size() && i < 8; ++i) listed += (i ? ", " : "") + tables[i];
  if (tables.size() > 8) listed += ", ... (" + std::to_string(tables.size()) + " tables)";
  throw StoreError(path_ + ": an SQLite database of another program (tables: " +
                   (listed.empty() ? std::string("none") : listed) + "; user_version " +
                   std::to_string(version) +
                   "), not a workbench run database; refusing to alter it — give --db a new file "
                   "or a workbench database");
}

void RunStore::backup_before_migration(int found) const {
  const std::string target = path_ + ".backup-v" + std::to_string(found);
  // Several processes may open one older file at once (the window and a CLI run after an
  // upgrade). Each copies into a file of its own and renames it onto the backup, so two copies
  // never write one file; and each copies inside a read transaction that still sees version
  // `found`, so a copy taken after another process migrated never replaces the old version's.
  static std::atomic<int> copies{0};
  const std::string temporary =
      target + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(copies++);
  auto fail = [&](const std::string& detail) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw StoreError(path_ + ": cannot back up before migrating to " + target + ": " + detail +
                     "; nothing was migrated");
  };
  int rc = SQLITE_OK;
  std::string detail;
  {
    const ReadTransaction snapshot(db_, path_, "back up before migrating");
    if (read_user_version() != found) return;  // migrated meanwhile, by whoever made the backup
    sqlite3* copy = nullptr;
    if (sqlite3_open_v2(temporary.c_str(), &copy, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                        nullptr) != SQLITE_OK) {
      detail = copy ? sqlite3_errmsg(copy) : "out of memory";
      sqlite3_close_v2(copy);
      fail("cannot create " + temporary + ": " + detail);
    }
    // The online-backup API copies a consistent snapshot (this connection's read transaction)
    // even while another connection writes.
    sqlite3_backup* b = sqlite3_backup_init(copy, "main", db_, "main");
    rc = b ? sqlite3_backup_step(b, -1) : sqlite3_errcode(copy);
    if (b) sqlite3_backup_finish(b);
    detail = sqlite3_errmsg(copy);
    sqlite3_close_v2(copy);
  }
  if (rc != SQLITE_DONE) fail(detail);
  std::error_code ec;
  fs::rename(temporary, target, ec);  // atomic: the backup is one whole copy or the one before
  if (ec) fail("cannot rename " + temporary + ": " + ec.message());
}

// ---- runs ----

int64_t RunStore::create_run(const RunRecord& record) {
  Statement st(db_, path_, insert_sql("INSERT INTO runs", {}, kRunColumns).c_str(),
               "create run \"" + record.name + "\"");
  bind_row(st, 1, kRunColumns, record).run();
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
               ("SELECT " + select_list(kRunColumns) + " FROM runs WHERE id = ?1").c_str(),
               "find run " + std::to_string(id));
  st.bind_int64(1, id);
  if (!st.step()) return std::nullopt;
  return read_row(st, kRunColumns);
}

std::vector<RunRecord> RunStore::list_runs() const {
  Statement st(
      db_, path_,
      ("SELECT " + select_list(kRunColumns) + " FROM runs ORDER BY created_at_ms DESC, id DESC")
          .c_str(),
      "list runs");
  std::vector<RunRecord> runs;
  while (st.step()) runs.push_back(read_row(st, kRunColumns));
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
    std::string status;
  };
  std::vector<Candidate> dead;
  {
    // A queued run belongs to the process that created it just as a running one does: killed
    // between its row and its first step, it would otherwise stay queued forever.
    Statement st(db_, path_,
                 "SELECT id, pid, status FROM runs WHERE status IN (?1, ?2) AND host = ?3 AND pid > 0",
                 op);
    st.bind_text(1, to_string(RunStatus::Queued))
        .bind_text(2, to_string(RunStatus::Running))
        .bind_text(3, host);
    while (st.step()) {
      Candidate c{st.column_int64(0), st.column_int64(1), st.column_text(2)};
      if (!process_exists(c.pid)) dead.push_back(std::move(c));
    }
  }
  Statement update(db_, path_,
                   "UPDATE runs SET status = ?1, status_message = ?2 "
                   "WHERE id = ?3 AND status = ?4 AND pid = ?5",
                   op);
  for (const auto& c : dead) {
    const std::string when = c.status == to_string(RunStatus::Queued)
                                 ? " ended before the run's first step"
                                 : " ended without finishing the run";
    update.bind_text(1, to_string(RunStatus::Interrupted))
        .bind_text(2, "interrupted: its process " + std::to_string(c.pid) + " on " + host + when)
        .bind_int64(3, c.id)
        .bind_text(4, c.status)
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
  const std::string op =
      "append " + std::to_string(rows.size()) + " step metrics to run " + std::to_string(run);
  Transaction tx(db_, path_, op);
  Statement st(db_, path_,
               insert_sql("INSERT INTO step_metrics", {"run_id"}, kStepMetricColumns).c_str(), op);
  Statement terms(db_, path_,
                  "INSERT INTO step_loss_terms (run_id, step, term, weight, value) "
                  "VALUES (?1, ?2, ?3, ?4, ?5)",
                  op);
  for (const auto& r : rows) {
    bind_row(st.bind_int64(1, run), 2, kStepMetricColumns, r).run();
    st.reset();
    for (const auto& t : r.loss_terms) {
      terms.bind_int64(1, run)
          .bind_int64(2, r.step)
          .bind_text(3, t.name)
          .bind_double(4, t.weight)
          .bind_double(5, t.value)
          .run();
      terms.reset();
    }
  }
  fault_point("metrics.transaction");
  tx.commit();
}

std::vector<StepMetricRow> RunStore::step_metrics(int64_t run) const {
  Statement st(db_, path_,
               ("SELECT " + select_list(kStepMetricColumns) +
                " FROM step_metrics WHERE run_id = ?1 ORDER BY step")
                   .c_str(),
               "read step metrics of run " + std::to_string(run));
  st.bind_int64(1, run);
  std::vector<StepMetricRow> rows;
  while (st.step()) rows.push_back(read_row(st, kStepMetricColumns));
  // Both queries are ordered by step: one pass joins the terms to their steps (in the order
  // loss_term_names() lists them, which the rowid-less primary key does not keep).
  Statement terms(db_, path_,
                  "SELECT step, term, weight, value FROM step_loss_terms WHERE run_id = ?1 "
                  "ORDER BY step",
                  "read loss terms of run " + std::to_string(run));
  terms.bind_int64(1, run);
  auto row = rows.begin();
  while (terms.step()) {
    const int64_t step = terms.column_int64(0);
    while (row != rows.end() && row->step < step) ++row;
    if (row == rows.end()) break;  // cannot happen: each term row references its step
    if (row->step != step) continue;
    row->loss_terms.push_back(
        LossTerm{terms.column_text(1), terms.column_double(2), terms.column_double(3)});
  }
  const auto& names = loss_term_names();
  const auto rank = [&](const LossTerm& t) {
    return std::find(names.begin(), names.end(), t.name) - names.begin();
  };
  for (auto& r : rows) {
    std::stable_sort(r.loss_terms.begin(), r.loss_terms.end(),
                     [&](const LossTerm& a, const LossTerm& b) { return rank(a) < rank(b); });
  }
  return rows;
}

void RunStore::delete_step_metrics_after(int64_t run, int64_t step) {
  Statement st(
      db_, path_, "DELETE FROM step_metrics WHERE run_id = ?1 AND step > ?2",
      "delete step metrics of run " + std::to_string(run) + " after step " + std::to_string(step));
  st.bind_int64(1, run).bind_int64(2, step);
  st.run();
}

std::vector<EpochLossCount> RunStore::step_loss_counts(int64_t run, double threshold) const {
  Statement st(db_, path_,
               "SELECT epoch, COUNT(loss_standard), COALESCE(SUM(loss_standard < ?2), 0) "
               "FROM step_metrics WHERE run_id = ?1 GROUP BY epoch ORDER BY epoch",
               "count solved steps of run " + std::to_string(run));
  st.bind_int64(1, run).bind_double(2, threshold);
  std::vector<EpochLossCount> out;
  while (st.step()) {
    EpochLossCount c;
    c.epoch = static_cast<int>(st.column_int64(0));
    c.steps = st.column_int64(1);
    c.below = st.column_int64(2);
    if (c.steps > 0) out.push_back(c);
  }
  return out;
}

// ---- gradient probes ----

void RunStore::append_probes(int64_t run, const std::vector<ProbeRow>& rows) {
  if (rows.empty()) return;
  const std::string op =
      "append " + std::to_string(rows.size()) + " gradient probes to run " + std::to_string(run);
  for (const auto& r : rows) {
    if (r.mass_share_plain.size() != r.mass_share_boosted.size()) {
      throw StoreError(path_ + ": " + op + ": step " + std::to_string(r.step) + " has " +
                       std::to_string(r.mass_share_plain.size()) + " plain but " +
                       std::to_string(r.mass_share_boosted.size()) +
                       " boosted gradient-mass shares");
    }
  }
  Transaction tx(db_, path_, op);
  Statement st(db_, path_, insert_sql("INSERT INTO probes", {"run_id"}, kProbeColumns).c_str(), op);
  Statement mass(db_, path_,
                 "INSERT INTO probe_gradient_mass (run_id, step, bucket, share_plain, "
                 "share_boosted) VALUES (?1, ?2, ?3, ?4, ?5)",
                 op);
  for (const auto& r : rows) {
    bind_row(st.bind_int64(1, run), 2, kProbeColumns, r).run();
    st.reset();
    for (size_t b = 0; b < r.mass_share_plain.size(); ++b) {
      mass.bind_int64(1, run)
          .bind_int64(2, r.step)
          .bind_int64(3, static_cast<int64_t>(b))
          .bind_double(4, r.mass_share_plain[b])
          .bind_double(5, r.mass_share_boosted[b])
          .run();
      mass.reset();
    }
  }
  tx.commit();
}

std::vector<ProbeRow> RunStore::probes(int64_t run) const {
  Statement st(
      db_, path_,
      ("SELECT " + select_list(kProbeColumns) + " FROM probes WHERE run_id = ?1 ORDER BY step")
          .c_str(),
      "read gradient probes of run " + std::to_string(run));
  st.bind_int64(1, run);
  std::vector<ProbeRow> rows;
  while (st.step()) rows.push_back(read_row(st, kProbeColumns));
  // Both queries are ordered by step: one pass joins the shares to their probes.
  Statement mass(db_, path_,
                 "SELECT step, bucket, share_plain, share_boosted FROM probe_gradient_mass "
                 "WHERE run_id = ?1 ORDER BY step, bucket",
                 "read gradient-mass shares of run " + std::to_string(run));
  mass.bind_int64(1, run);
  auto row = rows.begin();
  while (mass.step()) {
    const int64_t step = mass.column_int64(0);
    while (row != rows.end() && row->step < step) ++row;
    if (row == rows.end()) break;  // cannot happen: each share row references its probe
    if (row->step != step) continue;
    const auto bucket = static_cast<size_t>(mass.column_int64(1));
    if (row->mass_share_plain.size() <= bucket) {
      row->mass_share_plain.resize(bucket + 1, std::numeric_limits<double>::quiet_NaN());
      row->mass_share_boosted.resize(bucket + 1, std::numeric_limits<double>::quiet_NaN());
    }
    row->mass_share_plain[bucket] = mass.column_double(2);
    row->mass_share_boosted[bucket] = mass.column_double(3);
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
  Statement st(
      db_, path_,
      insert_sql("INSERT OR REPLACE INTO gbar_snapshots", {"run_id"}, kGbarSnapshotColumns).c_str(),
      op);
  bind_row(st.bind_int64(1, run), 2, kGbarSnapshotColumns, row).run();
}

std::vector<GbarSnapshotRow> RunStore::gbar_snapshots(int64_t run) const {
  const std::string op = "read Ḡ snapshots of run " + std::to_string(run);
  Statement st(db_, path_,
               ("SELECT " + select_list(kGbarSnapshotColumns) +
                " FROM gbar_snapshots WHERE run_id = ?1 ORDER BY epoch, batch")
                   .c_str(),
               op);
  st.bind_int64(1, run);
  std::vector<GbarSnapshotRow> rows;
  while (st.step()) rows.push_back(read_row(st, kGbarSnapshotColumns));
  return rows;
}

void RunStore::delete_gbar_snapshots_after(int64_t run, int epoch) {
  Statement st(
      db_, path_, "DELETE FROM gbar_snapshots WHERE run_id = ?1 AND epoch > ?2",
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
    Statement del(
        db_, path_,
        (std::string("DELETE FROM ") + table + " WHERE run_id = ?1 AND epoch = ?2 AND split = ?3")
            .c_str(),
        op);
    del.bind_int64(1, run).bind_int64(2, epoch).bind_text(3, split);
    del.run();
  }
  Statement recall(
      db_, path_, insert_sql("INSERT INTO epoch_evals", {"run_id"}, kEpochEvalColumns).c_str(), op);
  Statement rank(db_, path_,
                 insert_sql("INSERT INTO query_ranks", {"run_id", "epoch", "split", "direction"},
                            kQueryRankColumns)
                     .c_str(),
                 op);
  const std::pair<const char*, const RetrievalResult*> directions[] = {{kT2I, &t2i}, {kI2T, &i2t}};
  for (const auto& [direction, result] : directions) {
    for (const auto& [k, value] : result->recall) {
      const EpochEvalRow row{epoch, step, split, direction, k, value};
      bind_row(recall.bind_int64(1, run), 2, kEpochEvalColumns, row).run();
      recall.reset();
    }
    for (std::size_t q = 0; q < result->ranks.size(); ++q) {
      // No top-k lists: an empty blob, as encode_topk writes for an empty list.
      const QueryRankRow row{static_cast<int64_t>(q), result->ranks[q],
                             result->topk.empty() ? std::vector<int64_t>() : result->topk[q]};
      rank.bind_int64(1, run).bind_int64(2, epoch).bind_text(3, split).bind_text(4, direction);
      bind_row(rank, 5, kQueryRankColumns, row).run();
      rank.reset();
    }
  }
  tx.commit();
}

std::vector<EpochEvalRow> RunStore::epoch_evals(int64_t run) const {
  Statement st(db_, path_,
               ("SELECT " + select_list(kEpochEvalColumns) +
                " FROM epoch_evals WHERE run_id = ?1 ORDER BY epoch, direction, k, split")
                   .c_str(),
               "read evaluations of run " + std::to_string(run));
  st.bind_int64(1, run);
  std::vector<EpochEvalRow> rows;
  while (st.step()) rows.push_back(read_row(st, kEpochEvalColumns));
  return rows;
}

std::vector<QueryRankRow> RunStore::query_ranks(int64_t run, int epoch, const std::string& split,
                                                const std::string& direction) const {
  const std::string op = "read " + direction + " query ranks of run " + std::to_string(run) +
                         " epoch " + std::to_string(epoch) + " (" + split + ")";
  Statement st(db_, path_,
               ("SELECT " + select_list(kQueryRankColumns) +
                " FROM query_ranks WHERE run_id = ?1 AND epoch = ?2 AND split = ?3 AND "
                "direction = ?4 ORDER BY query")
                   .c_str(),
               op);
  st.bind_int64(1, run).bind_int64(2, epoch).bind_text(3, split).bind_text(4, direction);
  std::vector<QueryRankRow> rows;
  while (st.step()) rows.push_back(read_row(st, kQueryRankColumns));
  return rows;
}

void RunStore::delete_epoch_evals_after(int64_t run, int epoch) {
  const std::string op =
      "delete evaluations of run " + std::to_string(run) + " after epoch " + std::to_string(epoch);
  Transaction tx(db_, path_, op);
  for (const char* table : {"epoch_evals", "query_ranks"}) {
    Statement st(
        db_, path_,
        (std::string("DELETE FROM ") + table + " WHERE run_id = ?1 AND epoch > ?2").c_str(), op);
    st.bind_int64(1, run).bind_int64(2, epoch);
    st.run();
  }
  tx.commit();
}

// ---- checkpoints ----

void RunStore::add_checkpoint(int64_t run, const CheckpointRow& row) {
  Statement st(
      db_, path_,
      insert_sql("INSERT OR REPLACE INTO checkpoints", {"run_id"}, kCheckpointColumns).c_str(),
      "add checkpoint of run " + std::to_string(run) + " epoch " + std::to_string(row.epoch));
  bind_row(st.bind_int64(1, run), 2, kCheckpointColumns, row).run();
}

std::vector<CheckpointRow> RunStore::checkpoints(int64_t run) const {
  Statement st(db_, path_,
               ("SELECT " + select_list(kCheckpointColumns) +
                " FROM checkpoints WHERE run_id = ?1 ORDER BY epoch")
                   .c_str(),
               "read checkpoints of run " + std::to_string(run));
  st.bind_int64(1, run);
  std::vector<CheckpointRow> rows;
  while (st.step()) rows.push_back(read_row(st, kCheckpointColumns));
  return rows;
}

}  // namespace hnclip
