#include "store/schema_migrations.h"

namespace hnclip {

namespace {

// Version 1: the initial tables. Metric doubles are nullable because SQLite stores NaN as NULL
// and a diverged loss must still be recordable; RunStore reads NULL back as NaN.
constexpr const char* kV1InitialTables = R"sql(
CREATE TABLE runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  status TEXT NOT NULL,
  config_json TEXT NOT NULL DEFAULT '{}',
  device TEXT NOT NULL DEFAULT '',
  git_rev TEXT NOT NULL DEFAULT '',
  created_at_ms INTEGER NOT NULL,
  started_at_ms INTEGER NOT NULL DEFAULT 0,
  finished_at_ms INTEGER NOT NULL DEFAULT 0,
  pid INTEGER NOT NULL DEFAULT 0,
  host TEXT NOT NULL DEFAULT '',
  best_epoch INTEGER NOT NULL DEFAULT -1
);
CREATE INDEX runs_by_status ON runs(status);

CREATE TABLE step_metrics (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  step INTEGER NOT NULL,
  epoch INTEGER NOT NULL,
  wall_time_s REAL,
  loss REAL,
  lr REAL,
  logit_scale REAL,
  grad_norm REAL,
  PRIMARY KEY (run_id, step)
) WITHOUT ROWID;

CREATE TABLE epoch_evals (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  epoch INTEGER NOT NULL,
  step INTEGER NOT NULL,
  split TEXT NOT NULL,
  direction TEXT NOT NULL,
  k INTEGER NOT NULL,
  recall REAL,
  PRIMARY KEY (run_id, epoch, split, direction, k)
) WITHOUT ROWID;

CREATE TABLE query_ranks (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  epoch INTEGER NOT NULL,
  split TEXT NOT NULL,
  direction TEXT NOT NULL,
  query INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  topk BLOB NOT NULL,
  PRIMARY KEY (run_id, epoch, split, direction, query)
) WITHOUT ROWID;

CREATE TABLE checkpoints (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  epoch INTEGER NOT NULL,
  step INTEGER NOT NULL,
  path TEXT NOT NULL,
  mean_r1 REAL,
  created_at_ms INTEGER NOT NULL,
  PRIMARY KEY (run_id, epoch)
);
)sql";

// Version 2: a run's status message (why it failed / was interrupted), and the plain InfoNCE
// loss next to the optimised one. Rows from version 1 get '' and NULL (read back as NaN: the
// standard loss was not recorded, which a plot should show as a gap, not as zero).
constexpr const char* kV2StatusMessageAndStandardLoss = R"sql(
ALTER TABLE runs ADD COLUMN status_message TEXT NOT NULL DEFAULT '';
ALTER TABLE step_metrics ADD COLUMN loss_standard REAL;
)sql";

// Version 3: gradient probes (paper Fig. 4/A8), one row per probed step — ratio may be +inf (a
// vanished standard gradient) and cosine NULL (undefined), so both are nullable REALs — and Ḡ
// snapshots of a few fixed training batches per epoch (paper Fig. A5): the caption ids of the
// batch and the B×B matrix as little-endian float32 blobs, with its largest off-diagonal entry.
constexpr const char* kV3GradientProbes = R"sql(
CREATE TABLE probes (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  step INTEGER NOT NULL,
  epoch INTEGER NOT NULL,
  loss_standard REAL,
  loss_boosted REAL,
  grad_norm_standard REAL,
  grad_norm_boosted REAL,
  grad_ratio REAL,
  grad_cosine REAL,
  PRIMARY KEY (run_id, step)
) WITHOUT ROWID;

CREATE TABLE gbar_snapshots (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  epoch INTEGER NOT NULL,
  batch INTEGER NOT NULL,
  size INTEGER NOT NULL,
  captions BLOB NOT NULL,
  matrix BLOB NOT NULL,
  max_value REAL,
  max_i INTEGER NOT NULL,
  max_j INTEGER NOT NULL,
  PRIMARY KEY (run_id, epoch, batch)
);
)sql";

