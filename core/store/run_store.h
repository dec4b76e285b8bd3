#pragma once
// RunStore: the SQLite database that holds every run (config, status, step metrics, per-epoch
// evaluations, per-query ranks, checkpoints). The CLI and the GUI share one file.
//
// Ownership/threading: one RunStore = one sqlite3 connection; use one RunStore per thread (SQLite
// WAL lets several connections, also from several processes, read while one writes). The file is
// opened in WAL mode with foreign keys on and a busy timeout; its schema version is kept in
// PRAGMA user_version and migrated forward on open. Every multi-row write is one transaction, so
// a killed process leaves either all or none of it.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "eval/retrieval_result.h"
#include "store/caption_geometry_record.h"
#include "store/experiment_record.h"
#include "store/transfer_eval_record.h"
#include "store/store_error.h"
#include "train/loss_term.h"

struct sqlite3;

namespace hnclip {

// Unix epoch milliseconds, the unit of every *_at_ms field.
int64_t unix_time_ms();

enum class RunStatus { Queued, Running, Finished, Failed, Stopped, Interrupted };
std::string to_string(RunStatus s);                      // "queued", "running", ...
RunStatus run_status_from_string(const std::string& s);  // throws StoreError on an unknown name

struct RunRecord {
  int64_t id = 0;
  std::string name;
  RunStatus status = RunStatus::Queued;
  std::string status_message;
  std::string config_json;  // the full TrainConfig as JSON text
  std::string device;       // "cpu", "cuda:0", ...
  std::string git_rev;
  int64_t created_at_ms = 0;             // Unix epoch milliseconds; create_run stores "now" for 0
  int64_t started_at_ms = 0;             // 0 = not yet
  int64_t finished_at_ms = 0;            // 0 = not yet
  int64_t pid = 0;                       // process that runs it while status is running
  std::string host;                      // host name of that process
  int best_epoch = -1;                   // -1 = none yet
  std::string tags;                      // comma-separated, as the user typed them (schema v5)
  std::string data_summary_json = "{}";  // what the reader counted per split (schema v5)
};

// Doubles round-trip exactly; NaN (SQLite has none) is stored as NULL and read back as NaN.
// loss_standard of rows written before schema version 2 reads as NaN (not recorded).
struct StepMetricRow {
  int64_t step = 0;
  int epoch = 0;
  double wall_time_s = 0;
  double loss = 0;
  double loss_standard = 0;
  double lr = 0;
  double logit_scale = 0;
  double grad_norm = 0;
  // The step's loss terms (train/loss_term.h; schema v9, table step_loss_terms): empty when the
  // loss was the global term alone, and for steps written before version 9.
  std::vector<LossTerm> loss_terms;
};

// One epoch's count of steps with a recorded plain InfoNCE loss, and how many of them were
// below a threshold (the paper's "solved" batches, loss < 1e-3).
struct EpochLossCount {
  int epoch = 0;
  int64_t steps = 0;
  int64_t below = 0;
};

struct ProbeRow {
  int64_t step = 0;
  int epoch = 0;
  double loss_standard = 0;
  double loss_boosted = 0;
  double grad_norm_standard = 0;
  double grad_norm_boosted = 0;
  double grad_ratio = 0;   // may be +inf
  double grad_cosine = 0;  // may be NaN (stored as NULL)
  // Shares of the negatives' gradient mass per Ḡ bucket (train/train_events.h ProbeEvent; schema
  // v6, table probe_gradient_mass): both empty (not recorded) or both of one length.
  std::vector<double> mass_share_plain;
  std::vector<double> mass_share_boosted;
};

struct GbarSnapshotRow {
  int epoch = 0;                  // 0 = before training
  int batch = 0;                  // which fixed snapshot batch
  std::vector<int64_t> captions;  // caption ids of the batch, in matrix order
  std::vector<float> matrix;      // size×size, row-major, diagonal 0
  float max_value = 0;            // largest off-diagonal entry, at (max_i, max_j)
  int64_t max_i = 0, max_j = 0;
};

struct EpochEvalRow {
  int epoch = 0;
  int64_t step = 0;
  std::string split;      // "test"
  std::string direction;  // "t2i" | "i2t"
  int k = 0;
  double recall = 0;  // percent
};

struct QueryRankRow {
  int64_t query = 0;          // caption index (t2i) or image index (i2t) in the split
  int64_t rank = 0;           // 1-based rank of the best ground truth
  std::vector<int64_t> topk;  // best candidates first (stored compactly, e.g. as a blob)
};

struct CheckpointRow {
  int epoch = 0;
  int64_t step = 0;
  std::string path;
  double mean_r1 = 0;
  int64_t created_at_ms = 0;  // add_checkpoint stores "now" for 0
};

class RunStore {
 public:
  // Opens or creates the database at `path` (its parent folder must exist) and migrates it to
  // latest_schema_version(). Throws StoreError naming the path if it cannot be opened, is not a
  // database, is another program's SQLite database (tables of its own, no workbench schema: left
  // untouched), or has a schema version newer than this program knows. An older workbench schema
  // is first copied to "<path>.backup-v<N>", then migrated in one transaction. A folder that does
  // not exist or is not writable is refused before anything is created.
  explicit RunStore(const std::string& path);
  ~RunStore();
  RunStore(const RunStore&) = delete;
  RunStore& operator=(const RunStore&) = delete;

