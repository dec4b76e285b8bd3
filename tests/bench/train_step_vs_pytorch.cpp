// train_step_vs_pytorch: the workbench's training step (hnclip::Trainer, the very code a run uses)
// against the same step in PyTorch (tests/bench/train_step_peer.py on Debian's python3-torch, the
// same LibTorch underneath), on the same weights, the same batch, the same optimiser, loss and
// thread count — and, in the same runs, what the HN margins and the gradient probe add to our step.
//
// First a correctness check: one forward and backward of the same weights on the same batch in
// both, without an update — the losses must agree to 1e-5 and every parameter's gradient to 1e-4
// of that gradient's largest magnitude (or absolutely, below 1). A mismatch fails the program
// before anything is timed: a fast step that computes something else is not a result. The
// trainer's own first step reports its loss, which is checked against the peer's too.
//
// Then `--reps` rounds, each running every configuration once, interleaved so that the drift of a
// shared machine hits all of them alike, and each round starting one configuration further along
// the list (round r runs them from the r-th on, wrapping around), so that no configuration always
// holds the same place in the order (a place's own effect was measured: frozen Ḡ, third in every
// round, was 1.1% slower than recomputed; run first, 0.3% faster):
//   ours_hn       Trainer, γ = 0.5, recomputed Ḡ (the method's step)
//   ours_plain    Trainer, γ = 0 (plain InfoNCE)                      → margin overhead
//   ours_frozen   Trainer, γ = 0.5, frozen Ḡ (frozen caption features cached at set-up)
//   ours_probe    Trainer, γ = 0.5, recomputed, --probe-every 5       → probe overhead
//   ours_hn_aa    ours_hn again, in a trainer instance of its own: the A/A control, how far two
//                 instances of one configuration differ here → the noise floor of the whole-step
//                 comparisons between configurations (margins, frozen Ḡ)
//   ours_hn_bf16  ours_hn with --precision bf16: the encoders under CPU bf16 autocast, the loss
//                 and the optimiser in fp32                           → bf16 speed-up (req 8)
//   peer_hn       the PyTorch step, γ = 0.5 (what ours_hn is compared with), run as a researcher
//                 runs it: torch.set_num_threads(T) and nothing else
//   peer_hn_blas1 the same with OPENBLAS_NUM_THREADS=1, the thread setting the workbench makes
//                 for models under 256 wide (compute_setup.h): how much of the ratio is that
//                 setting alone
//   peer_hn_same_settings  the peer given both process settings the workbench makes
//                 (configure_threads): OpenBLAS's pool as large as it would make it for this
//                 model, and glibc's mmap and trim thresholds through the environment
//                 (MALLOC_MMAP_THRESHOLD_, MALLOC_TRIM_THRESHOLD_) → what is left of the ratio
//                 is what the step's own code does (the control of the two rows above)
//   peer_hn_pooled_rows  peer_hn_same_settings whose last blocks compute only the pooled rows
//                 (train_step_peer.py pooled-rows), as the workbench's do → what is left of the
//                 ratio beyond that saving, which a PyTorch user could write too
// Each runs --warmup untimed steps, then --steps timed ones; a step's time runs from the end of the
// previous step to the end of this one (the trainer's step events, perf_counter in Python), so
// fetching the batch and logging are inside it. The per-configuration figure is the median over
// every timed step of every round, with the min and max of the rounds' medians. The probe's
// overhead compares means instead (one step in five carries it, which a median would hide), so
// --steps should be a multiple of 5 for it. It is taken within ours_probe's own runs (the mean of
// all its timed steps over that of its unprobed ones), free of the difference between two trainer
// instances (which ours_hn_aa measures); ours_probe's mean over ours_hn's is reported too.
//
// The trainer is fed the same batch at every step by an in-memory source (no decoding: that is
// the loader benchmark's business); its epoch-end evaluation and checkpoint fall outside the
// timed steps. Captions fill the whole context (no padding), so the trainer's trimming of padded
// positions saves nothing here and both sides do the same work.
//
// Usage: train_step_vs_pytorch --preset tiny|ViT-B/32|... --batch B --context L [--vocab V]
//          [--threads T] [--warmup W] [--steps S] [--reps R] [--configs a,b,...] --work DIR
//          [--python /usr/bin/python3] [--json OUT]
// Prints a table and, with --json, writes every figure to OUT.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <torch/torch.h>
#include <nlohmann/json.hpp>

