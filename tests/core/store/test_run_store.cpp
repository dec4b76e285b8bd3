// Tests of core/store/run_store.cpp: round trips of every record type, replace/delete semantics,
// schema migration, refusal of newer/unusable files, crash consistency (a writer killed mid-batch)
// and two connections working at once.

#include "store/run_store.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "store/host_process.h"
#include "support/test_dirs.h"

namespace hnclip {
namespace {

namespace fs = std::filesystem;
using test::ScratchDir;

// ---- helpers: a raw sqlite3 connection, independent of RunStore, to look at the file ----

class RawDb {
 public:
  explicit RawDb(const std::string& path) {
    if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK) ADD_FAILURE() << "cannot open " << path;
    sqlite3_busy_timeout(db_, 5000);
  }
  ~RawDb() { sqlite3_close(db_); }
  void exec(const std::string& sql) {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
      ADD_FAILURE() << "SQL failed: " << (err ? err : "?") << "\n" << sql;
    }
    sqlite3_free(err);
  }
  // First column of the first row as text ("" if none).
  std::string text(const std::string& sql) {
    sqlite3_stmt* st = nullptr;
    std::string out;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
      ADD_FAILURE() << "prepare failed: " << sqlite3_errmsg(db_) << "\n" << sql;
      return out;
    }
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
      out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
    return out;
  }

 private:
  sqlite3* db_ = nullptr;
};

uint64_t bits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, sizeof b);
  return b;
}

RunRecord sample_run(const std::string& name, int64_t created_at_ms) {
  RunRecord r;
  r.name = name;
  r.status = RunStatus::Queued;
  r.status_message = "waiting for a device";
  r.config_json = R"({"gamma":2.0,"lr":5e-06,"name":"ünïcode"})";
  r.device = "cuda:0";
  r.git_rev = "633cb93";
  r.created_at_ms = created_at_ms;
  r.started_at_ms = 0;
  r.finished_at_ms = 0;
  r.pid = 4242;
  r.host = "some-host";
  r.best_epoch = -1;
  return r;
}

void expect_same_run(const RunRecord& a, const RunRecord& b) {
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.status_message, b.status_message);
  EXPECT_EQ(a.config_json, b.config_json);
  EXPECT_EQ(a.device, b.device);
  EXPECT_EQ(a.git_rev, b.git_rev);
  EXPECT_EQ(a.created_at_ms, b.created_at_ms);
  EXPECT_EQ(a.started_at_ms, b.started_at_ms);
  EXPECT_EQ(a.finished_at_ms, b.finished_at_ms);
  EXPECT_EQ(a.pid, b.pid);
  EXPECT_EQ(a.host, b.host);
  EXPECT_EQ(a.best_epoch, b.best_epoch);
  EXPECT_EQ(a.tags, b.tags);
  EXPECT_EQ(a.data_summary_json, b.data_summary_json);
}

StepMetricRow metric(int64_t step, int epoch, double loss) {
  StepMetricRow r;
  r.step = step;
  r.epoch = epoch;
  r.wall_time_s = 0.5 * static_cast<double>(step);
  r.loss = loss;
  r.loss_standard = loss * 0.75;
  r.lr = 1e-5;
  r.logit_scale = 4.605170185988091;
  r.grad_norm = 1.0 / 3.0;
  return r;
}

std::vector<StepMetricRow> metrics(int64_t first_step, int64_t count) {
  std::vector<StepMetricRow> rows;
  rows.reserve(static_cast<std::size_t>(count));
  for (int64_t s = first_step; s < first_step + count; ++s) {
    rows.push_back(metric(s, static_cast<int>(s / 100) + 1, 3.0 / static_cast<double>(s + 1)));
  }
  return rows;
}

RetrievalResult retrieval(const std::string& direction, double r1, int queries, int64_t id_base) {
  RetrievalResult r;
  r.direction = direction;
  r.recall = {{1, r1}, {5, r1 + 20.125}, {10, 100.0 / 3.0 + r1}};
  for (int q = 0; q < queries; ++q) {
    r.ranks.push_back(q + 1);
    r.topk.push_back({id_base + q, -(int64_t{1} << 40) - q, std::numeric_limits<int64_t>::max(),
                      std::numeric_limits<int64_t>::min(), 0});
  }
  return r;
}

// ---- status names ----

TEST(RunStatusNames, RoundTripAndUnknownNameFails) {
  const RunStatus all[] = {RunStatus::Queued, RunStatus::Running, RunStatus::Finished,
                           RunStatus::Failed, RunStatus::Stopped, RunStatus::Interrupted};
  const char* names[] = {"queued", "running", "finished", "failed", "stopped", "interrupted"};
  for (std::size_t i = 0; i < std::size(all); ++i) {
    EXPECT_EQ(to_string(all[i]), names[i]);
    EXPECT_EQ(run_status_from_string(names[i]), all[i]);
  }
  EXPECT_THROW(run_status_from_string("Running"), StoreError);
  EXPECT_THROW(run_status_from_string(""), StoreError);
  try {
    run_status_from_string("paused");
    FAIL() << "no error";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("paused"), std::string::npos) << e.what();
  }
}

// ---- opening ----

TEST(RunStoreOpen, FreshFileIsLatestVersionInWalModeWithForeignKeys) {
  ScratchDir dir;
  const std::string path = (dir / "runs.db").string();
  RunStore store(path);
  EXPECT_EQ(store.path(), path);
  EXPECT_GE(RunStore::latest_schema_version(), 2);
  EXPECT_EQ(store.schema_version(), RunStore::latest_schema_version());
  RawDb raw(path);
  EXPECT_EQ(raw.text("PRAGMA journal_mode"), "wal");  // persistent in the file
  EXPECT_EQ(raw.text("PRAGMA user_version"), std::to_string(RunStore::latest_schema_version()));
  // Foreign keys are per connection: a row for a run that does not exist must be refused.
  EXPECT_THROW(store.append_step_metrics(777, metrics(1, 1)), StoreError);
  EXPECT_THROW(store.add_checkpoint(777, CheckpointRow{}), StoreError);
}

TEST(RunStoreOpen, ReopeningKeepsDataAndVersion) {
  ScratchDir dir;
  const std::string path = (dir / "runs.db").string();
  int64_t id = 0;
  {
    RunStore store(path);
    id = store.create_run(sample_run("a", 1000));
    store.append_step_metrics(id, metrics(1, 3));
  }
  RunStore again(path);
  EXPECT_EQ(again.schema_version(), RunStore::latest_schema_version());
  ASSERT_TRUE(again.find_run(id));
  EXPECT_EQ(again.step_metrics(id).size(), 3u);
}

TEST(RunStoreOpen, MissingFolderIsRefusedNamingThePathAndCreatesNothing) {
  ScratchDir dir;
  const fs::path missing = dir / "no" / "such" / "folder";
  const std::string path = (missing / "runs.db").string();
  try {
    RunStore store(path);
    FAIL() << "opened " << path;
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(dir / "no"));
}

