#include "train/trainer.h"

#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <numeric>
#include <random>
#include <sstream>

#include "loss/hn_contrastive_loss.h"
#include "loss/token_similarity.h"
#include "model/peft.h"
#include "train/autocast_guard.h"
#include "train/checkpoint.h"
#include "train/compute_setup.h"
#include "train/gradient_probe.h"
#include "train/lr_schedule.h"

namespace hnclip {

namespace {
constexpr double kAdamBeta1 = 0.9;
constexpr double kAdamBeta2 = 0.98;   // CLIP's fine-tuning betas
constexpr double kAdamEps = 1e-6;
constexpr int64_t kEvalBatch = 256;   // encoding batch for evaluation and frozen features
constexpr uint64_t kSubsetStream = 0x5eed5b5e7ULL;  // separates the subset RNG from epoch RNGs
constexpr uint64_t kAdapterStream = 0xada97e45ULL;  // seeds the adapters' initial A matrices

using Clock = std::chrono::steady_clock;

// SplitMix64: derives independent, platform-independent seeds from (seed, stream).
uint64_t mix_seed(uint64_t seed, uint64_t stream) {
  uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (stream + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Fisher–Yates with raw 64-bit draws: std::shuffle's use of distributions is implementation-defined.
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
    : model_(std::move(model)), config_(std::move(config)), train_(train), test_(test),
      make_loader_(std::move(make_loader)), checkpoint_dir_(std::move(checkpoint_dir)),
      tokenizer_(std::move(tokenizer)), run_id_(run_id), device_(c10::kCPU) {
  config_.validate();
  const int64_t subset = static_cast<int64_t>(training_subset().size());
  if (config_.batch_size > subset) {
    throw ConfigError("--batch " + std::to_string(config_.batch_size) +
                      " is larger than the training split (" + std::to_string(subset) +
                      " images after --data-fraction " + fmt(config_.data_fraction) + ")");
  }
  if (config_.peft != "none") {
    // Adapters are attached here, before the optimiser sees the parameters: then only they (and
    // the logit scale, below) are trainable, and a resumed run finds them before its checkpoint
    // is loaded.
    const AdapterSpec spec{adapter_kind_from_string(config_.peft), config_.peft_rank,
                           config_.peft_alpha, config_.peft_towers};
    if (const auto have = adapter_spec(model_)) {
      if (!(*have == spec)) {
        throw ConfigError("--peft " + config_.peft + ": the model already carries other adapters (" +
                          nlohmann::json(*have).dump() + ")");
      }
    } else {
      attach_adapters(model_, spec, mix_seed(config_.seed, kAdapterStream));
    }
  } else if (has_adapters(model_)) {
    throw ConfigError("--peft none: the model carries adapters; merge them into the weights first");
  }
  device_ = resolve_device(config_.device);
  try {
    use_bf16_autocast(config_.precision, device_.type());
  } catch (const std::invalid_argument& e) {
    throw ConfigError(e.what());
  }
  model_->to(device_);
  torch::NoGradGuard no_grad;
  if (config_.logit_scale > 0) model_->logit_scale.fill_(std::log(config_.logit_scale));
  model_->logit_scale.set_requires_grad(!config_.fixed_scale);
}

Trainer::~Trainer() = default;

std::vector<int64_t> Trainer::training_subset() const {
  std::vector<int64_t> all(train_.num_images());
  std::iota(all.begin(), all.end(), 0);
  if (config_.data_fraction >= 1.0) return all;
  std::mt19937_64 rng(mix_seed(config_.seed, kSubsetStream));
  seeded_shuffle(all, rng);
  const auto n = std::max<int64_t>(
      1, static_cast<int64_t>(std::llround(config_.data_fraction * static_cast<double>(all.size()))));
  all.resize(n);
  std::sort(all.begin(), all.end());
  return all;
}

int64_t Trainer::steps_per_epoch() const {
  return static_cast<int64_t>(training_subset().size()) / config_.batch_size;
}

std::vector<BatchRequest> Trainer::epoch_batches(int epoch) const {
  auto order = training_subset();
  std::mt19937_64 rng(mix_seed(config_.seed, static_cast<uint64_t>(epoch)));
  seeded_shuffle(order, rng);
  std::vector<BatchRequest> batches;
  const int64_t b = config_.batch_size;
  for (size_t start = 0; start + b <= order.size(); start += b) {
    BatchRequest r;
    for (size_t i = start; i < start + b; ++i) {
      const auto& caps = train_.image_captions(order[i]);
      r.images.push_back(order[i]);
      r.captions.push_back(caps[caps.size() == 1 ? 0 : rng() % caps.size()]);
    }
    batches.push_back(std::move(r));
  }
  return batches;
}

void Trainer::emit_status(const std::string& status, const std::string& message) {
  for (auto* o : observers_) o->on_status({status, message});
}

TrainResult Trainer::run(const TrainStart& start, const std::atomic<bool>& stop) {
  const auto& c = config_;
  TrainResult result;
  result.best_epoch = start.best_epoch;
  double best_score = start.best_mean_r1;

  // Optimiser: AdamW in two groups (decayed matrices; undecayed gains, biases, embeddings, scale).
  std::vector<torch::Tensor> decay, no_decay;
  std::vector<torch::Tensor> trainable;
  for (auto& p : model_->named_parameters()) {
    if (!p.value().requires_grad()) continue;
    trainable.push_back(p.value());
    (no_weight_decay(p.key(), p.value()) ? no_decay : decay).push_back(p.value());
  }
  auto base = torch::optim::AdamWOptions(c.lr).betas({kAdamBeta1, kAdamBeta2}).eps(kAdamEps);
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(decay, std::make_unique<torch::optim::AdamWOptions>(
                                 torch::optim::AdamWOptions(base).weight_decay(c.weight_decay)));
  groups.emplace_back(no_decay, std::make_unique<torch::optim::AdamWOptions>(
                                    torch::optim::AdamWOptions(base).weight_decay(0.0)));
  torch::optim::AdamW optimizer(std::move(groups), base);
  if (!start.checkpoint.empty()) load_checkpoint_weights(start.checkpoint, model_, &optimizer);

  const int64_t spe = steps_per_epoch();
  LrSchedule schedule{c.lr,
                      static_cast<int64_t>(std::llround(c.warmup_fraction * spe * c.epochs)),
                      spe * c.epochs};

  // Frozen Ḡ: caption features of the starting text encoder, computed once for the whole split.
  torch::Tensor frozen_text;
  if (c.loss_gamma > 0 && c.loss_gbar == "frozen") {
    torch::NoGradGuard no_grad;
    ClipModel reference = frozen_reference_ ? frozen_reference_ : model_;
    reference->to(device_);
    reference->eval();
    std::vector<BatchRequest> requests;
    for (int64_t s = 0; s < train_.num_captions(); s += kEvalBatch) {
      BatchRequest r;
      for (int64_t i = s; i < std::min(train_.num_captions(), s + kEvalBatch); ++i) r.captions.push_back(i);
      requests.push_back(std::move(r));
    }
    auto loader = make_loader_(train_);
    loader->schedule(std::move(requests));
    std::vector<torch::Tensor> parts;
    Batch batch;
    while (loader->next(batch)) parts.push_back(l2_normalize(reference->encode_text(batch.tokens.to(device_)).pooled));
    frozen_text = torch::cat(parts, 0);
  }

  Evaluator evaluator(test_, make_loader_, kEvalBatch);
  auto evaluate = [&](int epoch, int64_t step) {
    EvalEvent ev = evaluator.evaluate(model_, device_);
    ev.epoch = epoch;
    ev.step = step;
    ev.split = c.test_split;
    for (auto* o : observers_) o->on_eval(ev);
    result.last_eval = ev;
    return ev;
  };

  // Ḡ snapshots: the first batches of epoch 1's order, re-encoded after every epoch.
  std::vector<BatchRequest> snapshot_batches = epoch_batches(1);
  snapshot_batches.resize(std::min<size_t>(snapshot_batches.size(), static_cast<size_t>(c.gbar_snapshots)));
  auto snapshot = [&](int epoch) {
    if (snapshot_batches.empty()) return;
    torch::NoGradGuard no_grad;
    const bool was_training = model_->is_training();
    model_->eval();
    for (size_t b = 0; b < snapshot_batches.size(); ++b) {
      const auto& ids = snapshot_batches[b].captions;
      const auto t = frozen_text.defined()
                         ? frozen_text.index_select(0, torch::tensor(ids, torch::kLong).to(device_))
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
  };

  emit_status("running", "");
  int64_t step = start.completed_steps;
  if (start.completed_epochs == 0) {
    if (c.eval_at_start) evaluate(0, 0);
    snapshot(0);
  }

  const double gamma = c.loss_gamma;
  const bool token_term = c.loss_token_weight > 0;
  // Mixed precision: the encoders run under bf16 autocast (by default on CUDA only), the loss in fp32.
  const bool bf16 = use_bf16_autocast(c.precision, device_.type());
  double train_seconds = start.completed_seconds;
  for (int epoch = start.completed_epochs + 1; epoch <= c.epochs; ++epoch) {
    model_->train();
    auto loader = make_loader_(train_);
    loader->schedule(epoch_batches(epoch));
    Batch batch;
    auto t0 = Clock::now();
    double paused_seconds = 0;  // of this epoch, subtracted from its training time
    while (true) {
      if (pause_gate_) paused_seconds += pause_gate_->wait_while_paused(stop);
      if (stop.load()) {
        result.status = "stopped";
        result.message = "stopped by the user at step " + std::to_string(step) + " (epoch " +
                         std::to_string(epoch) + ")";
        break;
      }
      if (!loader->next(batch)) break;
      const double lr = schedule.at(step);
      for (auto& g : optimizer.param_groups()) static_cast<torch::optim::AdamWOptions&>(g.options()).lr(lr);

      const auto images = batch.images.to(device_);
      const auto tokens = batch.tokens.to(device_);
      ImageFeatures img;
      TextFeatures txt;
      {
        AutocastGuard autocast(device_.type(), bf16);
        img = model_->encode_image(images, token_term);
        txt = model_->encode_text(tokens, token_term);
      }
      if (bf16) {
        img.pooled = img.pooled.to(torch::kFloat);
        txt.pooled = txt.pooled.to(torch::kFloat);
        if (token_term) {
          img.patches = img.patches.to(torch::kFloat);
          txt.tokens = txt.tokens.to(torch::kFloat);
        }
      }
      const auto v = l2_normalize(img.pooled);
      const auto t = l2_normalize(txt.pooled);
      const auto s = model_->scale();
      torch::Tensor text_for_g = t;
      if (frozen_text.defined()) {
        text_for_g = frozen_text.index_select(
            0, torch::tensor(batch.request.captions, torch::kLong).to(device_));
      }
      auto out = hn_contrastive_loss(v, t, s, gamma, text_for_g);
      auto loss = out.loss;
      if (token_term) {
        loss = loss + c.loss_token_weight *
                          token_level_loss(l2_normalize(img.patches), l2_normalize(txt.tokens), txt.mask, s);
      }
      const double loss_value = loss.item<double>();
      ++step;
      if (!std::isfinite(loss_value)) {
        result.status = "failed";
        result.message = "non-finite loss (" + fmt(loss_value) + ") at step " + std::to_string(step) +
                         " (epoch " + std::to_string(epoch) + ")";
        break;
      }
      if (c.probe_every > 0 && step % c.probe_every == 0) {
        // Standard vs boosted gradients on this very batch, before the update (extra backward
        // passes through autograd::grad: no .grad, optimiser state or RNG is touched).
        const auto probe_start = Clock::now();
        const auto standard = info_nce_loss(v, t, s);
        const auto pv = probe_gradients(standard, gamma == 0.0 ? standard : out.loss, trainable);
        const ProbeEvent probe{step, epoch, pv.loss_standard, pv.loss_boosted, pv.grad_norm_standard,
                               pv.grad_norm_boosted, pv.grad_ratio, pv.grad_cosine};
        for (auto* o : observers_) o->on_probe(probe);
        result.probe_seconds += std::chrono::duration<double>(Clock::now() - probe_start).count();
      }
      optimizer.zero_grad();
      loss.backward();
      std::vector<torch::Tensor> norms;
      for (auto& p : trainable) {
        if (p.grad().defined()) norms.push_back(p.grad().norm());
      }
      const double grad_norm = norms.empty() ? 0.0 : torch::stack(norms).norm().item<double>();
      if (c.grad_clip > 0 && grad_norm > c.grad_clip) {
        torch::NoGradGuard no_grad;
        for (auto& p : trainable) {
          if (p.grad().defined()) p.grad().mul_(c.grad_clip / (grad_norm + 1e-6));
        }
      }
      optimizer.step();
      if (!c.fixed_scale) {
        torch::NoGradGuard no_grad;
        model_->logit_scale.clamp_max_(std::log(ClipModel::Impl::kMaxLogitScale));
      }
      const double elapsed = std::chrono::duration<double>(Clock::now() - t0).count() - paused_seconds;
      result.images_seen += static_cast<int64_t>(batch.request.images.size());
      StepEvent ev{step, epoch, spe, spe * c.epochs, train_seconds + elapsed, loss_value,
                   out.loss_standard.item<double>(), lr, s.item<double>(), grad_norm};
      for (auto* o : observers_) o->on_step(ev);
    }
    train_seconds += std::chrono::duration<double>(Clock::now() - t0).count() - paused_seconds;
    result.loader_wait_seconds += loader->wait_seconds();
    if (!result.status.empty()) break;

    EvalEvent ev = evaluate(epoch, step);
    snapshot(epoch);
    const double score = ev.mean_r1();
    const auto path = (std::filesystem::path(checkpoint_dir_) / ("epoch-" + std::to_string(epoch) + ".pt")).string();
    nlohmann::json cfg_json = c;
    save_checkpoint(path, model_, CheckpointMeta{model_->config(), tokenizer_, epoch, step, run_id_, cfg_json},
                    &optimizer);
    for (auto* o : observers_) o->on_checkpoint({epoch, step, path, score});
    if (score > best_score) {  // strictly better: ties keep the earlier epoch
      best_score = score;
      result.best_epoch = epoch;
      result.best_eval = ev;
    }
  }
  result.steps = step;
  result.train_seconds = train_seconds;
  if (result.status.empty()) result.status = "finished";
  emit_status(result.status, result.message);
  return result;
}

}  // namespace hnclip
