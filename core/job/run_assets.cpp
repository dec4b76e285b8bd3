#include "job/run_assets.h"

#include <torch/torch.h>

#include <optional>

#include "data/benchmark_registry.h"
#include "job/workbench_paths.h"
#include "model/peft.h"
#include "text/word_tokenizer.h"
#include "train/checkpoint.h"
#include "train/trainer.h"

namespace hnclip {

RunAssets build_run_assets(const TrainConfig& config, const std::string& cache_dir,
                           const std::string& shape_checkpoint,
                           const std::function<void(const std::string&)>& log) {
  config.validate();
  RunAssets a;
  ClipConfig shape;
  const std::string init = resolve_init_checkpoint(config.init);
  const std::string meta_source = !shape_checkpoint.empty() ? shape_checkpoint : init;
  // Checkpoint problems are found before the (possibly long) benchmark generation.
  std::optional<CheckpointMeta> meta;
  if (!meta_source.empty()) meta = read_checkpoint_meta(meta_source);
  if (!init.empty() && init != meta_source) read_checkpoint_meta(init);

  BenchmarkSpec spec{config.benchmark, config.benchmark_size, config.data_seed,
                     config.benchmark_root, cache_dir};
  a.benchmark = open_benchmark(spec, log);
  auto train_samples = a.benchmark->split(config.train_split);
  auto test_samples = a.benchmark->split(config.test_split);

  if (meta) {
    a.tokenizer = tokenizer_from_json(meta->tokenizer);
    shape = meta->model;
    if (!config.model.empty()) {
      // An explicit --model must describe the checkpoint's shape, or the user is told why not.
      const auto wanted = clip_preset(config.model, shape.vocab_size, shape.context_length);
      const auto diff = describe_differences(shape, wanted);
      if (!diff.empty()) {
        throw CheckpointError("checkpoint " + meta_source + " does not fit --model " + config.model +
                              " (checkpoint vs preset: " + diff + ")");
      }
    }
  } else {
    std::vector<std::string> captions;
    for (const auto& s : train_samples) captions.insert(captions.end(), s.captions.begin(), s.captions.end());
    a.tokenizer = std::make_shared<WordTokenizer>(WordTokenizer::build(captions, config.context_length));
    shape = clip_preset(config.model.empty() ? "tiny" : config.model, a.tokenizer->vocab_size(),
                        a.tokenizer->context_length());
  }
  a.model = make_clip_model(shape, config.seed);
  if (!init.empty()) {
    load_checkpoint_weights(init, a.model);
    // A starting point is a plain model: adapters of an adapted --init checkpoint are folded into
    // its weights (a --peft run then attaches fresh ones).
    if (has_adapters(a.model)) {
      merge_adapters(a.model);
      if (log) log("--init " + init + ": its adapters were merged into the weights");
    }
  }

  ImagePipelineConfig pipeline;
  pipeline.image_size = static_cast<int>(shape.image_size);
  a.train = std::make_unique<SplitData>(std::move(train_samples), a.tokenizer, pipeline);
  a.test = std::make_unique<SplitData>(std::move(test_samples), a.tokenizer, pipeline);
  if (log) {
    log("benchmark " + a.benchmark->name() + ": " + std::to_string(a.train->num_images()) +
        " training images (" + config.train_split + "), " + std::to_string(a.test->num_images()) +
        " test images (" + config.test_split + "); " + std::to_string(a.tokenizer->vocab_size()) +
        " tokens, context " + std::to_string(a.tokenizer->context_length()));
  }
  return a;
}

}  // namespace hnclip
