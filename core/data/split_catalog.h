#pragma once
// SplitCatalog: the captions and image paths of one benchmark split, numbered the way the trainer,
// the evaluator and the store number them — images in sample order, captions image by image (all
// captions of image 0, then of image 1, ...). It is what the workbench's exploration tabs show
// next to stored ranks, neighbours and Ḡ snapshots, so it must agree with SplitData exactly.
// Plain C++ (no LibTorch, no Qt): the GUI holds it. Threading: immutable after construction.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "data/benchmark_registry.h"
#include "data/sample.h"

namespace hnclip {

class SplitCatalog {
 public:
  SplitCatalog() = default;
  // Throws DataError naming the image when a sample has no caption. `root`: the benchmark's
  // (Benchmark::root), which split_summary takes image paths relative to.
  explicit SplitCatalog(std::vector<Sample> samples, std::string root = "");

  // Opens the benchmark (generating the built-in one if needed) and reads `split`. Throws what
  // open_benchmark throws, and DataError for an unknown split (naming it and the known ones).
  static SplitCatalog open(const BenchmarkSpec& spec, const std::string& split,
                           const std::function<void(const std::string&)>& progress = {});

  int64_t num_images() const { return static_cast<int64_t>(samples_.size()); }
  int64_t num_captions() const { return static_cast<int64_t>(caption_image_.size()); }
  // Indices out of range throw std::out_of_range.
  const std::string& caption_text(int64_t caption) const;
  int64_t caption_image(int64_t caption) const;
  const std::vector<int64_t>& image_captions(int64_t image) const;
  const std::string& image_path(int64_t image) const;
  // The image path of a caption's image (its ground truth in text-to-image retrieval).
  const std::string& caption_image_path(int64_t caption) const;
  const Sample& sample(int64_t image) const;
  const std::vector<Sample>& samples() const { return samples_; }
  const std::string& root() const { return root_; }

 private:
  std::vector<Sample> samples_;
  std::string root_;
  std::vector<int64_t> caption_image_;                // caption -> image
  std::vector<std::vector<int64_t>> image_captions_;  // image -> its captions
};

}  // namespace hnclip
