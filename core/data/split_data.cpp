#include "data/split_data.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include <torch/torch.h>

#include "data/benchmark.h"
#include "data/segment_patches.h"
#include "data/structure_map.h"
#include "text/caption_sentences.h"
#include "text/sentence_token_span.h"

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

void SplitData::set_segments(const SegmentsByImage& segments) {
  segments_.assign(samples_.size(), ImageSegment{});
  has_segment_.assign(samples_.size(), false);
  for (size_t i = 0; i < samples_.size(); ++i) {
    const auto it = segments.find(samples_[i].image);
    if (it == segments.end()) continue;
    if (const ImageSegment* best = goal_training_segment(it->second)) {
      segments_[i] = *best;
      has_segment_[i] = true;
    }
  }
}

int64_t SplitData::images_with_segments() const {
  return std::count(has_segment_.begin(), has_segment_.end(), true);
}

at::Tensor SplitData::load_structure_maps(const std::vector<int64_t>& images) const {
  for (int64_t i : images) check_index(i, samples_.size(), "image");
  const int64_t s = pipeline_.config().image_size;
  const int64_t per = pipeline_.floats_per_image();
  at::Tensor out = torch::empty({static_cast<int64_t>(images.size()), 3, s, s}, torch::kFloat32);
  float* data = out.data_ptr<float>();
  for (size_t k = 0; k < images.size(); ++k) {
    float* dst = data + static_cast<int64_t>(k) * per;
    {
      std::lock_guard<std::mutex> lock(structure_mutex_);
      const auto it = structure_cache_.find(images[k]);
      if (it != structure_cache_.end()) {
        std::memcpy(dst, it->second.data(), static_cast<size_t>(per) * sizeof(float));
        continue;
      }
    }
    // Decoded and traced outside the lock, so the loader's threads work in parallel; two threads
    // meeting the same new image both compute it (the same bytes) and the first one is kept.
    pipeline_.process(structure_map(ImagePipeline::decode(samples_[static_cast<size_t>(images[k])].image)),
                      dst);
    std::lock_guard<std::mutex> lock(structure_mutex_);
    const size_t bytes = static_cast<size_t>(per) * sizeof(float);
    if (structure_cache_bytes_ + bytes <= kStructureCacheBytes &&
        structure_cache_.emplace(images[k], std::vector<float>(dst, dst + per)).second) {
      structure_cache_bytes_ += bytes;
    }
  }
  return out;
}

size_t SplitData::cached_structure_maps() const {
  std::lock_guard<std::mutex> lock(structure_mutex_);
  return structure_cache_.size();
}

SegmentBatch SplitData::load_segments(const std::vector<int64_t>& captions, int64_t patch_size,
                                      bool with_structure_maps) const {
  for (int64_t c : captions) check_index(c, caption_image_.size(), "caption");
  const int64_t s = pipeline_.config().image_size;
  const int64_t grid = s / patch_size, length = tokenizer_->context_length();
  SegmentBatch out;
  std::vector<cv::Mat> crops;
  std::vector<std::vector<int64_t>> patches;
  std::vector<TokenSpan> spans;
  std::vector<std::string> sentences;
  for (size_t row = 0; row < captions.size(); ++row) {
    const int64_t c = captions[row], image = caption_image_[static_cast<size_t>(c)];
    if (has_segment_.empty() || !has_segment_[static_cast<size_t>(image)]) continue;
    const ImageSegment& seg = segments_[static_cast<size_t>(image)];
    const auto& own = image_captions_[static_cast<size_t>(image)];
    // The segment's sentence belongs to one caption of the image: only that pair has its span.
    if (own.at(static_cast<size_t>(seg.caption)) != c) continue;
    const TokenSpan span = sentence_token_span(*tokenizer_, caption_text(c), seg.sentence);
    if (span.begin == span.end) continue;
    const cv::Mat full = ImagePipeline::decode(samples_[static_cast<size_t>(image)].image);
    auto touched = segment_patches(seg.box, full.cols, full.rows, static_cast<int>(s),
                                   static_cast<int>(patch_size));
    if (touched.empty()) continue;
    // The crop: a crop file when the sidecar names one, else the box's pixels (edges rounded
    // outwards, so the crop holds the whole box).
    if (!seg.crop.empty()) {
      crops.push_back(ImagePipeline::decode(seg.crop));
    } else {
      const int x1 = static_cast<int>(std::floor(seg.box.x1)), y1 = static_cast<int>(std::floor(seg.box.y1));
      const int x2 = static_cast<int>(std::ceil(seg.box.x2)), y2 = static_cast<int>(std::ceil(seg.box.y2));
      crops.push_back(full(cv::Rect(x1, y1, x2 - x1, y2 - y1)).clone());
    }
    out.rows.push_back(static_cast<int64_t>(row));
    patches.push_back(std::move(touched));
    spans.push_back(span);
    sentences.push_back(caption_sentences(caption_text(c)).at(static_cast<size_t>(seg.sentence)));
  }
  out.sentence_texts = sentences;
  const auto n = static_cast<int64_t>(out.rows.size());
  out.crops = torch::empty({n, 3, s, s}, torch::kFloat32);
  float* data = out.crops.data_ptr<float>();
  for (int64_t k = 0; k < n; ++k) {
    pipeline_.process(crops[static_cast<size_t>(k)], data + k * pipeline_.floats_per_image());
  }
  if (with_structure_maps) {
    // The crop's own edges: Canny on the crop, whose border makes no edge of its own.
    out.structure_crops = torch::empty({n, 3, s, s}, torch::kFloat32);
    float* maps = out.structure_crops.data_ptr<float>();
    for (int64_t k = 0; k < n; ++k) {
      pipeline_.process(structure_map(crops[static_cast<size_t>(k)]),
                        maps + k * pipeline_.floats_per_image());
    }
  }
  out.sentences = tokenize_texts(sentences);
  out.patch_mask = torch::zeros({n, grid * grid}, torch::kBool);
  out.span_mask = torch::zeros({n, length}, torch::kBool);
  auto patch = out.patch_mask.accessor<bool, 2>();
  auto span = out.span_mask.accessor<bool, 2>();
  for (int64_t k = 0; k < n; ++k) {
    const auto i = static_cast<size_t>(k);
    for (int64_t p : patches[i]) patch[k][p] = true;
    for (int64_t t = spans[i].begin; t < spans[i].end; ++t) span[k][t] = true;
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