TEST(RunStoreOpen, FolderThatIsAFileIsRefusedNamingThePath) {
  ScratchDir dir;
  test::write_text_file(dir / "plain.txt", "not a folder\n");
  const std::string path = (dir / "plain.txt" / "runs.db").string();
  try {
    RunStore store(path);
    FAIL() << "opened " << path;
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

TEST(RunStoreOpen, ReadOnlyFolderIsRefusedNamingThePathAndCreatesNothing) {
  ScratchDir dir;
  const fs::path folder = dir / "readonly";
  fs::create_directories(folder);
  fs::permissions(folder, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                              fs::perms::group_exec | fs::perms::others_read |
                              fs::perms::others_exec);
  const std::string path = (folder / "runs.db").string();
  // Root may write anywhere (CI runs as root): then the check runs in a child that has dropped to
  // the unprivileged user `nobody`, for whom the folder is read-only like for anyone else.
  auto attempt = [&]() -> std::string {
    try {
      RunStore store(path);
    } catch (const StoreError& e) {
      const std::string msg = e.what();
      if (msg.find(path) == std::string::npos) return "message does not name the path: " + msg;
      if (!fs::is_empty(folder)) return "something was created in the folder";
      return "";
    }
    return "a read-only folder was accepted";
  };
  if (::geteuid() != 0) {
    EXPECT_EQ(attempt(), "");
  } else {
    int pipe_fd[2];
    ASSERT_EQ(::pipe(pipe_fd), 0);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(pipe_fd[0]);
      constexpr uid_t kNobody = 65534;
      std::string problem =
          (::setgid(kNobody) == 0 && ::setuid(kNobody) == 0) ? attempt() : "cannot drop root";
      if (::write(pipe_fd[1], problem.data(), problem.size()) < 0) _exit(3);
      _exit(problem.empty() ? 0 : 1);
    }
    ::close(pipe_fd[1]);
    std::string problem;
    char buf[512];
    for (ssize_t n; (n = ::read(pipe_fd[0], buf, sizeof buf)) > 0;) problem.append(buf, n);
    ::close(pipe_fd[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << problem;
  }
  fs::permissions(folder, fs::perms::owner_all);
}

TEST(RunStoreOpen, FileThatIsNotADatabaseIsRefusedNamingThePath) {
  ScratchDir dir;
  const fs::path file = dir / "notes.db";
  test::write_text_file(file, std::string(4096, 'x'));
  try {
    RunStore store(file.string());
    FAIL() << "opened a text file as a database";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
  }
}

TEST(RunStoreOpen, NewerSchemaVersionIsRefusedNamingFileAndBothVersions) {
  ScratchDir dir;
  const std::string path = (dir / "future.db").string();
  { RunStore store(path); }
  const int future = RunStore::latest_schema_version() + 7;
  { RawDb(path).exec("PRAGMA user_version = " + std::to_string(future)); }
  try {
    RunStore store(path);
    FAIL() << "opened a database of version " << future;
  } catch (const StoreError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(path), std::string::npos) << what;
    EXPECT_NE(what.find(std::to_string(future)), std::string::npos) << what;
    EXPECT_NE(what.find("(" + std::to_string(RunStore::latest_schema_version()) + ")"),
              std::string::npos)
        << what;
  }
  // Refusal must not touch the file's version.
  EXPECT_EQ(RawDb(path).text("PRAGMA user_version"), std::to_string(future));
}

// The version 1 schema exactly as the first release created it, written out by hand (not taken
// from schema_migrations) so this test notices if a released step is edited.
constexpr const char* kSchemaV1 = R"sql(
CREATE TABLE runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, status TEXT NOT NULL,
  config_json TEXT NOT NULL DEFAULT '{}', device TEXT NOT NULL DEFAULT '',
  git_rev TEXT NOT NULL DEFAULT '', created_at_ms INTEGER NOT NULL,
  started_at_ms INTEGER NOT NULL DEFAULT 0, finished_at_ms INTEGER NOT NULL DEFAULT 0,
  pid INTEGER NOT NULL DEFAULT 0, host TEXT NOT NULL DEFAULT '',
  best_epoch INTEGER NOT NULL DEFAULT -1);
CREATE INDEX runs_by_status ON runs(status);
CREATE TABLE step_metrics (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, step INTEGER NOT NULL,
  epoch INTEGER NOT NULL, wall_time_s REAL, loss REAL, lr REAL, logit_scale REAL,
  grad_norm REAL, PRIMARY KEY (run_id, step)) WITHOUT ROWID;
CREATE TABLE epoch_evals (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, epoch INTEGER NOT NULL,
  step INTEGER NOT NULL, split TEXT NOT NULL, direction TEXT NOT NULL, k INTEGER NOT NULL,
  recall REAL, PRIMARY KEY (run_id, epoch, split, direction, k)) WITHOUT ROWID;
CREATE TABLE query_ranks (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, epoch INTEGER NOT NULL,
  split TEXT NOT NULL, direction TEXT NOT NULL, query INTEGER NOT NULL, rank INTEGER NOT NULL,
  topk BLOB NOT NULL, PRIMARY KEY (run_id, epoch, split, direction, query)) WITHOUT ROWID;
CREATE TABLE checkpoints (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, epoch INTEGER NOT NULL,
  step INTEGER NOT NULL, path TEXT NOT NULL, mean_r1 REAL, created_at_ms INTEGER NOT NULL,
  PRIMARY KEY (run_id, epoch));
PRAGMA user_version = 1;
)sql";

TEST(RunStoreMigration, VersionOneDatabaseIsMigratedAndKeepsItsData) {
  ScratchDir dir;
  const std::string path = (dir / "v1.db").string();
  {
    RawDb raw(path);  // rollback journal, as a file from elsewhere might be
    raw.exec(kSchemaV1);
    raw.exec(
        "INSERT INTO runs (id, name, status, config_json, device, git_rev, created_at_ms, "
        "started_at_ms, finished_at_ms, pid, host, best_epoch) VALUES "
        "(5, 'old run', 'finished', '{\"gamma\":1}', 'cpu', 'abc', 1000, 1100, 1200, 17, 'h', 2)");
    raw.exec(
        "INSERT INTO step_metrics VALUES (5, 1, 1, 0.5, 2.25, 1e-5, 2.5, 0.125),"
        "(5, 2, 1, 1.0, 2.0, 1e-5, 2.5, 0.25)");
    raw.exec("INSERT INTO epoch_evals VALUES (5, 1, 2, 'test', 't2i', 1, 12.5)");
    raw.exec("INSERT INTO query_ranks VALUES (5, 1, 'test', 't2i', 0, 3, x'0700000000000000')");
    raw.exec("INSERT INTO checkpoints VALUES (5, 1, 2, '/ckpt/e1.pt', 11.5, 1300)");
    EXPECT_EQ(raw.text("PRAGMA user_version"), "1");
  }
  RunStore store(path);
  EXPECT_EQ(store.schema_version(), RunStore::latest_schema_version());
  const auto run = store.find_run(5);
  ASSERT_TRUE(run);
  EXPECT_EQ(run->name, "old run");
  EXPECT_EQ(run->status, RunStatus::Finished);
  EXPECT_EQ(run->status_message, "");  // new column, default
  EXPECT_EQ(run->config_json, "{\"gamma\":1}");
  EXPECT_EQ(run->finished_at_ms, 1200);
  EXPECT_EQ(run->best_epoch, 2);
  const auto m = store.step_metrics(5);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].loss, 2.25);
  EXPECT_EQ(m[1].grad_norm, 0.25);
  EXPECT_TRUE(std::isnan(m[0].loss_standard)) << "not recorded before v2";
  ASSERT_EQ(store.epoch_evals(5).size(), 1u);
  EXPECT_EQ(store.epoch_evals(5)[0].recall, 12.5);
  const auto ranks = store.query_ranks(5, 1, "test", "t2i");
  ASSERT_EQ(ranks.size(), 1u);
  EXPECT_EQ(ranks[0].topk, std::vector<int64_t>{7});
  ASSERT_EQ(store.checkpoints(5).size(), 1u);
  EXPECT_EQ(store.checkpoints(5)[0].path, "/ckpt/e1.pt");
  // The new columns are usable.
  store.set_status(5, RunStatus::Failed, "disk full");
  EXPECT_EQ(store.find_run(5)->status_message, "disk full");
  store.append_step_metrics(5, {metric(3, 1, 1.5)});
  EXPECT_EQ(store.step_metrics(5).back().loss_standard, 1.5 * 0.75);
  // And a new run does not reuse an id.
  EXPECT_GT(store.create_run(sample_run("new", 2000)), 5);
}

