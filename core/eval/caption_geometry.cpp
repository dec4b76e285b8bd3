#include "eval/caption_geometry.h"

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <utility>

#include "numeric/blas_threads.h"

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

namespace {

// Rows multiplied per BLAS call on the CPU (as in retrieval_metrics.cpp): full speed for the
// product, and each thread's cosines (64 x N) far below the chunk's.
constexpr int64_t kRowsPerProduct = 64;

// One thread's share of the statistics (merged into the result under a lock).
struct GeometryPartial {
  explicit GeometryPartial(int64_t bins) : histogram(static_cast<size_t>(bins), 0) {}
  std::vector<int64_t> histogram;                 // pairs i<j
  std::array<int64_t, kGeometryBuckets> buckets{};  // ordered pairs i != j
  double sum = 0;                                 // pairs i<j
  std::vector<NearDuplicatePair> pairs;           // a heap of the best pairs, the worst at the front
};

// The statistics of caption i from its row of cosines, in one pass over j > i (histogram, sum,
// near-duplicate candidates), one branch-free pass over every j (hardness buckets; the diagonal's
// share taken back out) and a heap of the k nearest. T is the features' type: the bucket edges are
// compared in it, as torch::bucketize did in the tensor version.
template <typename T>
void scan_row(const T* row, int64_t n, int64_t i, int64_t k, int64_t bins, int64_t top_pairs,
              GeometryPartial& p, std::vector<std::pair<T, int64_t>>& heap,
              std::vector<GeometryNeighbor>& nearest, double& hardest) {
  const T e0 = static_cast<T>(kBucketUpper[0]), e1 = static_cast<T>(kBucketUpper[1]),
          e2 = static_cast<T>(kBucketUpper[2]), e3 = static_cast<T>(kBucketUpper[3]);
  std::array<int64_t, kGeometryBuckets> at_least{};  // at_least[b]: cosines >= edge b-1
  for (int64_t j = 0; j < n; ++j) {
    const T v = row[j];
    at_least[1] += v >= e0;
    at_least[2] += v >= e1;
    at_least[3] += v >= e2;
    at_least[4] += v >= e3;
  }
  const T self = row[i];
  at_least[0] = n - 1;
  at_least[1] -= self >= e0;
  at_least[2] -= self >= e1;
  at_least[3] -= self >= e2;
  at_least[4] -= self >= e3;
  for (int b = 0; b < kGeometryBuckets; ++b) {
    p.buckets[static_cast<size_t>(b)] +=
        at_least[static_cast<size_t>(b)] - (b + 1 < kGeometryBuckets ? at_least[static_cast<size_t>(b) + 1] : 0);
  }

  const double half_bins = static_cast<double>(bins) / 2.0;
  double sum = 0;
  for (int64_t j = i + 1; j < n; ++j) {
    const double v = static_cast<double>(row[j]);
    sum += v;
    const double x = std::floor((v + 1.0) * half_bins);
    ++p.histogram[static_cast<size_t>(x >= 0 ? std::min<double>(x, static_cast<double>(bins - 1)) : 0)];
  }
  p.sum += sum;

  if (top_pairs > 0) {
    auto worse_last = [](const NearDuplicatePair& x, const NearDuplicatePair& y) { return pair_before(x, y); };
    for (int64_t j = i + 1; j < n; ++j) {
      const double v = static_cast<double>(row[j]);
      if (static_cast<int64_t>(p.pairs.size()) < top_pairs) {
        p.pairs.push_back({i, j, v});
        std::push_heap(p.pairs.begin(), p.pairs.end(), worse_last);
      } else if (v >= p.pairs.front().cosine) {
        const NearDuplicatePair cand{i, j, v};
        if (!pair_before(cand, p.pairs.front())) continue;
        std::pop_heap(p.pairs.begin(), p.pairs.end(), worse_last);
        p.pairs.back() = cand;
        std::push_heap(p.pairs.begin(), p.pairs.end(), worse_last);
      }
    }
  }

  // The k nearest other captions: higher cosine first, equal ones in index order.
  auto better = [](const std::pair<T, int64_t>& x, const std::pair<T, int64_t>& y) {
    return x.first > y.first || (x.first == y.first && x.second < y.second);
  };
  heap.clear();
  for (int64_t j = 0; j < n; ++j) {
    if (j == i) continue;
    if (static_cast<int64_t>(heap.size()) < k) {
      heap.emplace_back(row[j], j);
      std::push_heap(heap.begin(), heap.end(), better);
    } else if (row[j] > heap.front().first) {
      std::pop_heap(heap.begin(), heap.end(), better);
      heap.back() = {row[j], j};
      std::push_heap(heap.begin(), heap.end(), better);
    }
  }
  std::sort(heap.begin(), heap.end(), better);
  nearest.clear();
  for (const auto& [v, j] : heap) nearest.push_back({j, static_cast<double>(v)});
  hardest = nearest.front().cosine;
}

template <typename T>
void scan_chunk(const torch::Tensor& all, const torch::Tensor& all_t, int64_t r0, int64_t r1,
                int64_t k, const CaptionGeometryOptions& options, CaptionGeometry& g,
                std::vector<double>& hardest, GeometryPartial& total, std::mutex& merge,
                const std::vector<torch::Tensor>& products) {
  const int64_t n = all.size(0);
  const bool on_cpu = all.device().is_cpu();
  // Off the CPU the chunk's cosines are computed on the device and scanned here.
  torch::Tensor device_sims;
  if (!on_cpu) device_sims = torch::matmul(all.slice(0, r0, r1), all_t).cpu().contiguous();
  const SingleThreadedBlas one_thread_per_product;  // the threads below are the parallelism
  at::parallel_for(r0, r1, 1, [&](int64_t from, int64_t to) {
    GeometryPartial p(options.bins);
    std::vector<std::pair<T, int64_t>> heap;
    for (int64_t b0 = from; b0 < to; b0 += kRowsPerProduct) {
      const int64_t b1 = std::min(to, b0 + kRowsPerProduct);
      torch::Tensor block;
      const T* base;
      if (on_cpu) {
        const auto thread = static_cast<size_t>(at::get_thread_num());
        if (thread < products.size()) {
          block = products[thread].narrow(0, 0, b1 - b0);  // contiguous: whole rows
          at::mm_out(block, all.slice(0, b0, b1), all_t);  // [b1 - b0, N]
        } else {
          block = torch::mm(all.slice(0, b0, b1), all_t).contiguous();
        }
        base = block.data_ptr<T>();
      } else {
        base = device_sims.data_ptr<T>() + (b0 - r0) * n;
      }
      for (int64_t i = b0; i < b1; ++i) {
        scan_row<T>(base + (i - b0) * n, n, i, k, options.bins, options.top_pairs, p, heap,
                    g.neighbors[static_cast<size_t>(i)], hardest[static_cast<size_t>(i)]);
      }
    }
    std::lock_guard<std::mutex> lock(merge);
    for (size_t b = 0; b < p.histogram.size(); ++b) total.histogram[b] += p.histogram[b];
    for (size_t b = 0; b < p.buckets.size(); ++b) total.buckets[b] += p.buckets[b];
    total.sum += p.sum;
    total.pairs.insert(total.pairs.end(), p.pairs.begin(), p.pairs.end());
  });
  std::sort(total.pairs.begin(), total.pairs.end(), pair_before);
  if (static_cast<int64_t>(total.pairs.size()) > options.top_pairs)
    total.pairs.resize(static_cast<size_t>(options.top_pairs));
}

}  // namespace

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
  // Double stays double (the tests' brute force); every other type is computed in float.
  const auto all = (features.scalar_type() == torch::kDouble ? features : features.to(torch::kFloat))
                       .contiguous();
  // [d, N] as a view: the BLAS reads it transposed. A contiguous copy was 4·N·d bytes (102 MB at
  // 50,000 captions) made anew by every call, and small blocks carved from the freed copy's space
  // made the next call's copy come from fresh memory: resident memory grew ~100 MiB per call.
  const auto all_t = all.t();
  // The chunk bounds what one on_chunk call covers (the workbench's progress and Cancel) and,
  // off the CPU, the cosines held at once; on the CPU each thread holds kRowsPerProduct rows.
  const int64_t rows_per_chunk = std::max<int64_t>(1, std::min(n, options.max_chunk_elements / n));

  CaptionGeometry g;
  g.count = n;
  g.batch_size = options.batch_size;
  g.neighbors.resize(static_cast<size_t>(n));
  g.hardest.assign(static_cast<size_t>(n), 0.0);
  GeometryPartial total(options.bins);
  std::mutex merge;
  // Each thread's product block, made once here and reused for every block of every chunk. A
  // block made inside the parallel loop came from that thread's glibc arena, whose heaps (64 MB
  // at most) are unmapped whenever one empties: at 50,000 captions every 12.8 MB block was a
  // fresh mapping, faulted in page by page (perf: 9.7% of the time in page faults under sgemm's
  // zeroing of its output): the call took 30-35 s (caption_geometry_scale --captions 50000),
  // 18.5-24.9 s with the blocks made here. Made on the calling thread, they also stay out of the
  // worker threads' arenas, which had kept ~100 MiB more resident after every call.
  std::vector<torch::Tensor> products;
  if (all.device().is_cpu()) {
    for (int t = 0; t < at::get_num_threads(); ++t)
      products.push_back(torch::empty({std::min(kRowsPerProduct, n), n}, all.options()));
  }
  for (int64_t r0 = 0; r0 < n; r0 += rows_per_chunk) {
    const int64_t r1 = std::min(n, r0 + rows_per_chunk);
    if (all.scalar_type() == torch::kDouble) {
      scan_chunk<double>(all, all_t, r0, r1, k, options, g, g.hardest, total, merge, products);
    } else {
      scan_chunk<float>(all, all_t, r0, r1, k, options, g, g.hardest, total, merge, products);
    }
    if (options.on_chunk) options.on_chunk(static_cast<double>(r1) / static_cast<double>(n));
  }

  const double num_pairs = static_cast<double>(n) * static_cast<double>(n - 1) / 2.0;
  g.mean_pairwise = total.sum / num_pairs;
  g.pairwise_histogram = total.histogram;
  g.top_pairs = std::move(total.pairs);
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
  const double ordered = static_cast<double>(n) * static_cast<double>(n - 1);
  for (int b = 0; b < kGeometryBuckets; ++b) {
    g.bucket_counts[static_cast<size_t>(b)] = total.buckets[static_cast<size_t>(b)];
    g.bucket_fractions[static_cast<size_t>(b)] = static_cast<double>(g.bucket_counts[static_cast<size_t>(b)]) / ordered;
  }
  return g;
}

}  // namespace hnclip
