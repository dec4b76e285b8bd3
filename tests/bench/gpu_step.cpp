// gpu_step: the workbench's fine-tuning step where it matters, on a GPU — a preset CLIP (ViT-L/14
// by default) with random weights and a long text tower (248 tokens, Long-CLIP's), batch 128, the
// encoders under bf16 autocast (train/autocast_guard.h, as the Trainer runs them on CUDA), the
// HN-CLIP loss (γ = 0.5, recomputed Ḡ) in fp32, AdamW. It reports images per second and the model
// FLOP utilisation: the matrix-product FLOPs of the forward and backward of both towers (counted
// below, stated in the output) per second, over the device's peak (--peak-tflops); and, since the
// step skips the last blocks' unread rows, the same over the FLOPs it does compute.
// Built and run by tests/bench/gpu_step.sh against the machine's own LibTorch, beside the same
// step in that machine's PyTorch (eager and torch.compile). It links the LibTorch-only parts of
// the core (model/, loss/, the autocast guard): no Qt, OpenCV or SQLite.
//
// Usage: gpu_step [--preset ViT-L/14] [--context 248] [--batch 128] [--warmup 3] [--steps 10]
//                 [--device cuda|cpu|cuda:N] [--precision bf16|fp32] [--peak-tflops T]
//                 [--optimizer adamw|fused] [--gamma 0.5] [--attention auto|explicit|fused]
//                 [--phase-steps 3] [--json OUT]
//        gpu_step --check-fused-adamw [--device D]
// --optimizer adamw is torch::optim::AdamW's own loop (one parameter at a time: about ten kernels
// per tensor), what the Trainer runs on LibTorch 1.13; fused is at::_fused_adamw_ (one
// multi-tensor kernel) on the same state, what the Trainer runs on 2.x (train/fused_adamw.h).
// --check-fused-adamw first shows the two give the same weights (three steps of the tiny model
// from the same start).
// --gamma: the margin strength (0: plain InfoNCE). --attention: the attention path of every layer
// (auto: at::scaled_dot_product_attention on LibTorch 2.x; explicit: the matmul-softmax-matmul
// path of 1.13, kept on 2.x for comparison).
// Prints a summary; with --json writes {"step_seconds": [...], "flops_per_step": ...,
// "phase_seconds": {"forward", "backward", "optimizer": [...]}, ...}.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/torch.h>
#include <torch/version.h>

#include "loss/hn_contrastive_loss.h"
#include "model/clip_config.h"
#include "model/make_clip_model.h"
#include "model/multihead_self_attention.h"
#include "train/autocast_guard.h"
#include "train/fused_adamw.h"

namespace {

constexpr int64_t kVocab = 49408;
constexpr int64_t kWeightsSeed = 1;
constexpr double kLearningRate = 1e-5;

struct Options {
  std::string preset = "ViT-L/14";
  int64_t context = 248, batch = 128;
  int warmup = 3, steps = 10;
  std::string device = "cuda";
  std::string precision = "bf16";
  double peak_tflops = 0;  // 0: MFU not reported
  std::string optimizer = "adamw";
  double gamma = 0.5;
  std::string attention = "auto";
  int phase_steps = 3;
  bool check_fused_adamw = false;
  std::string json_out;
};

constexpr double kBeta1 = 0.9, kBeta2 = 0.98, kEps = 1e-6, kWeightDecay = 0.1;

// The step's optimiser: torch::optim::AdamW, stepped by its own loop ("adamw", the Trainer on
// LibTorch 1.13) or by at::_fused_adamw_ on the same state ("fused", the Trainer on 2.x:
// train/fused_adamw.h).
class StepOptimizer {
 public:
  StepOptimizer(std::vector<torch::Tensor> params, const std::string& kind)
      : fused_(kind == "fused") {
    if (kind != "adamw" && kind != "fused")
      throw std::invalid_argument("--optimizer must be adamw or fused");
    if (fused_ && !params.empty() && !hnclip::fused_adamw_supported(params.front().device())) {
      throw std::invalid_argument("--optimizer fused: LibTorch " + std::string(TORCH_VERSION) +
                                  " has no fused AdamW for " + params.front().device().str());
    }
    adamw_ = std::make_unique<torch::optim::AdamW>(std::move(params),
                                                   torch::optim::AdamWOptions(kLearningRate)
                                                       .betas({kBeta1, kBeta2})
                                                       .eps(kEps)
                                                       .weight_decay(kWeightDecay));
  }