TEST(RunStoreMigration, AnOlderDatabaseIsBackedUpFirstAndMigratedInOneTransaction) {
  ScratchDir dir;
  const std::string path = (dir / "v1.db").string();
  {
    RawDb raw(path);
    raw.exec(kSchemaV1);
    raw.exec("INSERT INTO runs (id, name, status, created_at_ms) VALUES (5, 'old', 'finished', 1)");
    // A table a later step creates: that step fails after the earlier ones have run.
    raw.exec("CREATE TABLE gbar_snapshots (x INTEGER)");
  }
  try {
    RunStore store(path);
    FAIL() << "a failing migration step was not reported";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("migrate schema from version 1"), std::string::npos)
        << e.what();
  }
  // One transaction: version 1, whole — not the columns of step 2 with the version of step 1.
  EXPECT_EQ(RawDb(path).text("PRAGMA user_version"), "1");
  EXPECT_EQ(RawDb(path).text("SELECT count(*) FROM pragma_table_info('runs') "
                             "WHERE name = 'status_message'"),
            "0");
  // The copy taken before migrating holds the old file's data at its old version.
  const std::string backup = path + ".backup-v1";
  ASSERT_TRUE(fs::exists(backup));
  EXPECT_EQ(RawDb(backup).text("PRAGMA user_version"), "1");
  EXPECT_EQ(RawDb(backup).text("SELECT name FROM runs WHERE id = 5"), "old");

  // Without the obstacle the same file migrates, and the backup is refreshed, not duplicated.
  { RawDb(path).exec("DROP TABLE gbar_snapshots"); }
  RunStore store(path);
  EXPECT_EQ(store.schema_version(), RunStore::latest_schema_version());
  EXPECT_EQ(store.find_run(5)->name, "old");
  EXPECT_EQ(RawDb(backup).text("SELECT count(*) FROM sqlite_master WHERE name = 'gbar_snapshots'"),
            "0");
}

// Runs `open(c)` for connections c = 0..n-1 on threads of their own, all released at the same
// moment; returns each one's error message ("" when it succeeded).
std::vector<std::string> open_at_once(int n, const std::function<void(int)>& open) {
  std::atomic<int> waiting{n};
  std::vector<std::string> errors(static_cast<size_t>(n));
  std::vector<std::thread> threads;
  for (int c = 0; c < n; ++c) {
    threads.emplace_back([&, c] {
      --waiting;
      while (waiting > 0) {  // spin: a condition variable would release them one by one
      }
      try {
        open(c);
      } catch (const std::exception& e) {
        errors[static_cast<size_t>(c)] = e.what();
      }
    });
  }
  for (auto& t : threads) t.join();
  return errors;
}

// An older database opened by several processes at once (the window and a CLI run after an
// upgrade): one backs it up and migrates it, the others wait for it and open the new version.
TEST(RunStoreMigration, ConnectionsOpeningOneOlderFileAtOnceAllOpenItMigratedOnce) {
  constexpr int kRounds = 10;
  constexpr int kConnections = 4;
  ScratchDir dir;
  for (int round = 0; round < kRounds; ++round) {
    const std::string path = (dir / ("v1-" + std::to_string(round) + ".db")).string();
    {
      RawDb raw(path);
      raw.exec(kSchemaV1);
      raw.exec(
          "INSERT INTO runs (id, name, status, created_at_ms) VALUES (5, 'old', 'finished', 1)");
    }
    const auto errors = open_at_once(kConnections, [&](int) {
      RunStore store(path);
      if (!store.find_run(5)) throw std::runtime_error("run 5 is missing");
    });
    for (int c = 0; c < kConnections; ++c) {
      ASSERT_EQ(errors[c], "") << "round " << round << ", connection " << c;
    }
    EXPECT_EQ(RawDb(path).text("PRAGMA user_version"),
              std::to_string(RunStore::latest_schema_version()));
    EXPECT_EQ(RawDb(path + ".backup-v1").text("SELECT name FROM runs WHERE id = 5"), "old");
  }
  for (const auto& entry : fs::directory_iterator(dir.path())) {
    EXPECT_EQ(entry.path().string().find(".tmp-"), std::string::npos)
        << "a copy's temporary file was left: " << entry.path();
  }
}

// A backup that cannot be put in place fails the open before anything is migrated, and leaves
// no temporary copy behind.
TEST(RunStoreMigration, ABackupThatCannotBeWrittenStopsTheMigration) {
  ScratchDir dir;
  const std::string path = (dir / "v1.db").string();
  {
    RawDb raw(path);
    raw.exec(kSchemaV1);
  }
  fs::create_directories(path + ".backup-v1/occupied");  // a folder where the copy should go
  try {
    RunStore store(path);
    FAIL() << "the backup's failure was not reported";
  } catch (const StoreError& e) {
    EXPECT_NE(
        std::string(e.what()).find("cannot back up before migrating to " + path + ".backup-v1"),
        std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("nothing was migrated"), std::string::npos) << e.what();
  }
  EXPECT_EQ(RawDb(path).text("PRAGMA user_version"), "1");
  for (const auto& entry : fs::directory_iterator(dir.path())) {
    EXPECT_EQ(entry.path().string().find(".tmp-"), std::string::npos) << entry.path();
  }
}

TEST(RunStoreOpen, AnotherProgramsDatabaseIsRefusedAndLeftByteForByteAsItWas) {
  ScratchDir dir;
  const std::string path = (dir / "contacts.db").string();
  {
    RawDb raw(path);
    raw.exec("CREATE TABLE contacts (name TEXT, phone TEXT); CREATE TABLE notes (body TEXT);");
    raw.exec("INSERT INTO contacts VALUES ('Ada', '123')");
  }
  const std::string before = test::read_text_file(path);
  for (int version : {0, 3}) {  // another program may use user_version for its own schema
    { RawDb(path).exec("PRAGMA user_version = " + std::to_string(version)); }
    const std::string bytes = test::read_text_file(path);
    try {
      RunStore store(path);
      FAIL() << "opened another program's database (user_version " << version << ")";
    } catch (const StoreError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(path), std::string::npos) << what;
      EXPECT_NE(what.find("another program"), std::string::npos) << what;
      EXPECT_NE(what.find("contacts, notes"), std::string::npos) << what;
    }
    EXPECT_EQ(test::read_text_file(path), bytes) << "the refused file was altered";
    EXPECT_FALSE(fs::exists(path + "-wal"));
  }
  EXPECT_EQ(RawDb(path).text("PRAGMA journal_mode"), "delete");
  EXPECT_EQ(RawDb(path).text("SELECT phone FROM contacts"), "123");
  EXPECT_EQ(before.size(), test::read_text_file(path).size());
}

// ---- runs ----

