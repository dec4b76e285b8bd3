#include "data/split_catalog.h"

#include <stdexcept>

#include "data/benchmark.h"

namespace hnclip {

namespace {
void check_index(int64_t i, int64_t n, const char* what) {
  if (i < 0 || i >= n) {
    throw std::out_of_range(std::string("SplitCatalog: ") + what + " " + std::to_string(i) +
                            " out of range [0, " + std::to_string(n) + ")");
  }
}
}  // namespace

SplitCatalog::SplitCatalog(std::vector<Sample> samples, std::string root)
    : samples_(std::move(samples)), root_(std::move(root)) {
  image_captions_.resize(samples_.size());
  for (size_t i = 0; i < samples_.size(); ++i) {
    if (samples_[i].captions.empty()) throw DataError("image " + samples_[i].image + " has no caption");
    for (size_t k = 0; k < samples_[i].captions.size(); ++k) {
      image_captions_[i].push_back(static_cast<int64_t>(caption_image_.size()));
      caption_image_.push_back(static_cast<int64_t>(i));
    }
  }
}

SplitCatalog SplitCatalog::open(const BenchmarkSpec& spec, const std::string& split,
                                const std::function<void(const std::string&)>& progress) {
  const auto benchmark = open_benchmark(spec, progress);
  bool known = false;
  std::string names;
  for (const auto& s : benchmark->splits()) {
    known = known || s == split;
    names += (names.empty() ? "" : ", ") + s;
  }
  if (!known) {
    throw DataError("benchmark " + benchmark->name() + " at " + benchmark->root() + " has no split \"" + split +
                    "\" (it has: " + names + ")");
  }
  return SplitCatalog(benchmark->split(split), benchmark->root());
}

const std::string& SplitCatalog::caption_text(int64_t caption) const {
  check_index(caption, num_captions(), "caption");
  const auto image = caption_image_[static_cast<size_t>(caption)];
  const auto first = image_captions_[static_cast<size_t>(image)].front();
  return samples_[static_cast<size_t>(image)].captions[static_cast<size_t>(caption - first)];
}

int64_t SplitCatalog::caption_image(int64_t caption) const {
  check_index(caption, num_captions(), "caption");
  return caption_image_[static_cast<size_t>(caption)];
}

const std::vector<int64_t>& SplitCatalog::image_captions(int64_t image) const {
  check_index(image, num_images(), "image");
  return image_captions_[static_cast<size_t>(image)];
}

const std::string& SplitCatalog::image_path(int64_t image) const { return sample(image).image; }

const std::string& SplitCatalog::caption_image_path(int64_t caption) const {
  return image_path(caption_image(caption));
}

const Sample& SplitCatalog::sample(int64_t image) const {
  check_index(image, num_images(), "image");
  return samples_[static_cast<size_t>(image)];
}

}  // namespace hnclip
