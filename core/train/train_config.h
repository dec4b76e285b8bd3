#pragma once
// TrainConfig: everything that defines a fine-tuning run. Stored as JSON with the run, so a run
// can be resumed, repeated ("same as run…") and compared. Field names follow the CLI flags.

#include <cstdint>
#include <stdexcept>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace hnclip {

// Upper limits validate() enforces, so a typo fails naming its flag instead of as a bare
// allocation error terabytes later. Context: 4x Long-CLIP's 248 positions (attention memory grows
// with its square). Rank: the widest tower of the presets (ViT-L/14's 1024) — a larger rank than
// the layer's width is no longer low-rank.
constexpr int64_t kMaxContextLength = 1024;
constexpr int64_t kMaxAdapterRank = 1024;

// A configuration value that cannot be used; the message names the flag/key.
class ConfigError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// The choices of TrainConfig. Stored (JSON) and typed (CLI, GUI) as the lower-case words in the
// comments; to_string / from_string convert, from_string throws ConfigError naming the flag.
enum class BenchmarkSize { kSmall, kDefault, kLarge };  // small | default | large
enum class GbarMode { kRecomputed, kFrozen };           // recomputed | frozen
enum class PeftMethod { kNone, kLora, kDora };          // none | lora | dora
enum class Precision { kAuto, kFp32, kBf16 };           // auto | fp32 | bf16
enum class DeviceKind { kAuto, kCpu, kCuda };           // auto | cpu | cuda
enum class BatchSampler { kRandom, kFamilies };         // random | families
// plain|longclip|debias|finelip|goal|structxlip
enum class Framework { kPlain, kLongClip, kDebias, kFinelip, kGoal, kStructxlip };

// --device: auto | cpu | cuda | cuda:N; `index` -1 is plain "cuda" (the first GPU).
struct DeviceSpec {
  DeviceKind kind = DeviceKind::kAuto;
  int index = -1;
};
bool operator==(const DeviceSpec& a, const DeviceSpec& b);
inline bool operator!=(const DeviceSpec& a, const DeviceSpec& b) { return !(a == b); }

std::string to_string(BenchmarkSize v);
std::string to_string(GbarMode v);
std::string to_string(PeftMethod v);
std::string to_string(Precision v);
std::string to_string(const DeviceSpec& v);
std::string to_string(BatchSampler v);
std::string to_string(Framework v);
void from_string(const std::string& s, BenchmarkSize& out);
void from_string(const std::string& s, GbarMode& out);
void from_string(const std::string& s, PeftMethod& out);
void from_string(const std::string& s, Precision& out);
void from_string(const std::string& s, DeviceSpec& out);
void from_string(const std::string& s, BatchSampler& out);
void from_string(const std::string& s, Framework& out);

struct TrainConfig {
  // Data.
  std::string benchmark = "synthetic";
  BenchmarkSize benchmark_size = BenchmarkSize::kDefault;  // synthetic only
  std::string benchmark_root;  // manifest path for non-built-in benchmarks
  std::string train_split = "train";
  std::string test_split = "test";
  // Evaluated like test_split (epoch 0 and after every epoch) so that an epoch can be selected
  // without looking at the test split; "" = none. The run's own best epoch stays chosen on test.
  std::string val_split;
  double data_fraction = 1.0;  // (0, 1]: the same subset for the same seed
  uint64_t data_seed = 1;      // seed of the synthetic benchmark's generator
  // Checks of a real data set's images before the run is recorded (data/image_file_check.h).
  int64_t max_image_pixels = 0;     // largest width x height; 0 = Pillow's bomb limit (178,956,970)
  bool allow_outside_root = false;  // accept image paths that leave the data root
  bool skip_bad_images = false;     // drop a training pair whose image fails to decode mid-run

