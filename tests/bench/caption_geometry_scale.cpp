// caption_geometry_scale: the Captions tab's geometry (hnclip::compute_caption_geometry: the
// pairwise-cosine histogram, every caption's hardest neighbour and k nearest, the top
// near-duplicate pairs, the in-batch hardness buckets) at 50,000 captions — its time and its peak
// resident memory above the features themselves, against the N x N cosine matrix it must never
// hold (10 GB in fp32 at 50,000).
//
// Features: N(0, 1) in d = 512, normalised, with every tenth caption a near-copy of the one before
// (cosine about 0.97), so the near-duplicate list and the hardest-neighbour statistics have work
// to do. The peak is reset after the features are built (Linux clear_refs 5) and measured from
// what is resident then. Repeated --reps times; prints the median and the range.
//
// Usage: caption_geometry_scale [--captions N] [--dim D] [--threads T] [--reps R] [--json OUT]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <malloc.h>
#include <torch/torch.h>
#include <nlohmann/json.hpp>

#include "bench/bench_support.h"
#include "eval/caption_geometry.h"
#include "train/compute_setup.h"

namespace {

int64_t status_bytes(const std::string& field) {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(field + ":", 0) == 0) return std::stoll(line.substr(field.size() + 1)) * 1024;
  }
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t n = 50000, dim = 512;
  int threads = 2, reps = 3;
  std::string json_out;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--captions") n = std::stoll(v);
    else if (a == "--dim") dim = std::stoll(v);
    else if (a == "--threads") threads = std::stoi(v);
    else if (a == "--reps") reps = std::stoi(v);
    else if (a == "--json") json_out = v;
    else {
      std::cerr << "caption_geometry_scale: unknown option " << a << "\n";
      return 2;
    }
  }
  hnclip::configure_threads(threads);
  namespace F = torch::nn::functional;
  const auto norm = F::NormalizeFuncOptions().dim(-1);
  auto gen = at::detail::createCPUGenerator(5);
  auto features = at::randn({n, dim}, gen);
  {
    torch::NoGradGuard no_grad;
    auto near = features.slice(0, 1, n, 10);  // every tenth from 1: a near-copy of the one before
    near.copy_(features.slice(0, 0, n - 1, 10) + 0.25 * at::randn(near.sizes(), gen));
  }
  features = F::normalize(features, norm).contiguous();
  // The set-up's freed temporaries (several copies of the features) would otherwise stay resident
  // (the workbench keeps freed memory for reuse: compute_setup.cpp) and be counted in the
  // baseline, hiding up to that much of what the geometry needs. Hand them back first.
  malloc_trim(0);
  std::ofstream("/proc/self/clear_refs") << "5";
  const int64_t baseline = status_bytes("VmRSS");
  std::vector<double> seconds;
  // After each call: the peak so far and what stays resident, so that memory kept from one call
  // to the next (a leak, or the allocator holding freed blocks) shows apart from one call's peak.
  std::vector<int64_t> peak_by_rep, resident_by_rep;
  hnclip::CaptionGeometry g;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    g = hnclip::compute_caption_geometry(features);
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    peak_by_rep.push_back(status_bytes("VmHWM") - baseline);
    resident_by_rep.push_back(status_bytes("VmRSS") - baseline);
  }
  const int64_t peak = status_bytes("VmHWM") - baseline;
  auto sorted = seconds;
  std::sort(sorted.begin(), sorted.end());
  const double median = hnclip::bench::median(seconds);
  const double nn_bytes = static_cast<double>(n) * static_cast<double>(n) * 4;
  nlohmann::json report = {{"captions", n},
                           {"dim", dim},
                           {"threads", threads},
                           {"reps", reps},
                           {"seconds", seconds},
                           {"median_s", median},
                           {"min_s", sorted.front()},
                           {"max_s", sorted.back()},
                           {"peak_bytes", peak},
                           {"nxn_fp32_bytes", nn_bytes},
                           {"peak_bytes_by_rep", peak_by_rep},
                           {"resident_bytes_by_rep", resident_by_rep},
                           {"mean_hardest", g.mean_hardest},
                           {"top_pair_cosine", g.top_pairs.empty() ? 0.0 : g.top_pairs[0].cosine}};
  std::printf("caption geometry, %lld captions, d = %lld, %d threads: median %.2f s (%.2f-%.2f); "
              "peak above the features %.0f MB (N x N in fp32: %.0f MB); mean hardest %.3f\n",
              static_cast<long long>(n), static_cast<long long>(dim), threads, median,
              sorted.front(), sorted.back(), peak / 1e6, nn_bytes / 1e6, g.mean_hardest);
  if (!json_out.empty()) std::ofstream(json_out) << report.dump(2) << "\n";
  return 0;
}
