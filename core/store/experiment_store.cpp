// RunStore's experiment tables (schema v7): experiments, experiment_cells and experiment_runs.
// Kept apart from run_store.cpp because an experiment is a grid over runs, not a run.

#include <sqlite3.h>

#include "store/host_process.h"
#include "store/run_store.h"
#include "store/sqlite_statement.h"
#include "store/sqlite_transaction.h"

namespace hnclip {

namespace {

constexpr const char* kExperimentSelect =
    "SELECT id, name, spec_json, status, status_message, created_at_ms, finished_at_ms, pid, "
    "host FROM experiments";

ExperimentRecord read_experiment(const Statement& st) {
  ExperimentRecord r;
  r.id = st.column_int64(0);
  r.name = st.column_text(1);
  r.spec_json = st.column_text(2);
  r.status = st.column_text(3);
  r.status_message = st.column_text(4);
  r.created_at_ms = st.column_int64(5);
  r.finished_at_ms = st.column_int64(6);
  r.pid = st.column_int64(7);
  r.host = st.column_text(8);
  return r;
}

void update_one_experiment(sqlite3* db, const std::string& path, Statement& st,
                           int64_t experiment, const std::string& op) {
  st.run();
  if (sqlite3_changes(db) == 0) {
    throw StoreError(path + ": " + op + " failed: no experiment with id " +
                     std::to_string(experiment));
  }
}

}  // namespace

int64_t RunStore::create_experiment(const ExperimentRecord& record,
                                    const std::vector<ExperimentCellRow>& cells,
                                    const std::vector<ExperimentSlotRow>& slots) {
  const std::string op = "create experiment \"" + record.name + "\"";
  Transaction tx(db_, path_, op);
  int64_t id = 0;
  {
    Statement st(db_, path_,
                 "INSERT INTO experiments (name, spec_json, status, status_message, "
                 "created_at_ms, finished_at_ms, pid, host) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                 op);
    st.bind_text(1, record.name)
        .bind_text(2, record.spec_json)
        .bind_text(3, record.status)
        .bind_text(4, record.status_message)
        .bind_int64(5, record.created_at_ms ? record.created_at_ms : unix_time_ms())
        .bind_int64(6, record.finished_at_ms)
        .bind_int64(7, record.pid)
        .bind_text(8, record.host);
    st.run();
    id = sqlite3_last_insert_rowid(db_);
  }
  {
    Statement st(db_, path_,
                 "INSERT INTO experiment_cells (experiment_id, cell, label, role, settings_json) "
                 "VALUES (?1, ?2, ?3, ?4, ?5)",
                 op);
    for (const auto& c : cells) {
      st.bind_int64(1, id)
          .bind_int64(2, c.cell)
          .bind_text(3, c.label)
          .bind_text(4, c.role)
          .bind_text(5, c.settings_json);
      st.run();
      st.reset();
    }
  }
  {
    Statement st(db_, path_,
                 "INSERT INTO experiment_runs (experiment_id, cell, seed, config_json, run_id, "
                 "reused) VALUES (?1, ?2, ?3, ?4, NULLIF(?5, 0), ?6)",
                 op);
    for (const auto& s : slots) {
      st.bind_int64(1, id)
          .bind_int64(2, s.cell)
          .bind_int64(3, s.seed)
          .bind_text(4, s.config_json)
          .bind_int64(5, s.run_id)
          .bind_int64(6, s.reused ? 1 : 0);
      st.run();
      st.reset();
    }
  }
  tx.commit();
  return id;
}

std::optional<ExperimentRecord> RunStore::find_experiment(int64_t id) const {
  Statement st(db_, path_, (std::string(kExperimentSelect) + " WHERE id = ?1").c_str(),
               "read experiment " + std::to_string(id));
  st.bind_int64(1, id);
  if (!st.step()) return std::nullopt;
  return read_experiment(st);
}

std::vector<ExperimentRecord> RunStore::list_experiments() const {
  Statement st(db_, path_, (std::string(kExperimentSelect) + " ORDER BY id DESC").c_str(),
               "list experiments");
  std::vector<ExperimentRecord> out;
  while (st.step()) out.push_back(read_experiment(st));
  return out;
}

std::vector<ExperimentCellRow> RunStore::experiment_cells(int64_t experiment) const {
  Statement st(db_, path_,
               "SELECT cell, label, role, settings_json FROM experiment_cells "
               "WHERE experiment_id = ?1 ORDER BY cell",
               "read cells of experiment " + std::to_string(experiment));
  st.bind_int64(1, experiment);
  std::vector<ExperimentCellRow> out;
  while (st.step()) {
    out.push_back({static_cast<int>(st.column_int64(0)), st.column_text(1), st.column_text(2),
                   st.column_text(3)});
  }
  return out;
}

std::vector<ExperimentSlotRow> RunStore::experiment_slots(int64_t experiment) const {
  Statement st(db_, path_,
               "SELECT cell, seed, config_json, IFNULL(run_id, 0), reused FROM experiment_runs "
               "WHERE experiment_id = ?1 ORDER BY cell, seed",
               "read runs of experiment " + std::to_string(experiment));
  st.bind_int64(1, experiment);
  std::vector<ExperimentSlotRow> out;
  while (st.step()) {
    out.push_back({static_cast<int>(st.column_int64(0)), st.column_int64(1), st.column_text(2),
                   st.column_int64(3), st.column_int64(4) != 0});
  }
  return out;
}

void RunStore::set_experiment_slot_run(int64_t experiment, int cell, int64_t seed, int64_t run,
                                       bool reused) {
  const std::string op = "link run " + std::to_string(run) + " to experiment " +
                         std::to_string(experiment) + " cell " + std::to_string(cell) + " seed " +
                         std::to_string(seed);
  Statement st(db_, path_,
               "UPDATE experiment_runs SET run_id = NULLIF(?1, 0), reused = ?2 "
               "WHERE experiment_id = ?3 AND cell = ?4 AND seed = ?5",
               op);
  st.bind_int64(1, run).bind_int64(2, reused ? 1 : 0).bind_int64(3, experiment);
  st.bind_int64(4, cell).bind_int64(5, seed);
  update_one_experiment(db_, path_, st, experiment, op);
}

void RunStore::set_experiment_status(int64_t experiment, const std::string& status,
                                     const std::string& message) {
  const std::string op = "set status of experiment " + std::to_string(experiment);
  Statement st(db_, path_, "UPDATE experiments SET status = ?1, status_message = ?2 WHERE id = ?3",
               op);
  st.bind_text(1, status).bind_text(2, message).bind_int64(3, experiment);
  update_one_experiment(db_, path_, st, experiment, op);
}

void RunStore::set_experiment_running(int64_t experiment, int64_t pid, const std::string& host) {
  const std::string op = "start experiment " + std::to_string(experiment);
  Statement st(db_, path_,
               "UPDATE experiments SET status = ?1, status_message = '', pid = ?2, host = ?3, "
               "finished_at_ms = 0 WHERE id = ?4",
               op);
  st.bind_text(1, kExperimentRunning).bind_int64(2, pid).bind_text(3, host);
  st.bind_int64(4, experiment);
  update_one_experiment(db_, path_, st, experiment, op);
}

void RunStore::set_experiment_finished(int64_t experiment, const std::string& status,
                                       const std::string& message, int64_t finished_at_ms) {
  const std::string op = "end experiment " + std::to_string(experiment);
  Statement st(db_, path_,
               "UPDATE experiments SET status = ?1, status_message = ?2, finished_at_ms = ?3 "
               "WHERE id = ?4",
               op);
  st.bind_text(1, status).bind_text(2, message).bind_int64(3, finished_at_ms);
  st.bind_int64(4, experiment);
  update_one_experiment(db_, path_, st, experiment, op);
}

int RunStore::mark_dead_experiments_interrupted() {
  const std::string op = "mark dead experiments interrupted";
  const std::string host = current_host_name();
  Transaction tx(db_, path_, op);
  std::vector<std::pair<int64_t, int64_t>> dead;  // (id, pid)
  {
    Statement st(db_, path_,
                 "SELECT id, pid FROM experiments WHERE status = ?1 AND host = ?2 AND pid > 0", op);
    st.bind_text(1, kExperimentRunning).bind_text(2, host);
    while (st.step()) {
      if (!process_exists(st.column_int64(1))) dead.emplace_back(st.column_int64(0), st.column_int64(1));
    }
  }
  Statement update(db_, path_,
                   "UPDATE experiments SET status = ?1, status_message = ?2 "
                   "WHERE id = ?3 AND status = ?4 AND pid = ?5",
                   op);
  for (const auto& [id, pid] : dead) {
    update.bind_text(1, kExperimentInterrupted)
        .bind_text(2, "interrupted: its process " + std::to_string(pid) + " on " + host +
                          " ended before the experiment did")
        .bind_int64(3, id)
        .bind_text(4, kExperimentRunning)
        .bind_int64(5, pid);
    update.run();
    update.reset();
  }
  tx.commit();
  return static_cast<int>(dead.size());
}

std::vector<int64_t> RunStore::experiments_of_run(int64_t run) const {
  Statement st(db_, path_,
               "SELECT DISTINCT experiment_id FROM experiment_runs WHERE run_id = ?1 "
               "ORDER BY experiment_id",
               "read experiments of run " + std::to_string(run));
  st.bind_int64(1, run);
  std::vector<int64_t> out;
  while (st.step()) out.push_back(st.column_int64(0));
  return out;
}

bool RunStore::delete_experiment(int64_t id) {
  Statement st(db_, path_, "DELETE FROM experiments WHERE id = ?1",
               "delete experiment " + std::to_string(id));
  st.bind_int64(1, id);
  st.run();
  return sqlite3_changes(db_) > 0;
}

}  // namespace hnclip
