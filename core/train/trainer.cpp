#include "train/trainer.h"

#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <numeric>
#include <optional>
#include <random>
#include <sstream>

#include "distributed/feature_gather.h"
#include "distributed/gradient_reducer.h"
#include "distributed/step_agreement.h"
#include "distributed/process_group.h"
#include "fault/fault_point.h"
#include "loss/hn_contrastive_loss.h"
#include "loss/debias_clip_loss.h"
#include "loss/finelip_loss.h"
#include "loss/goal_loss.h"
#include "loss/long_clip_loss.h"
#include "loss/structxlip_loss.h"
#include "loss/token_similarity.h"
#include "model/layer_norm_fp32.h"
#include "model/peft.h"
#include "model/token_aggregator.h"
#include "train/autocast_guard.h"
#include "train/best_epoch.h"
#include "train/checkpoint.h"
#include "train/compute_setup.h"
#include "train/family_batches.h"
#include "train/debias_caption.h"
#include "train/framework.h"
#include "train/fused_adamw.h"
#include "train/gradient_probe.h"
#include "train/lr_schedule.h"
#include "text/word_chunks.h"

namespace hnclip {

namespace {
// Every rank's computing rate and collective share, or nothing until every rank has trained (the
// epoch's first step has no pace yet).
std::vector<RankThroughput> rank_throughput(const std::vector<RankProgress>& progress) {
  std::vector<RankThroughput> out;
  for (size_t r = 0; r < progress.size(); ++r) {
    const auto& p = progress[r];
    const double computing = p.seconds - p.collective_seconds;
    if (p.rows <= 0 || computing <= 0) return {};
    out.push_back({static_cast<int>(r), p.rows / computing, p.collective_seconds / p.seconds});
  }
  return out;
}
constexpr double kAdamBeta1 = 0.9;
constexpr double kAdamBeta2 = 0.98;  // CLIP's fine-tuning betas
constexpr double kAdamEps = 1e-6;
constexpr int64_t kEvalBatch = 256;  // encoding batch for evaluation and frozen features
constexpr uint64_t kSubsetStream = 0x5eed5b5e7ULL;  // separates the subset RNG from epoch RNGs
constexpr uint64_t kAdapterStream = 0xada97e45ULL;  // seeds the adapters' initial A matrices
constexpr uint64_t kFinelipStream = 0xf1e11bULL;  // seeds FineLIP's aggregation nets
constexpr size_t kAggregatorGroup = 2;  // the optimiser group of FineLIP's aggregation nets
// DeBias-CLIP's sentence subsets: step t draws from stream kDebiasStream + t.
constexpr uint64_t kDebiasStream = 0xdeb1a5ULL << 32;
// Families of data without groups: each image's 3 nearest captions, clusters of at most 4 images —
// the built-in benchmark's family sizes (2-4), so both kinds of data get batches alike.
constexpr int64_t kClusterNeighbours = 3;
constexpr int64_t kClusterMaxFamily = 4;

using Clock = std::chrono::steady_clock;

// SplitMix64: derives independent, platform-independent seeds from (seed, stream).
uint64_t mix_seed(uint64_t seed, uint64_t stream) {
  uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (stream + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Fisher–Yates with raw 64-bit draws: std::shuffle's use of distributions is
// implementation-defined.
void seeded_shuffle(std::vector<int64_t>& v, std::mt19937_64& rng) {
  for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng() % i]);
}

torch::Tensor l2_normalize(const torch::Tensor& x) {
  return torch::nn::functional::normalize(x, torch::nn::functional::NormalizeFuncOptions().dim(-1));
}

bool no_weight_decay(const std::string& name, const torch::Tensor& p) {
  // Gains, biases, embeddings and the logit scale are not decayed (CLIP/OpenCLIP practice).
  return p.dim() < 2 || name.find("embedding") != std::string::npos || name == "logit_scale";
}

std::string fmt(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}
}  // namespace

Trainer::Trainer(ClipModel model, TrainConfig config, const PairedData& train,
                 const PairedData& test, BatchSourceFactory make_loader, std::string checkpoint_dir,
                 nlohmann::json tokenizer, int64_t run_id)
    : model_(std::move(model)),
      config_(std::move(config)),
      train_(train),
      test_(test),
      make_loader_(std::move(make_loader)),
      checkpoint_dir_(std::move(checkpoint_dir)),
      tokenizer_(std::move(tokenizer)),
      run_id_(run_id),
      device_(c10::kCPU) {
  config_.validate();
  const int64_t subset = static_cast<int64_t>(training_subset().size());
  if (config_.batch_size > subset) {
    // --data-fraction is named only where it shrank the split (it was named at 1 too).
    throw ConfigError(
        "--batch " + std::to_string(config_.batch_size) + " is larger than the training split (" +
        std::to_string(subset) + (subset == 1 ? " image" : " images") +
        (config_.data_fraction < 1 ? " after --data-fraction " + fmt(config_.data_fraction)
                                   : std::string()) +
        ")");
  }
  if (tokenizes_new_text(config_.framework)) {
    // Refused now, not at the first step: the data must tokenize the framework's captions.
    try {
      train_.tokenize_texts({long_clip_short_caption(train_.caption_text(0))});
    } catch (const std::logic_error& e) {
      throw ConfigError("--framework " + to_string(config_.framework) +
                        " needs data that can tokenize the captions it derives: " + e.what());
    }
  }
  if (config_.framework == Framework::kGoal && train_.images_with_segments() == 0) {
    throw ConfigError("--framework goal needs segments (crop boxes matched to caption sentences) "
                      "and the training data has none: give GOAL's segment file with "
                      "--goal-segments FILE (the built-in benchmark writes its own)");
  }
  if (needs_structure_maps(config_.framework)) {
    try {
      train_.load_structure_maps({0});
    } catch (const std::logic_error& e) {
      throw ConfigError(std::string("--framework structxlip needs data that can make structure "
                                    "maps: ") + e.what());
    }
    if (config_.structxlip_local_weight > 0 && train_.images_with_segments() == 0) {
      throw ConfigError("--framework structxlip: its local term needs segments (object boxes "
                        "matched to caption sentences) and the training data has none: give "
                        "them with --goal-segments FILE (the built-in benchmark writes its own), "
                        "or turn the term off with --structxlip-local-weight 0");
    }
  }
  if (config_.batch_sampler == BatchSampler::kFamilies) {
    std::vector<std::string> groups(static_cast<size_t>(train_.num_images()));
    bool any = false;
    for (int64_t i = 0; i < train_.num_images(); ++i) {
      groups[static_cast<size_t>(i)] = train_.image_group(i);
      any = any || !groups[static_cast<size_t>(i)].empty();
    }
    if (any) families_ = families_from_groups(groups);  // else clustered in run()'s set-up
  }
  if (config_.peft != PeftMethod::kNone) {
    // Adapters are attached here, before the optimiser sees the parameters: then only they (and
    // the logit scale, below) are trainable, and a resumed run finds them before its checkpoint
    // is loaded.
    const AdapterSpec spec{adapter_kind_from_string(to_string(config_.peft)), config_.peft_rank,
                           config_.peft_alpha, config_.peft_towers};
    if (const auto have = adapter_spec(model_)) {
      if (!(*have == spec)) {
        throw ConfigError("--peft " + to_string(config_.peft) +
                          ": the model already carries other adapters (" +
                          nlohmann::json(*have).dump() + ")");
      }
    } else {
      attach_adapters(model_, spec, mix_seed(config_.seed, kAdapterStream));
    }
  } else if (has_adapters(model_)) {
    throw ConfigError("--peft none: the model carries adapters; merge them into the weights first");
  } else if (config_.train_towers != "both") {
    // --train-towers: the other tower's weights are frozen before the optimiser sees them (the
    // image tower is everything under "visual."; the logit scale is neither and is set below).
    const bool image = config_.train_towers == "image";
    for (auto& p : model_->named_parameters()) {
      if (p.key() == "logit_scale") continue;
      const bool in_image = p.key().rfind("visual.", 0) == 0;
      if (in_image != image) p.value().set_requires_grad(false);
    }
  }
  device_ = resolve_device(to_string(config_.device));
  try {
    use_bf16_autocast(config_.precision, device_.type());
  } catch (const std::invalid_argument& e) {
    throw ConfigError(e.what());
  }
  model_->to(device_);
  torch::NoGradGuard no_grad;
  // A framework's own starting scale (Long-CLIP: 100) unless --logit-scale says otherwise.
  const double start_scale = config_.logit_scale > 0
                                 ? config_.logit_scale
                                 : framework_start_logit_scale(config_.framework);
  if (start_scale > 0) model_->logit_scale.fill_(std::log(start_scale));
  model_->logit_scale.set_requires_grad(!config_.fixed_scale);
}

Trainer::~Trainer() = default;

void Trainer::set_process_group(std::shared_ptr<ProcessGroup> group) {
  if (!group) return;
  if (group->world_size() != config_.world_size) {
    throw ConfigError("--world-size: the run has " + std::to_string(config_.world_size) +
                      " process(es), the process group " + std::to_string(group->world_size()));
  }
  if (device_.is_cuda() && config_.device.index < 0) {
    // One GPU per process: cuda:LOCAL_RANK, as torchrun's users set it.
    device_ = c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(group->spec().local_rank));
    model_->to(device_);
  }
  if (!group->joined()) group->join(device_);
  group_ = std::move(group);
}

