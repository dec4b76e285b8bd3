#include "job/run_evaluation.h"

#include <torch/torch.h>

#include "data/batch_loader.h"
#include "job/run_assets.h"
#include "job/run_checkpoint.h"
#include "store/run_store.h"
#include "train/checkpoint.h"
#include "train/compute_setup.h"
#include "train/evaluator.h"

namespace hnclip {

namespace {
constexpr int64_t kEvalBatch = 256;
}

StoredEvaluation evaluate_stored_run(int64_t run_id, const std::string& which,
                                     const JobPaths& paths, const JobLog& log) {
  RunStore store(paths.database);
  const auto [run, chosen] = choose_run_checkpoint(store, paths.database, run_id, which);
  TrainConfig config;
  from_json(nlohmann::json::parse(run.config_json), config);

  configure_threads(config.threads);
  auto assets = build_run_assets(config, paths.cache_dir, chosen.path, log);
  load_checkpoint_weights(chosen.path, assets.model);
  const auto device = resolve_device(to_string(config.device));
  assets.model->to(device);
  const int workers = config.loader_workers;
  Evaluator evaluator(
      *assets.test,
      [workers](const PairedData& d) { return std::make_unique<BatchLoader>(d, workers); },
      kEvalBatch, {}, config.test_split);
  StoredEvaluation out;
  out.run_id = run_id;
  out.checkpoint = chosen.path;
  out.eval = evaluator.evaluate(assets.model, device);
  out.eval.epoch = chosen.epoch;
  out.eval.step = chosen.step;
  out.eval.split = config.test_split;
  out.test_images = assets.test->num_images();
  out.test_captions = assets.test->num_captions();
  store.write_epoch_eval(run_id, out.eval.epoch, out.eval.step, out.eval.split, out.eval.t2i,
                         out.eval.i2t);
  return out;
}

}  // namespace hnclip