TEST(RunStoreRuns, RoundTripAndUpdates) {
  ScratchDir dir;
  RunStore store((dir / "runs.db").string());
  RunRecord in = sample_run("baseline γ=0", 1700000000123);
  in.id = 999;  // ignored
  const int64_t id = store.create_run(in);
  EXPECT_NE(id, 999);
  in.id = id;
  auto out = store.find_run(id);
  ASSERT_TRUE(out);
  expect_same_run(*out, in);

  store.set_started(id, 31337, "gpu-box", "cuda:1", 1700000001000);
  store.set_status(id, RunStatus::Running, "epoch 1");
  store.set_best_epoch(id, 3);
  store.set_finished(id, 1700000009000);
  in.pid = 31337;
  in.host = "gpu-box";
  in.device = "cuda:1";
  in.started_at_ms = 1700000001000;
  in.status = RunStatus::Running;
  in.status_message = "epoch 1";
  in.best_epoch = 3;
  in.finished_at_ms = 1700000009000;
  out = store.find_run(id);
  ASSERT_TRUE(out);
  expect_same_run(*out, in);

  for (const RunStatus s : {RunStatus::Queued, RunStatus::Running, RunStatus::Finished,
                            RunStatus::Failed, RunStatus::Stopped, RunStatus::Interrupted}) {
    store.set_status(id, s, "now " + to_string(s));
    EXPECT_EQ(store.find_run(id)->status, s);
    EXPECT_EQ(store.find_run(id)->status_message, "now " + to_string(s));
  }

  EXPECT_FALSE(store.find_run(id + 100));
  EXPECT_THROW(store.set_status(id + 100, RunStatus::Failed, ""), StoreError);
  EXPECT_THROW(store.set_finished(id + 100, 1), StoreError);
  EXPECT_THROW(store.set_best_epoch(id + 100, 1), StoreError);
  EXPECT_THROW(store.set_started(id + 100, 1, "h", "cpu", 1), StoreError);
}

TEST(RunStoreRuns, RenameTagsAndDataSummaryPersistAndUnknownRunFails) {
  ScratchDir dir;
  const auto path = (dir / "runs.db").string();
  int64_t id = 0;
  {
    RunStore store(path);
    id = store.create_run(sample_run("first name", 1700000000000));
    EXPECT_EQ(store.find_run(id)->tags, "");
    EXPECT_EQ(store.find_run(id)->data_summary_json, "{}");
    store.rename_run(id, "γ=0.5 frozen");
    store.set_tags(id, "sweep, seed-1");
    store.set_data_summary(id, R"({"test":{"images":10,"captions":10}})");
    EXPECT_THROW(store.rename_run(id, ""), StoreError);
    EXPECT_THROW(store.rename_run(id + 1, "x"), StoreError);
    EXPECT_THROW(store.set_tags(id + 1, "x"), StoreError);
    EXPECT_THROW(store.set_data_summary(id + 1, "{}"), StoreError);
  }
  RunStore reopened(path);
  const auto run = reopened.find_run(id);
  ASSERT_TRUE(run);
  EXPECT_EQ(run->name, "γ=0.5 frozen");
  EXPECT_EQ(run->tags, "sweep, seed-1");
  EXPECT_EQ(run->data_summary_json, R"({"test":{"images":10,"captions":10}})");
}

TEST(RunStoreRuns, CreatedAtZeroMeansNow) {
  ScratchDir dir;
  RunStore store((dir / "runs.db").string());
  const auto before = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  const int64_t id = store.create_run(sample_run("now", 0));
  EXPECT_GE(store.find_run(id)->created_at_ms, before);
}

TEST(RunStoreRuns, ListIsNewestFirst) {
  ScratchDir dir;
  RunStore store((dir / "runs.db").string());
  const int64_t a = store.create_run(sample_run("a", 1000));
  const int64_t c = store.create_run(sample_run("c", 3000));
  const int64_t b = store.create_run(sample_run("b", 2000));
  const int64_t b2 = store.create_run(sample_run("b2", 2000));  // same time: later id first
  const auto runs = store.list_runs();
  ASSERT_EQ(runs.size(), 4u);
  EXPECT_EQ(runs[0].id, c);
  EXPECT_EQ(runs[1].id, b2);
  EXPECT_EQ(runs[2].id, b);
  EXPECT_EQ(runs[3].id, a);
  EXPECT_EQ(runs[3].name, "a");
}

TEST(RunStoreRuns, DeleteRunCascadesToEveryTable) {
  ScratchDir dir;
  const std::string path = (dir / "runs.db").string();
  RunStore store(path);
  const int64_t gone = store.create_run(sample_run("gone", 1000));
  const int64_t kept = store.create_run(sample_run("kept", 2000));
  for (const int64_t id : {gone, kept}) {
    store.append_step_metrics(id, metrics(1, 5));
    store.write_epoch_eval(id, 1, 5, "test", retrieval("t2i", 10, 3, 0),
                           retrieval("i2t", 11, 2, 0));
    store.add_checkpoint(id, CheckpointRow{1, 5, "/c.pt", 10.5, 1});
  }
  EXPECT_TRUE(store.delete_run(gone));
  EXPECT_FALSE(store.delete_run(gone));
  EXPECT_FALSE(store.find_run(gone));
  RawDb raw(path);
  for (const char* table : {"step_metrics", "epoch_evals", "query_ranks", "checkpoints"}) {
    EXPECT_EQ(raw.text(std::string("SELECT count(*) FROM ") + table +
                       " WHERE run_id = " + std::to_string(gone)),
              "0")
        << table;
    EXPECT_NE(raw.text(std::string("SELECT count(*) FROM ") + table +
                       " WHERE run_id = " + std::to_string(kept)),
              "0")
        << table;
  }
}

// ---- step metrics ----

TEST(RunStoreMetrics, RoundTripIsBitExactAndOrderedByStep) {
  ScratchDir dir;
  RunStore store((dir / "runs.db").string());
  const int64_t id = store.create_run(sample_run("m", 1000));
  const int64_t other = store.create_run(sample_run("other", 1000));
  std::vector<StepMetricRow> rows;
  const double values[] = {0.1,
                           1.0 / 3.0,
                           std::nextafter(1.0, 2.0),
                           std::numeric_limits<double>::denorm_min(),
                           std::numeric_limits<double>::max(),
                           -123456.789e-300,
                           3.0,
                           std::numeric_limits<double>::infinity()};
  int64_t step = 100;
  for (const double v : values) {
    StepMetricRow r;
    r.step = step;
    r.epoch = static_cast<int>(step % 7);
    r.wall_time_s = v;
    r.loss = -v;
    r.loss_standard = v / 7.0;
    r.lr = v * 1e-6;
    r.logit_scale = v + 0.5;
    r.grad_norm = std::sqrt(std::fabs(v));
    rows.push_back(r);
    step -= 10;  // appended out of order: read back ordered by step
  }
  store.append_step_metrics(id, rows);
  store.append_step_metrics(other, metrics(1, 3));
  const auto out = store.step_metrics(id);
  ASSERT_EQ(out.size(), rows.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    const StepMetricRow& want = rows[rows.size() - 1 - i];
    const StepMetricRow& got = out[i];
    EXPECT_EQ(got.step, want.step);
    EXPECT_EQ(got.epoch, want.epoch);
    EXPECT_EQ(bits(got.wall_time_s), bits(want.wall_time_s)) << want.wall_time_s;
    EXPECT_EQ(bits(got.loss), bits(want.loss)) << want.loss;
    EXPECT_EQ(bits(got.loss_standard), bits(want.loss_standard)) << want.loss_standard;
    EXPECT_EQ(bits(got.lr), bits(want.lr)) << want.lr;
    EXPECT_EQ(bits(got.logit_scale), bits(want.logit_scale)) << want.logit_scale;
    EXPECT_EQ(bits(got.grad_norm), bits(want.grad_norm)) << want.grad_norm;
  }
  EXPECT_EQ(store.step_metrics(other).size(), 3u);
  EXPECT_TRUE(store.step_metrics(other + 10).empty());
}