#include "bench/bench_support.h"
#include "loss/hn_contrastive_loss.h"
#include "model/clip_config.h"
#include "model/make_clip_model.h"
#include "model/model_state_dict.h"
#include "model/state_dict_file.h"
#include "train/batch_source.h"
#include "train/compute_setup.h"
#include "train/paired_data.h"
#include "train/train_config.h"
#include "train/trainer.h"

namespace {

namespace fs = std::filesystem;
using hnclip::bench::command_output;
using hnclip::bench::mean;
using hnclip::bench::median;
using hnclip::bench::shell_quote;
using nlohmann::json;

constexpr uint64_t kWeightsSeed = 1;
constexpr double kGamma = 0.5;
constexpr int kProbeEvery = 5;
constexpr double kLossTolerance = 1e-5;
constexpr double kGradTolerance = 1e-4;

// Every configuration this program knows, in the default order (the header says what each is).
const std::vector<std::string> kAllConfigs = {
    "ours_hn",      "ours_plain", "ours_frozen",   "ours_probe",           "ours_hn_aa",
    "ours_hn_bf16", "peer_hn",    "peer_hn_blas1", "peer_hn_same_settings", "peer_hn_pooled_rows"};

struct Options {
  std::string preset = "tiny";
  int64_t batch = 128, context = 96, vocab = 1000;
  int threads = 2, warmup = 2, steps = 10, reps = 3;
  std::vector<std::string> configs = kAllConfigs;
  fs::path work;
  std::string python = "/usr/bin/python3";
  std::string json_out;
};

// A split of `n` images, one caption each, whose loads hand out rows of one fixed batch by
// position: a training request of `batch` indices always gets the whole fixed batch, in order.
class FixedBatchData : public hnclip::PairedData {
 public:
  FixedBatchData(int64_t n, torch::Tensor images, torch::Tensor tokens)
      : n_(n), images_(std::move(images)), tokens_(std::move(tokens)), captions_(n) {
    for (int64_t i = 0; i < n; ++i) captions_[i] = {i};
  }
  int64_t num_images() const override { return n_; }
  int64_t num_captions() const override { return n_; }
  int64_t caption_image(int64_t caption) const override { return caption; }
  const std::vector<int64_t>& image_captions(int64_t image) const override {
    return captions_[image];
  }
  const std::string& caption_text(int64_t) const override { return text_; }
  at::Tensor load_images(const std::vector<int64_t>& images) const override {
    return rows(images_, static_cast<int64_t>(images.size()));
  }
  at::Tensor load_tokens(const std::vector<int64_t>& captions) const override {
    return rows(tokens_, static_cast<int64_t>(captions.size()));
  }

 private:
  static at::Tensor rows(const torch::Tensor& t, int64_t n) {
    return t.index_select(0, torch::arange(n, torch::kLong) % t.size(0));
  }
  int64_t n_;
  torch::Tensor images_, tokens_;
  std::vector<std::vector<int64_t>> captions_;
  std::string text_ = "a fixed benchmark caption";
};

// Loads each scheduled request when asked (the data are in memory already).
class InlineSource : public hnclip::BatchSource {
 public:
  explicit InlineSource(const hnclip::PairedData& data) : data_(data) {}
  void schedule(std::vector<hnclip::BatchRequest> requests) override {
    requests_ = std::move(requests);
    next_ = 0;
  }
  bool next(hnclip::Batch& out) override {
    if (next_ >= requests_.size()) return false;
    out.request = requests_[next_++];
    out.images = out.request.images.empty() ? at::Tensor() : data_.load_images(out.request.images);
    out.tokens =
        out.request.captions.empty() ? at::Tensor() : data_.load_tokens(out.request.captions);
    return true;
  }
  double wait_seconds() const override { return 0; }

