#pragma once
// CaptionGeometryRecord: one stored caption geometry of a (dataset, encoder) — the summary row of
// caption_stats, every caption's nearest neighbours and the top near-duplicate pairs — as plain
// values the store writes and reads (no LibTorch). Keys: the dataset key names
// benchmark + size + seed + split (or manifest path + split); the encoder key is `run:ID@epoch`,
// `ckpt:PATH` or `init:PATH`.

#include <cstdint>
#include <string>
#include <vector>

namespace hnclip {

struct CaptionStatsRow {
  std::string dataset_key;
  std::string encoder_key;
  int64_t train_images = 0;
  int64_t test_images = 0;
  int64_t captions = 0;                     // captions of the split the geometry covers
  double mean_words = 0;
  double mean_pairwise = 0;
  double mean_hardest = 0;
  double median_hardest = 0;
  int64_t batch_size = 0;
  std::vector<double> bucket_fractions;     // <0.5, 0.5-0.7, 0.7-0.8, 0.8-0.9, >=0.9
  std::vector<int64_t> bucket_counts;       // ordered pairs i != j
  std::vector<int64_t> pairwise_histogram;  // equal bins over [-1, 1]
  std::vector<int64_t> hardest_histogram;
  int64_t created_at_ms = 0;                // write_caption_geometry stores "now" for 0
};

struct CaptionNeighborRow {
  int64_t caption = 0;
  int rank = 0;                             // 1 = nearest
  int64_t neighbor = 0;
  double cosine = 0;
  std::vector<std::string> shared_words;
};

struct NearDuplicatePairRow {
  int rank = 0;                             // 1 = most similar
  int64_t a = 0;
  int64_t b = 0;
  double cosine = 0;
};

struct CaptionGeometryRecord {
  CaptionStatsRow stats;
  std::vector<CaptionNeighborRow> neighbors;   // ordered by caption, rank
  std::vector<NearDuplicatePairRow> pairs;     // ordered by rank
};

}  // namespace hnclip
