#pragma once
// ExperimentResults: an experiment's table as the paper prints it — per cell the mean ± sample
// std over seeds of every R@K in both directions, at the epoch the selection rule picks, and for
// every method cell (γ > 0) the paired comparison against its controls: the γ = 0 run with
// everything else equal, the learnt-scale run, and the strongest simple control (the best γ = 0
// cell of its context on the selection split, the earlier cell on ties). Read from the RunStore; only finished runs count.
// Plain values: build on any thread that owns the RunStore connection.

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "experiment/paired_statistics.h"
#include "store/run_store.h"

namespace hnclip {

constexpr std::array<int, 5> kExperimentKs{1, 5, 10, 25, 50};
constexpr std::array<const char*, 2> kExperimentDirections{"t2i", "i2t"};
constexpr double kSignificanceLevel = 0.05;  // two-sided, stated in every report

using RecallGrid = std::array<std::array<double, kExperimentKs.size()>, 2>;  // [direction][k]

struct SeedResult {
  int64_t seed = 0;
  int64_t run_id = 0;       // 0: no run yet
  std::string run_status;   // "" without a run
  bool reused = false;
  int epoch = -1;           // the selected epoch; -1: no result (not finished, or not evaluated)
  RecallGrid recall{};      // test split at `epoch`, percent; NaN where missing
  double selection_score = std::numeric_limits<double>::quiet_NaN();  // mean R@1 it was chosen by
};

struct CellResult {
  ExperimentCellRow cell;
  std::vector<SeedResult> seeds;  // in the experiment's seed order
  std::array<std::array<SeedSummary, kExperimentKs.size()>, 2> summary{};
  double selection_mean = std::numeric_limits<double>::quiet_NaN();  // over seeds with a result
  int finished = 0;  // seeds with a result
  // RunTestSet::key of its runs' data (an axis over benchmark_size, data_seed, test_split… gives
  // cells of several sets): means are ranked only against cells of the same set.
  std::string test_set;
};

struct ControlComparison {
  int method_cell = 0;
  int control_cell = 0;
  std::string kind;  // "paired", "learnt scale" or "strongest"
  std::array<PairedComparison, 2> r1;  // method − control, R@1 per direction, paired by seed
  // Per seed (experiment order): exact McNemar p on the test queries one run gets right at R@1
  // and the other wrong; NaN where either run has no result.
  std::array<std::vector<double>, 2> mcnemar_p;
};

// One benchmark / split the experiment's runs were also evaluated on at their selected epochs
// (`hnclip experiment eval`; transfer_evals): the cross-domain columns of Tables A7 / A10.
struct TransferColumn {
  std::string benchmark;  // canonical data key (job/run_benchmark_spec.h)
  std::string split;
  int64_t images = 0;
  // How many of `images` are training images of its runs (the same files under another split or
  // manifest: their recall is not transfer); the largest count stored, none where none was.
  std::optional<int64_t> training_images;
  // Per cell (index as `cells`): R@1 [direction] over the seeds evaluated there, and how many.
  std::vector<std::array<SeedSummary, 2>> r1;
  std::vector<int> evaluated;
};

struct ExperimentResults {
  ExperimentRecord experiment;
  std::string selection;       // val | last | test
  std::string selection_rule;  // the sentence every table states
  std::vector<int64_t> seeds;
  bool controls = true;
  int runs_total = 0;
  int runs_finished = 0;
  std::vector<CellResult> cells;
  std::vector<ControlComparison> comparisons;
  std::vector<TransferColumn> transfers;  // ordered by benchmark, split
};

// Throws StoreError when the experiment does not exist.
ExperimentResults experiment_results(const RunStore& store, int64_t experiment_id);

// One run's selected epoch and its test recall under `selection` (val | last | test) from its
// stored evaluations; epoch -1 when it has none that qualify.
SeedResult select_run_epoch(const std::vector<EpochEvalRow>& evals, const std::string& selection,
                            const std::string& test_split, const std::string& val_split);

// The sentence for a selection rule, e.g. "best epoch on the validation split (val)".
std::string selection_rule_text(const std::string& selection, const std::string& val_split);

}  // namespace hnclip
