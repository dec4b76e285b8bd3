#include "job/run_evaluation.h"

#include <torch/torch.h>

#include "data/batch_loader.h"
#include "data/benchmark_registry.h"
#include "data/benchmark_summary.h"
#include "data/shared_image_files.h"
#include "data/synthetic_benchmark.h"
#include "eval/caption_consensus.h"
#include "job/run_assets.h"
#include "job/run_benchmark_spec.h"
#include "job/run_checkpoint.h"
#include "job/stored_run_config.h"
#include "job/stored_run_test_set.h"
#include "job/unchanged_run_data.h"
#include "store/run_store.h"
#include "train/checkpoint.h"
#include "train/compute_setup.h"
#include "train/evaluator.h"
#include "train/run_test_set.h"

namespace hnclip {

namespace {
constexpr int64_t kEvalBatch = 256;

// The run's config pointed at the target's data: only the test split is read (the train split is
// set to it too, so a data set without a train split can be a target).
TrainConfig target_config(TrainConfig config, const EvalTarget& t) {
  const TrainConfig own = config;
  if (!t.benchmark.empty()) {
    if (t.benchmark != config.benchmark) {
      config.benchmark_root.clear();  // another data set's root never carries over
      config.data_seed = TrainConfig{}.data_seed;
      config.benchmark_size = TrainConfig{}.benchmark_size;
    }
    config.benchmark = t.benchmark;
  }
  // The built-in benchmark's own flags, for a target that is not it, would evaluate the run's
  // data as if they had been used: `eval 3 --data-seed 2` of a manifest run evaluated the manifest.
  if (config.benchmark != "synthetic" && (t.data_seed || !t.benchmark_size.empty())) {
    throw ConfigError(std::string(t.data_seed ? "--data-seed" : "--benchmark-size") +
                      " is the built-in benchmark's, and the target is " + config.benchmark +
                      " data: add --benchmark synthetic to evaluate on the built-in benchmark, "
                      "or leave it out");
  }
  if (!t.root.empty()) config.benchmark_root = t.root;
  if (!t.benchmark_size.empty()) from_string(t.benchmark_size, config.benchmark_size);
  if (t.data_seed) config.data_seed = *t.data_seed;
  if (!t.split.empty()) config.test_split = t.split;
  // `eval 3 --data x.jsonl` of a run on the built-in benchmark evaluated the built-in test split.
  if (!t.root.empty()) check_data_root_is_read(config.benchmark, config.benchmark_root);
  // Another data set's images are checked with the target's flags, never the run's permission;
  // the run's own data (however the flag names it: the key is canonical) keeps the run's, which
  // the flags may only widen.
  if (benchmark_data_key(run_benchmark_spec(config, "")) !=
      benchmark_data_key(run_benchmark_spec(own, ""))) {
    config.allow_outside_root = t.allow_outside_root;
    config.max_image_pixels = t.max_image_pixels;
  } else {
    config.allow_outside_root = config.allow_outside_root || t.allow_outside_root;
    if (t.max_image_pixels > 0) config.max_image_pixels = t.max_image_pixels;
  }
  config.train_split = config.test_split;
  config.val_split.clear();
  return config;
}
}  // namespace

StoredEvaluation evaluate_stored_run(int64_t run_id, const std::string& which,
                                     const JobPaths& paths, const JobLog& log,
                                     const EvalTarget& target, double consensus_alpha) {
  try {
    check_consensus_alpha(consensus_alpha);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(std::string("--consensus-alpha: ") + e.what());
  }
  RunStore store(paths.database);
  const auto [run, chosen, note, start_model] =
      choose_run_checkpoint(store, paths.database, run_id, which);
  const TrainConfig own = stored_run_config(run);
  // Random starting weights come with a word tokenizer built from the run's training captions,
  // which an evaluation (reading the target split alone) cannot rebuild: it would be another
  // model, and on the run's own split it would overwrite the stored start row with its recall.
  if (start_model && chosen.path.empty()) {
    throw ConfigError("--epoch 0: run " + std::to_string(run_id) +
                      " started from random weights (seed " + std::to_string(own.seed) +
                      ") with a word tokenizer built from its training captions, which eval does "
                      "not rebuild; its start on its own test split is stored (hnclip show " +
                      std::to_string(run_id) + ")");
  }
  if (!note.empty() && log) log(note);  // after the refusal, which says it all
  const TrainConfig config = target_config(own, target);
  const auto own_key = benchmark_data_key(run_benchmark_spec(own, paths.cache_dir));
  const auto key = benchmark_data_key(run_benchmark_spec(config, paths.cache_dir));
  const bool transfer = key != own_key || config.test_split != own.test_split;

  configure_threads(config.threads);
  // A start model (epoch 0: the run's --init or its seed's weights) is built as the run built it.
  auto assets =
      build_run_assets(config, paths.cache_dir, start_model ? "" : chosen.path, log, "--split");
  std::optional<int64_t> out_training_images;
  if (!transfer) {
    const std::string id = std::to_string(run_id);
    refuse_changed_run_data(
        run, benchmark_data_label(run_benchmark_spec(own, paths.cache_dir)),
        benchmark_summary(*assets.benchmark), {own.test_split},
        "Nothing was evaluated or stored: the run's recall is of the earlier data. To measure "
        "run " +
            id +
            " on the data as it is now, copy it under another name and evaluate that as a "
            "transfer (hnclip eval " +
            id + " --data COPY).");
  }
  if (transfer && !(key == own_key && config.test_split == own.train_split)) {
    // The target may list the run's own training images (another split of its data naming them,
    // another manifest naming the same files): recall on them is not transfer. The run's split
    // labelled "also its training split" needs no count.
    std::optional<int64_t> shared;
    try {
      std::unique_ptr<Benchmark> opened;
      const Benchmark* own_data = assets.benchmark.get();
      const BenchmarkSpec own_spec = run_benchmark_spec(own, paths.cache_dir);
      // A built-in benchmark no longer generated holds no file a target could name: nothing is
      // generated for this count.
      const bool own_files_exist =
          key == own_key || own_spec.name != "synthetic" ||
          synthetic_benchmark_generated({own_spec.cache_dir, own_spec.size, own_spec.seed});
      if (key != own_key && own_files_exist) {
        opened = open_benchmark(own_spec, {});
        own_data = opened.get();
      }
      const auto target_images = image_files(*assets.test);
      const auto training_images = own_files_exist ? image_files(own_data->split(own.train_split))
                                                   : std::vector<std::string>{};
      shared = static_cast<int64_t>(shared_image_files(target_images, training_images).size());
    } catch (const std::exception& e) {
      // The run's own data gone or unreadable: the count is unknown, and said to be.
      if (log)
        log("run " + std::to_string(run_id) + "'s training split could not be read to check the " +
            "target for its training images (" + e.what() + ")");
    }
    if (shared && *shared > 0 && log)
      log(std::to_string(*shared) + " of the " + std::to_string(assets.test->num_images()) +
          " evaluated images are training images of run " + std::to_string(run_id) + " (split " +
          own.train_split + ", the same files): their recall is not transfer");
    out_training_images = shared;
  }
  configure_threads(config.threads, &assets.model->config());  // the BLAS pool for this model
  if (!start_model) load_checkpoint_weights(chosen.path, assets.model);
  const auto device = resolve_device(to_string(config.device));
  assets.model->to(device);
  const int workers = config.loader_workers;
  Evaluator evaluator(
      *assets.test,
      [workers](const PairedData& d) { return std::make_unique<BatchLoader>(d, workers); },
      kEvalBatch, {}, config.test_split);
  StoredEvaluation out;
  out.training_images = out_training_images;
  out.run_id = run_id;
  out.checkpoint = chosen.path;
  const auto encoded = evaluator.encode(assets.model, device);
  out.eval = evaluator.rank(encoded);
  if (consensus_alpha > 0) {
    std::vector<int64_t> caption_image(static_cast<size_t>(assets.test->num_captions()));
    for (size_t c = 0; c < caption_image.size(); ++c) {
      caption_image[c] = assets.test->caption_image(static_cast<int64_t>(c));
    }
    StoredEvaluation::Consensus consensus;
    consensus.alpha = consensus_alpha;
    consensus.t2i = rank_with_caption_consensus(encoded.captions, encoded.images, caption_image,
                                                consensus_alpha);
    consensus.captions_without_siblings =
        captions_without_siblings(caption_image, assets.test->num_images());
    out.consensus = std::move(consensus);
  }
  out.eval.epoch = chosen.epoch;
  out.eval.step = chosen.step;
  out.eval.split = config.test_split;
  out.test_images = assets.test->num_images();
  out.test_captions = assets.test->num_captions();
  out.benchmark = key;
  {
    // target_config sets the train split to the target's only to open that split alone; the
    // label says "also its training split" only where the run did train on these images.
    TrainConfig labelled = config;
    labelled.train_split = key == own_key ? own.train_split : std::string();
    // The run's own test split also says how many of its images the run trained on.
    out.test_set = transfer ? run_test_set(labelled).label
                            : stored_run_test_set(labelled, run.data_summary_json).label;
  }
  out.transfer = transfer;
  if (transfer) {
    store.write_transfer_eval(run_id, out.eval.epoch, key, out.eval.split, out.test_images,
                              out.test_captions, out.eval.t2i, out.eval.i2t, out.training_images);
  } else {
    store.write_epoch_eval(run_id, out.eval.epoch, out.eval.step, out.eval.split, out.eval.t2i,
                           out.eval.i2t);
  }
  return out;
}

}  // namespace hnclip