bool Trainer::leader() const { return !group_ || group_->rank() == 0; }

std::vector<BatchRequest> Trainer::rank_shard(std::vector<BatchRequest> global) const {
  if (!group_) return global;
  const auto w = static_cast<size_t>(group_->world_size());
  const auto r = static_cast<size_t>(group_->rank());
  for (auto& b : global) {
    const size_t n = b.images.size();
    const auto lo = static_cast<std::ptrdiff_t>(n * r / w);
    const auto hi = static_cast<std::ptrdiff_t>(n * (r + 1) / w);
    b.images = std::vector<int64_t>(b.images.begin() + lo, b.images.begin() + hi);
    b.captions = std::vector<int64_t>(b.captions.begin() + lo, b.captions.begin() + hi);
  }
  return global;
}

torch::Tensor Trainer::gather(const torch::Tensor& local) const {
  return group_ ? gather_with_grad(*group_, local) : local;
}

void Trainer::wait_for_leader() const {
  if (group_) barrier(*group_);
}

void Trainer::set_validation(const PairedData& val) {
  if (config_.val_split.empty()) throw ConfigError("--val-split: a validation split needs a name");
  val_ = &val;
}

std::vector<int64_t> Trainer::training_subset() const {
  std::vector<int64_t> all(train_.num_images());
  std::iota(all.begin(), all.end(), 0);
  if (config_.data_fraction >= 1.0) return all;
  std::mt19937_64 rng(mix_seed(config_.seed, kSubsetStream));
  seeded_shuffle(all, rng);
  const auto n = std::max<int64_t>(
      1,
      static_cast<int64_t>(std::llround(config_.data_fraction * static_cast<double>(all.size()))));
  all.resize(n);
  std::sort(all.begin(), all.end());
  return all;
}

int64_t Trainer::steps_per_epoch() const {
  return static_cast<int64_t>(training_subset().size()) / config_.batch_size;
}

