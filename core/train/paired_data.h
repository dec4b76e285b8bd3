#pragma once
// PairedData: one split of a benchmark as the trainer and the evaluator see it — images, their
// captions (one or several per image), and thread-safe loaders that turn indices into tensors.
// Implemented in core/data (OpenCV decoding); declared here so train/ and eval/ need LibTorch only.

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>

namespace hnclip {

// GOAL's inputs besides the pairs themselves, for the pairs of a batch that have a usable segment
// (data/goal_segments.h: the image's training segment, on the pair's own caption, whose box keeps
// a patch under the centre crop and whose sentence is not cut away by the context length).
struct SegmentBatch {
  std::vector<int64_t> rows;  // positions in the batch of those pairs, ascending
  at::Tensor crops;           // [n, 3, S, S] float32: the box's pixels, preprocessed like images
  at::Tensor sentences;       // [n, L] int64: each segment's sentence tokenized alone
  at::Tensor patch_mask;      // [n, P] bool: the image's patches the box touches (row-major)
  at::Tensor span_mask;       // [n, L] bool: the sentence's positions in the pair's caption row
  std::vector<std::string> sentence_texts;  // each segment's sentence, as the caption has it
  // [n, 3, S, S] float32: the structure map (data/structure_map.h) of each crop, preprocessed like
  // images: StructXLIP's edge segments. Undefined unless asked for.
  at::Tensor structure_crops;
};

class PairedData {
 public:
  virtual ~PairedData() = default;

  virtual int64_t num_images() const = 0;
  virtual int64_t num_captions() const = 0;
  // The image a caption describes.
  virtual int64_t caption_image(int64_t caption) const = 0;
  // The captions of an image (at least one).
  virtual const std::vector<int64_t>& image_captions(int64_t image) const = 0;
  virtual const std::string& caption_text(int64_t caption) const = 0;
  // The near-twin family an image belongs to ("" = none known), which batch_sampler=families
  // keeps together in a batch. Data without families keeps this default.
  virtual const std::string& image_group(int64_t /*image*/) const {
    static const std::string none;
    return none;
  }

  // [n, 3, S, S] float32, resized, centre-cropped and normalised for the model. Thread-safe.
  virtual at::Tensor load_images(const std::vector<int64_t>& images) const = 0;
  // [n, context_length] int64 token ids. Thread-safe.
  virtual at::Tensor load_tokens(const std::vector<int64_t>& captions) const = 0;
  // Token ids of free text, one row per text as load_tokens gives them: how a framework's derived
  // captions (Long-CLIP's short caption) are tokenized. Thread-safe. Data that cannot tokenize
  // free text keeps this default, which throws std::logic_error.
  virtual at::Tensor tokenize_texts(const std::vector<std::string>& /*texts*/) const {
    throw std::logic_error("this data cannot tokenize free text (no framework captions)");
  }
  // StructXLIP: [n, 3, S, S] float32, the structure maps (data/structure_map.h: Canny edges)
  // of the images, preprocessed like load_images. Thread-safe; called by the batch loader's
  // workers. Data that cannot make them keeps this default, which throws std::logic_error.
  virtual at::Tensor load_structure_maps(const std::vector<int64_t>& /*images*/) const {
    throw std::logic_error("this data cannot make structure maps");
  }
  // How many images have a GOAL segment (data/goal_segments.h); data without keeps the default.
  virtual int64_t images_with_segments() const { return 0; }
  // The segments of the pairs (captions[i], its image), for an image tower cutting patch_size
  // patches, with each crop's structure map when with_structure_maps (StructXLIP's local term).
  // Thread-safe. Data without segments keeps this default, which throws std::logic_error.
  virtual SegmentBatch load_segments(const std::vector<int64_t>& /*captions*/,
                                     int64_t /*patch_size*/,
                                     bool /*with_structure_maps*/) const {
    throw std::logic_error("this data has no GOAL segments");
  }
};

}  // namespace hnclip
