#include "eval/caption_geometry.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace hnclip {

namespace {
// Upper edges of the first four hardness buckets (the fifth is open above).
constexpr std::array<double, kGeometryBuckets - 1> kBucketUpper = {0.5, 0.7, 0.8, 0.9};

bool pair_before(const NearDuplicatePair& x, const NearDuplicatePair& y) {
  if (x.cosine != y.cosine) return x.cosine > y.cosine;
  if (x.a != y.a) return x.a < y.a;
  return x.b < y.b;
}
}  // namespace

const std::array<std::string, kGeometryBuckets>& geometry_bucket_names() {
  static const std::array<std::string, kGeometryBuckets> names = {"<0.5", "0.5-0.7", "0.7-0.8",
                                                                  "0.8-0.9", ">=0.9"};
  return names;
}

int geometry_bucket(double cosine) {
  for (int b = 0; b < kGeometryBuckets - 1; ++b)
    if (cosine < kBucketUpper[static_cast<size_t>(b)]) return b;
  return kGeometryBuckets - 1;
}

int64_t geometry_bin(double cosine, int64_t bins) {
  const double x = std::floor((cosine + 1.0) * (static_cast<double>(bins) / 2.0));
  if (!(x >= 0)) return 0;
  return std::min<int64_t>(bins - 1, static_cast<int64_t>(x));
}

std::array<double, kGeometryBuckets> CaptionGeometry::expected_batch_counts() const {
  std::array<double, kGeometryBuckets> out{};
  const double pairs = static_cast<double>(batch_size) * static_cast<double>(batch_size - 1);
  for (int b = 0; b < kGeometryBuckets; ++b) out[static_cast<size_t>(b)] = bucket_fractions[static_cast<size_t>(b)] * pairs;
  return out;
}

