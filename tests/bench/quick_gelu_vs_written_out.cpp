// quick_gelu_vs_written_out: forward + backward of the MLP's QuickGELU as the workbench runs it
// (core/model/quick_gelu.h: one custom autograd function, silu(1.702 x) / 1.702 forward and one
// silu_backward) against the peer, the same non-linearity written out as OpenAI's model.py has it,
// x * sigmoid(1.702 x), under plain autograd — which is also what tests/bench/train_step_peer.py
// runs. Both on the MLP's hidden activation [batch, tokens, 4 · width] of each tower, at the
// batches the training-step benchmarks use (ViT-L/14 at a batch this machine's memory holds).
//
// Each shape runs --rounds rounds; a round times --reps forward + backward passes of one side,
// then of the other (which goes first alternates), and the ratio is the median of the rounds'
// (peer time over ours: above 1, ours is faster). Before timing, both sides' outputs and input
// gradients are compared (fp32 to 1e-5 of the largest value; a mismatch fails the program).
// On the CPU it also reports the bytes each side's forward leaves allocated for its backward
// (glibc's count of heap bytes in use), in units of the hidden tensor's size.
// The process takes the trainer's compute set-up (hnclip::configure_threads: its thread count and
// allocator settings), so tensors are reused as in a training step rather than faulted in anew.
//
// --json OUT writes every figure for tests/bench/run.sh's table, with the autograd node the
// workbench's side recorded: on LibTorch before 2.6, bf16 on the CPU runs the written-out form on
// both sides (quick_gelu.h says why), and the table must say that rather than show a ratio of
// about 1 as the function's.
//
// Usage: quick_gelu_vs_written_out [--threads T] [--rounds R] [--reps N] [--dtype float|bf16]
//          [--device cpu|cuda] [--json OUT]

#include <malloc.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/bench_support.h"
#include "model/quick_gelu.h"
#include "train/compute_setup.h"

namespace {

using Clock = std::chrono::steady_clock;

struct GeluShape {
  const char* what;
  std::vector<int64_t> sizes;  // [batch, tokens, 4 · width]
};

const std::vector<GeluShape> kGeluShapes = {
    {"tiny text (batch 128, 96 tokens, 256)", {128, 96, 256}},
    {"tiny image (batch 128, 37 tokens, 256)", {128, 37, 256}},
    {"ViT-B/32 text (batch 32, 248 tokens, 2048)", {32, 248, 2048}},
    {"ViT-B/32 image (batch 32, 50 tokens, 3072)", {32, 50, 3072}},
    {"ViT-L/14 text (batch 8, 248 tokens, 3072)", {8, 248, 3072}},
    {"ViT-L/14 image (batch 8, 257 tokens, 4096)", {8, 257, 4096}},
};

torch::Tensor gelu_written_out(const torch::Tensor& x) {
  return x * torch::sigmoid(hnclip::kQuickGeluSlope * x);
}

// One forward + backward through `f` with upstream gradient `g`; returns the input gradient.
template <typename F>
torch::Tensor gelu_pass(F f, const torch::Tensor& x, const torch::Tensor& g) {
  auto leaf = x.detach().requires_grad_(true);
  f(leaf).backward(g);
  return leaf.grad();
}

// Heap bytes in use (glibc): what a CPU tensor allocation adds to.
double gelu_heap_bytes() {
  const auto m = mallinfo2();
  return static_cast<double>(m.uordblks + m.hblkhd);
}

// Bytes the forward leaves allocated until the backward, output included, with the input made by
// an op inside the measured region (as c_fc's output is in the MLP): the written-out form keeps
// that input, its sigmoid and the output; ours keeps 1.702 x and the output. CPU only.
template <typename F>
double gelu_kept_bytes(F f, const torch::Tensor& x) {
  auto leaf = x.detach().requires_grad_(true);
  const double before = gelu_heap_bytes();
  auto h = leaf * 1.0;  // stands for c_fc's output: freed unless the non-linearity keeps it
  auto out = f(h);
  h.reset();
  const double kept = gelu_heap_bytes() - before;
  out.sum().backward();
  return kept;
}

// Kernels on a GPU run asynchronously: the clock stops after the device has finished them.
void gelu_sync(const torch::Tensor& x) {
  if (x.is_cuda()) torch::cuda::synchronize();
}

template <typename F>
double gelu_seconds(F f, const torch::Tensor& x, const torch::Tensor& g, int reps) {
  gelu_sync(x);
  const auto t0 = Clock::now();
  for (int i = 0; i < reps; ++i) gelu_pass(f, x, g);
  gelu_sync(x);
  return std::chrono::duration<double>(Clock::now() - t0).count() / reps;
}

void check_agree(const torch::Tensor& ours, const torch::Tensor& peer, const std::string& what) {
  const double scale = peer.abs().max().item<double>();
  const double diff = (ours.to(torch::kFloat) - peer.to(torch::kFloat)).abs().max().item<double>();
  if (!(diff <= 1e-5 * std::max(scale, 1.0))) {
    throw std::runtime_error(what + ": ours and the written-out form differ by " +
                             std::to_string(diff) + " (largest value " + std::to_string(scale) +
                             ")");
  }
}

}  // namespace