  void zero_grad() { adamw_->zero_grad(); }

  void step() {
    if (!fused_) {
      adamw_->step();
      return;
    }
    if (!hnclip::fused_adamw_step(*adamw_))
      throw std::runtime_error("--optimizer fused: the fused kernel refused this step");
  }

 private:
  bool fused_;
  std::unique_ptr<torch::optim::AdamW> adamw_;
};

// Forward FLOPs of one transformer layer over `t` tokens of width `w`: the Q/K/V and output
// projections (8tw²), the 4x MLP (16tw²), the scores and their weighted sum (4t²w) — each
// multiply-add counted as 2 FLOPs. The text tower's causal scores are counted dense: that is what
// the explicit path computes, and what the usual MFU convention counts.
double layer_flops(double t, double w) { return 24.0 * t * w * w + 4.0 * t * t * w; }

// Forward FLOPs of both towers for one image–caption pair (the patch embedding, every layer, the
// projections); elementwise work (norms, softmax, GELU) is left out, as in every MFU count.
double pair_forward_flops(const hnclip::ClipConfig& c, int64_t context) {
  const double patches = std::pow(static_cast<double>(c.image_size / c.patch_size), 2);
  const double tv = patches + 1;
  double f = 2.0 * patches * 3.0 * c.patch_size * c.patch_size * c.vision_width;  // conv1
  f += c.vision_layers * layer_flops(tv, c.vision_width);
  f += 2.0 * c.vision_width * c.embed_dim;  // the class token's projection
  f += c.text_layers * layer_flops(static_cast<double>(context), c.text_width);
  f += 2.0 * c.text_width * c.embed_dim;  // the end token's projection
  return f;
}

// One step: forward, and a backward that costs twice the forward (the gradients of the inputs
// and of the weights); plus the loss's two B×B×E products (S and Ḡ) three times over.
double step_flops(const hnclip::ClipConfig& c, int64_t context, int64_t batch) {
  const double b = static_cast<double>(batch);
  return 3.0 * (b * pair_forward_flops(c, context) + 2.0 * 2.0 * b * b * c.embed_dim);
}

// Of layer_flops(t, w), what a last block computing only its pooled row leaves out (the queries,
// out-projection and MLP of the other t - 1 rows, and their scores and weighted sums), as this
// step's does (model/tower_outputs.h) and the peers' do not.
double unread_row_flops(double t, double w) {
  return 20.0 * (t - 1) * w * w + 4.0 * t * (t - 1) * w;
}

// Of step_flops, the part this step does not compute: both towers' last blocks' unread rows.
double step_flops_left_out(const hnclip::ClipConfig& c, int64_t context, int64_t batch) {
  const double tv = std::pow(static_cast<double>(c.image_size / c.patch_size), 2) + 1;
  return 3.0 * static_cast<double>(batch) *
         (unread_row_flops(tv, c.vision_width) +
          unread_row_flops(static_cast<double>(context), c.text_width));
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
    else if (a == "--context") o.context = std::stoll(value());
    else if (a == "--batch") o.batch = std::stoll(value());
    else if (a == "--warmup") o.warmup = std::stoi(value());
    else if (a == "--steps") o.steps = std::stoi(value());
    else if (a == "--device") o.device = value();
    else if (a == "--precision") o.precision = value();
    else if (a == "--peak-tflops") o.peak_tflops = std::stod(value());
    else if (a == "--optimizer") o.optimizer = value();
    else if (a == "--gamma") o.gamma = std::stod(value());
    else if (a == "--attention") o.attention = value();
    else if (a == "--phase-steps") o.phase_steps = std::stoi(value());
    else if (a == "--check-fused-adamw") o.check_fused_adamw = true;
    else if (a == "--json") o.json_out = value();
    else throw std::invalid_argument("unknown option " + a);
  }
  if (o.steps < 1 || o.warmup < 0 || o.batch < 2 || o.context < 2 || o.phase_steps < 0)
    throw std::invalid_argument("bad --steps/--warmup/--batch/--context/--phase-steps");
  if (o.attention != "auto" && o.attention != "explicit" && o.attention != "fused")
    throw std::invalid_argument("--attention must be auto, explicit or fused");
  if (o.precision != "bf16" && o.precision != "fp32")
    throw std::invalid_argument("--precision must be bf16 or fp32");
  return o;
}