  // Throws StoreError, as the constructor would, when no database could be created at `path`
  // (its folder missing or not writable); creates nothing. For callers that create the database
  // only once the rest of their input has been checked.
  static void check_creatable(const std::string& path);

  static int latest_schema_version();
  int schema_version() const;
  const std::string& path() const { return path_; }

  // Runs. create_run ignores record.id and returns the new id.
  int64_t create_run(const RunRecord& record);
  // Deletes a run and (ON DELETE CASCADE) all its metrics, evaluations and checkpoint rows; the
  // checkpoint files themselves are the caller's. Returns false if there was no such run.
  bool delete_run(int64_t id);
  std::optional<RunRecord> find_run(int64_t id) const;
  std::vector<RunRecord> list_runs() const;  // newest first
  // The set_* methods throw StoreError if the run does not exist.
  void set_status(int64_t run, RunStatus status, const std::string& message);
  void set_started(int64_t run, int64_t pid, const std::string& host, const std::string& device,
                   int64_t started_at_ms);
  void set_finished(int64_t run, int64_t finished_at_ms);
  void set_best_epoch(int64_t run, int epoch);
  // User metadata: a non-empty new name; free-text tags; the reader's per-split counts as JSON.
  void rename_run(int64_t run, const std::string& name);
  void set_tags(int64_t run, const std::string& tags);
  void set_data_summary(int64_t run, const std::string& summary_json);
  // Marks every `queued` or `running` run whose process (pid on this host) no longer exists as
  // `interrupted`; returns how many. Called on every open by the programs. Runs with pid 0 (no
  // process recorded) or on another host are left alone: their liveness cannot be checked here.
  int mark_dead_runs_interrupted();

  // Step metrics, appended in one transaction per call. A step already stored for the run is an
  // error (StoreError; nothing of the call is written): a resume must delete_step_metrics_after
  // its checkpoint's step first.
  void append_step_metrics(int64_t run, const std::vector<StepMetricRow>& rows);
  std::vector<StepMetricRow> step_metrics(int64_t run) const;  // ordered by step
  // Drops metrics of steps > step (resume from an earlier checkpoint continues the same curves).
  void delete_step_metrics_after(int64_t run, int64_t step);
  // Per epoch (ordered) of every step's loss_standard: one aggregate query, so a table of many
  // runs does not read their step rows. Steps without a recorded loss are not counted.
  std::vector<EpochLossCount> step_loss_counts(int64_t run, double threshold) const;

  // Gradient probes (with their gradient-mass shares), appended in one transaction per call; a
  // step already stored refuses the whole call, like append_step_metrics, and so do share lists
  // of different lengths (before anything is written).
  void append_probes(int64_t run, const std::vector<ProbeRow>& rows);
  std::vector<ProbeRow> probes(int64_t run) const;  // ordered by step
  void delete_probes_after(int64_t run, int64_t step);

  // Ḡ snapshots: one write replaces the same (run, epoch, batch).
  void write_gbar_snapshot(int64_t run, const GbarSnapshotRow& row);
  std::vector<GbarSnapshotRow> gbar_snapshots(int64_t run) const;  // ordered by epoch, batch
  void delete_gbar_snapshots_after(int64_t run, int epoch);