std::vector<BatchRequest> Trainer::epoch_batches(int epoch) const {
  auto subset = training_subset();
  std::mt19937_64 rng(mix_seed(config_.seed, static_cast<uint64_t>(epoch)));
  const int64_t b = config_.batch_size;
  std::vector<std::vector<int64_t>> images;
  if (config_.batch_sampler == BatchSampler::kFamilies) {
    if (families_.empty())
      throw std::logic_error("epoch_batches: the families of data without groups are known only once run() has clustered them");
    const auto families = restrict_families(families_, subset);
    std::vector<int64_t> order(families.size());
    std::iota(order.begin(), order.end(), int64_t{0});
    seeded_shuffle(order, rng);
    ImageFamilies shuffled;
    shuffled.reserve(families.size());
    for (const auto f : order) shuffled.push_back(families[static_cast<size_t>(f)]);
    images = pack_family_batches(shuffled, b);
  } else {
    seeded_shuffle(subset, rng);
    for (size_t start = 0; start + static_cast<size_t>(b) <= subset.size(); start += static_cast<size_t>(b))
      images.emplace_back(subset.begin() + static_cast<std::ptrdiff_t>(start),
                          subset.begin() + static_cast<std::ptrdiff_t>(start) + b);
  }
  std::vector<BatchRequest> batches;
  batches.reserve(images.size());
  for (const auto& batch_images : images) {
    BatchRequest r;
    r.structure_maps = needs_structure_maps(config_.framework);
    for (const auto image : batch_images) {
      const auto& caps = train_.image_captions(image);
      r.images.push_back(image);
      r.captions.push_back(caps[caps.size() == 1 ? 0 : rng() % caps.size()]);
    }
    batches.push_back(std::move(r));
  }
  return batches;
}

void Trainer::emit_status(const std::string& status, const std::string& message) {
  for (auto* o : observers_) o->on_status({status, message});
}

// What one run() builds in set-up and carries from step to step; the Trainer itself keeps only
// what its constructor was given.
struct Trainer::State {
  State(const PairedData& test, const PairedData* val, const BatchSourceFactory& make_loader,
        const TrainStart& start, const TrainConfig& c)
      : evaluator(test, make_loader, kEvalBatch, {}, c.test_split),
        best(start.best_epoch, start.best_mean_r1),
        step(start.completed_steps),
        train_seconds(start.completed_seconds) {
    if (val) val_evaluator.emplace(*val, make_loader, kEvalBatch, RetrievalOptions{}, c.val_split);
    result.best_epoch = best.epoch();
  }

  std::vector<torch::Tensor> trainable;  // what the optimiser updates, also the probe's inputs
  std::unique_ptr<torch::optim::AdamW> optimizer;
  LrSchedule schedule{0, 0, 0};
  int64_t steps_per_epoch = 0;
  torch::Tensor frozen_text;  // defined for frozen Ḡ only
  Evaluator evaluator;
  std::optional<Evaluator> val_evaluator;  // with a validation split only
  std::vector<BatchRequest> snapshot_batches;
  bool bf16 = false;
  bool token_term = false;
  // FineLIP: its aggregation nets (image patches, caption words), trained in an optimiser group
  // of their own at --finelip-lr; undefined for other frameworks.
  TokenAggregator image_aggregator{nullptr}, text_aggregator{nullptr};
  // What the training step's encoders return: token features (token term, FineLIP), GOAL's whole
  // transformer outputs, or the pooled features alone (the last blocks then compute only the
  // pooled rows).
  TowerOutputs tower_outputs = TowerOutputs::Pooled;
  // The loss has terms besides the global one (token term, a framework's): the probe then takes
  // passes of its own instead of reusing the training backward's gradients.
  bool extra_terms = false;
  std::unique_ptr<GradientReducer> reducer;  // data-parallel only
  std::vector<RankThroughput> ranks;  // data-parallel: every rank's pace this epoch, for step events
  TrainResult result;
  BestEpochSelector best;
  int64_t step;
  double train_seconds;
  // The current epoch's clock: step events report training time net of pauses.
  Clock::time_point epoch_start;
  double paused_seconds = 0;
};

// One step's loss and the pieces of it that the probe and the step event need again.
struct Trainer::StepLoss {
  torch::Tensor loss;      // what is minimised (HN-CLIP, plus the token or framework terms)
  torch::Tensor boosted;   // the HN-CLIP term alone
  torch::Tensor standard;  // plain InfoNCE on the same features
  torch::Tensor image, text, scale;
  torch::Tensor text_for_g;  // the features Ḡ is built from (live text, or frozen features)
  // What `loss` is made of when it has more than the global term: Σ weight · value = loss.
  struct Term {
    const char* name;  // train/loss_term.h
    double weight;
    torch::Tensor value;
  };
  std::vector<Term> terms;
};

void Trainer::sum_over_ranks(const State& st, std::vector<torch::Tensor>& grads) const {
  if (!group_) return;
  std::vector<torch::Tensor> summed;
  for (size_t i = 0; i < grads.size(); ++i) {
    if (!grads[i].defined()) grads[i] = torch::zeros_like(st.trainable[i]);
    if (!st.trainable[i].is_same(model_->logit_scale)) summed.push_back(grads[i]);
  }
  all_reduce_sum(*group_, summed, kGradientBucketBytes);
}

void Trainer::training_backward(State& st, const torch::Tensor& loss) const {
  // Timed so that a probe's extra pass can be set against the pass every step takes (on a GPU,
  // host time: the kernels may still be queued).
  const auto t = Clock::now();
  if (st.reducer) st.reducer->prepare();
  loss.backward();
  if (st.reducer) st.reducer->finish();
  st.result.backward_seconds += std::chrono::duration<double>(Clock::now() - t).count();
  ++st.result.backward_passes;
}

TrainResult Trainer::run(const TrainStart& start, const std::atomic<bool>& stop) {
  if (config_.world_size > 1 && !group_) {
    throw ConfigError("--world-size " + std::to_string(config_.world_size) +
                      ": a data-parallel run needs its process group (hnclip train --world-size "
                      "--rank --master, or torchrun's variables)");
  }
  if (config_.framework == Framework::kStructxlip && !has_structure_words_) {
    throw std::logic_error("Trainer::run: --framework structxlip needs set_structure_words()");
  }
  State st(test_, val_, make_loader_, start, config_);
  set_up(st, start);
  emit_status("running", "");
  if (start.completed_epochs == 0) {
    if (config_.eval_at_start) {
      test(st, 0, 0);
      validate(st, 0, 0);
    }
    if (leader()) snapshot(st, 0);
    wait_for_leader();
  }
  for (int epoch = start.completed_epochs + 1; epoch <= config_.epochs; ++epoch) {
    if (!train(st, epoch, stop)) break;
    const EvalEvent ev = test(st, epoch, st.step);
    validate(st, epoch, st.step);
    if (leader()) {
      snapshot(st, epoch);
      save_epoch(st, epoch, ev);
    }
    wait_for_leader();
  }
  st.result.steps = st.step;
  st.result.train_seconds = st.train_seconds;
  if (st.result.status.empty()) st.result.status = "finished";
  emit_status(st.result.status, st.result.message);
  return st.result;
}

