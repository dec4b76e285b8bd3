#pragma once
// SplitStatistics: one split's row of the paper's Table A1 — images, captions, and how alike its
// captions are as bags of words (caption_similarity.h). Shared by `hnclip benchmark` and the Train
// tab, which shows the row of the benchmark being configured.
// Threading: reads the benchmark's const methods only; safe on any thread.

#include <cstdint>
#include <string>

#include "data/benchmark.h"
#include "data/caption_similarity.h"

namespace hnclip {

struct SplitStatistics {
  std::string split;
  int64_t images = 0;
  int64_t captions = 0;
  CaptionSimilarityStats similarity;
};

// Throws DataError for an unknown split. A split of fewer than two captions has no pairs: its
// similarities are NaN (and its mean words too when it has no caption).
SplitStatistics split_statistics(const Benchmark& benchmark, const std::string& split);

}  // namespace hnclip
