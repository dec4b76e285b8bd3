#include "data/split_data.h"

#include <cstring>
#include <stdexcept>

#include <torch/torch.h>

#include "data/benchmark.h"

namespace hnclip {

namespace {

void check_index(int64_t index, size_t size, const char* what) {
  if (index < 0 || static_cast<size_t>(index) >= size) {
    throw std::out_of_range(std::string("SplitData: ") + what + " index " + std::to_string(index) +
                            " out of range [0, " + std::to_string(size) + ")");
  }
}

}  // namespace

SplitData::SplitData(std::vector<Sample> samples, std::shared_ptr<const Tokenizer> tokenizer,
                     const ImagePipelineConfig& pipeline)
    : samples_(std::move(samples)), tokenizer_(std::move(tokenizer)), pipeline_(pipeline) {
  if (!tokenizer_) throw std::invalid_argument("SplitData: tokenizer is null");
  image_captions_.resize(samples_.size());
  for (size_t i = 0; i < samples_.size(); ++i) {
    const Sample& s = samples_[i];
    if (s.captions.empty()) throw DataError(s.image + ": sample has no caption");
    for (size_t j = 0; j < s.captions.size(); ++j) {
      image_captions_[i].push_back(static_cast<int64_t>(caption_image_.size()));
      caption_image_.push_back(static_cast<int64_t>(i));
    }
  }
}

int64_t SplitData::num_images() const { return static_cast<int64_t>(samples_.size()); }

int64_t SplitData::num_captions() const { return static_cast<int64_t>(caption_image_.size()); }

int64_t SplitData::caption_image(int64_t caption) const {
  check_index(caption, caption_image_.size(), "caption");
  return caption_image_[static_cast<size_t>(caption)];
}

const std::vector<int64_t>& SplitData::image_captions(int64_t image) const {
  check_index(image, samples_.size(), "image");
  return image_captions_[static_cast<size_t>(image)];
}

const std::string& SplitData::image_group(int64_t image) const { return sample(image).group; }

const std::string& SplitData::caption_text(int64_t caption) const {
  check_index(caption, caption_image_.size(), "caption");
  // An image's captions are numbered consecutively, so the offset from its first is the position.
  const auto image = static_cast<size_t>(caption_image_[static_cast<size_t>(caption)]);
  const int64_t first = image_captions_[image].front();
  return samples_[image].captions[static_cast<size_t>(caption - first)];
}

const Sample& SplitData::sample(int64_t image) const {
  check_index(image, samples_.size(), "image");
  return samples_[static_cast<size_t>(image)];
}

at::Tensor SplitData::load_images(const std::vector<int64_t>& images) const {
  for (int64_t i : images) check_index(i, samples_.size(), "image");
  const int64_t s = pipeline_.config().image_size;
  at::Tensor out = torch::empty({static_cast<int64_t>(images.size()), 3, s, s}, torch::kFloat32);
  float* data = out.data_ptr<float>();
  const int64_t stride = pipeline_.floats_per_image();
  for (size_t k = 0; k < images.size(); ++k) {
    pipeline_.load(samples_[static_cast<size_t>(images[k])].image,
                   data + static_cast<int64_t>(k) * stride);
  }
  return out;
}

at::Tensor SplitData::load_tokens(const std::vector<int64_t>& captions) const {
  for (int64_t c : captions) check_index(c, caption_image_.size(), "caption");
  std::vector<std::string> texts;
  texts.reserve(captions.size());
  for (int64_t c : captions) texts.push_back(caption_text(c));
  return tokenize_texts(texts);
}

at::Tensor SplitData::tokenize_texts(const std::vector<std::string>& texts) const {
  const int64_t length = tokenizer_->context_length();
  at::Tensor out = torch::empty({static_cast<int64_t>(texts.size()), length}, torch::kInt64);
  int64_t* data = out.data_ptr<int64_t>();
  for (size_t k = 0; k < texts.size(); ++k) {
    const std::vector<int64_t> ids = tokenizer_->encode(texts[k]);
    if (static_cast<int64_t>(ids.size()) != length) {
      throw std::logic_error("SplitData: tokenizer returned " + std::to_string(ids.size()) +
                             " ids instead of its context length " + std::to_string(length));
    }
    std::memcpy(data + static_cast<int64_t>(k) * length, ids.data(), ids.size() * sizeof(int64_t));
  }
  return out;
}

}  // namespace hnclip
