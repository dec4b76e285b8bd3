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
};

}  // namespace hnclip