// Version 4: caption geometry per (dataset, encoder) (issue 3): a summary row with histograms
// and bucket fractions as JSON arrays, every caption's nearest neighbours with the content words
// they share (JSON array text), and the top near-duplicate pairs. Replaced as a whole per key.
constexpr const char* kV4CaptionGeometry = R"sql(
CREATE TABLE caption_stats (
  dataset_key TEXT NOT NULL,
  encoder_key TEXT NOT NULL,
  train_images INTEGER NOT NULL,
  test_images INTEGER NOT NULL,
  captions INTEGER NOT NULL,
  mean_words REAL,
  mean_pairwise REAL,
  mean_hardest REAL,
  median_hardest REAL,
  batch_size INTEGER NOT NULL,
  bucket_fractions_json TEXT NOT NULL,
  bucket_counts_json TEXT NOT NULL,
  pairwise_histogram_json TEXT NOT NULL,
  hardest_histogram_json TEXT NOT NULL,
  created_at_ms INTEGER NOT NULL,
  PRIMARY KEY (dataset_key, encoder_key)
);

CREATE TABLE caption_neighbors (
  dataset_key TEXT NOT NULL,
  encoder_key TEXT NOT NULL,
  caption INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  neighbor INTEGER NOT NULL,
  cosine REAL,
  shared_words_json TEXT NOT NULL,
  PRIMARY KEY (dataset_key, encoder_key, caption, rank),
  FOREIGN KEY (dataset_key, encoder_key) REFERENCES caption_stats(dataset_key, encoder_key)
    ON DELETE CASCADE
) WITHOUT ROWID;

CREATE TABLE near_duplicate_pairs (
  dataset_key TEXT NOT NULL,
  encoder_key TEXT NOT NULL,
  rank INTEGER NOT NULL,
  caption_a INTEGER NOT NULL,
  caption_b INTEGER NOT NULL,
  cosine REAL,
  PRIMARY KEY (dataset_key, encoder_key, rank),
  FOREIGN KEY (dataset_key, encoder_key) REFERENCES caption_stats(dataset_key, encoder_key)
    ON DELETE CASCADE
) WITHOUT ROWID;
)sql";

// Version 5: user-facing run metadata. Tags are free text the Runs tab filters on; the data
// summary is what the benchmark reader counted (images and captions per split) when the run
// started, kept with the run because the data set on disk may change later.
constexpr const char* kV5RunTagsAndDataSummary = R"sql(
ALTER TABLE runs ADD COLUMN tags TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN data_summary_json TEXT NOT NULL DEFAULT '{}';
)sql";

// Version 6: where each probe's gradient goes (issue 14): per Ḡ hardness bucket (0 = <0.5 …
// 4 = >=0.9, eval/caption_geometry.h) the share of the negatives' softmax mass under the plain
// and the boosted logits. Rows hang off their probe, so deleting probes (a resume, a deleted run)
// deletes them too. Probes written before version 6 simply have no rows here.
constexpr const char* kV6ProbeGradientMass = R"sql(
CREATE TABLE probe_gradient_mass (
  run_id INTEGER NOT NULL,
  step INTEGER NOT NULL,
  bucket INTEGER NOT NULL,
  share_plain REAL,
  share_boosted REAL,
  PRIMARY KEY (run_id, step, bucket),
  FOREIGN KEY (run_id, step) REFERENCES probes(run_id, step) ON DELETE CASCADE
) WITHOUT ROWID;
)sql";

// Version 7: experiments (issue 13) — a grid of runs defined by a base config, axes and seeds,
// with its controls. A cell is one configuration of the grid (its role says whether it is a
// method cell or which control it is); a slot is (cell, seed) with the exact config it needs and
// the run that fills it. A run may fill slots of several experiments (a finished run with the
// same config is reused), so the link is a table of its own; deleting the run empties the slot
// (run_id NULL) and the experiment trains it again when resumed.
constexpr const char* kV7Experiments = R"sql(
CREATE TABLE experiments (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  spec_json TEXT NOT NULL,
  status TEXT NOT NULL,
  status_message TEXT NOT NULL DEFAULT '',
  created_at_ms INTEGER NOT NULL,
  finished_at_ms INTEGER NOT NULL DEFAULT 0,
  pid INTEGER NOT NULL DEFAULT 0,
  host TEXT NOT NULL DEFAULT ''
);