void Trainer::set_up(State& st, const TrainStart& start) {
  const auto& c = config_;
  // AdamW in two groups: decayed matrices; undecayed gains, biases, embeddings and scale.
  std::vector<torch::Tensor> decay, no_decay;
  for (auto& p : model_->named_parameters()) {
    if (!p.value().requires_grad()) continue;
    st.trainable.push_back(p.value());
    (no_weight_decay(p.key(), p.value()) ? no_decay : decay).push_back(p.value());
  }
  auto base = torch::optim::AdamWOptions(c.lr).betas({kAdamBeta1, kAdamBeta2}).eps(kAdamEps);
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(decay, std::make_unique<torch::optim::AdamWOptions>(
                                 torch::optim::AdamWOptions(base).weight_decay(c.weight_decay)));
  groups.emplace_back(no_decay, std::make_unique<torch::optim::AdamWOptions>(
                                    torch::optim::AdamWOptions(base).weight_decay(0.0)));
  if (c.framework == Framework::kFinelip) {
    // The aggregation nets' weights are not in the run's checkpoints yet, so a resumed FineLIP
    // run would restart them from scratch under a half-trained encoder: refused.
    if (!start.checkpoint.empty()) {
      throw ConfigError("--resume: a FineLIP run's aggregation nets are not kept in its "
                        "checkpoints yet; train the run again instead");
    }
    // FineLIP's two aggregation nets, new per run: K = 20% of the patches / the text context.
    torch::manual_seed(mix_seed(c.seed, kFinelipStream));
    const auto& mc = model_->config();
    st.image_aggregator =
        TokenAggregator(mc.embed_dim, finelip_kept_tokens(mc.grid() * mc.grid()));
    st.text_aggregator = TokenAggregator(mc.embed_dim, finelip_kept_tokens(mc.context_length));
    st.image_aggregator->to(device_);
    st.text_aggregator->to(device_);
    std::vector<torch::Tensor> aggregators;
    for (auto* a : {&st.image_aggregator, &st.text_aggregator}) {
      for (const auto& p : (*a)->parameters()) aggregators.push_back(p);
    }
    st.trainable.insert(st.trainable.end(), aggregators.begin(), aggregators.end());
    groups.emplace_back(aggregators, std::make_unique<torch::optim::AdamWOptions>(
                                         torch::optim::AdamWOptions(base)
                                             .lr(c.finelip_aggregation_lr)
                                             .weight_decay(c.weight_decay)));
  }
  st.optimizer = std::make_unique<torch::optim::AdamW>(std::move(groups), base);
  if (!start.checkpoint.empty())
    load_checkpoint_weights(start.checkpoint, model_, st.optimizer.get());
  if (group_) {
    // Every rank starts from rank 0's weights, whatever its own files held. (A resumed run's
    // optimiser state comes from the checkpoint every rank loaded above.)
    std::vector<torch::Tensor> state;
    for (const auto& p : model_->parameters()) state.push_back(p.detach());
    for (const auto& b : model_->buffers()) state.push_back(b);
    broadcast(*group_, state, 0);
    std::vector<torch::Tensor> summed;
    for (const auto& p : st.trainable) {
      if (!p.is_same(model_->logit_scale)) summed.push_back(p);
    }
    st.reducer = std::make_unique<GradientReducer>(*group_, std::move(summed));
  }

  const int64_t spe = steps_per_epoch();
  st.steps_per_epoch = spe;
  st.schedule = LrSchedule{
      c.lr, static_cast<int64_t>(std::llround(c.warmup_fraction * spe * c.epochs)), spe * c.epochs};
  const bool cluster = c.batch_sampler == BatchSampler::kFamilies && families_.empty();
  if ((c.loss_gamma > 0 && c.loss_gbar == GbarMode::kFrozen) || cluster) {
    auto text = frozen_text_features();
    if (cluster) cluster_families(text);
    if (c.loss_gamma > 0 && c.loss_gbar == GbarMode::kFrozen) st.frozen_text = text;
  }

  // Ḡ snapshots follow the same few batches (the first of epoch 1's order) through the run.
  if (leader()) st.snapshot_batches = epoch_batches(1);
  st.snapshot_batches.resize(
      std::min<size_t>(st.snapshot_batches.size(), static_cast<size_t>(c.gbar_snapshots)));
  st.token_term = c.loss_token_weight > 0;
  st.tower_outputs = st.token_term || c.framework == Framework::kFinelip ? TowerOutputs::Tokens
                     : c.framework == Framework::kGoal ? TowerOutputs::Hidden
                                                       : TowerOutputs::Pooled;
  st.extra_terms = st.token_term || c.framework != Framework::kPlain;
  // Mixed precision: the encoders run under bf16 autocast (by default on CUDA only), the loss in
  // fp32.
  st.bf16 = use_bf16_autocast(c.precision, device_.type());
}

