#pragma once
// Model-free caption statistics of the paper's Table A1: how alike the captions of a split are as
// bags of words. Each caption becomes a vector of word counts (words as WordTokenizer::words
// splits them); similarity is the cosine of two such vectors (0 when either caption has no words).
// Threading: a pure function; it allocates O(chunk x n) floats, never the full n x n matrix.

#include <cstdint>
#include <string>
#include <vector>

namespace hnclip {

struct CaptionSimilarityStats {
  int64_t count = 0;            // captions
  double mean_words = 0;        // mean words per caption
  double mean_pairwise = 0;     // mean cosine over all ordered pairs i != j
  double mean_hardest = 0;      // mean over captions of the max cosine to any other caption
  double median_hardest = 0;    // median of the same (mean of the middle two for even counts)
};

// Throws std::invalid_argument for fewer than two captions (no pairs).
CaptionSimilarityStats bag_of_words_stats(const std::vector<std::string>& captions);

}  // namespace hnclip
