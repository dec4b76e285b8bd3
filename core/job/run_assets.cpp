#include "job/run_assets.h"

#include <torch/torch.h>

#include <optional>

#include "data/benchmark_registry.h"
#include "job/model_source.h"
#include "job/run_benchmark_spec.h"
#include "job/workbench_paths.h"
#include "model/make_clip_model.h"
#include "model/peft.h"
#include "text/word_tokenizer.h"
#include "train/checkpoint.h"
#include "train/trainer.h"

namespace hnclip {

namespace {

// --init, read and checked (a workbench checkpoint's header, or a CLIP file's whole state dict);
// none without one. Its notes are logged.
std::optional<ModelSource> open_init_source(const TrainConfig& config,
                                            const std::function<void(const std::string&)>& log) {
  const std::string init = resolve_init_checkpoint(config.init);
  if (init.empty()) return std::nullopt;
  auto source = open_model_source(init, config.vocab, "--init", true, config.long_clip,
                                  config.init_activation);
  if (log)
    for (const auto& note : source.notes) log(note);
  return source;
}

// A split the benchmark lacks is reported with the flag that asked for it, as a usage error
// (ConfigError, exit status 2) like `neighbors --split`'s: the flag's value is wrong, not the data
// (Benchmark::split throws DataError for an unknown name only).
std::vector<Sample> split_samples(const Benchmark& benchmark, const std::string& flag,
                                  const std::string& split) {
  try {
    return benchmark.split(split);
  } catch (const DataError& e) {
    throw ConfigError(flag + " " + split + ": " + e.what());
  }
}

// An explicit --model must describe the checkpoint's shape, or the user is told why not.
// (Presets name the ViT shape; Long-CLIP's frozen positions are the file's own matter.)
void check_model_fits(const TrainConfig& config, const ClipConfig& shape,
                      const std::string& source) {
  if (config.model.empty()) return;
  auto wanted = clip_preset(config.model, shape.vocab_size, shape.context_length);
  wanted.frozen_positions = shape.frozen_positions;
  wanted.activation = shape.activation;
  const auto diff = describe_differences(shape, wanted);
  if (!diff.empty()) {
    throw CheckpointError("checkpoint " + source + " does not fit --model " + config.model +
                          " (checkpoint vs preset: " + diff + ")");
  }
}

}  // namespace

void check_run_inputs(const TrainConfig& config, const Benchmark& benchmark,
                      const std::function<void(const std::string&)>& log) {
  config.validate();
  if (const auto init = open_init_source(config, log))
    check_model_fits(config, init->shape, init->path);
  split_samples(benchmark, "--test-split", config.test_split);
  split_samples(benchmark, "--train-split", config.train_split);
  if (!config.val_split.empty()) split_samples(benchmark, "--val-split", config.val_split);
}

RunAssets build_run_assets(const TrainConfig& config, const std::string& cache_dir,
                           const std::string& shape_checkpoint,
                           const std::function<void(const std::string&)>& log,
                           const std::string& test_split_flag) {
  config.validate();
  RunAssets a;
  ClipConfig shape;
  const std::string init = resolve_init_checkpoint(config.init);
  // Checkpoint problems are found before the (possibly long) benchmark generation. --init may be
  // a workbench checkpoint or an OpenAI / Long-CLIP state dict (tokenized with --vocab, else the
  // shipped vocabulary).
  std::optional<ModelSource> init_source = open_init_source(config, log);
  std::optional<CheckpointMeta> meta;
  if (!shape_checkpoint.empty()) meta = read_checkpoint_meta(shape_checkpoint);

  const BenchmarkSpec spec = run_benchmark_spec(config, cache_dir);
  a.benchmark = open_benchmark(spec, log);
  auto test_samples = split_samples(*a.benchmark, test_split_flag, config.test_split);
  auto train_samples = split_samples(*a.benchmark, "--train-split", config.train_split);
  std::vector<Sample> val_samples;
  if (!config.val_split.empty())
    val_samples = split_samples(*a.benchmark, "--val-split", config.val_split);

  // The run's own checkpoint decides the shape when resuming, else --init.
  const std::string meta_source = meta ? shape_checkpoint : init;
  if (meta || init_source) {
    a.tokenizer = tokenizer_from_json(meta ? meta->tokenizer : init_source->tokenizer);
    shape = meta ? meta->model : init_source->shape;
    check_model_fits(config, shape, meta_source);
  } else {
    std::vector<std::string> captions;
    for (const auto& s : train_samples)
      captions.insert(captions.end(), s.captions.begin(), s.captions.end());
    a.tokenizer =
        std::make_shared<WordTokenizer>(WordTokenizer::build(captions, config.context_length));
    shape = clip_preset(config.model.empty() ? "tiny" : config.model, a.tokenizer->vocab_size(),
                        a.tokenizer->context_length());
  }
  a.model = make_clip_model(shape, config.seed);
  if (init_source) {
    load_model_source_weights(*init_source, a.model);
    init_source->clip_weights.clear();  // the model holds the weights now
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
  if (!config.val_split.empty())
    a.val = std::make_unique<SplitData>(std::move(val_samples), a.tokenizer, pipeline);
  if (log) {
    // One split serving as both (eval, stats: only the measured split is opened) is said once.
    const std::string images =
        config.train_split == config.test_split
            ? std::to_string(a.test->num_images()) + " images (" + config.test_split + ")"
            : std::to_string(a.train->num_images()) + " training images (" + config.train_split +
                  "), " + std::to_string(a.test->num_images()) + " test images (" +
                  config.test_split + ")";
    log("benchmark " + a.benchmark->name() + ": " + images +
        (a.val ? ", " + std::to_string(a.val->num_images()) + " validation images (" +
                     config.val_split + ")"
               : std::string()) +
        "; " + std::to_string(a.tokenizer->vocab_size()) + " tokens, context " +
        std::to_string(a.tokenizer->context_length()));
  }
  return a;
}

}  // namespace hnclip