CaptionGeometry compute_caption_geometry(const at::Tensor& features, const CaptionGeometryOptions& options) {
  if (features.dim() != 2 || features.size(0) < 2) {
    throw std::invalid_argument("caption geometry needs at least two captions ([N, d] features, N >= 2)");
  }
  if (options.bins < 1 || options.neighbors < 1 || options.top_pairs < 0 || options.batch_size < 2 ||
      options.max_chunk_elements < 1) {
    throw std::invalid_argument("caption geometry: bins, neighbors >= 1, top_pairs >= 0, batch_size >= 2");
  }
  torch::NoGradGuard no_grad;
  const int64_t n = features.size(0);
  const int64_t k = std::min(options.neighbors, n - 1);
  const auto all = features.is_floating_point() ? features : features.to(torch::kFloat);
  const auto long_opts = torch::TensorOptions().dtype(torch::kLong).device(all.device());
  const auto bucket_edges = torch::tensor(std::vector<double>(kBucketUpper.begin(), kBucketUpper.end()),
                                          torch::TensorOptions().dtype(all.scalar_type()).device(all.device()));
  const int64_t rows_per_chunk = std::max<int64_t>(1, std::min(n, options.max_chunk_elements / n));

  CaptionGeometry g;
  g.count = n;
  g.batch_size = options.batch_size;
  auto pairwise_hist = torch::zeros({options.bins}, long_opts);
  auto hardest_all = torch::empty({n}, all.options());
  auto bucket_counts = torch::zeros({kGeometryBuckets}, long_opts);
  double pairwise_sum = 0;
  g.neighbors.resize(static_cast<size_t>(n));
  const auto cols = torch::arange(n, long_opts);
  const auto to_bins = [&](const torch::Tensor& v) {
    return ((v.to(torch::kDouble) + 1.0) * (static_cast<double>(options.bins) / 2.0))
        .floor().clamp(0, static_cast<double>(options.bins - 1)).to(torch::kLong);
  };

  for (int64_t r0 = 0; r0 < n; r0 += rows_per_chunk) {
    const int64_t r1 = std::min(n, r0 + rows_per_chunk);
    auto sims = torch::matmul(all.slice(0, r0, r1), all.t());  // [c, N]
    const auto rows = torch::arange(r0, r1, long_opts).unsqueeze(1);
    const auto upper = cols.unsqueeze(0) > rows;                // pairs i<j
    const auto off_diag = cols.unsqueeze(0) != rows;            // ordered pairs i != j

    const auto upper_vals = sims.masked_select(upper);
    pairwise_sum += upper_vals.to(torch::kDouble).sum().item<double>();
    pairwise_hist += torch::bincount(to_bins(upper_vals), {}, options.bins);

    // Expected composition of a random batch's negatives = fraction over all ordered pairs
    // i != j: every ordered pair is equally likely to share a uniformly drawn batch, so the
    // batch-average equals the population fraction and one chunked pass gives it exactly.
    const auto off_vals = sims.masked_select(off_diag);
    bucket_counts += torch::bincount(torch::bucketize(off_vals, bucket_edges, false, /*right=*/true), {},
                                     kGeometryBuckets);

    auto masked = sims.masked_fill(off_diag.logical_not(), -std::numeric_limits<double>::infinity());
    const auto top = masked.topk(k, 1, true, true);
    hardest_all.slice(0, r0, r1).copy_(std::get<0>(top).select(1, 0));
    const auto values = std::get<0>(top).to(torch::kDouble).cpu().contiguous();
    const auto indices = std::get<1>(top).cpu().contiguous();
    const double* vp = values.data_ptr<double>();
    const int64_t* ip = indices.data_ptr<int64_t>();
    for (int64_t r = 0; r < r1 - r0; ++r) {
      auto& row = g.neighbors[static_cast<size_t>(r0 + r)];
      for (int64_t j = 0; j < k; ++j) row.push_back({ip[r * k + j], vp[r * k + j]});
    }

    if (options.top_pairs > 0 && upper_vals.numel() > 0) {
      auto pair_masked = sims.masked_fill(upper.logical_not(), -std::numeric_limits<double>::infinity());
      const int64_t take = std::min<int64_t>(options.top_pairs, upper_vals.numel());
      const auto best = pair_masked.flatten().topk(take, 0, true, true);
      const auto bv = std::get<0>(best).to(torch::kDouble).cpu().contiguous();
      const auto bi = std::get<1>(best).cpu().contiguous();
      for (int64_t t = 0; t < take; ++t) {
        const int64_t flat = bi.data_ptr<int64_t>()[t];
        g.top_pairs.push_back({r0 + flat / n, flat % n, bv.data_ptr<double>()[t]});
      }
      std::sort(g.top_pairs.begin(), g.top_pairs.end(), pair_before);
      if (static_cast<int64_t>(g.top_pairs.size()) > options.top_pairs) g.top_pairs.resize(static_cast<size_t>(options.top_pairs));
    }
    if (options.on_chunk) options.on_chunk(static_cast<double>(r1) / static_cast<double>(n));
  }

  const double num_pairs = static_cast<double>(n) * static_cast<double>(n - 1) / 2.0;
  g.mean_pairwise = pairwise_sum / num_pairs;
  const auto ph = pairwise_hist.cpu();
  g.pairwise_histogram.assign(ph.data_ptr<int64_t>(), ph.data_ptr<int64_t>() + options.bins);
  const auto hardest = hardest_all.to(torch::kDouble).cpu().contiguous();
  g.hardest.assign(hardest.data_ptr<double>(), hardest.data_ptr<double>() + n);
  g.hardest_histogram.assign(static_cast<size_t>(options.bins), 0);
  double hardest_sum = 0;
  for (double h : g.hardest) {
    hardest_sum += h;
    ++g.hardest_histogram[static_cast<size_t>(geometry_bin(h, options.bins))];
  }
  g.mean_hardest = hardest_sum / static_cast<double>(n);
  auto sorted = g.hardest;
  std::sort(sorted.begin(), sorted.end());
  const auto mid = static_cast<size_t>(n / 2);
  g.median_hardest = n % 2 ? sorted[mid] : 0.5 * (sorted[mid - 1] + sorted[mid]);
  const auto bc = bucket_counts.cpu();
  const double ordered = static_cast<double>(n) * static_cast<double>(n - 1);
  for (int b = 0; b < kGeometryBuckets; ++b) {
    g.bucket_counts[static_cast<size_t>(b)] = bc.data_ptr<int64_t>()[b];
    g.bucket_fractions[static_cast<size_t>(b)] = static_cast<double>(g.bucket_counts[static_cast<size_t>(b)]) / ordered;
  }
  return g;
}

}  // namespace hnclip
