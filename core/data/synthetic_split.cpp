#include "data/synthetic_split.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <unordered_set>

#include "data/synthetic_caption.h"

namespace hnclip {

namespace {

constexpr int kFamilyMinObjects = 3;      // train/test scenes: enough objects for a dense caption
constexpr int kFamilyMaxObjects = 4;
constexpr int kPretrainMinObjects = 1;
constexpr int kPretrainMaxObjects = 4;
constexpr int kTrainMinFamily = 2;        // train family sizes
constexpr int kTrainMaxFamily = 4;
constexpr int kTestMinFamily = 3;         // test (and val) family sizes
constexpr int kTestMaxFamily = 4;
// Random-stream ids of the splits (mixed into the seed); fixed forever for reproducibility.
constexpr uint64_t kPretrainStream = 1;
constexpr uint64_t kTrainStream = 2;
constexpr uint64_t kTestStream = 3;
constexpr uint64_t kValStream = 4;
constexpr uint64_t kShiftedStream = 5;

std::string family_id(int64_t f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "f%06lld", static_cast<long long>(f));
  return buf;
}

// A base scene and size-1 distinct near-twins of it.
void append_family(SceneGenerator& gen, int size, const std::string& group, std::vector<SyntheticItem>& out) {
  std::vector<Scene> family{gen.random_scene(kFamilyMinObjects, kFamilyMaxObjects)};
  while (static_cast<int>(family.size()) < size) {
    family.push_back(gen.near_twin(family.front(), family, kFamilyMinObjects, kFamilyMaxObjects));
  }
  for (auto& s : family) {
    auto caption = synthetic_caption(s);
    out.push_back({std::move(s), std::move(caption), group});
  }
}

}  // namespace

SyntheticSizeSpec synthetic_size_spec(const std::string& size) {
  if (size == "small") return {size, 1024, 512, 40};
  if (size == "default") return {size, 30000, 8000, 300};
  // large: 1,500 near-twin test families (about 5,250 queries), so that a 1-point R@1 gap is
  // about 50 queries and per-query tests (McNemar) can resolve it.
  if (size == "large") return {size, 100000, 32000, 1500};
  throw std::invalid_argument("synthetic benchmark: unknown size \"" + size +
                              "\" (expected small, default or large)");
}

const std::vector<std::string>& synthetic_split_names() {
  static const std::vector<std::string> names{"pretrain", "train", "val", "test",
                                              kSyntheticShiftedSplit};
  return names;
}

std::vector<SyntheticItem> synthetic_split_items(const SyntheticSizeSpec& spec, uint64_t seed,
                                                 const std::string& split) {
  std::vector<SyntheticItem> out;
  if (split == "pretrain") {
    out.reserve(static_cast<size_t>(spec.pretrain_images));
    for (int64_t i = 0; i < spec.pretrain_images; ++i) {
      SceneGenerator gen(scene_seed(seed, kPretrainStream, static_cast<uint64_t>(i)));
      Scene s = gen.random_scene(kPretrainMinObjects, kPretrainMaxObjects);
      std::string caption = gen.random().below(2) == 0
                                ? synthetic_caption(s)
                                : synthetic_partial_caption(s, gen.random_subset(s.objects.size()));
      out.push_back({std::move(s), std::move(caption), ""});
    }
  } else if (split == "train") {
    out.reserve(static_cast<size_t>(spec.train_images));
    for (int64_t f = 0; static_cast<int64_t>(out.size()) < spec.train_images; ++f) {
      SceneGenerator gen(scene_seed(seed, kTrainStream, static_cast<uint64_t>(f)));
      const int64_t left = spec.train_images - static_cast<int64_t>(out.size());
      auto size = static_cast<int64_t>(gen.random().between(kTrainMinFamily, kTrainMaxFamily));
      // Never leave a single image for a last family of one.
      if (left - size == 1) size += size < kTrainMaxFamily ? 1 : -1;
      size = std::min(size, left);
      append_family(gen, static_cast<int>(size), family_id(f), out);
    }
  } else if (split == "test" || split == kSyntheticShiftedSplit) {
    const uint64_t stream = split == "test" ? kTestStream : kShiftedStream;
    for (int64_t f = 0; f < spec.test_families; ++f) {
      SceneGenerator gen(scene_seed(seed, stream, static_cast<uint64_t>(f)));
      const auto size = static_cast<int>(gen.random().between(kTestMinFamily, kTestMaxFamily));
      append_family(gen, size, family_id(f), out);
    }
  } else if (split == "val") {
    std::unordered_set<std::string> test_captions;
    for (auto& it : synthetic_split_items(spec, seed, "test"))
      test_captions.insert(std::move(it.caption));
    return synthetic_val_items(spec, seed, test_captions);
  } else {
    throw std::invalid_argument("synthetic benchmark: unknown split \"" + split +
                                "\" (expected pretrain, train, val, test or shifted)");
  }
  return out;
}

std::vector<SyntheticItem> synthetic_val_items(const SyntheticSizeSpec& spec, uint64_t seed,
                                               const std::unordered_set<std::string>& taken) {
  std::vector<SyntheticItem> out;
  // f counts the stream indices drawn, kept the families: a skipped family's index is not reused.
  for (int64_t f = 0, kept = 0; kept < spec.test_families; ++f) {
    SceneGenerator gen(scene_seed(seed, kValStream, static_cast<uint64_t>(f)));
    const auto size = static_cast<int>(gen.random().between(kTestMinFamily, kTestMaxFamily));
    std::vector<SyntheticItem> family;
    append_family(gen, size, family_id(f), family);
    const bool shared = std::any_of(family.begin(), family.end(), [&](const SyntheticItem& it) {
      return taken.count(it.caption) > 0;
    });
    if (shared) continue;
    for (auto& it : family) out.push_back(std::move(it));
    ++kept;
  }
  return out;
}

}  // namespace hnclip