 private:
  const hnclip::PairedData& data_;
  std::vector<hnclip::BatchRequest> requests_;
  size_t next_ = 0;
};

class StepTimes : public hnclip::TrainObserver {
 public:
  void on_step(const hnclip::StepEvent& e) override {
    ends.push_back(e.wall_time_s);
    probed.push_back(!probes.empty() && probes.back() == e.step);
    if (first_loss < 0) first_loss = e.loss;
  }
  // A step's probe is reported before the step's own event (trainer.cpp: during its backward).
  void on_probe(const hnclip::ProbeEvent& e) override { probes.push_back(e.step); }
  std::vector<double> ends;
  std::vector<bool> probed;  // per step: it carried a gradient probe
  std::vector<int64_t> probes;
  double first_loss = -1;
};

hnclip::ClipConfig model_config(const Options& o) {
  return hnclip::clip_preset(o.preset, o.vocab, o.context);
}

// Images N(0, 1) (already "normalised"); each caption a start id, random word ids and the end id
// (the vocabulary's largest, where the text tower pools) in the last position: no padding.
std::pair<torch::Tensor, torch::Tensor> make_batch(const Options& o, const hnclip::ClipConfig& c) {
  auto gen = at::detail::createCPUGenerator(7);
  auto images = at::randn({o.batch, 3, c.image_size, c.image_size}, gen);
  auto tokens = at::randint(1, o.vocab - 2, {o.batch, o.context}, gen, torch::kLong);
  tokens.select(1, 0).fill_(o.vocab - 2);
  tokens.select(1, o.context - 1).fill_(o.vocab - 1);
  return {images, tokens};
}

hnclip::TrainConfig train_config(const Options& o, const std::string& name) {
  hnclip::TrainConfig tc;
  tc.epochs = 1;
  tc.batch_size = o.batch;
  tc.lr = 5e-5;
  tc.threads = o.threads;
  tc.device.kind = hnclip::DeviceKind::kCpu;
  tc.precision = name == "ours_hn_bf16" ? hnclip::Precision::kBf16 : hnclip::Precision::kFp32;
  tc.eval_at_start = false;
  tc.gbar_snapshots = 0;
  tc.probe_every = name == "ours_probe" ? kProbeEvery : 0;
  tc.loss_gamma = name == "ours_plain" ? 0.0 : kGamma;
  tc.loss_gbar = name == "ours_frozen" ? hnclip::GbarMode::kFrozen : hnclip::GbarMode::kRecomputed;
  return tc;
}

struct Measured {
  std::vector<double> step_seconds;  // the timed steps of one round
  std::vector<bool> probed;          // per timed step: it carried a gradient probe
  double first_loss = NAN;
};

Measured run_ours(const Options& o, const std::string& name, const torch::Tensor& images,
                  const torch::Tensor& tokens, int round) {
  const int64_t steps = o.warmup + o.steps;
  FixedBatchData train(steps * o.batch, images, tokens), test(o.batch, images, tokens);
  auto factory = [](const hnclip::PairedData& d) -> std::unique_ptr<hnclip::BatchSource> {
    return std::make_unique<InlineSource>(d);
  };
  const fs::path ckpt = o.work / ("ckpt-" + name + "-" + std::to_string(round));
  fs::create_directories(ckpt);
  hnclip::Trainer trainer(hnclip::make_clip_model(model_config(o), kWeightsSeed),
                          train_config(o, name), train, test, factory, ckpt.string(),
                          json::object());
  StepTimes times;
  trainer.add_observer(&times);
  std::atomic<bool> stop{false};
  const auto cfg = model_config(o);
  hnclip::configure_threads(o.threads, &cfg);  // as TrainingJob::run does for this model
  const auto result = trainer.run(hnclip::TrainStart{}, stop);
  fs::remove_all(ckpt);
  if (result.status != "finished" || static_cast<int64_t>(times.ends.size()) != steps)
    throw std::runtime_error(name + ": the run ended " + result.status + " " + result.message);
  Measured m;
  m.first_loss = times.first_loss;
  for (int64_t i = o.warmup; i < steps; ++i) {
    m.step_seconds.push_back(times.ends[i] - (i == 0 ? 0.0 : times.ends[i - 1]));
    m.probed.push_back(times.probed[i]);
  }
  return m;
}

// The environment a peer configuration runs in: as a researcher runs it (nothing set), with a
// one-thread OpenBLAS pool, or with every process setting configure_threads makes for this model.
std::string peer_environment(const Options& o, const std::string& name) {
  if (name == "peer_hn_blas1") return "OPENBLAS_NUM_THREADS=1";
  if (name == "peer_hn_same_settings" || name == "peer_hn_pooled_rows") {
    const auto cfg = model_config(o);
    return "OPENBLAS_NUM_THREADS=" + std::to_string(hnclip::blas_pool_size(o.threads, &cfg)) +
           " MALLOC_MMAP_THRESHOLD_=" + std::to_string(hnclip::kMallocMmapThreshold) +
           " MALLOC_TRIM_THRESHOLD_=" + std::to_string(hnclip::kMallocTrimThreshold);
  }
  return "";
}

// The peer script's trailing argument for a configuration: its model variant.
std::string peer_variant(const std::string& name) {
  return name == "peer_hn_pooled_rows" ? " pooled-rows" : "";
}

Measured run_peer(const Options& o, const fs::path& weights, const fs::path& batch,
                  const std::string& name) {
  const std::string script = std::string(HNCLIP_TEST_SOURCE_DIR) + "/bench/train_step_peer.py";
  const std::string environment = peer_environment(o, name);
  const std::string out = command_output(
      (environment.empty() ? "" : environment + " ") + shell_quote(o.python) + " " +
      shell_quote(script) + " time " + shell_quote(weights) + " " + shell_quote(batch) + " " +
      std::to_string(kGamma) + " " + std::to_string(o.threads) + " " + std::to_string(o.warmup) +
      " " + std::to_string(o.steps) + peer_variant(name));
  const auto line = out.substr(out.rfind('{'));
  Measured m;
  m.step_seconds = json::parse(line).at("step_seconds").get<std::vector<double>>();
  return m;
}

// One forward and backward of our model (no update), compared with the peer's (the model variant
// of peer configuration `peer_config`), tensor by tensor.
json check_against_peer(const Options& o, const fs::path& weights, const fs::path& batch,
                        const torch::Tensor& images, const torch::Tensor& tokens,
                        const std::string& peer_config = "peer_hn") {
  const std::string script = std::string(HNCLIP_TEST_SOURCE_DIR) + "/bench/train_step_peer.py";
  const fs::path grads = o.work / "peer_grads.pt";
  command_output(shell_quote(o.python) + " " + shell_quote(script) + " check " +
              shell_quote(weights) + " " + shell_quote(batch) + " " + std::to_string(kGamma) +
              " " + shell_quote(grads) + peer_variant(peer_config));
  auto model = hnclip::make_clip_model(model_config(o), kWeightsSeed);
  model->train();
  namespace F = torch::nn::functional;
  const auto norm = F::NormalizeFuncOptions().dim(-1);
  const auto img = F::normalize(model->encode_image(images).pooled, norm);
  const auto txt = F::normalize(model->encode_text(tokens).pooled, norm);
  const auto loss = hnclip::hn_contrastive_loss(img, txt, model->scale(), kGamma, txt).loss;
  loss.backward();

  std::map<std::string, torch::Tensor> peer;
  for (auto& [k, v] : hnclip::read_state_dict_file(grads.string())) peer[k] = v;
  json r;
  const double ours_loss = loss.item<double>(), peer_loss = peer.at("loss").item<double>();
  r["loss_ours"] = ours_loss;
  r["loss_peer"] = peer_loss;
  r["loss_abs_diff"] = std::abs(ours_loss - peer_loss);
  double worst = 0;
  std::string worst_name;
  int64_t compared = 0;
  for (auto& p : model->named_parameters()) {
    const auto it = peer.find("grad/" + p.key());
    if (it == peer.end()) throw std::runtime_error("the peer has no gradient for " + p.key());
    const auto ref = it->second.to(torch::kDouble);
    const auto ours = p.value().grad().to(torch::kDouble);
    const double scale = std::max(1.0, ref.abs().max().item<double>());
    const double d = (ours - ref).abs().max().item<double>() / scale;
    if (d > worst) worst = d, worst_name = p.key();
    ++compared;
  }
  if (compared + 1 != static_cast<int64_t>(peer.size()))
    throw std::runtime_error("the peer has " + std::to_string(peer.size() - 1) +
                             " gradients, we have " + std::to_string(compared));
  r["gradients_compared"] = compared;
  r["grad_max_scaled_diff"] = worst;
  r["grad_worst_tensor"] = worst_name;
  r["ok"] = r["loss_abs_diff"].get<double>() <= kLossTolerance && worst <= kGradTolerance;
  return r;
}

// The batch's L2-normalised features and the logit scale, as the encoders hand them to the loss,
// detached: what the isolated loss measurements below start each repetition from.
struct LossInputs {
  torch::Tensor image, text, scale;
};

LossInputs loss_inputs(const Options& o, const torch::Tensor& images, const torch::Tensor& tokens) {
  auto model = hnclip::make_clip_model(model_config(o), kWeightsSeed);
  torch::NoGradGuard no_grad;
  namespace F = torch::nn::functional;
  const auto norm = F::NormalizeFuncOptions().dim(-1);
  return {F::normalize(model->encode_image(images).pooled, norm),
          F::normalize(model->encode_text(tokens).pooled, norm), model->scale().detach()};
}

// The margins' cost where it arises, free of the step's noise: the loss's forward and backward
// on this batch's features (leaves, as the encoders hand them over) with γ = 0.5 and recomputed Ḡ
// against γ = 0, interleaved, `reps` times each; the median difference is what the margins add
// to a step. On a shared machine step times drift by more than the 1% target, so the whole-step
// comparison alone cannot resolve it.
json isolated_margin_cost(const Options& o, const torch::Tensor& images, const torch::Tensor& tokens) {
  const auto in = loss_inputs(o, images, tokens);
  const auto &img = in.image, &txt = in.text, &scale = in.scale;
  using Clock = std::chrono::steady_clock;
  std::vector<double> with, without;
  constexpr int kReps = 200;
  for (int r = 0; r < kReps; ++r) {
    for (double gamma : {kGamma, 0.0}) {
      auto v = img.clone().requires_grad_(true), t = txt.clone().requires_grad_(true);
      const auto t0 = Clock::now();
      auto out = hnclip::hn_contrastive_loss(v, t, scale, gamma, t);
      out.loss.backward();
      (void)out.loss.item<double>();
      (void)out.loss_standard.item<double>();
      const double sec = std::chrono::duration<double>(Clock::now() - t0).count();
      (gamma > 0 ? with : without).push_back(sec);
    }
  }
  return {{"loss_seconds_gamma", median(with)}, {"loss_seconds_plain", median(without)},
          {"reps", kReps}};
}

// Frozen Ḡ's per-step work where it arises, the same way: what Trainer::step_loss does for it —
// the batch's caption ids made a tensor, their rows gathered from the cached frozen features
// (a 10,000-caption cache here; the rows change every repetition, as batches do), the loss's
// forward and backward with Ḡ built from those rows — against the loss with Ḡ from the live
// text features (recomputed), interleaved, `reps` times each. The features Ḡ is built from do not
// need a gradient either way, so the difference is the gather alone.
json isolated_frozen_cost(const Options& o, const torch::Tensor& images, const torch::Tensor& tokens) {
  const auto in = loss_inputs(o, images, tokens);
  const auto &img = in.image, &txt = in.text, &scale = in.scale;
  constexpr int64_t kCacheRows = 10000;
  torch::manual_seed(0);
  const auto cache = torch::nn::functional::normalize(
      torch::randn({kCacheRows, txt.size(1)}),
      torch::nn::functional::NormalizeFuncOptions().dim(-1));
  const int64_t b = img.size(0);
  using Clock = std::chrono::steady_clock;
  std::vector<double> frozen, recomputed;
  constexpr int kReps = 200;
  for (int r = 0; r < kReps; ++r) {
    std::vector<int64_t> captions(static_cast<size_t>(b));
    for (int64_t i = 0; i < b; ++i) captions[static_cast<size_t>(i)] = (r * b + i * 7919) % kCacheRows;
    for (bool use_frozen : {true, false}) {
      auto v = img.clone().requires_grad_(true), t = txt.clone().requires_grad_(true);
      const auto t0 = Clock::now();
      const auto for_g =
          use_frozen ? cache.index_select(0, torch::tensor(captions, torch::kLong)) : t;
      auto out = hnclip::hn_contrastive_loss(v, t, scale, kGamma, for_g);
      out.loss.backward();
      (void)out.loss.item<double>();
      (void)out.loss_standard.item<double>();
      const double sec = std::chrono::duration<double>(Clock::now() - t0).count();
      (use_frozen ? frozen : recomputed).push_back(sec);
    }
  }
  return {{"loss_seconds_frozen", median(frozen)}, {"loss_seconds_recomputed", median(recomputed)},
          {"cache_rows", kCacheRows}, {"reps", kReps}};
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string part; std::getline(ss, part, ',');) out.push_back(part);
  return out;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
      return argv[++i];
    };
    if (a == "--preset") o.preset = value();
    else if (a == "--batch") o.batch = std::stoll(value());
    else if (a == "--context") o.context = std::stoll(value());
    else if (a == "--vocab") o.vocab = std::stoll(value());
    else if (a == "--threads") o.threads = std::stoi(value());
    else if (a == "--warmup") o.warmup = std::stoi(value());
    else if (a == "--steps") o.steps = std::stoi(value());
    else if (a == "--reps") o.reps = std::stoi(value());
    else if (a == "--configs") o.configs = split_commas(value());
    else if (a == "--work") o.work = value();
    else if (a == "--python") o.python = value();
    else if (a == "--json") o.json_out = value();
    else throw std::invalid_argument("unknown option " + a);
  }
  if (o.work.empty()) throw std::invalid_argument("--work DIR is required");
  if (o.steps < 1 || o.reps < 1 || o.warmup < 0) throw std::invalid_argument("bad --steps/--reps/--warmup");
  for (const auto& c : o.configs) {
    if (std::find(kAllConfigs.begin(), kAllConfigs.end(), c) == kAllConfigs.end())
      throw std::invalid_argument("--configs: unknown configuration " + c);
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options o = parse(argc, argv);
    fs::create_directories(o.work);
    hnclip::configure_threads(o.threads);
    const auto cfg = model_config(o);
    const auto [images, tokens] = make_batch(o, cfg);
    const fs::path weights = o.work / "weights.pt", batch = o.work / "batch.pt";
    {
      auto model = hnclip::make_clip_model(cfg, kWeightsSeed);
      hnclip::write_state_dict_file(weights.string(), hnclip::model_state_dict(model));
      hnclip::write_state_dict_file(
          batch.string(), {{"images", images},
                           {"tokens", tokens},
                           {"vision_heads", torch::tensor(cfg.vision_heads, torch::kLong)},
                           {"text_heads", torch::tensor(cfg.text_heads, torch::kLong)}});
    }
    json report;
    report["preset"] = o.preset;
    report["batch"] = o.batch;
    report["context"] = o.context;
    report["threads"] = o.threads;
    report["warmup"] = o.warmup;
    report["steps"] = o.steps;
    report["reps"] = o.reps;
    report["gamma"] = kGamma;
    report["check"] = check_against_peer(o, weights, batch, images, tokens);
    std::cerr << "check: " << report["check"].dump() << "\n";
    const bool pooled_rows_peer = std::find(o.configs.begin(), o.configs.end(),
                                            "peer_hn_pooled_rows") != o.configs.end();
    if (pooled_rows_peer) {
      // The pooled-rows peer is timed only if it, too, computes our loss and gradients.
      report["check_pooled_rows"] =
          check_against_peer(o, weights, batch, images, tokens, "peer_hn_pooled_rows");
      std::cerr << "check (pooled-rows peer): " << report["check_pooled_rows"].dump() << "\n";
    }
    report["margin_isolated"] = isolated_margin_cost(o, images, tokens);
    report["frozen_isolated"] = isolated_frozen_cost(o, images, tokens);
    if (!report["check"]["ok"].get<bool>() ||
        (pooled_rows_peer && !report["check_pooled_rows"]["ok"].get<bool>())) {
      std::cerr << "train_step_vs_pytorch: the two steps do not compute the same loss and "
                   "gradients; nothing timed\n";
      return 1;
    }

    std::map<std::string, std::vector<double>> all;        // every timed step
    std::map<std::string, std::vector<double>> round_med;  // each round's median
    // ours_probe's timed steps, those that carried a probe and those that did not, pooled over
    // rounds, and each round's mean over all its steps against its unprobed steps' mean.
    std::vector<double> probe_steps, unprobed_steps, probe_within_rounds;
    for (int r = 0; r < o.reps; ++r) {
      for (size_t k = 0; k < o.configs.size(); ++k) {
        const auto& name = o.configs[(k + static_cast<size_t>(r)) % o.configs.size()];
        const Measured m = name.rfind("peer_", 0) == 0
                               ? run_peer(o, weights, batch, name)
                               : run_ours(o, name, images, tokens, r);
        if (name == "ours_hn" && r == 0) {
          const double d = std::abs(m.first_loss - report["check"]["loss_peer"].get<double>());
          report["check"]["trainer_first_step_loss"] = m.first_loss;
          report["check"]["trainer_first_step_loss_abs_diff"] = d;
          if (d > kLossTolerance) {
            std::cerr << "train_step_vs_pytorch: the trainer's first-step loss " << m.first_loss
                      << " differs from the peer's by " << d << "\n";
            return 1;
          }
        }
        all[name].insert(all[name].end(), m.step_seconds.begin(), m.step_seconds.end());
        if (name == "ours_probe") {
          std::vector<double> unprobed;
          for (size_t i = 0; i < m.step_seconds.size(); ++i) {
            (m.probed[i] ? probe_steps : unprobed_steps).push_back(m.step_seconds[i]);
            if (!m.probed[i]) unprobed.push_back(m.step_seconds[i]);
          }
          if (!unprobed.empty() && unprobed.size() < m.step_seconds.size())
            probe_within_rounds.push_back(mean(m.step_seconds) / mean(unprobed) - 1);
        }
        round_med[name].push_back(median(m.step_seconds));
        std::cerr << "round " << r + 1 << "/" << o.reps << " " << name << ": median "
                  << median(m.step_seconds) << " s/step\n";
      }
    }
    for (const auto& name : o.configs) {
      const auto& rm = round_med[name];
      report["configs"][name] = {{"median_s", median(all[name])},
                                 {"mean_s", mean(all[name])},
                                 {"round_min_s", *std::min_element(rm.begin(), rm.end())},
                                 {"round_max_s", *std::max_element(rm.begin(), rm.end())},
                                 {"steps_timed", all[name].size()}};
    }
    auto med = [&](const std::string& n) { return report["configs"][n]["median_s"].get<double>(); };
    auto has = [&](const std::string& n) { return report["configs"].contains(n); };
    if (has("ours_hn") && has("peer_hn")) report["speed_ratio"] = med("peer_hn") / med("ours_hn");
    if (has("ours_hn") && has("peer_hn_blas1"))
      report["speed_ratio_blas1"] = med("peer_hn_blas1") / med("ours_hn");
    if (has("ours_hn") && has("peer_hn_same_settings")) {
      report["speed_ratio_same_settings"] = med("peer_hn_same_settings") / med("ours_hn");
      report["peer_same_settings_environment"] = peer_environment(o, "peer_hn_same_settings");
    }
    if (has("ours_hn") && has("peer_hn_pooled_rows"))
      report["speed_ratio_pooled_rows"] = med("peer_hn_pooled_rows") / med("ours_hn");
    // An overhead per round as well (the configurations run back to back in every round): the
    // spread of those is how much of the whole-step figure is this machine's drift.
    auto per_round = [&](const std::string& with, const std::string& without) {
      std::vector<double> paired;
      for (size_t r = 0; r < round_med[with].size(); ++r) {
        paired.push_back(round_med[with][r] / round_med[without][r] - 1);
      }
      return paired;
    };
    if (has("ours_hn_aa") && has("ours_hn")) {
      report["aa_control"] = med("ours_hn_aa") / med("ours_hn") - 1;
      report["aa_control_rounds"] = per_round("ours_hn_aa", "ours_hn");
    }
    if (has("ours_hn") && has("ours_plain")) {
      report["margin_overhead"] = med("ours_hn") / med("ours_plain") - 1;
      report["margin_overhead_rounds"] = per_round("ours_hn", "ours_plain");
    }
    if (has("ours_hn")) {
      const auto& m = report["margin_isolated"];
      report["margin_overhead_isolated"] =
          (m["loss_seconds_gamma"].get<double>() - m["loss_seconds_plain"].get<double>()) /
          med("ours_hn");
    }
    if (has("ours_hn_bf16") && has("ours_hn"))
      report["bf16_speedup"] = med("ours_hn") / med("ours_hn_bf16");
    if (has("ours_hn")) {
      const auto& f = report["frozen_isolated"];
      report["frozen_overhead_isolated"] =
          (f["loss_seconds_frozen"].get<double>() - f["loss_seconds_recomputed"].get<double>()) /
          med("ours_hn");
    }
    if (has("ours_frozen") && has("ours_hn")) {
      report["frozen_over_recomputed"] = med("ours_frozen") / med("ours_hn") - 1;
      report["frozen_over_recomputed_rounds"] = per_round("ours_frozen", "ours_hn");
    }
    // A probe runs on one step in kProbeEvery: the median step would hide it, the mean does not.
    auto mean_s = [&](const std::string& n) {
      return report["configs"][n]["mean_s"].get<double>();
    };
    if (has("ours_probe") && has("ours_hn"))
      report["probe_overhead"] = mean_s("ours_probe") / mean_s("ours_hn") - 1;
    if (!probe_steps.empty() && !unprobed_steps.empty()) {
      const double with = mean(probe_steps), without = mean(unprobed_steps);
      const double share = static_cast<double>(probe_steps.size()) /
                           static_cast<double>(probe_steps.size() + unprobed_steps.size());
      report["probe_within_run"] = {{"probed_steps", probe_steps.size()},
                                    {"unprobed_steps", unprobed_steps.size()},
                                    {"probed_mean_s", with},
                                    {"unprobed_mean_s", without},
                                    {"probe_seconds", with - without}};
      // The mean step (probed share at its cost) over an unprobed step, in the same runs.
      report["probe_overhead_within_run"] = share * (with - without) / without;
      report["probe_overhead_within_run_rounds"] = probe_within_rounds;
    }

    std::cout << o.preset << " batch " << o.batch << " context " << o.context << ", " << o.threads
              << " threads, " << o.reps << " rounds x " << o.steps << " steps\n";
    for (const auto& name : o.configs) {
      const auto& c = report["configs"][name];
      std::printf("  %-12s median %.4f s/step (rounds %.4f-%.4f)\n", name.c_str(),
                  c["median_s"].get<double>(), c["round_min_s"].get<double>(),
                  c["round_max_s"].get<double>());
    }
    for (const char* k :
         {"speed_ratio", "speed_ratio_blas1", "speed_ratio_same_settings",
          "speed_ratio_pooled_rows", "margin_overhead",
          "margin_overhead_isolated", "frozen_over_recomputed", "frozen_overhead_isolated", "probe_overhead",
          "probe_overhead_within_run", "aa_control", "bf16_speedup"}) {
      if (report.contains(k)) std::printf("  %-22s %.4f\n", k, report[k].get<double>());
    }
    if (!o.json_out.empty()) std::ofstream(o.json_out) << report.dump(2) << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "train_step_vs_pytorch: " << e.what() << "\n";
    return 2;
  }
}