  // Model.
  std::string model;            // preset name; "" = the --init checkpoint's shape, else tiny
  std::string init;             // checkpoint to start from ("" = random init)
  int64_t context_length = 96;  // word tokenizer context (from --init when given)
  std::string vocab;            // CLIP BPE vocabulary (bpe_simple_vocab_16e6.txt.gz),
                                // required with an OpenAI / Long-CLIP --init
  bool long_clip = false;       // stretch a 77-position CLIP --init to Long-CLIP's 248
  std::string init_activation;  // --activation: "" = as the --init file records it (else
                                // QuickGELU, said on stderr), or quick_gelu / gelu

  // Loss.
  double loss_gamma = 0.0;  // margin strength γ >= 0; 0 = plain InfoNCE
  GbarMode loss_gbar = GbarMode::kRecomputed;
  double loss_token_weight = 0.0;  // λtok, weight of the token-level term
  double logit_scale = 0.0;        // starting s; 0 = keep the checkpoint's (or 1/0.07)
  bool fixed_scale = false;        // true: s is not learned

  // Fine-tuning framework (train/framework.h): its extra inputs and loss terms around the global
  // image–caption term. hn: that global term is the HN loss (γ and Ḡ above); off: the
  // framework's own (plain: InfoNCE, i.e. γ 0), which refuses γ > 0 rather than ignore it.
  Framework framework = Framework::kPlain;
  bool hn = true;
  // Long-CLIP (loss/long_clip_loss.h), its published settings. It also restarts the logit scale
  // at 100 unless logit_scale is given (TrainingJob records the value used).
  int64_t longclip_pca_components = 32;
  double longclip_label_smoothing = 0.1;  // also DeBias-CLIP's, which is built on Long-CLIP's code
  // DeBias-CLIP (train/debias_caption.h): the share of the non-summary sentences its augmented
  // caption keeps, and the padding tokens put before them; -1 = as many as the caption loses, so
  // the augmented caption ends where the full one does.
  double debias_keep_ratio = 0.5;
  int64_t debias_pad_tokens = -1;
  // FineLIP (loss/finelip_loss.h): the triplet hinge's margin and hardest-negative switch (its
  // code: 0.2, off), and the peak learning rate of its two new aggregation nets (our choice: 2×
  // the default lr of the encoders; FineLIP's own value was not available here).
  double finelip_margin = 0.2;
  bool finelip_hardest_negative = false;
  double finelip_aggregation_lr = 1e-4;
  // GOAL (loss/goal_loss.h): its segment sidecar (data/goal_segments.h; "" = the benchmark's own,
  // which only the built-in benchmark has) and the crop term's weight (its code: 0.5).
  std::string goal_segments;
  double goal_crop_weight = 0.5;
  // StructXLIP (loss/structxlip_loss.h): the word list its filtered captions drop (text/
  // structure_word_list.h; "" = the shipped resources/structxlip_words.txt), its terms' weights
  // (the paper's 0.5, 0.05, 0.1) and the words per caption chunk of the local term (our choice).
  // The local term's edge segments are the GOAL segments (--goal-segments, or the built-in
  // benchmark's own); data without them needs structxlip_local_weight = 0.
  std::string structxlip_words;
  double structxlip_structure_weight = 0.5;
  double structxlip_consistency_weight = 0.05;
  double structxlip_local_weight = 0.1;
  int64_t structxlip_chunk_words = 3;

  // Parameter-efficient fine-tuning (core/model/peft.h): only the adapters (and s, unless
  // --fixed-scale) train; every base weight is frozen.
  PeftMethod peft = PeftMethod::kNone;
  int64_t peft_rank = 8;             // r
  double peft_alpha = 16.0;          // α; the update is scaled by α / r
  std::string peft_towers = "both";  // image | text | both

  // Which tower's weights train, with any framework and full fine-tuning: both (every framework's
  // published setting), image or text (the other tower frozen). The logit scale trains unless
  // --fixed-scale, and FineLIP's new aggregation nets always train. With --peft, --peft-towers
  // says it instead.
  std::string train_towers = "both";