CREATE TABLE experiment_cells (
  experiment_id INTEGER NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,
  cell INTEGER NOT NULL,
  label TEXT NOT NULL,
  role TEXT NOT NULL,
  settings_json TEXT NOT NULL,
  PRIMARY KEY (experiment_id, cell)
);

CREATE TABLE experiment_runs (
  experiment_id INTEGER NOT NULL,
  cell INTEGER NOT NULL,
  seed INTEGER NOT NULL,
  config_json TEXT NOT NULL,
  run_id INTEGER REFERENCES runs(id) ON DELETE SET NULL,
  reused INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (experiment_id, cell, seed),
  FOREIGN KEY (experiment_id, cell) REFERENCES experiment_cells(experiment_id, cell)
    ON DELETE CASCADE
);
CREATE INDEX experiment_runs_by_run ON experiment_runs(run_id);
)sql";

// Version 8: transfer evaluations (issue 13, cross-domain) — a finished run's checkpoint evaluated
// on another benchmark or split than the one it trained for (`hnclip eval --run ID --benchmark X
// --split S`). Kept apart from epoch_evals, whose rows are the run's own test/val splits and
// choose its best epoch; `benchmark` is the canonical key of the data (benchmark_spec's words,
// e.g. "synthetic default seed 1" or "manifest /abs/path"), so the same split of two data sets
// never mixes.
constexpr const char* kV8TransferEvals = R"sql(
CREATE TABLE transfer_evals (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  epoch INTEGER NOT NULL,
  benchmark TEXT NOT NULL,
  split TEXT NOT NULL,
  direction TEXT NOT NULL,
  k INTEGER NOT NULL,
  recall REAL,
  images INTEGER NOT NULL,
  captions INTEGER NOT NULL,
  evaluated_at_ms INTEGER NOT NULL,
  PRIMARY KEY (run_id, epoch, benchmark, split, direction, k)
) WITHOUT ROWID;
)sql";

// Version 9: a step's loss terms (issue 18) — what a framework's loss is made of (train/
// loss_term.h), one row per term, Σ weight · value = step_metrics.loss. Rows hang off their step,
// so a resume's delete_step_metrics_after and a deleted run delete them too.
constexpr const char* kV9StepLossTerms = R"sql(
CREATE TABLE step_loss_terms (
  run_id INTEGER NOT NULL,
  step INTEGER NOT NULL,
  term TEXT NOT NULL,
  weight REAL NOT NULL,
  value REAL,
  PRIMARY KEY (run_id, step, term),
  FOREIGN KEY (run_id, step) REFERENCES step_metrics(run_id, step) ON DELETE CASCADE
) WITHOUT ROWID;
)sql";

// Version 10: how many of a transfer evaluation's images are the run's own training images (the
// same files, named by another split or manifest): a recall on those is not transfer. NULL where
// it was not counted (rows written before this version, or the run's data unreadable then).
constexpr const char* kV10TransferTrainingImages = R"sql(
ALTER TABLE transfer_evals ADD COLUMN training_images INTEGER;
)sql";

}  // namespace

const std::vector<MigrationStep>& schema_migrations() {
  static const std::vector<MigrationStep> steps = {
      {1, "create initial tables", kV1InitialTables},
      {2, "add runs.status_message and step_metrics.loss_standard",
       kV2StatusMessageAndStandardLoss},
      {3, "add the probes and gbar_snapshots tables", kV3GradientProbes},
      {4, "add caption_stats, caption_neighbors and near_duplicate_pairs (caption geometry)",
       kV4CaptionGeometry},
      {5, "add runs.tags and runs.data_summary_json", kV5RunTagsAndDataSummary},
      {6, "add the probe_gradient_mass table", kV6ProbeGradientMass},
      {7, "add the experiments, experiment_cells and experiment_runs tables", kV7Experiments},
      {8, "add the transfer_evals table (cross-domain evaluations)", kV8TransferEvals},
      {9, "add the step_loss_terms table (a framework's loss terms per step)", kV9StepLossTerms},
      {10, "add transfer_evals.training_images (the run's training images among them)",
       kV10TransferTrainingImages},
  };
  return steps;
}

}  // namespace hnclip