  // One epoch's evaluation: recall rows and both directions' per-query ranks, in one transaction
  // that replaces anything stored before for the same (run, epoch, split).
  // Recall rows are stored under the directions "t2i" and "i2t" (a result whose own direction
  // is set to something else is refused, which catches swapped arguments); query i of a result
  // gets ranks[i] and topk[i] (topk may be empty: no candidate ids stored).
  void write_epoch_eval(int64_t run, int epoch, int64_t step, const std::string& split,
                        const RetrievalResult& t2i, const RetrievalResult& i2t);
  std::vector<EpochEvalRow> epoch_evals(int64_t run) const;  // ordered by epoch, direction, k
  std::vector<QueryRankRow> query_ranks(int64_t run, int epoch, const std::string& split,
                                        const std::string& direction) const;  // ordered by query
  void delete_epoch_evals_after(int64_t run, int epoch);

  void add_checkpoint(int64_t run, const CheckpointRow& row);  // replaces same (run, epoch)
  std::vector<CheckpointRow> checkpoints(int64_t run) const;   // ordered by epoch

  // Caption geometry of one (dataset, encoder): stats, neighbours and near-duplicate pairs in one
  // transaction that replaces anything stored before under the same keys (record.stats keys).
  void write_caption_geometry(const CaptionGeometryRecord& record);
  // The stored geometry, or nullopt when none is stored for the keys.
  std::optional<CaptionGeometryRecord> caption_geometry(const std::string& dataset_key,
                                                        const std::string& encoder_key) const;
  // Only the summary row (no neighbours or pairs), for listings.
  std::optional<CaptionStatsRow> caption_stats(const std::string& dataset_key,
                                               const std::string& encoder_key) const;
  // One caption's stored neighbours, nearest first (caption < 0: all, by caption, rank).
  std::vector<CaptionNeighborRow> caption_neighbors(const std::string& dataset_key,
                                                    const std::string& encoder_key,
                                                    int64_t caption) const;

  // Experiments (store/experiment_store.cpp). create_experiment writes the experiment, its cells
  // and slots in one transaction and returns its id (record.id is ignored); a slot's run_id, when
  // set, must name an existing run.
  int64_t create_experiment(const ExperimentRecord& record,
                            const std::vector<ExperimentCellRow>& cells,
                            const std::vector<ExperimentSlotRow>& slots);
  std::optional<ExperimentRecord> find_experiment(int64_t id) const;
  std::vector<ExperimentRecord> list_experiments() const;  // newest first
  std::vector<ExperimentCellRow> experiment_cells(int64_t experiment) const;  // by cell
  std::vector<ExperimentSlotRow> experiment_slots(int64_t experiment) const;  // by cell, seed
  // Fills a slot with a run (throws StoreError when the slot does not exist).
  void set_experiment_slot_run(int64_t experiment, int cell, int64_t seed, int64_t run,
                               bool reused);
  void set_experiment_status(int64_t experiment, const std::string& status,
                             const std::string& message);
  // Marks the experiment `running` in this process (pid, host).
  void set_experiment_running(int64_t experiment, int64_t pid, const std::string& host);
  void set_experiment_finished(int64_t experiment, const std::string& status,
                               const std::string& message, int64_t finished_at_ms);
  // `running` experiments whose process (on this host) no longer exists become `interrupted`,
  // as mark_dead_runs_interrupted does for runs; returns how many.
  int mark_dead_experiments_interrupted();
  // The experiments (ids, ascending) a run fills a slot of.
  std::vector<int64_t> experiments_of_run(int64_t run) const;
  // Deletes an experiment with its cells and slots; its runs stay. False when there was none.
  bool delete_experiment(int64_t id);

  // Transfer evaluations (store/transfer_store.cpp): a run's checkpoint on another benchmark or
  // split. One write replaces what was stored for the same (run, epoch, benchmark, split); the
  // directions are checked like write_epoch_eval's. `training_images`: how many of the images
  // the run trained on (none: not counted). Throws StoreError for an unknown run.
  void write_transfer_eval(int64_t run, int epoch, const std::string& benchmark,
                           const std::string& split, int64_t images, int64_t captions,
                           const RetrievalResult& t2i, const RetrievalResult& i2t,
                           std::optional<int64_t> training_images = std::nullopt);
  // Ordered by benchmark, split, epoch, direction, k.
  std::vector<TransferEvalRow> transfer_evals(int64_t run) const;

 private:
  void configure_connection();
  void refuse_foreign_database() const;
  void migrate();
  void backup_before_migration(int found) const;
  int read_user_version() const;
  std::string path_;
  sqlite3* db_ = nullptr;
};

}  // namespace hnclip