TEST(RunStoreMetrics, NanLossIsStoredAndReadBackAsNan) {
  ScratchDir dir;
  RunStore store((dir / "runs.db").string());
  const int64_t id = store.create_run(sample_run("diverged", 1000));
  StepMetricRow r = metric(1, 1, std::numeric_limits<double>::quiet_NaN());
  store.append_step_metrics(id, {r});
  const auto out = store.step_metrics(id);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(std::isnan(out[0].loss));
  EXPECT_EQ(out[0].lr, r.lr);
}

TEST(RunStoreMetrics, BatchWithADuplicateStepIsRefusedWhole) {
  ScratchDir dir;
  const std::string path = (dir / "runs.db").string();
  RunStore store(path);
  const int64_t id = store.create_run(sample_run("dup", 1000));
  store.append_step_metrics(id, metrics(1, 5));
  std::vector<StepMetricRow> batch = metrics(6, 10);
  batch.push_back(metric(3, 1, 9.0));  // already stored
  try {
    store.append_step_metrics(id, batch);
    FAIL() << "duplicate step accepted";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("append"), std::string::npos) << e.what();
  }
  const auto out = store.step_metrics(id);
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out.back().step, 5);
  // The connection is usable afterwards (the transaction was rolled back, not left open).
  store.append_step_metrics(id, metrics(6, 2));
  EXPECT_EQ(store.step_metrics(id).size(), 7u);
}

TEST(RunStoreMetrics, DeleteAfterStepKeepsEarlierStepsAndOtherRuns) {
  ScratchDir dir;
  RunStore store((dir / "runs.db").string());
  const int64_t id = store.create_run(sample_run("resume", 1000));
  const int64_t other = store.create_run(sample_run("other", 1000));
  store.append_step_metrics(id, metrics(1, 50));
  store.append_step_metrics(other, metrics(1, 50));
  store.delete_step_metrics_after(id, 20);
  auto out = store.step_metrics(id);
  ASSERT_EQ(out.size(), 20u);
  EXPECT_EQ(out.front().step, 1);
  EXPECT_EQ(out.back().step, 20);
  EXPECT_EQ(store.step_metrics(other).size(), 50u);
  // The curve continues from the checkpoint without clashing with the dropped steps.
  store.append_step_metrics(id, metrics(21, 5));
  EXPECT_EQ(store.step_metrics(id).size(), 25u);
}

TEST(RunStoreMetrics, LossTermsRoundTripInTermOrderAndGoWithTheirStep) {
  ScratchDir dir;
  const std::string path = (dir / "runs.db").string();
  RunStore store(path);
  const int64_t id = store.create_run(sample_run("terms", 1000));
  const int64_t other = store.create_run(sample_run("plain", 1000));
  auto rows = metrics(1, 4);
  // Written in another order than loss_term_names() lists them: read back in that order.
  rows[0].loss_terms = {{"short", 1.0, 2.5}, {"global", 1.0, 0.125}};
  rows[2].loss_terms = {{"token", 0.25, std::nan("")}, {"global", 1.0, 1e-7}};
  store.append_step_metrics(id, rows);
  store.append_step_metrics(other, metrics(1, 4));
  auto back = store.step_metrics(id);
  ASSERT_EQ(back.size(), 4u);
  ASSERT_EQ(back[0].loss_terms.size(), 2u);
  EXPECT_EQ(back[0].loss_terms[0].name, "global");
  EXPECT_EQ(back[0].loss_terms[0].value, 0.125);
  EXPECT_EQ(back[0].loss_terms[1].name, "short");
  EXPECT_EQ(back[0].loss_terms[1].value, 2.5);
  EXPECT_TRUE(back[1].loss_terms.empty());
  ASSERT_EQ(back[2].loss_terms.size(), 2u);
  EXPECT_EQ(back[2].loss_terms[1].name, "token");
  EXPECT_EQ(back[2].loss_terms[1].weight, 0.25);
  EXPECT_TRUE(std::isnan(back[2].loss_terms[1].value));
  EXPECT_EQ(back[2].loss_terms[0].value, 1e-7);
  for (const auto& r : store.step_metrics(other)) EXPECT_TRUE(r.loss_terms.empty());

  // A step naming one term twice is refused with its whole batch.
  auto dup = metrics(5, 2);
  dup[1].loss_terms = {{"global", 1.0, 1.0}, {"global", 1.0, 2.0}};
  EXPECT_THROW(store.append_step_metrics(id, dup), StoreError);
  EXPECT_EQ(store.step_metrics(id).size(), 4u);

  // A resume drops the terms of the steps it drops; a deleted run takes its terms along.
  store.delete_step_metrics_after(id, 1);
  RawDb raw(path);
  EXPECT_EQ(raw.text("SELECT count(*) FROM step_loss_terms WHERE run_id = " + std::to_string(id)),
            "2");
  auto again = metrics(2, 2);
  again[1].loss_terms = rows[2].loss_terms;
  store.append_step_metrics(id, again);
  EXPECT_EQ(store.step_metrics(id)[2].loss_terms.size(), 2u);
  EXPECT_TRUE(store.delete_run(id));
  EXPECT_EQ(raw.text("SELECT count(*) FROM step_loss_terms"), "0");
}

// ---- evaluations ----

TEST(RunStoreProbes, RoundTripWithInfAndNanAndDeleteAfter) {
  ScratchDir dir;
  RunStore store((dir / "runs.db").string());
  const int64_t id = store.create_run(sample_run("p", 1000));
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<ProbeRow> rows{{5, 1, 1e-4, 2.5, 0.0, 3.25, inf, std::nan("")},
                             {10, 1, 0.3, 4.0, 0.125, 0.5, 4.0, 0.75},
                             {15, 2, 0.2, 3.0, 1e-12, 2.0, 2e12, -0.5}};
  store.append_probes(id, rows);
  auto back = store.probes(id);
  ASSERT_EQ(back.size(), 3u);
  EXPECT_EQ(back[0].grad_norm_standard, 0.0);
  EXPECT_TRUE(std::isinf(back[0].grad_ratio));
  EXPECT_TRUE(std::isnan(back[0].grad_cosine));
  EXPECT_EQ(back[1].grad_cosine, 0.75);
  EXPECT_EQ(back[2].grad_norm_standard, 1e-12);
  EXPECT_EQ(back[2].epoch, 2);
  EXPECT_THROW(store.append_probes(id, {rows[1]}), StoreError);  // step 10 is already there
  store.delete_probes_after(id, 10);
  EXPECT_EQ(store.probes(id).size(), 2u);
}

