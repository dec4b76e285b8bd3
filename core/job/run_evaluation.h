#pragma once
// Evaluation of a stored run's checkpoint (`hnclip eval`): rebuilds the run's model from its
// stored config, loads the chosen checkpoint, ranks both directions and stores the result.
// On the run's own test split it is that epoch's evaluation (replacing an earlier one for the same
// epoch). On another benchmark or split (EvalTarget) it is a transfer evaluation, stored per
// (run, epoch, benchmark, split) in transfer_evals: cross-domain results never choose an epoch.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "eval/retrieval_result.h"

#include "job/training_job.h"
#include "train/train_events.h"

namespace hnclip {

// Where to evaluate: every empty / unset field keeps the run's own value, so an empty target is
// the run's own test split. Flags: --benchmark, --data-root, --benchmark-size, --data-seed,
// --split.
struct EvalTarget {
  std::string benchmark;       // synthetic | manifest | docci | dci | long-dci | urban1k
  std::string root;            // manifest file or data set folder
  std::string benchmark_size;  // synthetic: small | default | large
  std::optional<uint64_t> data_seed;  // synthetic generator seed
  std::string split;           // e.g. "shifted" (the built-in benchmark's shifted test set)
  // How the target's images are checked (--max-image-pixels, --allow-outside-root). Another data
  // set takes these, never the run's own permission; the run's own data keeps the run's settings,
  // which these may only widen.
  int64_t max_image_pixels = 0;  // 0: the default limit
  bool allow_outside_root = false;
};

struct StoredEvaluation {
  int64_t run_id = 0;
  std::string checkpoint;
  EvalEvent eval;           // epoch and step of the checkpoint
  int64_t test_images = 0;
  int64_t test_captions = 0;
  std::string benchmark;    // benchmark_data_key of the evaluated data
  std::string test_set;     // the same data with its split, for people (RunTestSet::label)
  bool transfer = false;    // stored as a transfer evaluation (not the run's own test split)
  // A transfer's images that are training images of the run (the same files); unset when not a
  // transfer, when the target is the run's training split itself, or when the run's own data
  // could not be read to compare.
  std::optional<int64_t> training_images;
  // Text→image with caption consensus (eval/caption_consensus.h), asked for with α > 0: shown
  // beside the plain ranking, not stored (the stored evaluation stays the model's own).
  struct Consensus {
    double alpha = 0;
    RetrievalResult t2i;
    int64_t captions_without_siblings = 0;  // their own image has no consensus term
  };
  std::optional<Consensus> consensus;
};

// `which`: "best" (the run's best epoch, else its last), "last", or an epoch number. Throws
// ConfigError for an unknown run, a missing checkpoint, a bad target or a consensus weight
// outside [0, 1], naming them, before anything is stored.
StoredEvaluation evaluate_stored_run(int64_t run_id, const std::string& which, const JobPaths& paths,
                                     const JobLog& log = {}, const EvalTarget& target = {},
                                     double consensus_alpha = 0);

}  // namespace hnclip