int run_quick_gelu_bench(int argc, char** argv) {
  int threads = 2, rounds = 7, reps = 5;
  std::string dtype_name = "float", device_name = "cpu", json_out;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
      return argv[++i];
    };
    if (a == "--threads")
      threads = std::stoi(value());
    else if (a == "--rounds")
      rounds = std::stoi(value());
    else if (a == "--reps")
      reps = std::stoi(value());
    else if (a == "--dtype")
      dtype_name = value();
    else if (a == "--device")
      device_name = value();
    else if (a == "--json")
      json_out = value();
    else
      throw std::invalid_argument("unknown option " + a);
  }
  if (dtype_name != "float" && dtype_name != "bf16") {
    throw std::invalid_argument("--dtype " + dtype_name + ": float or bf16");
  }
  const auto dtype = dtype_name == "bf16" ? torch::kBFloat16 : torch::kFloat;
  const auto device = hnclip::resolve_device(device_name);
  hnclip::configure_threads(threads);
  std::printf(
      "QuickGELU forward + backward, %s on %s, %d threads, %d rounds x %d passes per side\n",
      dtype_name.c_str(), device.str().c_str(), threads, rounds, reps);
  // Which form the workbench's side runs at this dtype and device: its output's autograd node
  // (the written-out form's last op is a multiplication).
  std::string ours_node;
  {
    auto probe = torch::ones({2}, torch::TensorOptions().dtype(dtype).device(device));
    ours_node = hnclip::quick_gelu(probe.requires_grad_(true)).grad_fn()->name();
  }
  const bool ours_is_function = ours_node != "MulBackward0";
  std::printf("ours records %s: %s\n", ours_node.c_str(),
              ours_is_function ? "the custom function"
                               : "the written-out form (both sides run the same ops)");
  std::printf("%-46s %12s %12s %8s %-13s %s\n", "shape", "ours ms", "peer ms", "ratio", "(rounds)",
              "kept for the backward, ours / peer (x the hidden tensor's size)");
  nlohmann::json shapes_report = nlohmann::json::array();
  for (const auto& shape : kGeluShapes) {
    torch::manual_seed(0);
    const auto x = torch::randn(shape.sizes).mul_(2).to(device, dtype);
    const auto g = torch::randn(shape.sizes).to(device, dtype);
    if (dtype == torch::kFloat) {
      {
        torch::NoGradGuard no_grad;
        check_agree(hnclip::quick_gelu(x), gelu_written_out(x),
                    std::string(shape.what) + " values");
      }
      check_agree(gelu_pass(hnclip::quick_gelu, x, g), gelu_pass(gelu_written_out, x, g),
                  std::string(shape.what) + " input gradients");
    }
    gelu_seconds(hnclip::quick_gelu, x, g, 1);  // warm-up: the allocator's blocks, the pool
    gelu_seconds(gelu_written_out, x, g, 1);
    std::vector<double> ours, peer, ratios;
    for (int r = 0; r < rounds; ++r) {
      double o = 0, p = 0;
      if (r % 2 == 0) {
        o = gelu_seconds(hnclip::quick_gelu, x, g, reps);
        p = gelu_seconds(gelu_written_out, x, g, reps);
      } else {
        p = gelu_seconds(gelu_written_out, x, g, reps);
        o = gelu_seconds(hnclip::quick_gelu, x, g, reps);
      }
      ours.push_back(o);
      peer.push_back(p);
      ratios.push_back(p / o);
    }
    const auto [lo, hi] = std::minmax_element(ratios.begin(), ratios.end());
    const double size = static_cast<double>(x.numel() * x.element_size());
    nlohmann::json row = {{"what", shape.what},
                          {"sizes", shape.sizes},
                          {"hidden_bytes", size},
                          {"ours_median_s", hnclip::bench::median(ours)},
                          {"peer_median_s", hnclip::bench::median(peer)},
                          {"ratio", hnclip::bench::median(ratios)},
                          {"ratio_rounds", ratios}};
    std::string kept = "(GPU: not measured)";
    if (x.is_cpu()) {
      const double kept_ours = gelu_kept_bytes(hnclip::quick_gelu, x);
      const double kept_peer = gelu_kept_bytes(gelu_written_out, x);
      row["kept_ours_bytes"] = kept_ours;
      row["kept_peer_bytes"] = kept_peer;
      char buf[96];
      std::snprintf(buf, sizeof buf, "%.0f / %.0f MB (%.2f / %.2f)", kept_ours / 1e6,
                    kept_peer / 1e6, kept_ours / size, kept_peer / size);
      kept = buf;
    }
    std::printf("%-46s %12.2f %12.2f %7.2fx (%.2f-%.2f)   %s\n", shape.what,
                hnclip::bench::median(ours) * 1e3, hnclip::bench::median(peer) * 1e3,
                hnclip::bench::median(ratios), *lo, *hi, kept.c_str());
    shapes_report.push_back(row);
  }
  if (!json_out.empty()) {
    const nlohmann::json report = {{"quick_gelu",
                                    {{"dtype", dtype_name},
                                     {"device", device.str()},
                                     {"threads", threads},
                                     {"rounds", rounds},
                                     {"reps", reps},
                                     {"ours_node", ours_node},
                                     {"ours_is_function", ours_is_function},
                                     {"shapes", shapes_report}}}};
    std::ofstream(json_out) << report.dump(2) << "\n";
  }
  return 0;
}

int main(int argc, char** argv) {
  try {
    return run_quick_gelu_bench(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "quick_gelu_vs_written_out: " << e.what() << "\n";
    return 1;
  }
}