TEST(RunStoreProbes, GradientMassSharesRoundTripAndGoWithTheirProbe) {
  ScratchDir dir;
  const std::string path = (dir / "runs.db").string();
  RunStore store(path);
  const int64_t id = store.create_run(sample_run("mass", 1000));
  const int64_t other = store.create_run(sample_run("other", 2000));
  ProbeRow with{5, 1, 0.5, 0.75, 1.0, 2.0, 2.0, 0.5};
  with.mass_share_plain = {0.625, 0.25, 0.125, 0.0, 0.0};
  with.mass_share_boosted = {0.125, 0.125, 0.25, 0.0, 0.5};
  ProbeRow undefined{10, 1, 0.5, 0.75, 1.0, 2.0, 2.0, 0.5};
  undefined.mass_share_plain = std::vector<double>(5, std::nan(""));
  undefined.mass_share_boosted = {0.0, 0.0, 0.0, 0.0, 1.0};
  const ProbeRow without{15, 2, 0.5, 0.75, 1.0, 2.0, 2.0, 0.5};  // none recorded
  store.append_probes(id, {with, undefined, without});
  store.append_probes(other, {with});

  auto back = store.probes(id);
  ASSERT_EQ(back.size(), 3u);
  EXPECT_EQ(back[0].mass_share_plain, with.mass_share_plain);
  EXPECT_EQ(back[0].mass_share_boosted, with.mass_share_boosted);
  ASSERT_EQ(back[1].mass_share_plain.size(), 5u);
  EXPECT_TRUE(std::isnan(back[1].mass_share_plain[2]));
  EXPECT_EQ(back[1].mass_share_boosted[4], 1.0);
  EXPECT_TRUE(back[2].mass_share_plain.empty());
  EXPECT_TRUE(back[2].mass_share_boosted.empty());

  // Lists of different lengths are refused before anything is written.
  ProbeRow bad{20, 2, 0.5, 0.75, 1.0, 2.0, 2.0, 0.5};
  bad.mass_share_plain = {1.0};
  EXPECT_THROW(store.append_probes(id, {bad}), StoreError);
  EXPECT_EQ(store.probes(id).size(), 3u);

  // Shares go with their probe: a resume's delete_probes_after, and a deleted run.
  RawDb raw(path);
  const std::string count =
      "SELECT count(*) FROM probe_gradient_mass WHERE run_id = " + std::to_string(id);
  EXPECT_EQ(raw.text(count), "10");
  store.delete_probes_after(id, 5);
  EXPECT_EQ(raw.text(count), "5");
  EXPECT_EQ(store.probes(id)[0].mass_share_boosted, with.mass_share_boosted);
  EXPECT_TRUE(store.delete_run(id));
  EXPECT_EQ(raw.text(count), "0");
  EXPECT_EQ(store.probes(other).at(0).mass_share_plain, with.mass_share_plain);
}

TEST(RunStoreGbarSnapshots, RoundTripReplaceAndDeleteAfter) {
  ScratchDir dir;
  RunStore store((dir / "runs.db").string());
  const int64_t id = store.create_run(sample_run("g", 1000));
  GbarSnapshotRow row{
      0, 1, {7, 3, 9}, {0.f, 0.25f, -0.5f, 0.25f, 0.f, 0.875f, -0.5f, 0.875f, 0.f}, 0.875f, 1, 2};
  store.write_gbar_snapshot(id, row);
  auto later = row;
  later.epoch = 2;
  later.matrix[1] = later.matrix[3] = 1e-7f;
  store.write_gbar_snapshot(id, later);
  later.max_value = 0.5f;  // same (run, epoch, batch): replaces
  store.write_gbar_snapshot(id, later);
  auto back = store.gbar_snapshots(id);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].captions, row.captions);
  EXPECT_EQ(back[0].matrix, row.matrix);  // bit-exact floats
  EXPECT_EQ(back[0].max_i, 1);
  EXPECT_EQ(back[0].max_j, 2);
  EXPECT_EQ(back[1].epoch, 2);
  EXPECT_EQ(back[1].matrix[1], 1e-7f);
  EXPECT_EQ(back[1].max_value, 0.5f);
  auto bad = row;
  bad.matrix.pop_back();
  EXPECT_THROW(store.write_gbar_snapshot(id, bad), StoreError);
  store.delete_gbar_snapshots_after(id, 0);
  EXPECT_EQ(store.gbar_snapshots(id).size(), 1u);
}

TEST(RunStoreEvals, RoundTripOfRecallsRanksAndTopkBlobs) {
  ScratchDir dir;
  const std::string path = (dir / "runs.db").string();
  RunStore store(path);
  const int64_t id = store.create_run(sample_run("eval", 1000));
  const RetrievalResult t2i = retrieval("t2i", 30.1, 4, 1000);
  const RetrievalResult i2t = retrieval("i2t", 41.7, 2, 5000);
  store.write_epoch_eval(id, 1, 120, "test", t2i, i2t);

  const auto evals = store.epoch_evals(id);
  ASSERT_EQ(evals.size(), 6u);
  // Ordered by epoch, direction, k: "i2t" sorts before "t2i".
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(evals[i].direction, "i2t");
    EXPECT_EQ(evals[i].k, i2t.recall[i].first);
    EXPECT_EQ(bits(evals[i].recall), bits(i2t.recall[i].second));
    EXPECT_EQ(evals[i + 3].direction, "t2i");
    EXPECT_EQ(evals[i + 3].k, t2i.recall[i].first);
    EXPECT_EQ(bits(evals[i + 3].recall), bits(t2i.recall[i].second));
    EXPECT_EQ(evals[i].epoch, 1);
    EXPECT_EQ(evals[i].step, 120);
    EXPECT_EQ(evals[i].split, "test");
  }
  for (const RetrievalResult* r : {&t2i, &i2t}) {
    const auto ranks = store.query_ranks(id, 1, "test", r->direction);
    ASSERT_EQ(ranks.size(), r->ranks.size());
    for (std::size_t q = 0; q < ranks.size(); ++q) {
      EXPECT_EQ(ranks[q].query, static_cast<int64_t>(q));
      EXPECT_EQ(ranks[q].rank, r->ranks[q]);
      EXPECT_EQ(ranks[q].topk, r->topk[q]);
    }
  }
  EXPECT_TRUE(store.query_ranks(id, 2, "test", "t2i").empty());
  EXPECT_TRUE(store.query_ranks(id, 1, "val", "t2i").empty());

  // On disk: little-endian int64s, 8 bytes each.
  RawDb raw(path);
  EXPECT_EQ(raw.text("SELECT hex(topk) FROM query_ranks WHERE direction = 't2i' AND query = 1"),
            "E903000000000000"    // 1001
            "FFFFFFFFFFFEFFFF"    // -(2^40) - 1
            "FFFFFFFFFFFFFF7F"    // int64 max
            "0000000000000080"    // int64 min
            "0000000000000000");  // 0
}

TEST(RunStoreEvals, EmptyTopkIsStoredAsNoCandidates) {
  ScratchDir dir;
  RunStore store((dir / "runs.db").string());
  const int64_t id = store.create_run(sample_run("eval", 1000));
  RetrievalResult t2i = retrieval("t2i", 1, 3, 0);
  t2i.topk.clear();
  store.write_epoch_eval(id, 0, 0, "test", t2i, retrieval("i2t", 2, 1, 0));
  const auto ranks = store.query_ranks(id, 0, "test", "t2i");
  ASSERT_EQ(ranks.size(), 3u);
  EXPECT_EQ(ranks[2].rank, 3);
  EXPECT_TRUE(ranks[2].topk.empty());
}

TEST(RunStoreEvals, InconsistentResultsAreRefusedAndWriteNothing) {
  ScratchDir dir;
  RunStore store((dir / "runs.db").string());
  const int64_t id = store.create_run(sample_run("eval", 1000));
  // Swapped arguments.
  EXPECT_THROW(store.write_epoch_eval(id, 1, 1, "test", retrieval("i2t", 1, 1, 0),
                                      retrieval("t2i", 1, 1, 0)),
               StoreError);
  RetrievalResult ragged = retrieval("t2i", 1, 3, 0);
  ragged.topk.pop_back();
  EXPECT_THROW(store.write_epoch_eval(id, 1, 1, "test", ragged, retrieval("i2t", 1, 1, 0)),
               StoreError);
  EXPECT_TRUE(store.epoch_evals(id).empty());
}