torch::Tensor Trainer::frozen_text_features() {
  // Frozen Ḡ: caption features of the starting text encoder, computed once for the whole split.
  torch::NoGradGuard no_grad;
  ClipModel reference = frozen_reference_ ? frozen_reference_ : model_;
  reference->to(device_);
  reference->eval();
  std::vector<BatchRequest> requests;
  for (int64_t s = 0; s < train_.num_captions(); s += kEvalBatch) {
    BatchRequest r;
    for (int64_t i = s; i < std::min(train_.num_captions(), s + kEvalBatch); ++i)
      r.captions.push_back(i);
    requests.push_back(std::move(r));
  }
  auto loader = make_loader_(train_);
  loader->schedule(std::move(requests));
  std::vector<torch::Tensor> parts;
  Batch batch;
  while (loader->next(batch)) {
    parts.push_back(l2_normalize(reference->encode_text(batch.tokens.to(device_)).pooled));
  }
  return torch::cat(parts, 0);
}

void Trainer::cluster_families(const torch::Tensor& caption_features) {
  // An image is placed by its first caption (every caption of one image describes the same scene).
  std::vector<int64_t> first(static_cast<size_t>(train_.num_images()));
  for (int64_t i = 0; i < train_.num_images(); ++i)
    first[static_cast<size_t>(i)] = train_.image_captions(i).front();
  const auto per_image =
      caption_features.index_select(0, torch::tensor(first, torch::kLong).to(caption_features.device()));
  families_ = nearest_neighbour_families(per_image, kClusterMaxFamily, kClusterNeighbours);
}

bool Trainer::train(State& st, int epoch, const std::atomic<bool>& stop) {
  model_->train();
  auto loader = make_loader_(train_);
  loader->schedule(rank_shard(epoch_batches(epoch)));
  Batch batch;
  st.epoch_start = Clock::now();
  st.paused_seconds = 0;
  st.ranks.clear();
  RankProgress mine;  // this rank's epoch so far, for the other ranks' view of it
  const double collective_at_start = group_ ? group_->collective_seconds() : 0;
  while (true) {
    if (pause_gate_) st.paused_seconds += pause_gate_->wait_while_paused(stop);
    // Every rank has the same number of steps, so only a stop needs agreeing on; the same
    // collective carries every rank's pace.
    bool stopping = stop.load();
    if (group_) {
      mine.seconds = std::chrono::duration<double>(Clock::now() - st.epoch_start).count() -
                     st.paused_seconds;
      mine.collective_seconds = group_->collective_seconds() - collective_at_start;
      const StepAgreement agreed = agree_on_step(*group_, stopping, mine);
      stopping = agreed.stop;
      st.ranks = rank_throughput(agreed.ranks);
    }
    if (stopping) {
      st.result.status = "stopped";
      st.result.message = "stopped by the user at step " + std::to_string(st.step) + " (epoch " +
                          std::to_string(epoch) + ")";
      break;
    }
    if (!loader->next(batch)) break;
    if (!train_step(st, batch, epoch)) break;
    mine.rows += static_cast<double>(batch.request.images.size());
  }
  st.train_seconds +=
      std::chrono::duration<double>(Clock::now() - st.epoch_start).count() - st.paused_seconds;
  st.result.loader_wait_seconds += loader->wait_seconds();
  return st.result.status.empty();
}

bool Trainer::train_step(State& st, const Batch& batch, int epoch) {
  const auto& c = config_;
  const double lr = st.schedule.at(st.step);
  // Every group follows the one schedule, scaled to its own peak (FineLIP's aggregation nets).
  auto& groups = st.optimizer->param_groups();
  for (size_t g = 0; g < groups.size(); ++g) {
    const double peak = g == kAggregatorGroup ? c.finelip_aggregation_lr : c.lr;
    static_cast<torch::optim::AdamWOptions&>(groups[g].options()).lr(lr * peak / c.lr);
  }
  const StepLoss sl = step_loss(st, batch);
  const double loss_value = sl.loss.item<double>();
  const int64_t step = ++st.step;
  if (!std::isfinite(loss_value)) {
    st.result.status = "failed";
    st.result.message = "non-finite loss (" + fmt(loss_value) + ") at step " +
                        std::to_string(step) + " (epoch " + std::to_string(epoch) + ")";
    return false;
  }
  st.optimizer->zero_grad();
  if (c.probe_every > 0 && step % c.probe_every == 0) {
    backward_with_probe(st, sl, epoch);
  } else {
    training_backward(st, sl.loss);
  }
  const double grad_norm = clip_gradients(st.trainable);
  fault_point("train.step");
  // One multi-tensor kernel where this LibTorch has it for the device (2.x), else AdamW's loop:
  // the same update on the same state (fused_adamw.h).
  if (!fused_adamw_step(*st.optimizer)) st.optimizer->step();
  if (!c.fixed_scale) {
    torch::NoGradGuard no_grad;
    model_->logit_scale.clamp_max_(std::log(ClipModel::Impl::kMaxLogitScale));
  }
  const double elapsed =
      std::chrono::duration<double>(Clock::now() - st.epoch_start).count() - st.paused_seconds;
  st.result.images_seen += sl.image.size(0);  // the global batch
  const int64_t spe = st.steps_per_epoch;
  StepEvent ev{step,
               epoch,
               spe,
               spe * c.epochs,
               st.train_seconds + elapsed,
               loss_value,
               sl.standard.item<double>(),
               lr,
               sl.scale.item<double>(),
               grad_norm,
               {},
               st.ranks};
  for (const auto& t : sl.terms) ev.loss_terms.push_back({t.name, t.weight, t.value.item<double>()});
  for (auto* o : observers_) o->on_step(ev);
  return true;
}

