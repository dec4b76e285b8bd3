#include "job/caption_geometry_job.h"

#include <torch/torch.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "eval/caption_geometry.h"
#include "job/located_checkpoints.h"
#include "job/run_assets.h"
#include "job/run_benchmark_spec.h"
#include "job/split_embeddings_file.h"
#include "job/stored_best_epoch.h"
#include "job/workbench_paths.h"
#include "store/run_store.h"
#include "text/control_character.h"
#include "text/decimal_digits.h"
#include "text/shared_content_words.h"
#include "text/word_tokenizer.h"
#include "train/checkpoint.h"
#include "train/compute_setup.h"

namespace hnclip {

namespace {
// Captions encoded per forward pass.
constexpr int64_t kEncodeBatch = 256;
// ... while a cancel flag is watched: small enough that one pass of a ViT-B text encoder on a CPU
// core stays around a second.
constexpr int64_t kCancellableEncodeBatch = 32;
// Fewest neighbours computed per caption (the explorer shows 5).
constexpr int64_t kMinNeighbors = 5;
// Near-duplicate pairs kept per (dataset, encoder).
constexpr int64_t kTopPairs = 100;
// Largest share of a split's caption words a word tokenizer may not know.
constexpr double kMaxUnknownWordShare = 0.05;
// Share of the reported progress taken by encoding (the geometry's row chunks take the rest).
constexpr double kEncodeProgressShare = 0.5;
// Geometry row chunk while a cancel flag is watched: cosines held at once (rows x N). Small
// enough that one chunk of a 30k-caption split takes well under a second on one core.
constexpr int64_t kCancellableChunkElements = 4 << 20;

std::string absolute_path(const std::string& p) {
  std::error_code ec;
  const auto abs = std::filesystem::weakly_canonical(std::filesystem::absolute(p), ec);
  return ec ? p : abs.string();
}

std::string checked_file(const std::string& path, const std::string& flag) {
  if (!std::filesystem::is_regular_file(path)) {
    throw ConfigError(flag + ": checkpoint " + path + " does not exist");
  }
  return absolute_path(path);
}

// Throws when the word tokenizer of the encoder misses too many of the captions' words: such an
// encoder maps most captions to <unknown> tokens and its geometry would be meaningless.
void check_tokenizer_fits(const Tokenizer& tokenizer, const std::vector<std::string>& captions,
                          const ResolvedEncoder& encoder, const std::string& dataset_label) {
  const auto* word = dynamic_cast<const WordTokenizer*>(&tokenizer);
  if (!word) return;  // byte-level BPE encodes any text
  int64_t total = 0, unknown = 0;
  for (const auto& c : captions) {
    total += static_cast<int64_t>(WordTokenizer::words(c).size());
    unknown += static_cast<int64_t>(word->unknown_words(c).size());
  }
  if (total == 0) return;
  const double share = static_cast<double>(unknown) / static_cast<double>(total);
  if (share > kMaxUnknownWordShare) {
    char pct[32];
    std::snprintf(pct, sizeof pct, "%.1f%%", 100.0 * share);
    throw ConfigError("--encoder " + encoder.key + ": its tokenizer does not fit " + dataset_label +
                      ": " + pct + " of the caption words (" + std::to_string(unknown) + " of " +
                      std::to_string(total) + ") are unknown to the word tokenizer of checkpoint " +
                      encoder.checkpoint + " (at most 5% allowed)");
  }
}

// Whether a database file is at `path`. Lookups check this first: opening a RunStore creates the
// file, and a refused request must leave no empty database behind; only a computed result does.
bool database_exists(const std::string& path) {
  std::error_code ec;
  return std::filesystem::exists(path, ec);
}

// Whether the file at `path` was modified after `unix_ms` (stored results are stamped so).
bool written_after(const std::string& path, int64_t unix_ms) {
  return CheckpointStamp::of(path).mtime_ns / 1'000'000 > unix_ms;
}

}  // namespace

std::string caption_dataset_key(const BenchmarkSpec& spec, const std::string& split) {
  return benchmark_data_key(spec) + "#" + split;
}

std::string caption_dataset_label(const BenchmarkSpec& spec, const std::string& split) {
  return benchmark_data_label(spec) + " / " + split;
}

ResolvedEncoder resolve_caption_encoder(const std::string& encoder, const std::string& database) {
  const std::string value = encoder.empty() ? "init:pretrained" : encoder;
  const auto colon = value.find(':');
  const std::string kind = colon == std::string::npos ? "" : value.substr(0, colon);
  const std::string arg = colon == std::string::npos ? "" : value.substr(colon + 1);
  if (kind == "ckpt" && !arg.empty()) {
    const auto path = checked_file(arg, "--encoder " + value);
    return {"ckpt:" + path, path, "checkpoint " + path};
  }
  if (kind == "init" && !arg.empty()) {
    const auto path = checked_file(resolve_init_checkpoint(arg), "--encoder " + value);
    return {"init:" + path, path, "starting checkpoint " + path};
  }
  if (kind == "run" && !arg.empty()) {
    if (!is_decimal_digits(arg, kInt64Digits))
      throw ConfigError("--encoder " + value + ": run:ID needs a numeric run id");
    const int64_t id = std::stoll(arg);
    if (!database_exists(database))
      throw ConfigError("--encoder " + value + ": no such run: there is no database at " +
                        database);
    RunStore store(database);
    const auto run = store.find_run(id);
    if (!run) throw ConfigError("--encoder " + value + ": no such run in " + database);
    const auto checkpoints = located_checkpoints(store, id);
    if (checkpoints.empty())
      throw ConfigError("--encoder " + value + ": the run has no checkpoint yet");
    auto chosen = checkpoints.back();  // the best epoch's checkpoint, else the last
    const int best = best_stored_epoch(store, *run).epoch;
    for (const auto& c : checkpoints)
      if (c.epoch == best) chosen = c;
    const auto path = checked_file(chosen.path, "--encoder " + value);
    // An unnamed run is "run 2, epoch 2", not "run 2 (), epoch 2".
    const std::string name = one_line(run->name);
    return {"run:" + std::to_string(id) + "@" + std::to_string(chosen.epoch), path,
            "run " + std::to_string(id) + (name.empty() ? "" : " (" + name + ")") + ", epoch " +
                std::to_string(chosen.epoch)};
  }
  throw ConfigError("--encoder must be run:ID, ckpt:PATH or init:PATH (got '" + value + "')");
}

CaptionGeometryOutcome caption_geometry_for(const CaptionGeometryRequest& request,
                                            const JobPaths& paths, const JobLog& log) {
  if (request.batch_size < 2)
    throw ConfigError("--batch must be >= 2 (got " + std::to_string(request.batch_size) + ")");
  if (request.neighbors < 1)
    throw ConfigError("-k must be >= 1 (got " + std::to_string(request.neighbors) + ")");
  check_data_root_is_read(request.benchmark.name, request.benchmark.root);
  check_generator_settings_are_read(request.benchmark.name, request.benchmark.size,
                                    request.benchmark.seed);
  CaptionGeometryOutcome out;
  out.encoder = resolve_caption_encoder(request.encoder, paths.database);
  out.dataset_key = caption_dataset_key(request.benchmark, request.split);
  out.dataset_label = caption_dataset_label(request.benchmark, request.split);
  const int64_t k = std::max(request.neighbors, kMinNeighbors);
  if (!request.recompute && database_exists(paths.database)) {
    RunStore store(paths.database);
    if (auto stored = store.caption_geometry(out.dataset_key, out.encoder.key)) {
      const bool enough =
          stored->stats.captions < 2 ||
          static_cast<int64_t>(stored->neighbors.size()) >=
              stored->stats.captions * std::min(request.neighbors, stored->stats.captions - 1);
      // Keyed by paths: an encoder file written again since (a new export or pretrain to the same
      // name) has other weights, a manifest written again other captions, and the stored
      // geometry is no longer theirs.
      const int64_t stored_at = stored->stats.created_at_ms;
      const std::string& data = request.benchmark.root;
      std::string rewritten;
      if (written_after(out.encoder.checkpoint, stored_at))
        rewritten = out.encoder.label;
      else if (!data.empty() && std::filesystem::is_regular_file(data) &&
               written_after(data, stored_at))
        rewritten = "the data set file " + data;
      if (!rewritten.empty() && log)
        log(rewritten + " was written again after the geometry of " + out.dataset_label +
            " under " + out.encoder.label + " was stored; computing it again");
      if (enough && rewritten.empty()) {
        out.record = std::move(*stored);
        return out;
      }
    }
  }

  const auto check_cancel = [&] {
    if (request.cancel && request.cancel->load()) throw CaptionGeometryCancelled(out.dataset_label);
  };
  const auto report = [&](double fraction) {
    check_cancel();
    if (request.progress) request.progress(fraction);
  };
  report(0.0);

  TrainConfig config;
  config.benchmark = request.benchmark.name;
  from_string(request.benchmark.size, config.benchmark_size);
  config.data_seed = request.benchmark.seed;
  config.benchmark_root = request.benchmark.root;
  config.test_split = request.split;
  // Only the measured split is needed (the tokenizer comes from the encoder's checkpoint), and a
  // test-only benchmark (urban1k, long-dci) has no "train" split to open.
  config.train_split = request.split;
  config.threads = request.threads;
  configure_threads(config.threads);
  const std::string cache_dir =
      request.benchmark.cache_dir.empty() ? paths.cache_dir : request.benchmark.cache_dir;
  auto assets = build_run_assets(config, cache_dir, out.encoder.checkpoint, log, "--split");
  configure_threads(config.threads, &assets.model->config());  // the BLAS pool for this model
  const auto splits = assets.benchmark->splits();
  const auto count_images = [&](const std::string& name) -> int64_t {
    if (std::find(splits.begin(), splits.end(), name) == splits.end()) return 0;
    return static_cast<int64_t>(assets.benchmark->split(name).size());
  };

  const auto& data = *assets.test;
  const int64_t n = data.num_captions();
  if (n < 2)
    throw ConfigError("--split " + request.split + ": needs at least two captions (has " +
                      std::to_string(n) + ")");
  std::vector<std::string> captions;
  captions.reserve(static_cast<size_t>(n));
  for (int64_t c = 0; c < n; ++c) captions.push_back(data.caption_text(c));
  check_tokenizer_fits(*assets.tokenizer, captions, out.encoder, out.dataset_label);

  load_checkpoint_weights(out.encoder.checkpoint, assets.model);
  const auto device = resolve_device(request.device);
  assets.model->to(device);
  assets.model->eval();
  torch::Tensor features;
  {
    torch::NoGradGuard no_grad;
    std::vector<torch::Tensor> parts;
    const int64_t encode_batch = request.cancel ? kCancellableEncodeBatch : kEncodeBatch;
    for (int64_t start = 0; start < n; start += encode_batch) {
      std::vector<int64_t> ids;
      for (int64_t c = start; c < std::min(n, start + encode_batch); ++c) ids.push_back(c);
      auto f = assets.model->encode_text(data.load_tokens(ids).to(device)).pooled;
      parts.push_back(torch::nn::functional::normalize(
          f, torch::nn::functional::NormalizeFuncOptions().dim(-1)));
      report(kEncodeProgressShare * static_cast<double>(std::min(n, start + encode_batch)) /
             static_cast<double>(n));
    }
    features = torch::cat(parts, 0);
  }
  if (log)
    log("encoded " + std::to_string(n) + " captions of " + out.dataset_label + " with " +
        out.encoder.label);

  CaptionGeometryOptions options;
  options.neighbors = k;
  options.top_pairs = kTopPairs;
  options.batch_size = request.batch_size;
  if (request.cancel || request.progress) {
    options.max_chunk_elements = kCancellableChunkElements;
    options.on_chunk = [&](double done) {
      report(kEncodeProgressShare + (1.0 - kEncodeProgressShare) * done);
    };
  }
  const auto g = compute_caption_geometry(features, options);

  auto& s = out.record.stats;
  s.dataset_key = out.dataset_key;
  s.encoder_key = out.encoder.key;
  s.train_images = count_images("train");
  s.test_images = count_images("test");
  s.captions = n;
  int64_t words = 0;
  for (const auto& c : captions) words += static_cast<int64_t>(WordTokenizer::words(c).size());
  s.mean_words = static_cast<double>(words) / static_cast<double>(n);
  s.mean_pairwise = g.mean_pairwise;
  s.mean_hardest = g.mean_hardest;
  s.median_hardest = g.median_hardest;
  s.batch_size = g.batch_size;
  s.bucket_fractions.assign(g.bucket_fractions.begin(), g.bucket_fractions.end());
  s.bucket_counts.assign(g.bucket_counts.begin(), g.bucket_counts.end());
  s.pairwise_histogram = g.pairwise_histogram;
  s.hardest_histogram = g.hardest_histogram;
  for (int64_t c = 0; c < n; ++c) {
    int rank = 0;
    for (const auto& nb : g.neighbors[static_cast<size_t>(c)]) {
      out.record.neighbors.push_back(
          {c, ++rank, nb.index, nb.cosine,
           shared_content_words(captions[static_cast<size_t>(c)],
                                captions[static_cast<size_t>(nb.index)])});
    }
  }
  int rank = 0;
  for (const auto& p : g.top_pairs) out.record.pairs.push_back({++rank, p.a, p.b, p.cosine});
  check_cancel();  // the last chance: from here on the result is stored
  RunStore store(paths.database);
  store.write_caption_geometry(out.record);
  out.computed = true;
  return out;
}

}  // namespace hnclip