TEST(RunStoreEvals, WritingTheSameEpochAndSplitAgainReplacesIt) {
  ScratchDir dir;
  RunStore store((dir / "runs.db").string());
  const int64_t id = store.create_run(sample_run("eval", 1000));
  store.write_epoch_eval(id, 1, 100, "test", retrieval("t2i", 10, 5, 0),
                         retrieval("i2t", 20, 5, 0));
  store.write_epoch_eval(id, 1, 100, "val", retrieval("t2i", 50, 2, 0), retrieval("i2t", 60, 2, 0));
  RetrievalResult t2i = retrieval("t2i", 11, 3, 700);
  t2i.recall = {{1, 11.0}};  // fewer K than before: the old K=5, K=10 rows must go
  store.write_epoch_eval(id, 1, 150, "test", t2i, retrieval("i2t", 21, 1, 800));

  std::vector<EpochEvalRow> test_rows;
  for (const auto& r : store.epoch_evals(id)) {
    if (r.split == "test") test_rows.push_back(r);
  }
  ASSERT_EQ(test_rows.size(), 4u);  // i2t K=1,5,10 + t2i K=1
  EXPECT_EQ(test_rows[3].direction, "t2i");
  EXPECT_EQ(test_rows[3].recall, 11.0);
  EXPECT_EQ(test_rows[3].step, 150);
  const auto ranks = store.query_ranks(id, 1, "test", "t2i");
  ASSERT_EQ(ranks.size(), 3u);
  EXPECT_EQ(ranks[0].topk.front(), 700);
  EXPECT_EQ(store.query_ranks(id, 1, "test", "i2t").size(), 1u);
  // The other split of the same epoch is untouched.
  EXPECT_EQ(store.query_ranks(id, 1, "val", "t2i").size(), 2u);
  EXPECT_EQ(store.epoch_evals(id).size(), 4u + 6u);
}

TEST(RunStoreEvals, DeleteAfterEpochDropsLaterRecallsAndRanks) {
  ScratchDir dir;
  RunStore store((dir / "runs.db").string());
  const int64_t id = store.create_run(sample_run("eval", 1000));
  const int64_t other = store.create_run(sample_run("other", 1000));
  for (int epoch = 0; epoch <= 3; ++epoch) {
    store.write_epoch_eval(id, epoch, epoch * 10, "test", retrieval("t2i", epoch, 2, 0),
                           retrieval("i2t", epoch, 2, 0));
  }
  store.write_epoch_eval(other, 3, 30, "test", retrieval("t2i", 1, 2, 0),
                         retrieval("i2t", 1, 2, 0));
  store.delete_epoch_evals_after(id, 1);
  const auto evals = store.epoch_evals(id);
  ASSERT_EQ(evals.size(), 12u);  // epochs 0 and 1, 2 directions x 3 K
  EXPECT_EQ(evals.front().epoch, 0);
  EXPECT_EQ(evals.back().epoch, 1);
  EXPECT_EQ(store.query_ranks(id, 1, "test", "t2i").size(), 2u);
  EXPECT_TRUE(store.query_ranks(id, 2, "test", "t2i").empty());
  EXPECT_TRUE(store.query_ranks(id, 3, "test", "i2t").empty());
  EXPECT_EQ(store.query_ranks(other, 3, "test", "i2t").size(), 2u);
}

// ---- checkpoints ----

TEST(RunStoreCheckpoints, RoundTripOrderAndReplaceOfTheSameEpoch) {
  ScratchDir dir;
  RunStore store((dir / "runs.db").string());
  const int64_t id = store.create_run(sample_run("ckpt", 1000));
  store.add_checkpoint(id, CheckpointRow{3, 300, "/runs/1/e3.pt", 33.3, 3000});
  store.add_checkpoint(id, CheckpointRow{1, 100, "/runs/1/e1.pt", 1.0 / 3.0, 1000});
  store.add_checkpoint(id, CheckpointRow{2, 200, "/runs/1/e2.pt", 22.2, 2000});
  store.add_checkpoint(id, CheckpointRow{2, 210, "/runs/1/e2b.pt", 25.5, 2100});  // replaces
  const auto out = store.checkpoints(id);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].epoch, 1);
  EXPECT_EQ(bits(out[0].mean_r1), bits(1.0 / 3.0));
  EXPECT_EQ(out[0].created_at_ms, 1000);
  EXPECT_EQ(out[1].epoch, 2);
  EXPECT_EQ(out[1].step, 210);
  EXPECT_EQ(out[1].path, "/runs/1/e2b.pt");
  EXPECT_EQ(out[1].mean_r1, 25.5);
  EXPECT_EQ(out[1].created_at_ms, 2100);
  EXPECT_EQ(out[2].epoch, 3);
  EXPECT_EQ(out[2].path, "/runs/1/e3.pt");
}

// ---- dead runs ----

TEST(RunStoreDeadRuns, OnlyRunsOfDeadProcessesOnThisHostAreInterrupted) {
  ScratchDir dir;
  RunStore store((dir / "runs.db").string());
  const std::string host = current_host_name();
  ASSERT_FALSE(host.empty());

  // A pid that certainly existed and is gone: a reaped child.
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) ::_exit(0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);

  auto run_with = [&](const std::string& name, RunStatus s, int64_t pid, const std::string& h) {
    RunRecord r = sample_run(name, 1000);
    r.status = s;
    r.pid = pid;
    r.host = h;
    return store.create_run(r);
  };
  const int64_t dead = run_with("dead", RunStatus::Running, child, host);
  const int64_t dead_queued = run_with("dead queued", RunStatus::Queued, child, host);
  const int64_t alive_queued = run_with("alive queued", RunStatus::Queued, ::getpid(), host);
  const int64_t alive = run_with("alive", RunStatus::Running, ::getpid(), host);
  const int64_t elsewhere = run_with("elsewhere", RunStatus::Running, child, host + "-other");
  const int64_t not_started = run_with("not started", RunStatus::Running, 0, host);
  const int64_t finished = run_with("finished", RunStatus::Finished, child, host);

  EXPECT_EQ(store.mark_dead_runs_interrupted(), 2);
  const auto d = store.find_run(dead);
  EXPECT_EQ(d->status, RunStatus::Interrupted);
  EXPECT_NE(d->status_message.find("interrupted"), std::string::npos) << d->status_message;
  EXPECT_NE(d->status_message.find(std::to_string(child)), std::string::npos) << d->status_message;
  // Killed between its row and its first step: interrupted too, never queued forever.
  const auto q = store.find_run(dead_queued);
  EXPECT_EQ(q->status, RunStatus::Interrupted);
  EXPECT_NE(q->status_message.find("before the run's first step"), std::string::npos)
      << q->status_message;
  EXPECT_EQ(store.find_run(alive_queued)->status, RunStatus::Queued);
  EXPECT_EQ(store.find_run(alive)->status, RunStatus::Running);
  EXPECT_EQ(store.find_run(elsewhere)->status, RunStatus::Running);
  EXPECT_EQ(store.find_run(not_started)->status, RunStatus::Running);
  EXPECT_EQ(store.find_run(finished)->status, RunStatus::Finished);
  EXPECT_EQ(store.mark_dead_runs_interrupted(), 0);
}

// ---- crash consistency ----