Trainer::StepLoss Trainer::step_loss(State& st, const Batch& batch) {
  const auto images = batch.images.to(device_);
  const auto tokens = batch.tokens.to(device_);
  ImageFeatures img;
  TextFeatures txt;
  {
    AutocastGuard autocast(device_.type(), st.bf16);
    img = model_->encode_image(images, st.tower_outputs);
    txt = model_->encode_text(tokens, st.tower_outputs);
  }
  if (st.bf16) {
    img.pooled = img.pooled.to(torch::kFloat);
    txt.pooled = txt.pooled.to(torch::kFloat);
    if (st.tower_outputs == TowerOutputs::Tokens) {
      img.patches = img.patches.to(torch::kFloat);
      txt.tokens = txt.tokens.to(torch::kFloat);
    }
  }
  StepLoss sl;
  // Data-parallel: S and Ḡ over the global batch, this rank's rows with their gradients.
  sl.image = gather(l2_normalize(img.pooled));
  sl.text = gather(l2_normalize(txt.pooled));
  sl.scale = model_->scale();
  torch::Tensor text_for_g = sl.text;
  if (st.frozen_text.defined()) {
    text_for_g = gather(st.frozen_text.index_select(
        0, torch::tensor(batch.request.captions, torch::kLong).to(device_)));
  }
  sl.text_for_g = text_for_g;
  auto out = hn_contrastive_loss(sl.image, sl.text, sl.scale, config_.loss_gamma, text_for_g);
  sl.boosted = out.loss;
  sl.standard = out.loss_standard;
  sl.loss = out.loss;
  if (st.token_term) {
    const auto token = token_level_loss(l2_normalize(img.patches), l2_normalize(txt.tokens),
                                        txt.mask, sl.scale);
    sl.loss = sl.loss + config_.loss_token_weight * token;
    sl.terms = {{"global", 1.0, out.loss}, {"token", config_.loss_token_weight, token}};
  }
  if (config_.framework == Framework::kFinelip) {
    // FineLIP trains its fine-grained loss alone (its code); "+ LHN" adds the HN global term.
    FinelipOptions fo;
    fo.margin = config_.finelip_margin;
    fo.hardest_negative = config_.finelip_hardest_negative;
    const auto fine =
        finelip_loss(finelip_token_set(st.image_aggregator, img.patches, {}, img.pooled),
                     finelip_token_set(st.text_aggregator, txt.tokens, txt.mask, txt.pooled), fo);
    if (config_.hn) {
      sl.loss = out.loss + fine;
      sl.terms = {{"global", 1.0, out.loss}, {"fine", 1.0, fine}};
    } else {
      sl.loss = fine;
      sl.terms = {{"fine", 1.0, fine}};
    }
  }
  if (config_.framework == Framework::kGoal) goal_terms(st, batch, img, txt, sl);
  if (config_.framework == Framework::kStructxlip) structxlip_terms(st, batch, sl);
  if (needs_derived_captions(config_.framework)) {
    // The derived captions are tokenized here, on the training thread (a few hundred short texts:
    // small beside the encoders' step).
    std::vector<std::string> texts;
    texts.reserve(batch.request.captions.size());
    auto tokens = [&] {
      if (config_.framework == Framework::kLongClip) {
        for (int64_t c : batch.request.captions)
          texts.push_back(long_clip_short_caption(train_.caption_text(c)));
        return train_.tokenize_texts(texts);
      }
      // DeBias-CLIP: a fresh subset of sentences each step, the same for a seed and step.
      std::mt19937_64 rng(mix_seed(config_.seed, kDebiasStream + static_cast<uint64_t>(st.step)));
      for (int64_t c : batch.request.captions) {
        texts.push_back(debias_caption_text(train_.caption_text(c), config_.debias_keep_ratio, rng));
      }
      const auto augmented = train_.tokenize_texts(texts);
      const auto full = token_lengths(batch.tokens), kept = token_lengths(augmented);
      std::vector<int64_t> pad(full.size());
      for (size_t i = 0; i < pad.size(); ++i) {
        pad[i] = config_.debias_pad_tokens >= 0 ? config_.debias_pad_tokens
                                                : std::max<int64_t>(0, full[i] - kept[i]);
      }
      return prepend_padding(augmented, pad);
    }();
    torch::Tensor pooled;
    {
      AutocastGuard autocast(device_.type(), st.bf16);
      pooled = model_->encode_text(tokens.to(device_)).pooled;
    }
    const auto derived = gather(l2_normalize(pooled.to(torch::kFloat)));
    if (config_.framework == Framework::kLongClip) {
      LongClipOptions lo;
      lo.pca_components = config_.longclip_pca_components;
      lo.label_smoothing = config_.longclip_label_smoothing;
      const auto lc = long_clip_loss(sl.image, sl.text, derived, sl.scale, config_.hn,
                                     config_.loss_gamma, text_for_g, lo);
      sl.loss = lc.loss;
      sl.terms = {{"global", 1.0, lc.long_term}, {"short", 1.0, lc.short_term}};
    } else {
      const auto db = debias_clip_loss(sl.image, sl.text, derived, sl.scale, config_.hn,
                                       config_.loss_gamma, text_for_g,
                                       config_.longclip_label_smoothing);
      sl.loss = db.loss;
      sl.terms = {{"global", 1.0, db.global_term}, {"augmented", 1.0, db.augmented_term}};
    }
  }
  return sl;
}

void Trainer::goal_terms(State& st, const Batch& batch, const ImageFeatures& img,
                         const TextFeatures& txt, StepLoss& sl) {
  // GOAL's local terms for the pairs whose image has a usable segment; the global term (the HN
  // loss, or InfoNCE with --hn off) stays the one over the whole batch. The crops and sentences
  // are loaded here, on the training thread.
  const auto& mc = model_->config();
  const SegmentBatch seg = train_.load_segments(batch.request.captions, mc.patch_size, false);
  sl.terms = {{"global", 1.0, sl.loss}};
  if (seg.rows.empty()) return;
  const auto rows = torch::tensor(seg.rows, torch::kLong).to(device_);
  ImageFeatures crop;
  TextFeatures sentence;
  torch::Tensor region, span;
  {
    AutocastGuard autocast(device_.type(), st.bf16);
    crop = model_->encode_image(seg.crops.to(device_));
    sentence = model_->encode_text(seg.sentences.to(device_));
    // The image's tokens under the box and the caption's tokens of the sentence, averaged before
    // the towers' own heads (ln_post + proj, ln_final + text projection), as GOAL's code does.
    const auto patches = img.hidden.index_select(0, rows).slice(1, 1);
    region = torch::matmul(
        layer_norm_fp32(model_->visual->ln_post,
                        masked_token_mean(patches, seg.patch_mask.to(device_))),
        model_->visual->proj);
    const auto words = txt.hidden.index_select(0, rows);
    span = torch::matmul(
        layer_norm_fp32(model_->ln_final,
                        masked_token_mean(words, seg.span_mask.slice(1, 0, words.size(1)).to(device_))),
        model_->text_projection);
  }
  const auto goal = goal_loss(
      sl.image.index_select(0, rows), sl.text.index_select(0, rows),
      l2_normalize(crop.pooled.to(torch::kFloat)), l2_normalize(sentence.pooled.to(torch::kFloat)),
      region.to(torch::kFloat), span.to(torch::kFloat), sl.scale, config_.hn, config_.loss_gamma,
      sl.text_for_g.index_select(0, rows), config_.goal_crop_weight);
  const double w = config_.goal_crop_weight;
  sl.loss = sl.loss + w * goal.crop_term + goal.patch_term + goal.text_term;
  sl.terms = {{"global", 1.0, sl.terms[0].value},
              {"crop", w, goal.crop_term},
              {"patch", 1.0, goal.patch_term},
              {"span", 1.0, goal.text_term}};
}