  // Optimisation.
  int epochs = 10;
  int64_t batch_size = 128;
  double lr = 5e-5;
  double weight_decay = 0.1;
  double warmup_fraction = 0.05;  // of all steps, linear warm-up then cosine decay
  double grad_clip = 0.0;         // max global grad norm; 0 = off
  int probe_every = 5;            // gradient probe every K optimiser steps; 0 = off
  int gbar_snapshots = 2;         // fixed training batches whose Ḡ is kept per epoch
  uint64_t seed = 0;              // data order, caption choice, subset, init
  // How an epoch's batches are drawn (train/family_batches.h): `random` is a seeded permutation;
  // `families` keeps near-twin families together inside batches (the split's groups, else
  // clusters of each caption's nearest neighbours under the starting text encoder), with the
  // same coverage per epoch and the same seeded order of families.
  BatchSampler batch_sampler = BatchSampler::kRandom;

  // Execution.
  DeviceSpec device;       // auto | cpu | cuda | cuda:N
  int threads = 2;         // LibTorch intra-op threads (measured on 2 cores: 2 beat 1 by 5-15%)
  int loader_workers = 1;  // batch loader threads
  Precision precision = Precision::kAuto;  // auto: bf16 autocast on CUDA, fp32 on the CPU
  bool eval_at_start = true;               // evaluate the starting point as epoch 0
  std::string name;
  // Data-parallel processes (hnclip train --world-size; core/distributed). batch_size stays the
  // global batch: each rank takes its shard of the same global batches one process would train
  // on, and the loss is built over all of them. dist_backend is what the run used (gloo | nccl),
  // "" for one process. Where the ranks meet (--rank, --master) is not part of the run.
  int world_size = 1;
  std::string dist_backend;
  // How a data-parallel run evaluates: "sharded" (every rank encodes its share of the split, rank
  // 0 ranks the gathered features) or "rank0" (rank 0 encodes it all while the others wait). The
  // same recall either way; the README measures which is faster.
  std::string dist_eval = "sharded";

  // Throws ConfigError naming the flag of the first bad value.
  void validate() const;
};

// The Ḡ a run trained with, as a table shows it: recomputed at γ = 0, where the trainer keeps no
// frozen text encoder (earlier versions recorded `--gamma 0 --gbar frozen` as frozen; such a run
// trained, and stored its Ḡ snapshots, exactly as a recomputed one, and reads as a control it is
// not when listed so).
GbarMode gbar_in_effect(const TrainConfig& c);

void to_json(nlohmann::json& j, const TrainConfig& c);
// Missing keys keep their defaults (older runs stay readable); mistyped keys throw ConfigError.
void from_json(const nlohmann::json& j, TrainConfig& c);
// A run's stored config (its JSON text) read back through from_json, so every reader sees the same
// defaults. Throws ConfigError when the text is not JSON or from_json refuses it.
TrainConfig parse_train_config(const std::string& json_text);

// A configuration a user typed (the workbench's --config, an experiment's base) is read like a
// stored one, except that a key which is no TrainConfig key is refused (ConfigError "config key
// 'epoch' is unknown (did you mean 'epochs'?)"): read leniently, a misspelt "epoch" trained with
// the default 10 and nothing said so. Stored configs stay lenient, so a run stored by another
// version is still listed.
void require_known_config_keys(const nlohmann::json& j);
// The same check for one key (an experiment's axis): throws the same ConfigError unless a
// TrainConfig has `key`.
void require_known_config_key(const std::string& key);
// The TrainConfig key nearest to `key` (nearest_word over the keys), "" when `key` is one or none
// is near: the hint of the errors above, for callers that word their own.
std::string nearest_config_key(const std::string& key);
// `start` with the typed JSON text's keys written over it, refused as above or when the text is
// not a JSON object (ConfigError). Values are not validated here: the form shows a bad one.
TrainConfig typed_train_config(const std::string& json_text, const TrainConfig& start);

}  // namespace hnclip