bool read_full(int fd, void* buffer, std::size_t size) {
  auto* p = static_cast<char*>(buffer);
  while (size > 0) {
    const ssize_t n = ::read(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

uintmax_t file_size_or_zero(const std::string& path) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  return ec ? 0 : size;
}

TEST(RunStoreCrash, WriterKilledMidBatchLeavesAConsistentDatabase) {
  constexpr int64_t kCommittedRows = 500;
  constexpr int64_t kBigBatchRows = 200000;  // ~14 MB: far beyond the page cache, so it spills
  ScratchDir dir;
  const std::string path = (dir / "runs.db").string();
  const std::string wal = path + "-wal";
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);

  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // Child: no gtest assertions here, only exit codes; the parent judges.
    ::close(pipe_fds[0]);
    try {
      RunStore store(path);
      RunRecord r = sample_run("killed", 1000);
      r.status = RunStatus::Running;
      r.pid = ::getpid();
      r.host = current_host_name();
      const int64_t id = store.create_run(r);
      store.append_step_metrics(id, metrics(1, kCommittedRows));
      const std::vector<StepMetricRow> big = metrics(kCommittedRows + 1, kBigBatchRows);
      // Tell the parent the run id and how big the WAL is before the big transaction starts;
      // the WAL growing past that means the uncommitted batch is being written.
      const int64_t hello[2] = {id, static_cast<int64_t>(file_size_or_zero(wal))};
      if (::write(pipe_fds[1], hello, sizeof hello) != sizeof hello) ::_exit(2);
      store.append_step_metrics(id, big);
      const char finished = 'F';  // reached only if the kill came too late
      if (::write(pipe_fds[1], &finished, 1) != 1) ::_exit(2);
    } catch (...) {
      ::_exit(3);
    }
    ::_exit(0);
  }

  ::close(pipe_fds[1]);
  int64_t hello[2] = {0, 0};
  const bool got_hello = read_full(pipe_fds[0], hello, sizeof hello);
  if (got_hello) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (file_size_or_zero(wal) <= static_cast<uintmax_t>(hello[1]) &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }
  ::kill(child, SIGKILL);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);  // reaped: its pid no longer exists
  ASSERT_TRUE(got_hello) << "child failed before the big batch, exit status " << status;
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
      << "child was not killed mid-batch (status " << status << ")";
  char extra = 0;
  EXPECT_EQ(::read(pipe_fds[0], &extra, 1), 0) << "the big batch committed before the kill";
  ::close(pipe_fds[0]);
  const int64_t id = hello[0];
  EXPECT_GT(file_size_or_zero(wal), static_cast<uintmax_t>(hello[1]))
      << "the kill did not hit an open transaction";

  RunStore store(path);
  EXPECT_EQ(RawDb(path).text("PRAGMA integrity_check"), "ok");
  const auto rows = store.step_metrics(id);
  ASSERT_EQ(rows.size(), static_cast<std::size_t>(kCommittedRows)) << "partial batch visible";
  EXPECT_EQ(rows.back().step, kCommittedRows);
  EXPECT_EQ(RawDb(path).text("SELECT count(*) FROM step_metrics"), std::to_string(kCommittedRows));
  ASSERT_TRUE(store.find_run(id));
  EXPECT_EQ(store.find_run(id)->status, RunStatus::Running);
  EXPECT_EQ(store.mark_dead_runs_interrupted(), 1);
  EXPECT_EQ(store.find_run(id)->status, RunStatus::Interrupted);
  // Still writable: the next start resumes the run.
  store.append_step_metrics(id, metrics(kCommittedRows + 1, 10));
  EXPECT_EQ(store.step_metrics(id).size(), static_cast<std::size_t>(kCommittedRows + 10));
}

// ---- two connections ----

TEST(RunStoreConcurrency, WriterAndReaderOnTwoConnectionsDoNotGetBusy) {
  constexpr int kBatches = 150;
  constexpr int64_t kRowsPerBatch = 40;
  ScratchDir dir;
  const std::string path = (dir / "runs.db").string();
  int64_t id = 0;
  {
    RunStore setup(path);
    id = setup.create_run(sample_run("shared", 1000));
  }
  std::atomic<bool> writer_done{false};
  std::string writer_error;
  std::string reader_error;
  int reads = 0;

  std::thread writer([&] {
    try {
      RunStore store(path);
      for (int b = 0; b < kBatches; ++b) {
        store.append_step_metrics(id, metrics(1 + b * kRowsPerBatch, kRowsPerBatch));
        store.set_status(id, RunStatus::Running, "batch " + std::to_string(b));
      }
    } catch (const std::exception& e) {
      writer_error = e.what();
    }
    writer_done = true;
  });
  std::thread reader([&] {
    try {
      RunStore store(path);
      while (!writer_done) {
        const auto rows = store.step_metrics(id);
        // A reader sees whole batches only.
        if (rows.size() % kRowsPerBatch != 0) {
          reader_error = "saw " + std::to_string(rows.size()) + " rows: a partial batch";
          break;
        }
        store.list_runs();
        // An occasional write from this connection too, which has to wait for the writer's lock.
        if (reads % 10 == 0) store.set_best_epoch(id, reads);
        ++reads;
      }
    } catch (const std::exception& e) {
      reader_error = e.what();
    }
  });
  writer.join();
  reader.join();
  EXPECT_EQ(writer_error, "");
  EXPECT_EQ(reader_error, "");
  EXPECT_GT(reads, 0);
  RunStore store(path);
  EXPECT_EQ(store.step_metrics(id).size(), static_cast<std::size_t>(kBatches * kRowsPerBatch));
  EXPECT_EQ(store.find_run(id)->status_message, "batch " + std::to_string(kBatches - 1));
}

// Two `hnclip train` started at once on a new --db (two_writers' first runs, and the workbench's
// ranks) both switch the new file to WAL. Each holds a read lock while it asks for the exclusive
// one, and SQLite answers one of them "database is locked" at once instead of calling its busy
// handler (it would deadlock): that start failed before anything was recorded.
TEST(RunStoreConcurrency, ConnectionsOpeningOneNewFileAtOnceAllOpenIt) {
  constexpr int kRounds = 25;
  constexpr int kConnections = 4;
  ScratchDir dir;
  for (int round = 0; round < kRounds; ++round) {
    const std::string path = (dir / ("runs" + std::to_string(round) + ".db")).string();
    const auto errors = open_at_once(kConnections, [&](int c) {
      RunStore(path).create_run(sample_run("opened " + std::to_string(c), 1000 + c));
    });
    for (int c = 0; c < kConnections; ++c) {
      ASSERT_EQ(errors[c], "") << "round " << round << ", connection " << c;
    }
    EXPECT_EQ(RunStore(path).list_runs().size(), static_cast<std::size_t>(kConnections));
    EXPECT_EQ(RawDb(path).text("PRAGMA journal_mode"), "wal");
  }
}

}  // namespace
}  // namespace hnclip

namespace hnclip {
namespace {

// step_loss_counts: per epoch, every step with a recorded plain loss, and those below the
// threshold (strictly); steps without a loss (NaN, stored NULL) and other runs do not count.
TEST(RunStoreSteps, LossCountsPerEpochFromEveryStep) {
  test::ScratchDir dir;
  RunStore store((dir / "runs.db").string());
  const int64_t id = store.create_run(sample_run("a", 1000));
  const int64_t other = store.create_run(sample_run("b", 2000));
  auto row = [](int64_t step, int epoch, double loss_standard) {
    StepMetricRow r = metric(step, epoch, 1.0);
    r.loss_standard = loss_standard;
    return r;
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  store.append_step_metrics(id, {row(1, 1, 5e-4), row(2, 1, 1e-3), row(3, 1, 0.2), row(4, 1, 9e-4),
                                 row(5, 2, 1e-5), row(6, 2, nan), row(7, 3, nan)});
  store.append_step_metrics(other, {row(1, 1, 1e-6)});
  const auto counts = store.step_loss_counts(id, 1e-3);
  ASSERT_EQ(counts.size(), 2u);  // epoch 3 has no recorded loss
  EXPECT_EQ(counts[0].epoch, 1);
  EXPECT_EQ(counts[0].steps, 4);
  EXPECT_EQ(counts[0].below, 2);  // 1e-3 itself is not below
  EXPECT_EQ(counts[1].epoch, 2);
  EXPECT_EQ(counts[1].steps, 1);
  EXPECT_EQ(counts[1].below, 1);
  EXPECT_TRUE(store.step_loss_counts(999, 1e-3).empty());
}

}  // namespace
}  // namespace hnclip