void synchronize(const c10::Device& d) {
  if (d.is_cuda()) torch::cuda::synchronize(d.index() < 0 ? -1 : d.index());
}

double median_of(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

torch::Tensor l2(const torch::Tensor& x) {
  return torch::nn::functional::normalize(x.to(torch::kFloat),
                                          torch::nn::functional::NormalizeFuncOptions().dim(-1));
}

// The two optimisers from the same weights, three steps of the tiny model on one batch (fp32):
// the largest weight difference over the largest weight. Exit status 0 when within 1e-5.
int check_fused_adamw(const Options& o) {
  const c10::Device device(o.device);
  const auto config = hnclip::clip_preset("tiny", 1000, 16);
  torch::manual_seed(0);
  const auto images = torch::randn({8, 3, config.image_size, config.image_size}).to(device);
  const auto tokens = torch::randint(1, 999, {8, 16}, torch::kLong).to(device);
  std::vector<std::vector<torch::Tensor>> weights;
  for (const std::string kind : {"adamw", "fused"}) {
    auto model = hnclip::make_clip_model(config, kWeightsSeed);
    model->to(device);
    model->train();
    StepOptimizer opt(model->parameters(), kind);
    for (int s = 0; s < 3; ++s) {
      const auto text = l2(model->encode_text(tokens).pooled);
      auto loss = hnclip::hn_contrastive_loss(l2(model->encode_image(images).pooled), text,
                                              model->scale(), o.gamma, text)
                      .loss;
      opt.zero_grad();
      loss.backward();
      opt.step();
    }
    std::vector<torch::Tensor> w;
    for (const auto& p : model->parameters()) w.push_back(p.detach().to(torch::kCPU).clone());
    weights.push_back(std::move(w));
  }
  double worst = 0, scale = 0;
  for (size_t i = 0; i < weights[0].size(); ++i) {
    worst = std::max(worst, (weights[0][i] - weights[1][i]).abs().max().item<double>());
    scale = std::max(scale, weights[0][i].abs().max().item<double>());
  }
  const double rel = worst / scale;
  std::printf("fused AdamW vs torch::optim::AdamW after 3 steps (tiny, %s): largest weight "
              "difference %.3g, %.3g of the largest weight (%zu tensors) — %s\n",
              o.device.c_str(), worst, rel, weights[0].size(), rel <= 1e-5 ? "agree" : "DIFFER");
  return rel <= 1e-5 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options o = parse(argc, argv);
    const c10::Device device(o.device);
    if (device.is_cuda() && !torch::cuda::is_available())
      throw std::invalid_argument("--device " + o.device + ": this LibTorch sees no CUDA device");
    if (o.check_fused_adamw) return check_fused_adamw(o);
    const auto config = hnclip::clip_preset(o.preset, kVocab, o.context);
    auto model = hnclip::make_clip_model(config, kWeightsSeed);
    model->to(device);
    model->train();
    if (o.attention != "auto") {
      const auto path = o.attention == "fused" ? hnclip::AttentionPath::Fused
                                               : hnclip::AttentionPath::Explicit;
      for (const auto& m : model->modules(/*include_self=*/false)) {
        if (auto* attention = m->as<hnclip::MultiheadSelfAttentionImpl>()) attention->path = path;
      }
    }
    torch::manual_seed(0);
    const auto images =
        torch::randn({o.batch, 3, config.image_size, config.image_size}).to(device);
    auto tokens = torch::randint(1, kVocab - 1, {o.batch, o.context}, torch::kLong);
    tokens.select(1, o.context - 1).fill_(kVocab - 1);  // every caption fills the context
    tokens = tokens.to(device);
    StepOptimizer opt(model->parameters(), o.optimizer);
    const bool bf16 = o.precision == "bf16";
    const auto step_loss = [&]() {
      torch::Tensor image, text;
      {
        hnclip::AutocastGuard autocast(device.type(), bf16);
        image = model->encode_image(images).pooled;
        text = model->encode_text(tokens).pooled;
      }
      image = l2(image);
      text = l2(text);
      return hnclip::hn_contrastive_loss(image, text, model->scale(), o.gamma, text).loss;
    };

    std::vector<double> seconds;
    double first_loss = NAN, first_step_seconds = NAN;
    synchronize(device);
    auto last = std::chrono::steady_clock::now();
    for (int s = 0; s < o.warmup + o.steps; ++s) {
      auto loss = step_loss();
      opt.zero_grad();
      loss.backward();
      opt.step();
      synchronize(device);
      if (s == 0) first_loss = loss.item<double>();
      const auto now = std::chrono::steady_clock::now();
      const double took = std::chrono::duration<double>(now - last).count();
      if (s == 0) first_step_seconds = took;
      if (s >= o.warmup) seconds.push_back(took);
      last = now;
    }
    // Where a step's time goes: a few more steps, synchronised between the phases (so a little
    // slower in all than the timed steps above).
    std::vector<double> forward_s, backward_s, optimizer_s;
    const auto since = [](std::chrono::steady_clock::time_point t) {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    };
    for (int s = 0; s < o.phase_steps; ++s) {
      auto t = std::chrono::steady_clock::now();
      auto loss = step_loss();
      synchronize(device);
      forward_s.push_back(since(t));
      t = std::chrono::steady_clock::now();
      opt.zero_grad();
      loss.backward();
      synchronize(device);
      backward_s.push_back(since(t));
      t = std::chrono::steady_clock::now();
      opt.step();
      synchronize(device);
      optimizer_s.push_back(since(t));
    }
    const double median = median_of(seconds);
    // The MFU convention counts the model's FLOPs, which the peers compute in full; the step
    // leaves some out, so its utilisation of the work it does is reported beside it.
    const double flops = step_flops(config, o.context, o.batch);
    const double left_out = step_flops_left_out(config, o.context, o.batch);
    const double tflops = flops / median / 1e12;
    const double done_tflops = (flops - left_out) / median / 1e12;
    nlohmann::json report{{"preset", o.preset},           {"context", o.context},
                          {"batch", o.batch},             {"device", o.device},
                          {"precision", o.precision},     {"step_seconds", seconds},
                          {"median_s", median},           {"images_per_second", o.batch / median},
                          {"flops_per_step", flops},      {"achieved_tflops", tflops},
                          {"flops_left_out_per_step", left_out},
                          {"first_loss", first_loss},     {"torch_version", TORCH_VERSION},
                          {"optimizer", o.optimizer},     {"gamma", o.gamma},
                          {"attention", o.attention},
                          {"first_step_seconds", first_step_seconds},
                          {"phase_seconds",
                           {{"forward", forward_s},
                            {"backward", backward_s},
                            {"optimizer", optimizer_s}}}};
    if (o.peak_tflops > 0) {
      report["mfu"] = tflops / o.peak_tflops;
      report["utilisation_of_work_done"] = done_tflops / o.peak_tflops;
    }
    std::printf("%s, %lld-token text, batch %lld, %s, %s, gamma %g, attention %s on %s: median "
                "%.4f s/step, %.1f images/s (first loss %.6f; first step %.2f s; phases forward "
                "%.4f, backward %.4f, optimizer %.4f s)\n",
                o.preset.c_str(), static_cast<long long>(o.context),
                static_cast<long long>(o.batch), o.precision.c_str(), o.optimizer.c_str(), o.gamma,
                o.attention.c_str(), o.device.c_str(), median, o.batch / median, first_loss,
                first_step_seconds,
                median_of(forward_s), median_of(backward_s), median_of(optimizer_s));
    std::printf("model FLOPs per step %.4g (forward + backward of both towers), %.2f TFLOP/s%s\n",
                flops, tflops,
                o.peak_tflops > 0
                    ? (", MFU " + std::to_string(100.0 * tflops / o.peak_tflops) + "%").c_str()
                    : "");
    std::printf(
        "of which the step leaves out %.4g (%.1f%%: the last blocks' rows no pooled "
        "feature reads)%s\n",
        left_out, 100.0 * left_out / flops,
        o.peak_tflops > 0 ? (", utilisation of the work done " +
                             std::to_string(100.0 * done_tflops / o.peak_tflops) + "%")
                                .c_str()
                          : "");
    if (!o.json_out.empty()) std::ofstream(o.json_out) << report.dump(2) << "\n";
    return std::isfinite(first_loss) ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "gpu_step: " << e.what() << "\n";
    return 2;
  }
}
