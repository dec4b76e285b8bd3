#include "data/caption_similarity.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <unordered_map>

#include <opencv2/core.hpp>

#include "text/word_tokenizer.h"

namespace hnclip {

namespace {

// Rows of the cosine matrix computed at once: 512 x 30k floats = 60 MB at the largest split.
constexpr int kChunkRows = 512;

}  // namespace

CaptionSimilarityStats bag_of_words_stats(const std::vector<std::string>& captions) {
  const int n = static_cast<int>(captions.size());
  if (n < 2) {
    throw std::invalid_argument("bag_of_words_stats: need at least two captions, got " + std::to_string(n));
  }
  // Dense n x V count matrix, rows L2-normalised; the benchmark vocabularies are small (< 100
  // words) so dense rows are cheaper than sparse ones and let cv::gemm do the products.
  std::unordered_map<std::string, int> vocab;
  std::vector<std::vector<int>> ids(static_cast<size_t>(n));
  int64_t total_words = 0;
  for (int i = 0; i < n; ++i) {
    for (const auto& w : WordTokenizer::words(captions[static_cast<size_t>(i)])) {
      const auto it = vocab.emplace(w, static_cast<int>(vocab.size())).first;
      ids[static_cast<size_t>(i)].push_back(it->second);
    }
    total_words += static_cast<int64_t>(ids[static_cast<size_t>(i)].size());
  }
  const int v = std::max<int>(1, static_cast<int>(vocab.size()));
  cv::Mat rows = cv::Mat::zeros(n, v, CV_32F);
  for (int i = 0; i < n; ++i) {
    auto* r = rows.ptr<float>(i);
    for (const int id : ids[static_cast<size_t>(i)]) r[id] += 1.0f;
    double norm2 = 0;
    for (int k = 0; k < v; ++k) norm2 += static_cast<double>(r[k]) * r[k];
    if (norm2 > 0) {
      const auto inv = static_cast<float>(1.0 / std::sqrt(norm2));
      for (int k = 0; k < v; ++k) r[k] *= inv;
    }
  }

  double pair_sum = 0;
  std::vector<double> hardest(static_cast<size_t>(n), -1.0);
  cv::Mat block;
  for (int start = 0; start < n; start += kChunkRows) {
    const int end = std::min(n, start + kChunkRows);
    cv::gemm(rows.rowRange(start, end), rows, 1.0, cv::noArray(), 0.0, block, cv::GEMM_2_T);
    for (int i = start; i < end; ++i) {
      const float* b = block.ptr<float>(i - start);
      double row_sum = 0;
      float best = -1.0f;
      for (int j = 0; j < n; ++j) {
        if (j == i) continue;
        row_sum += b[j];
        best = std::max(best, b[j]);
      }
      pair_sum += row_sum;
      hardest[static_cast<size_t>(i)] = best;
    }
  }

  CaptionSimilarityStats s;
  s.count = n;
  s.mean_words = static_cast<double>(total_words) / n;
  s.mean_pairwise = pair_sum / (static_cast<double>(n) * (n - 1));
  double hardest_sum = 0;
  for (const double h : hardest) hardest_sum += h;
  s.mean_hardest = hardest_sum / n;
  std::sort(hardest.begin(), hardest.end());
  s.median_hardest = n % 2 == 1 ? hardest[static_cast<size_t>(n / 2)]
                                : 0.5 * (hardest[static_cast<size_t>(n / 2 - 1)] + hardest[static_cast<size_t>(n / 2)]);
  return s;
}

}  // namespace hnclip
