#pragma once
// In-memory PairedData and a synchronous BatchSource for trainer tests that must not depend on
// core/data: image i is a fixed pattern determined by two "words" (a, b), and caption i names
// them, so the pairs are learnable by a tiny model.

#include <torch/torch.h>

#include <string>
#include <vector>

#include "model/clip_config.h"
#include "train/batch_source.h"
#include "train/paired_data.h"

namespace hnclip::test {

constexpr int64_t kTinyImage = 16;
constexpr int64_t kTinyContext = 8;
constexpr int64_t kTinyVocab = 20;  // 0 pad, 2..15 words, 18 start, 19 end

class InMemoryPairedData : public PairedData {
 public:
  explicit InMemoryPairedData(int64_t n, uint64_t seed = 0, bool poison_images = false)
      : poison_(poison_images) {
    torch::manual_seed(seed);
    auto patterns = torch::randn({14, 3, kTinyImage, kTinyImage});
    for (int64_t i = 0; i < n; ++i) {
      const int64_t a = i % 7, b = 7 + (i / 7) % 7;
      images_.push_back(patterns[a] + patterns[b] + 0.1 * torch::randn({3, kTinyImage, kTinyImage}));
      captions_.push_back("w" + std::to_string(a) + " w" + std::to_string(b));
      tokens_.push_back({18, a + 2, b + 2, 19, 0, 0, 0, 0});
      image_captions_.push_back({i});
    }
  }
  int64_t num_images() const override { return static_cast<int64_t>(images_.size()); }
  int64_t num_captions() const override { return num_images(); }
  int64_t caption_image(int64_t c) const override { return c; }
  const std::vector<int64_t>& image_captions(int64_t i) const override { return image_captions_[i]; }
  const std::string& caption_text(int64_t c) const override { return captions_[c]; }
  // Families for batch_sampler families: image i's group, or none when never set.
  void set_groups(std::vector<std::string> groups) { groups_ = std::move(groups); }
  const std::string& image_group(int64_t i) const override {
    return groups_.empty() ? PairedData::image_group(i) : groups_[i];
  }
  at::Tensor load_images(const std::vector<int64_t>& ids) const override {
    std::vector<torch::Tensor> out;
    for (auto i : ids) out.push_back(images_[i]);
    auto t = torch::stack(out);
    if (poison_) t.fill_(std::numeric_limits<float>::quiet_NaN());
    return t;
  }
  at::Tensor load_tokens(const std::vector<int64_t>& ids) const override {
    std::vector<int64_t> flat;
    for (auto i : ids) flat.insert(flat.end(), tokens_[i].begin(), tokens_[i].end());
    return torch::tensor(flat, torch::kLong).view({static_cast<int64_t>(ids.size()), kTinyContext});
  }

 private:
  bool poison_;
  std::vector<torch::Tensor> images_;
  std::vector<std::string> captions_;
  std::vector<std::vector<int64_t>> tokens_;
  std::vector<std::vector<int64_t>> image_captions_;
  std::vector<std::string> groups_;
};

class SyncBatchSource : public BatchSource {
 public:
  explicit SyncBatchSource(const PairedData& d) : data_(d) {}
  void schedule(std::vector<BatchRequest> r) override { requests_ = std::move(r); next_ = 0; }
  bool next(Batch& out) override {
    if (next_ >= requests_.size()) return false;
    out.request = requests_[next_++];
    out.images = out.request.images.empty() ? at::Tensor() : data_.load_images(out.request.images);
    out.tokens = out.request.captions.empty() ? at::Tensor() : data_.load_tokens(out.request.captions);
    if (out.request.structure_maps) out.structure_maps = data_.load_structure_maps(out.request.images);
    return true;
  }
  double wait_seconds() const override { return 0; }

 private:
  const PairedData& data_;
  std::vector<BatchRequest> requests_;
  size_t next_ = 0;
};

inline ClipConfig tiny_test_config() {
  ClipConfig c;
  c.image_size = kTinyImage; c.patch_size = 8; c.vision_width = 32; c.vision_layers = 1;
  c.vision_heads = 2; c.context_length = kTinyContext; c.vocab_size = kTinyVocab;
  c.text_width = 32; c.text_layers = 1; c.text_heads = 2; c.embed_dim = 16;
  return c;
}

}  // namespace hnclip::test
