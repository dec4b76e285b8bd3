#pragma once
// SplitData: the PairedData of one benchmark split read from image files — images in sample
// order, captions numbered image by image (all captions of image 0, then of image 1, ...).
// Ownership: holds the samples (paths and captions, never pixels) and shares the tokenizer.
// Threading: immutable after construction but for the structure-map cache, which a mutex guards;
// every load_* may run on several loader threads at once (each call decodes its images one after
// another on the calling thread).

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "data/goal_segments.h"
#include "data/image_pipeline.h"
#include "data/sample.h"
#include "text/tokenizer.h"
#include "train/paired_data.h"

namespace hnclip {

class SplitData : public PairedData {
 public:
  // Throws DataError if a sample has no caption, std::invalid_argument for a null tokenizer or a
  // bad pipeline config.
  SplitData(std::vector<Sample> samples, std::shared_ptr<const Tokenizer> tokenizer,
            const ImagePipelineConfig& pipeline = {});

  int64_t num_images() const override;
  int64_t num_captions() const override;
  int64_t caption_image(int64_t caption) const override;
  const std::vector<int64_t>& image_captions(int64_t image) const override;
  const std::string& caption_text(int64_t caption) const override;
  const std::string& image_group(int64_t image) const override;  // the sample's `group`

  // [n, 3, S, S] float32; throws DataError naming the file of an image that cannot be decoded.
  at::Tensor load_images(const std::vector<int64_t>& images) const override;
  // [n, context_length] int64.
  at::Tensor load_tokens(const std::vector<int64_t>& captions) const override;
  at::Tensor tokenize_texts(const std::vector<std::string>& texts) const override;
  // StructXLIP: each image's structure map (structure_map() with its default thresholds on the
  // decoded file), preprocessed. Cached: an image's map is computed once and kept, as the
  // preprocessed floats, until the cache holds kStructureCacheBytes; later images are computed
  // on every call. Throws DataError naming the file of an image that cannot be decoded.
  at::Tensor load_structure_maps(const std::vector<int64_t>& images) const override;
  static constexpr size_t kStructureCacheBytes = size_t{1} << 30;  // 1 GiB
  // How many images' structure maps the cache holds (tests).
  size_t cached_structure_maps() const;

  // GOAL: keeps each image's training segment (goal_training_segment) of `segments` (by image
  // path; images it lacks have none). Not thread-safe: call before any loading starts.
  void set_segments(const SegmentsByImage& segments);
  int64_t images_with_segments() const override;
  SegmentBatch load_segments(const std::vector<int64_t>& captions, int64_t patch_size,
                             bool with_structure_maps) const override;

  // The sample image `image` was made from. Indices out of range throw std::out_of_range (as do
  // those passed to any method above).
  const Sample& sample(int64_t image) const;
  const ImagePipeline& pipeline() const { return pipeline_; }
  const Tokenizer& tokenizer() const { return *tokenizer_; }

 private:
  std::vector<Sample> samples_;
  std::shared_ptr<const Tokenizer> tokenizer_;
  ImagePipeline pipeline_;
  std::vector<int64_t> caption_image_;                // caption -> image
  std::vector<std::vector<int64_t>> image_captions_;  // image -> its captions
  std::vector<ImageSegment> segments_;                // image -> its training segment
  std::vector<bool> has_segment_;                     // image -> whether segments_ holds one
  mutable std::mutex structure_mutex_;
  mutable std::unordered_map<int64_t, std::vector<float>> structure_cache_;  // image -> CHW floats
  mutable size_t structure_cache_bytes_ = 0;
};

}  // namespace hnclip