void Trainer::structxlip_terms(State& st, const Batch& batch, StepLoss& sl) {
  // The structure maps came with the batch (the loader's threads, cached); the filtered captions,
  // the edge segments and their chunks are made here, on the training thread.
  if (!batch.structure_maps.defined()) {
    throw std::logic_error("structxlip_terms: the batch came without its structure maps");
  }
  std::vector<std::string> filtered;
  filtered.reserve(batch.request.captions.size());
  for (int64_t c : batch.request.captions) {
    filtered.push_back(remove_structure_words(train_.caption_text(c), structure_words_));
  }
  const auto filtered_tokens = train_.tokenize_texts(filtered);
  // The local term's pairs: each usable segment's edge crop against the chunks of its sentence
  // (filtered too); a segment whose sentence keeps no word after filtering has no positive and
  // sits out.
  torch::Tensor edge_crops, chunk_tokens, owner;
  std::vector<int64_t> owners;
  if (config_.structxlip_local_weight > 0) {
    const SegmentBatch seg =
        train_.load_segments(batch.request.captions, model_->config().patch_size, true);
    std::vector<std::string> chunks;
    std::vector<int64_t> kept;
    for (size_t k = 0; k < seg.rows.size(); ++k) {
      const auto parts = word_chunks(remove_structure_words(seg.sentence_texts[k], structure_words_),
                                     config_.structxlip_chunk_words);
      if (parts.empty()) continue;
      for (const auto& p : parts) {
        chunks.push_back(p);
        owners.push_back(static_cast<int64_t>(kept.size()));
      }
      kept.push_back(static_cast<int64_t>(k));
    }
    if (!kept.empty()) {
      edge_crops = seg.structure_crops.index_select(0, torch::tensor(kept, torch::kLong));
      chunk_tokens = train_.tokenize_texts(chunks);
      owner = torch::tensor(owners, torch::kLong).to(device_);
    }
  }
  torch::Tensor structure, text_filtered, edges, chunk_features;
  {
    AutocastGuard autocast(device_.type(), st.bf16);
    structure = model_->encode_image(batch.structure_maps.to(device_)).pooled;
    text_filtered = model_->encode_text(filtered_tokens.to(device_)).pooled;
    if (edge_crops.defined()) {
      edges = model_->encode_image(edge_crops.to(device_)).pooled;
      chunk_features = model_->encode_text(chunk_tokens.to(device_)).pooled;
    }
  }
  StructxlipWeights w;
  w.structure = config_.structxlip_structure_weight;
  w.consistency = config_.structxlip_consistency_weight;
  w.local = config_.structxlip_local_weight;
  const auto unit = [](const torch::Tensor& x) {
    return x.defined() ? l2_normalize(x.to(torch::kFloat)) : x;
  };
  // The global features were gathered over the ranks; StructXLIP runs on one process only
  // (TrainConfig::validate), so these are the same rows.
  const auto sx = structxlip_loss(sl.image, sl.text, unit(structure), unit(text_filtered),
                                  unit(edges), unit(chunk_features), owner, sl.scale, config_.hn,
                                  config_.loss_gamma, sl.text_for_g, w);
  sl.loss = sx.loss;
  sl.terms = {{"global", 1.0, sx.global_term},
              {"structure", w.structure, sx.structure_term},
              {"consistency", w.consistency, sx.consistency_term},
              {"local", w.local, sx.local_term}};
}

void Trainer::backward_with_probe(State& st, const StepLoss& sl, int epoch) {
  // Standard vs boosted gradients on this very batch, before the update. Without the token term
  // or a framework's terms the training loss *is* the boosted loss, so the training backward's
  // own .grad (read before clipping) is the boosted gradient, and for γ = 0 the standard one too:
  // a probe then costs one extra backward pass (autograd::grad of the standard loss, graph
  // retained) for γ > 0 and none for γ = 0. With other terms both probe gradients take passes of
  // their own first. Either way the training backward is the same call on the same graph, so
  // probing changes nothing.
  using Seconds = std::chrono::duration<double>;
  auto t = Clock::now();
  double seconds = 0;
  const auto standard = info_nce_loss(sl.image, sl.text, sl.scale);
  const bool plain = config_.loss_gamma == 0.0;
  ProbeValues pv;
  if (st.extra_terms) {
    // (One process only: TrainConfig refuses the token term and the frameworks' terms with
    // world_size > 1, so these probe gradients are the global batch's.)
    pv = probe_gradients(standard, plain ? standard : sl.boosted, st.trainable);
    seconds += Seconds(Clock::now() - t).count();
    training_backward(st, sl.loss);
    t = Clock::now();
  } else {
    std::vector<torch::Tensor> gs;
    if (!plain) {
      gs = loss_gradients(standard, st.trainable);
      sum_over_ranks(st, gs);
    }
    seconds += Seconds(Clock::now() - t).count();
    training_backward(st, sl.loss);
    t = Clock::now();
    std::vector<torch::Tensor> gb;
    gb.reserve(st.trainable.size());
    for (const auto& p : st.trainable) gb.push_back(p.grad());
    pv = compare_gradients(standard.item<double>(), sl.boosted.item<double>(), plain ? gb : gs,
                           gb);
  }
  // Where the gradient goes: softmax masses of this batch's logits (forward values only, no
  // backward). Ḡ is formed even for γ = 0, where it only sorts the negatives into buckets.
  auto mass = negative_gradient_mass(torch::matmul(sl.image.detach(), sl.text.detach().t()),
                                     caption_margins(sl.text_for_g), sl.scale, config_.loss_gamma);
  const ProbeEvent ev{st.step,
                      epoch,
                      pv.loss_standard,
                      pv.loss_boosted,
                      pv.grad_norm_standard,
                      pv.grad_norm_boosted,
                      pv.grad_ratio,
                      pv.grad_cosine,
                      std::move(mass.plain),
                      std::move(mass.boosted)};
  for (auto* o : observers_) o->on_probe(ev);
  // The training backward itself is not probe time; what the probe adds before and after it is.
  seconds += Seconds(Clock::now() - t).count();
  st.result.probe_seconds += seconds;
  ++st.result.probes;
}

