#include "train/train_config.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <vector>

#include "text/decimal_digits.h"
#include "text/nearest_word.h"
#include "text/shortest_decimal.h"

namespace hnclip {

// The stored words; NLOHMANN_JSON_SERIALIZE_ENUM maps unknown words to the first entry, so every
// read goes through from_string, which refuses them.
NLOHMANN_JSON_SERIALIZE_ENUM(BenchmarkSize, {{BenchmarkSize::kSmall, "small"},
                                             {BenchmarkSize::kDefault, "default"},
                                             {BenchmarkSize::kLarge, "large"}})
NLOHMANN_JSON_SERIALIZE_ENUM(GbarMode,
                             {{GbarMode::kRecomputed, "recomputed"}, {GbarMode::kFrozen, "frozen"}})
NLOHMANN_JSON_SERIALIZE_ENUM(PeftMethod, {{PeftMethod::kNone, "none"},
                                          {PeftMethod::kLora, "lora"},
                                          {PeftMethod::kDora, "dora"}})
NLOHMANN_JSON_SERIALIZE_ENUM(Precision, {{Precision::kAuto, "auto"},
                                         {Precision::kFp32, "fp32"},
                                         {Precision::kBf16, "bf16"}})
NLOHMANN_JSON_SERIALIZE_ENUM(BatchSampler, {{BatchSampler::kRandom, "random"},
                                            {BatchSampler::kFamilies, "families"}})
NLOHMANN_JSON_SERIALIZE_ENUM(Framework, {{Framework::kPlain, "plain"},
                                         {Framework::kLongClip, "longclip"},
                                         {Framework::kDebias, "debias"},
                                         {Framework::kFinelip, "finelip"},
                                         {Framework::kGoal, "goal"},
                                         {Framework::kStructxlip, "structxlip"}})
NLOHMANN_JSON_SERIALIZE_ENUM(DeviceKind, {{DeviceKind::kAuto, "auto"},
                                          {DeviceKind::kCpu, "cpu"},
                                          {DeviceKind::kCuda, "cuda"}})

namespace {
void require(bool ok, const std::string& message) {
  if (!ok) throw ConfigError(message);
}

template <typename E>
std::string enum_word(E v) {
  return nlohmann::json(v).get<std::string>();
}

// The word's enum value, or ConfigError(refusal + " (got '<s>')") when it is not one of them.
template <typename E>
void enum_from_word(const std::string& s, E& out, const std::string& refusal) {
  const E v = nlohmann::json(s).get<E>();
  if (enum_word(v) != s) throw ConfigError(refusal + " (got '" + s + "')");
  out = v;
}

template <typename T>
void read_key(const nlohmann::json& j, const char* key, T& out) {
  if (!j.contains(key)) return;
  try {
    out = j.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw ConfigError(std::string("config key '") + key +
                      "' has the wrong type: " + j.at(key).dump());
  }
}

// A choice is stored as its word: read as a string, then refused by name when unknown.
template <typename E>
void read_choice(const nlohmann::json& j, const char* key, E& out) {
  if (!j.contains(key)) return;
  std::string word;
  read_key(j, key, word);
  try {
    from_string(word, out);
  } catch (const ConfigError& e) {
    throw ConfigError(std::string("config key '") + key + "': " + e.what());
  }
}
}  // namespace

bool operator==(const DeviceSpec& a, const DeviceSpec& b) {
  return a.kind == b.kind && a.index == b.index;
}

std::string to_string(BenchmarkSize v) { return enum_word(v); }
std::string to_string(GbarMode v) { return enum_word(v); }
std::string to_string(PeftMethod v) { return enum_word(v); }
std::string to_string(Precision v) { return enum_word(v); }
std::string to_string(BatchSampler v) { return enum_word(v); }
std::string to_string(Framework v) { return enum_word(v); }
std::string to_string(const DeviceSpec& v) {
  const std::string kind = enum_word(v.kind);
  return v.kind == DeviceKind::kCuda && v.index >= 0 ? kind + ":" + std::to_string(v.index) : kind;
}

void from_string(const std::string& s, BenchmarkSize& out) {
  enum_from_word(s, out, "--benchmark-size must be small, default or large");
}
void from_string(const std::string& s, GbarMode& out) {
  enum_from_word(s, out, "--gbar must be 'recomputed' or 'frozen'");
}
void from_string(const std::string& s, PeftMethod& out) {
  enum_from_word(s, out, "--peft must be none, lora or dora");
}
void from_string(const std::string& s, Precision& out) {
  enum_from_word(s, out, "--precision must be auto, fp32 or bf16");
}
void from_string(const std::string& s, BatchSampler& out) {
  enum_from_word(s, out, "--batch-sampler must be 'random' or 'families'");
}
void from_string(const std::string& s, Framework& out) {
  enum_from_word(s, out, "--framework must be 'plain', 'longclip', 'debias', 'finelip', 'goal' or 'structxlip'");
}
void from_string(const std::string& s, DeviceSpec& out) {
  const std::string refusal = "--device must be auto, cpu or cuda[:N] (got '" + s + "')";
  const auto colon = s.find(':');
  DeviceSpec d;
  try {
    enum_from_word(s.substr(0, colon), d.kind, "");
  } catch (const ConfigError&) {
    throw ConfigError(refusal);  // naming the whole word, not its part before ':'
  }
  if (colon != std::string::npos) {
    const std::string index = s.substr(colon + 1);
    // Only cuda takes an index, written in plain decimal digits (so to_string gives `s` back).
    require(d.kind == DeviceKind::kCuda && is_decimal_digits(index, 4) &&
                (index == "0" || index[0] != '0'),
            refusal);
    d.index = std::stoi(index);
  }
  out = d;
}

void TrainConfig::validate() const {
  require(std::isfinite(loss_gamma) && loss_gamma >= 0,
          "--gamma must be finite and >= 0 (got " + shortest_decimal(loss_gamma) + ")");
  require(
      std::isfinite(loss_token_weight) && loss_token_weight >= 0,
      "--token-weight must be finite and >= 0 (got " + shortest_decimal(loss_token_weight) + ")");
  require(std::isfinite(logit_scale) && logit_scale >= 0 && logit_scale <= 100,
          "--logit-scale must be in (0, 100] (0 = keep the checkpoint's; got " +
              shortest_decimal(logit_scale) + ")");
  require(epochs >= 1, "--epochs must be >= 1 (got " + std::to_string(epochs) + ")");
  require(batch_size >= 2, "--batch must be >= 2 (got " + std::to_string(batch_size) + ")");
  require(std::isfinite(lr) && lr > 0,
          "--lr must be finite and > 0 (got " + shortest_decimal(lr) + ")");
  require(std::isfinite(weight_decay) && weight_decay >= 0,
          "--weight-decay must be finite and >= 0 (got " + shortest_decimal(weight_decay) + ")");
  require(warmup_fraction >= 0 && warmup_fraction < 1,
          "--warmup must be in [0, 1) (got " + shortest_decimal(warmup_fraction) + ")");
  require(std::isfinite(grad_clip) && grad_clip >= 0,
          "--grad-clip must be finite and >= 0 (0 = off; got " + shortest_decimal(grad_clip) + ")");
  require(max_image_pixels >= 0,
          "--max-image-pixels must be >= 0 (0 = the default limit), got " +
              std::to_string(max_image_pixels));
  require(val_split.empty() || (val_split != test_split && val_split != train_split),
          "--val-split must differ from --test-split and --train-split (got '" + val_split +
              "'; test '" + test_split + "', train '" + train_split + "')");
  require(std::isfinite(data_fraction) && data_fraction > 0 && data_fraction <= 1,
          "--data-fraction must be in (0, 1] (got " + shortest_decimal(data_fraction) + ")");
  require(probe_every >= 0,
          "--probe-every must be >= 0 (0 = off), got " + std::to_string(probe_every));
  require(gbar_snapshots >= 0,
          "--gbar-snapshots must be >= 0 (0 = off), got " + std::to_string(gbar_snapshots));
  require(threads >= 1, "--threads must be >= 1 (got " + std::to_string(threads) + ")");
  require(loader_workers >= 0,
          "--loader-workers must be >= 0 (got " + std::to_string(loader_workers) + ")");
  require(context_length >= 3 && context_length <= kMaxContextLength,
          "--context-length must be in [3, " + std::to_string(kMaxContextLength) + "] (got " +
              std::to_string(context_length) + ")");
  require(!long_clip || !init.empty(), "--long-clip needs an OpenAI CLIP state dict as --init");
  require(init_activation.empty() || init_activation == "quick_gelu" || init_activation == "gelu",
          "--activation must be quick_gelu or gelu (got '" + init_activation + "')");
  require(init_activation.empty() || !init.empty(),
          "--activation says how an --init file was trained; there is no --init");
  require(peft_rank >= 1 && peft_rank <= kMaxAdapterRank,
          "--peft-rank must be in [1, " + std::to_string(kMaxAdapterRank) + "] (got " +
              std::to_string(peft_rank) + ")");
  require(std::isfinite(peft_alpha) && peft_alpha > 0,
          "--alpha must be finite and > 0 (got " + shortest_decimal(peft_alpha) + ")");
  require(peft_towers == "image" || peft_towers == "text" || peft_towers == "both",
          "--peft-towers must be image, text or both (got '" + peft_towers + "')");
  require(train_towers == "image" || train_towers == "text" || train_towers == "both",
          "--train-towers must be image, text or both (got '" + train_towers + "')");
  require(train_towers == "both" || peft == PeftMethod::kNone,
          "--train-towers " + train_towers + " is for full fine-tuning; with --peft the adapters' "
          "towers are --peft-towers");
  require(world_size >= 1, "--world-size must be >= 1 (got " + std::to_string(world_size) + ")");
  require(dist_backend.empty() || dist_backend == "gloo" || dist_backend == "nccl",
          "dist_backend must be gloo or nccl (got '" + dist_backend + "')");
  require(dist_eval == "sharded" || dist_eval == "rank0",
          "--dist-eval must be sharded or rank0 (got '" + dist_eval + "')");
  require(world_size == 1 || batch_size >= world_size,
          "--batch " + std::to_string(batch_size) + " is smaller than --world-size " +
              std::to_string(world_size) + ": every rank needs a row of the global batch");
  require(hn || loss_gamma == 0,
          "--hn off trains the framework's own global term, which has no margins: --gamma " +
              shortest_decimal(loss_gamma) + " would be unused (set --gamma 0, or --hn on)");
  require(longclip_pca_components >= 1,
          "--longclip-pca must be >= 1 (got " + std::to_string(longclip_pca_components) + ")");
  require(std::isfinite(longclip_label_smoothing) && longclip_label_smoothing >= 0 &&
              longclip_label_smoothing < 1,
          "--longclip-smoothing must be in [0, 1) (got " +
              shortest_decimal(longclip_label_smoothing) + ")");
  require(std::isfinite(debias_keep_ratio) && debias_keep_ratio > 0 && debias_keep_ratio <= 1,
          "--debias-keep must be in (0, 1] (got " + shortest_decimal(debias_keep_ratio) + ")");
  require(
      std::isfinite(finelip_margin) && finelip_margin >= 0,
      "--finelip-margin must be finite and >= 0 (got " + shortest_decimal(finelip_margin) + ")");
  require(
      std::isfinite(finelip_aggregation_lr) && finelip_aggregation_lr > 0,
      "--finelip-lr must be finite and > 0 (got " + shortest_decimal(finelip_aggregation_lr) + ")");
  require(std::isfinite(goal_crop_weight) && goal_crop_weight >= 0,
          "--goal-crop-weight must be finite and >= 0 (got " + shortest_decimal(goal_crop_weight) +
              ")");
  for (const auto& [flag, w] :
       {std::pair{"--structxlip-structure-weight", structxlip_structure_weight},
        std::pair{"--structxlip-consistency-weight", structxlip_consistency_weight},
        std::pair{"--structxlip-local-weight", structxlip_local_weight}}) {
    require(std::isfinite(w) && w >= 0,
            std::string(flag) + " must be finite and >= 0 (got " + shortest_decimal(w) + ")");
  }
  require(structxlip_chunk_words >= 1,
          "--structxlip-chunk-words must be >= 1 (got " + std::to_string(structxlip_chunk_words) +
              ")");
  require(debias_pad_tokens >= -1,
          "--debias-pad must be -1 (match the full caption) or >= 0 (got " +
              std::to_string(debias_pad_tokens) + ")");
  require(framework == Framework::kPlain || loss_token_weight == 0,
          "--token-weight belongs to the plain framework; --framework " + to_string(framework) +
              " has its own terms");
  // A framework's probe gradients are taken in passes of their own, which are not summed over
  // ranks (and Long-CLIP's batch PCA would have to choose between the shard and the global batch).
  require(world_size == 1 || framework == Framework::kPlain,
          "--framework " + to_string(framework) + " is not supported with --world-size > 1 yet");
  // The token-level term compares every image's patches with every caption's tokens; over the
  // global batch that needs those gathered too, which is not built.
  require(world_size == 1 || loss_token_weight == 0,
          "--token-weight is not supported with --world-size > 1 (the token-level term is not "
          "gathered across ranks)");
}

GbarMode gbar_in_effect(const TrainConfig& c) {
  return c.loss_gamma > 0 ? c.loss_gbar : GbarMode::kRecomputed;
}

void to_json(nlohmann::json& j, const TrainConfig& c) {
  j = nlohmann::json{{"benchmark", c.benchmark},
                     {"benchmark_size", to_string(c.benchmark_size)},
                     {"benchmark_root", c.benchmark_root},
                     {"train_split", c.train_split},
                     {"test_split", c.test_split},
                     {"val_split", c.val_split},
                     {"data_fraction", c.data_fraction},
                     {"data_seed", c.data_seed},
                     {"max_image_pixels", c.max_image_pixels},
                     {"allow_outside_root", c.allow_outside_root},
                     {"skip_bad_images", c.skip_bad_images},
                     {"model", c.model},
                     {"init", c.init},
                     {"vocab", c.vocab},
                     {"long_clip", c.long_clip},
                     {"init_activation", c.init_activation},
                     {"context_length", c.context_length},
                     {"loss_gamma", c.loss_gamma},
                     {"loss_gbar", c.loss_gbar},
                     {"loss_token_weight", c.loss_token_weight},
                     {"logit_scale", c.logit_scale},
                     {"fixed_scale", c.fixed_scale},
                     {"epochs", c.epochs},
                     {"batch_size", c.batch_size},
                     {"lr", c.lr},
                     {"weight_decay", c.weight_decay},
                     {"warmup_fraction", c.warmup_fraction},
                     {"grad_clip", c.grad_clip},
                     {"probe_every", c.probe_every},
                     {"gbar_snapshots", c.gbar_snapshots},
                     {"seed", c.seed},
                     {"batch_sampler", c.batch_sampler},
                     {"device", to_string(c.device)},
                     {"threads", c.threads},
                     {"loader_workers", c.loader_workers},
                     {"eval_at_start", c.eval_at_start},
                     {"name", c.name}};
  j["peft"] = c.peft;
  j["peft_rank"] = c.peft_rank;
  j["peft_alpha"] = c.peft_alpha;
  j["peft_towers"] = c.peft_towers;
  j["train_towers"] = c.train_towers;
  j["precision"] = c.precision;
  j["world_size"] = c.world_size;
  j["dist_backend"] = c.dist_backend;
  j["dist_eval"] = c.dist_eval;
  j["framework"] = c.framework;
  j["hn"] = c.hn;
  j["longclip_pca_components"] = c.longclip_pca_components;
  j["longclip_label_smoothing"] = c.longclip_label_smoothing;
  j["debias_keep_ratio"] = c.debias_keep_ratio;
  j["debias_pad_tokens"] = c.debias_pad_tokens;
  j["finelip_margin"] = c.finelip_margin;
  j["finelip_hardest_negative"] = c.finelip_hardest_negative;
  j["finelip_aggregation_lr"] = c.finelip_aggregation_lr;
  j["goal_segments"] = c.goal_segments;
  j["goal_crop_weight"] = c.goal_crop_weight;
  j["structxlip_words"] = c.structxlip_words;
  j["structxlip_structure_weight"] = c.structxlip_structure_weight;
  j["structxlip_consistency_weight"] = c.structxlip_consistency_weight;
  j["structxlip_local_weight"] = c.structxlip_local_weight;
  j["structxlip_chunk_words"] = c.structxlip_chunk_words;
}

TrainConfig parse_train_config(const std::string& json_text) {
  const auto j = nlohmann::json::parse(json_text, nullptr, false);
  if (j.is_discarded()) throw ConfigError("a run config is not JSON: " + json_text.substr(0, 80));
  TrainConfig c;
  from_json(j, c);
  return c;
}

namespace {
const nlohmann::json& default_config_keys() {
  static const nlohmann::json defaults = TrainConfig{};
  return defaults;
}
}  // namespace

std::string nearest_config_key(const std::string& key) {
  const nlohmann::json& defaults = default_config_keys();
  if (defaults.contains(key)) return "";
  std::vector<std::string> known;
  for (const auto& [k, value] : defaults.items()) known.push_back(k);
  return nearest_word(key, known);
}

void require_known_config_key(const std::string& key) {
  if (default_config_keys().contains(key)) return;
  const std::string near = nearest_config_key(key);
  throw ConfigError(
      "config key '" + key + "' is unknown" +
      (near.empty() ? " (it is no run configuration key)" : " (did you mean '" + near + "'?)"));
}

void require_known_config_keys(const nlohmann::json& j) {
  if (!j.is_object()) throw ConfigError("a run config must be a JSON object");
  for (const auto& [key, value] : j.items()) require_known_config_key(key);
}

TrainConfig typed_train_config(const std::string& json_text, const TrainConfig& start) {
  const auto j = nlohmann::json::parse(json_text, nullptr, false);
  if (j.is_discarded()) throw ConfigError("not JSON: " + json_text.substr(0, 80));
  require_known_config_keys(j);
  TrainConfig c = start;
  from_json(j, c);
  return c;
}

void from_json(const nlohmann::json& j, TrainConfig& c) {
  if (!j.is_object()) throw ConfigError("a run config must be a JSON object");
  read_key(j, "benchmark", c.benchmark);
  read_choice(j, "benchmark_size", c.benchmark_size);
  read_key(j, "benchmark_root", c.benchmark_root);
  read_key(j, "train_split", c.train_split);
  read_key(j, "test_split", c.test_split);
  read_key(j, "val_split", c.val_split);
  read_key(j, "data_fraction", c.data_fraction);
  read_key(j, "data_seed", c.data_seed);
  read_key(j, "max_image_pixels", c.max_image_pixels);
  read_key(j, "allow_outside_root", c.allow_outside_root);
  read_key(j, "skip_bad_images", c.skip_bad_images);
  read_key(j, "model", c.model);
  read_key(j, "init", c.init);
  read_key(j, "vocab", c.vocab);
  read_key(j, "long_clip", c.long_clip);
  read_key(j, "init_activation", c.init_activation);
  read_key(j, "context_length", c.context_length);
  read_key(j, "loss_gamma", c.loss_gamma);
  read_choice(j, "loss_gbar", c.loss_gbar);
  read_key(j, "loss_token_weight", c.loss_token_weight);
  read_key(j, "logit_scale", c.logit_scale);
  read_key(j, "fixed_scale", c.fixed_scale);
  read_key(j, "epochs", c.epochs);
  read_key(j, "batch_size", c.batch_size);
  read_key(j, "lr", c.lr);
  read_key(j, "weight_decay", c.weight_decay);
  read_key(j, "warmup_fraction", c.warmup_fraction);
  read_key(j, "grad_clip", c.grad_clip);
  read_key(j, "probe_every", c.probe_every);
  read_key(j, "gbar_snapshots", c.gbar_snapshots);
  read_key(j, "seed", c.seed);
  read_choice(j, "batch_sampler", c.batch_sampler);
  read_choice(j, "device", c.device);
  read_key(j, "threads", c.threads);
  read_key(j, "loader_workers", c.loader_workers);
  read_key(j, "eval_at_start", c.eval_at_start);
  read_key(j, "name", c.name);
  read_choice(j, "peft", c.peft);
  read_key(j, "peft_rank", c.peft_rank);
  read_key(j, "peft_alpha", c.peft_alpha);
  read_key(j, "peft_towers", c.peft_towers);
  read_key(j, "train_towers", c.train_towers);
  read_choice(j, "precision", c.precision);
  read_key(j, "world_size", c.world_size);
  read_key(j, "dist_backend", c.dist_backend);
  read_key(j, "dist_eval", c.dist_eval);
  read_choice(j, "framework", c.framework);
  read_key(j, "hn", c.hn);
  read_key(j, "longclip_pca_components", c.longclip_pca_components);
  read_key(j, "longclip_label_smoothing", c.longclip_label_smoothing);
  read_key(j, "debias_keep_ratio", c.debias_keep_ratio);
  read_key(j, "debias_pad_tokens", c.debias_pad_tokens);
  read_key(j, "finelip_margin", c.finelip_margin);
  read_key(j, "finelip_hardest_negative", c.finelip_hardest_negative);
  read_key(j, "finelip_aggregation_lr", c.finelip_aggregation_lr);
  read_key(j, "goal_segments", c.goal_segments);
  read_key(j, "goal_crop_weight", c.goal_crop_weight);
  read_key(j, "structxlip_words", c.structxlip_words);
  read_key(j, "structxlip_structure_weight", c.structxlip_structure_weight);
  read_key(j, "structxlip_consistency_weight", c.structxlip_consistency_weight);
  read_key(j, "structxlip_local_weight", c.structxlip_local_weight);
  read_key(j, "structxlip_chunk_words", c.structxlip_chunk_words);
}

}  // namespace hnclip