double Trainer::clip_gradients(const std::vector<torch::Tensor>& trainable) const {
  std::vector<torch::Tensor> norms;
  for (const auto& p : trainable) {
    if (p.grad().defined()) norms.push_back(p.grad().norm());
  }
  const double grad_norm = norms.empty() ? 0.0 : torch::stack(norms).norm().item<double>();
  if (config_.grad_clip > 0 && grad_norm > config_.grad_clip) {
    torch::NoGradGuard no_grad;
    for (const auto& p : trainable) {
      if (p.grad().defined()) p.grad().mul_(config_.grad_clip / (grad_norm + 1e-6));
    }
  }
  return grad_norm;
}

std::optional<EvalEvent> Trainer::evaluate(const Evaluator& evaluator) {
  if (!group_) return evaluator.evaluate(model_, device_);
  if (config_.dist_eval == "rank0") {
    if (!leader()) return std::nullopt;
    return evaluator.evaluate(model_, device_);
  }
  // Sharded: every rank encodes its share; rank 0 ranks all of it. (gather_with_grad outside a
  // graph is a plain all-gather of rows in rank order.)
  const EncodedSplit mine = evaluator.encode(model_, device_, {group_->rank(), group_->world_size()});
  const EncodedSplit all{gather_with_grad(*group_, mine.images),
                         gather_with_grad(*group_, mine.captions)};
  if (!leader()) return std::nullopt;
  return evaluator.rank(all);
}

EvalEvent Trainer::test(State& st, int epoch, int64_t step) {
  auto evaluated = evaluate(st.evaluator);
  if (!evaluated) return {};
  EvalEvent& ev = *evaluated;
  ev.epoch = epoch;
  ev.step = step;
  ev.split = config_.test_split;
  for (auto* o : observers_) o->on_eval(ev);
  st.result.last_eval = ev;
  return ev;
}

// After test(): observers that follow one split (the Train tab's recall plot takes the first it
// sees) see the test split first.
void Trainer::validate(State& st, int epoch, int64_t step) {
  if (!st.val_evaluator) return;
  auto evaluated = evaluate(*st.val_evaluator);
  if (!evaluated) return;
  EvalEvent& ev = *evaluated;
  ev.epoch = epoch;
  ev.step = step;
  ev.split = config_.val_split;
  for (auto* o : observers_) o->on_eval(ev);
}

void Trainer::snapshot(State& st, int epoch) {
  if (st.snapshot_batches.empty()) return;
  torch::NoGradGuard no_grad;
  const bool was_training = model_->is_training();
  model_->eval();
  for (size_t b = 0; b < st.snapshot_batches.size(); ++b) {
    const auto& ids = st.snapshot_batches[b].captions;
    const auto t =
        st.frozen_text.defined()
            ? st.frozen_text.index_select(0, torch::tensor(ids, torch::kLong).to(device_))
            : l2_normalize(model_->encode_text(train_.load_tokens(ids).to(device_)).pooled);
    const auto g = caption_margins(t).to(torch::kCPU, torch::kFloat).contiguous();
    // The largest off-diagonal entry: mask the (zero) diagonal, which could otherwise win.
    const auto masked = g.clone().fill_diagonal_(-std::numeric_limits<float>::infinity());
    const int64_t flat = masked.argmax().item<int64_t>();
    const int64_t n = g.size(0);
    GbarSnapshotEvent ev;
    ev.epoch = epoch;
    ev.batch = static_cast<int>(b);
    ev.captions = ids;
    ev.matrix.assign(g.data_ptr<float>(), g.data_ptr<float>() + g.numel());
    ev.max_value = masked.view(-1)[flat].item<float>();
    ev.max_i = std::min(flat / n, flat % n);
    ev.max_j = std::max(flat / n, flat % n);
    for (auto* o : observers_) o->on_gbar_snapshot(ev);
  }
  if (was_training) model_->train();
}

void Trainer::save_epoch(State& st, int epoch, const EvalEvent& ev) {
  const double score = ev.mean_r1();
  const auto path =
      (std::filesystem::path(checkpoint_dir_) / ("epoch-" + std::to_string(epoch) + ".pt"))
          .string();
  nlohmann::json cfg_json = config_;
  save_checkpoint(path, model_,
                  CheckpointMeta{model_->config(), tokenizer_, epoch, st.step, run_id_, cfg_json},
                  st.optimizer.get());
  for (auto* o : observers_) o->on_checkpoint({epoch, st.step, path, score});
  if (st.best.offer(epoch, score)) {
    st.result.best_epoch = epoch;
    st.result.best_eval = ev;
  }
}

}  // namespace hnclip
