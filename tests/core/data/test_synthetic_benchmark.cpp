#include "data/synthetic_benchmark.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <unordered_set>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include "data/caption_similarity.h"
#include "data/synthetic_caption.h"
#include "data/synthetic_renderer.h"
#include "data/synthetic_scene.h"
#include "data/synthetic_split.h"
#include "support/test_dirs.h"
#include "text/word_tokenizer.h"

namespace hnclip {
namespace {

namespace fs = std::filesystem;

constexpr double kMinColourToBackground =
    90;  // BGR distance: every colour stands out on every background
constexpr double kMinColourToColour = 80;  // and the colours stay apart from each other
constexpr int kMaxCaptionWords = 94;       // 96-token context minus start and end
constexpr int kMinDenseWords = 60;
constexpr int kMaxDenseWords = 150;

double distance(const cv::Scalar& a, const cv::Scalar& b) {
  return std::sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                   (a[2] - b[2]) * (a[2] - b[2]));
}

// Pixels whose BGR differs by more than `threshold` (summed over channels) between two images.
int differing_pixels(const cv::Mat& a, const cv::Mat& b, int threshold) {
  int n = 0;
  for (int y = 0; y < a.rows; ++y) {
    for (int x = 0; x < a.cols; ++x) {
      const auto pa = a.at<cv::Vec3b>(y, x);
      const auto pb = b.at<cv::Vec3b>(y, x);
      const int d = std::abs(pa[0] - pb[0]) + std::abs(pa[1] - pb[1]) + std::abs(pa[2] - pb[2]);
      n += d > threshold ? 1 : 0;
    }
  }
  return n;
}

bool same_bytes(const cv::Mat& a, const cv::Mat& b) {
  return a.size() == b.size() && a.type() == b.type() && differing_pixels(a, b, 0) == 0;
}

Scene one_object_scene(SceneBackground bg, SceneObject o) {
  Scene s;
  s.background = bg;
  s.objects.push_back(o);
  return s;
}

double caption_cosine(const std::string& a, const std::string& b) {
  return bag_of_words_stats({a, b}).mean_pairwise;
}

int word_count(const std::string& s) { return static_cast<int>(WordTokenizer::words(s).size()); }

TEST(SyntheticRenderer, EveryColourVisibleOnEveryBackground) {
  const SyntheticRenderer renderer;
  for (int c = 0; c < kSceneColourCount; ++c) {
    for (int c2 = c + 1; c2 < kSceneColourCount; ++c2) {
      EXPECT_GE(distance(scene_bgr(SceneColour(c)), scene_bgr(SceneColour(c2))), kMinColourToColour)
          << scene_name(SceneColour(c)) << " vs " << scene_name(SceneColour(c2));
    }
    for (int b = 0; b < kSceneBackgroundCount; ++b) {
      const auto bg = SceneBackground(b);
      EXPECT_GE(distance(scene_bgr(SceneColour(c)), scene_bgr(bg)), kMinColourToBackground)
          << scene_name(SceneColour(c)) << " on " << scene_name(bg);
      // The smallest thing drawn (a small hollow shape) still leaves clearly coloured pixels.
      for (int shape = 0; shape < kSceneShapeCount; ++shape) {
        SceneObject o{SceneColour(c), SceneShape(shape), SceneSize::Small, SceneTexture::Hollow, 4};
        const auto img = renderer.render(one_object_scene(bg, o));
        const auto empty = renderer.render(one_object_scene(bg, o)).setTo(scene_bgr(bg));
        EXPECT_GE(differing_pixels(img, empty, 120), 10)
            << scene_name(SceneColour(c)) << " " << scene_name(SceneShape(shape)) << " on "
            << scene_name(bg);
      }
    }
  }
}

TEST(SyntheticRenderer, ShapesSizesAndTexturesAreResolvable) {
  const SyntheticRenderer renderer;
  EXPECT_EQ(renderer.image_size(), 48);
  auto draw = [&](SceneShape sh, SceneSize sz, SceneTexture t) {
    return renderer.render(
        one_object_scene(SceneBackground::Grey, {SceneColour::Yellow, sh, sz, t, 0}));
  };
  for (int sz = 0; sz < kSceneSizeCount; ++sz) {
    for (int t = 0; t < kSceneTextureCount; ++t) {
      for (int a = 0; a < kSceneShapeCount; ++a) {
        const auto img = draw(SceneShape(a), SceneSize(sz), SceneTexture(t));
        EXPECT_EQ(img.type(), CV_8UC3);
        EXPECT_EQ(img.rows, 48);
        // Solid vs hollow, small vs large, and any two shapes differ in several clear pixels.
        EXPECT_GE(
            differing_pixels(img, draw(SceneShape(a), SceneSize(sz), SceneTexture(1 - t)), 150), 3)
            << scene_name(SceneShape(a)) << " " << scene_name(SceneSize(sz));
        EXPECT_GE(
            differing_pixels(img, draw(SceneShape(a), SceneSize(1 - sz), SceneTexture(t)), 150),
            10);
        for (int b = a + 1; b < kSceneShapeCount; ++b) {
          EXPECT_GE(differing_pixels(img, draw(SceneShape(b), SceneSize(sz), SceneTexture(t)), 150),
                    3)
              << scene_name(SceneShape(a)) << " vs " << scene_name(SceneShape(b)) << " "
              << scene_name(SceneSize(sz)) << " " << scene_name(SceneTexture(t));
        }
      }
    }
  }
  // Everything stays inside its own cell: an object in cell 0 leaves the other cells untouched.
  const auto img = draw(SceneShape::Triangle, SceneSize::Large, SceneTexture::Solid);
  const auto blank = img.clone().setTo(scene_bgr(SceneBackground::Grey));
  EXPECT_EQ(differing_pixels(img(cv::Rect(16, 0, 32, 48)), blank(cv::Rect(16, 0, 32, 48)), 0), 0);
  EXPECT_EQ(differing_pixels(img(cv::Rect(0, 16, 48, 32)), blank(cv::Rect(0, 16, 48, 32)), 0), 0);
}

TEST(SyntheticRenderer, IsDeterministic) {
  SceneGenerator gen(5);
  const SyntheticRenderer renderer;
  for (int i = 0; i < 20; ++i) {
    const auto s = gen.random_scene(1, 4);
    EXPECT_TRUE(same_bytes(renderer.render(s), renderer.render(s)));
  }
}

TEST(SyntheticScene, RandomIsDeterministicAndInRange) {
  SceneRandom a(42), b(42), c(43);
  bool any_different = false;
  for (int i = 0; i < 1000; ++i) {
    const auto x = a.below(7);
    EXPECT_EQ(x, b.below(7));
    EXPECT_GE(x, 0);
    EXPECT_LT(x, 7);
    any_different |= x != c.below(7);
  }
  EXPECT_TRUE(any_different);
  // The first draws of seed 42 are fixed forever: a change here changes every cached benchmark
  // and must come with a new kSyntheticGeneratorVersion.
  SceneRandom fixed(42);
  EXPECT_EQ(std::vector<int64_t>({fixed.below(1000), fixed.below(1000), fixed.below(1000)}),
            std::vector<int64_t>({406, 824, 450}));
  EXPECT_THROW(a.below(0), std::invalid_argument);
}

TEST(SyntheticScene, DifferencesCountEveryChange) {
  SceneGenerator gen(3);
  const auto base = gen.random_scene(3, 3);
  EXPECT_TRUE(scene_differences(base, base).empty());
  auto t = base;
  t.objects[0].colour = SceneColour(t.objects[0].colour == SceneColour::Red ? 1 : 0);
  EXPECT_EQ(scene_differences(base, t), std::vector<SceneChange>{SceneChange::Colour});
  t.objects[1].texture = SceneTexture(1 - static_cast<int>(t.objects[1].texture));
  EXPECT_EQ(scene_differences(base, t).size(), 2u);
  auto fewer = base;
  fewer.objects.erase(fewer.objects.begin() + 1);
  EXPECT_EQ(scene_differences(base, fewer), std::vector<SceneChange>{SceneChange::Count});
  fewer.background =
      SceneBackground((static_cast<int>(base.background) + 1) % kSceneBackgroundCount);
  EXPECT_EQ(scene_differences(base, fewer).size(), 2u);
}

TEST(SyntheticBenchmark, UnknownSizeAndEmptyCacheDirAreNamed) {
  test::ScratchDir dir;
  try {
    open_synthetic_benchmark({dir.path().string(), "huge", 1});
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("huge"), std::string::npos) << e.what();
  }
  EXPECT_THROW(open_synthetic_benchmark({"", "small", 1}), std::invalid_argument);
  EXPECT_THROW(synthetic_split_items(synthetic_size_spec("small"), 1, "validation"),
               std::invalid_argument);
}

TEST(SyntheticSplit, SizesAndFamilies) {
  const auto spec = synthetic_size_spec("small");
  EXPECT_EQ(synthetic_split_items(spec, 1, "pretrain").size(), 1024u);
  EXPECT_EQ(synthetic_split_items(spec, 1, "train").size(), 512u);
  const auto test_items = synthetic_split_items(spec, 1, "test");
  std::map<std::string, int> family_sizes;
  for (const auto& it : test_items) ++family_sizes[it.group];
  EXPECT_EQ(family_sizes.size(), 40u);
  for (const auto& [g, n] : family_sizes) {
    EXPECT_GE(n, 3) << g;
    EXPECT_LE(n, 4) << g;
  }
  // val: as many families as test, of the same sizes.
  std::map<std::string, int> val_family_sizes;
  for (const auto& it : synthetic_split_items(spec, 1, "val")) ++val_family_sizes[it.group];
  EXPECT_EQ(val_family_sizes.size(), 40u);
  for (const auto& [g, n] : val_family_sizes) {
    EXPECT_GE(n, 3) << g;
    EXPECT_LE(n, 4) << g;
  }
  EXPECT_EQ(synthetic_split_names(),
            (std::vector<std::string>{"pretrain", "train", "val", "test", "shifted"}));
  // shifted: as many families as test, of the same sizes, none of them test's scenes.
  std::map<std::string, int> shifted_family_sizes;
  std::set<std::string> test_captions;
  for (const auto& it : synthetic_split_items(spec, 1, "test")) test_captions.insert(it.caption);
  int shared = 0;
  const auto shifted = synthetic_split_items(spec, 1, "shifted");
  for (const auto& it : shifted) {
    ++shifted_family_sizes[it.group];
    shared += test_captions.count(it.caption) > 0;
  }
  EXPECT_EQ(shifted_family_sizes.size(), 40u);
  for (const auto& [g, n] : shifted_family_sizes) {
    EXPECT_GE(n, 3) << g;
    EXPECT_LE(n, 4) << g;
  }
  EXPECT_LT(shared, static_cast<int>(shifted.size()) / 10) << "shifted draws scenes of its own";
  const auto def = synthetic_size_spec("default");
  EXPECT_EQ(def.pretrain_images, 30000);
  EXPECT_EQ(def.train_images, 8000);
  EXPECT_EQ(def.test_families, 300);
}

// The large size's test split resolves a 1-point R@1 gap: at least 5,000 near-twin queries
// (issue 13), so a gap is about 50 queries rather than default's 10.
TEST(SyntheticSplit, LargeTestSplitHasAtLeast5000Queries) {
  const auto items = synthetic_split_items(synthetic_size_spec("large"), 1, "test");
  EXPECT_GE(items.size(), 5000u);
  std::map<std::string, int> families;
  for (const auto& it : items) ++families[it.group];
  EXPECT_EQ(families.size(), 1500u);
}

// FNV-1a over every item's caption and family, in order.
uint64_t items_hash(const std::vector<SyntheticItem>& items) {
  uint64_t h = 1469598103934665603ULL;
  for (const auto& it : items) {
    for (const std::string* s : {&it.caption, &it.group}) {
      for (const unsigned char c : *s + '\n') h = (h ^ c) * 1099511628211ULL;
    }
  }
  return h;
}

// Adding the val split left the other splits as they were: the committed pretrained checkpoint
// and the README's measurements were made on them. The values were computed with this hash from
// the generator before val existed (generator version 1, size small, seed 1); captions name every
// attribute of every object, so equal captions mean equal scenes, and the renderer is unchanged.
TEST(SyntheticSplit, PretrainTrainAndTestAreUnchangedByTheValSplit) {
  const auto spec = synthetic_size_spec("small");
  const auto test_items = synthetic_split_items(spec, 1, "test");
  EXPECT_EQ(items_hash(synthetic_split_items(spec, 1, "pretrain")), 0xaf9f8bc53d2a0fcfULL);
  EXPECT_EQ(items_hash(synthetic_split_items(spec, 1, "train")), 0xa7187df9dc5e35c9ULL);
  EXPECT_EQ(items_hash(test_items), 0x3bf851d4f922a933ULL);
  ASSERT_EQ(test_items.size(), 142u);
  EXPECT_EQ(test_items.front().caption,
            "This image shows four objects on a white background: one circle, two squares and one "
            "cross. In the top left corner there is a large blue circle that is hollow, only "
            "outlined. In the top right corner there is a small red cross that is solid and "
            "filled. In the very centre there is a small green square that is solid and filled. "
            "On the right in the middle there is a large brown square that is solid and filled. "
            "The background is plain white.");
}

TEST(SyntheticSplit, ValSharesNoCaptionWithTest) {
  for (const uint64_t seed : {1, 2, 3}) {
    const auto spec = synthetic_size_spec("small");
    std::set<std::string> test_captions;
    for (const auto& it : synthetic_split_items(spec, seed, "test"))
      test_captions.insert(it.caption);
    const auto val = synthetic_split_items(spec, seed, "val");
    ASSERT_FALSE(val.empty());
    for (const auto& it : val) EXPECT_EQ(test_captions.count(it.caption), 0u) << it.caption;
    // Deterministic: the same seed gives the same split.
    EXPECT_EQ(items_hash(val), items_hash(synthetic_split_items(spec, seed, "val")));
  }
}

// A val family with a caption already taken (by the test split) is skipped for the next stream
// index; the other families are the ones drawn without it. One taken caption is enough.
TEST(SyntheticSplit, ValSkipsAFamilyWhoseCaptionIsTaken) {
  const auto spec = synthetic_size_spec("small");
  std::map<std::string, std::vector<std::string>> drawn;
  for (const auto& it : synthetic_val_items(spec, 1, {})) drawn[it.group].push_back(it.caption);
  ASSERT_EQ(drawn.size(), 40u);
  ASSERT_EQ(drawn.begin()->first, "f000000");
  const std::unordered_set<std::string> taken{drawn["f000000"].back(), drawn["f000007"].front()};
  std::map<std::string, std::vector<std::string>> kept;
  for (const auto& it : synthetic_val_items(spec, 1, taken)) kept[it.group].push_back(it.caption);
  EXPECT_EQ(kept.size(), 40u) << "as many families as the test split";
  EXPECT_EQ(kept.count("f000000"), 0u);
  EXPECT_EQ(kept.count("f000007"), 0u);
  EXPECT_EQ(kept.count("f000040"), 1u) << "stream indices 40 and 41 fill in";
  EXPECT_EQ(kept.count("f000041"), 1u);
  for (const auto& [group, captions] : kept) {
    if (drawn.count(group) > 0) EXPECT_EQ(captions, drawn[group]) << group;
    for (const auto& c : captions) EXPECT_EQ(taken.count(c), 0u) << group;
  }
}

TEST(SyntheticSplit, TwinsDifferInExactlyOneThingAndCaptionsStayClose) {
  const auto spec = synthetic_size_spec("small");
  std::map<SceneChange, int> seen;
  for (const std::string split : {"train", "val", "test", "shifted"}) {
    const auto items = synthetic_split_items(spec, 1, split);
    std::map<std::string, std::vector<const SyntheticItem*>> families;
    for (const auto& it : items) families[it.group].push_back(&it);
    for (const auto& [group, members] : families) {
      ASSERT_FALSE(group.empty());
      EXPECT_GE(members.size(), 2u) << split << " " << group;
      EXPECT_LE(members.size(), 4u) << split << " " << group;
      const auto& base = *members.front();
      for (size_t i = 1; i < members.size(); ++i) {
        const auto diff = scene_differences(base.scene, members[i]->scene);
        ASSERT_EQ(diff.size(), 1u) << split << " " << group << " twin " << i;
        ++seen[diff.front()];
        EXPECT_GE(caption_cosine(base.caption, members[i]->caption), 0.9)
            << split << " " << group << " (" << scene_name(diff.front()) << ")\n"
            << base.caption << "\n"
            << members[i]->caption;
        for (size_t j = 0; j < i; ++j) EXPECT_NE(members[j]->scene, members[i]->scene) << group;
      }
    }
  }
  EXPECT_EQ(seen.size(), 7u) << "every kind of change occurs";
}

TEST(SyntheticSplit, CaptionLengthsFitTheContext) {
  const auto spec = synthetic_size_spec("small");
  for (const std::string split : {"train", "val", "test"}) {
    for (const auto& it : synthetic_split_items(spec, 1, split)) {
      EXPECT_GE(it.scene.objects.size(), 3u);
      EXPECT_LE(it.scene.objects.size(), 4u);
      EXPECT_EQ(it.caption, synthetic_caption(it.scene));
      const int n = word_count(it.caption);
      EXPECT_GE(n, kMinDenseWords) << it.caption;
      EXPECT_LE(n, kMaxDenseWords) << it.caption;
      EXPECT_LE(n, kMaxCaptionWords) << it.caption;
    }
  }
  int full = 0;
  int shorter = 0;
  std::map<size_t, int> object_counts;
  for (const auto& it : synthetic_split_items(spec, 1, "pretrain")) {
    EXPECT_TRUE(it.group.empty());
    ++object_counts[it.scene.objects.size()];
    const int n = word_count(it.caption);
    EXPECT_GE(n, 1);
    EXPECT_LE(n, kMaxCaptionWords) << it.caption;
    if (it.caption == synthetic_caption(it.scene)) {
      ++full;
    } else {
      ++shorter;
      EXPECT_LT(n, word_count(synthetic_caption(it.scene)));
    }
  }
  EXPECT_EQ(object_counts.size(), 4u);  // 1..4 objects
  EXPECT_NEAR(full, 512, 64);
  EXPECT_NEAR(shorter, 512, 64);
}

TEST(SyntheticSplit, CaptionsReadNaturally) {
  Scene s;
  s.background = SceneBackground::White;
  s.objects = {{SceneColour::Red, SceneShape::Cross, SceneSize::Large, SceneTexture::Solid, 0},
               {SceneColour::Blue, SceneShape::Cross, SceneSize::Small, SceneTexture::Hollow, 4},
               {SceneColour::Green, SceneShape::Circle, SceneSize::Small, SceneTexture::Solid, 8}};
  EXPECT_EQ(synthetic_caption(s),
            "This image shows three objects on a white background: one circle and two crosses. "
            "In the top left corner there is a large red cross that is solid and filled. "
            "In the very centre there is a small blue cross that is hollow, only outlined. "
            "In the bottom right corner there is a small green circle that is solid and filled. "
            "The background is plain white.");
  EXPECT_EQ(synthetic_partial_caption(s, {1}),
            "In the very centre there is a small blue cross that is hollow, only outlined. "
            "The background is plain white.");
  EXPECT_THROW(synthetic_partial_caption(s, {3}), std::out_of_range);
}

TEST(SyntheticSplit, HardestNeighbourMedianAtLeast09) {
  const auto spec = synthetic_size_spec("small");
  for (const std::string split : {"train", "val", "test"}) {
    std::vector<std::string> captions;
    for (const auto& it : synthetic_split_items(spec, 1, split)) captions.push_back(it.caption);
    const auto s = bag_of_words_stats(captions);
    EXPECT_GE(s.median_hardest, 0.9) << split;
    EXPECT_LT(s.mean_pairwise, s.mean_hardest) << split;
  }
}

// --- Generation on disk -------------------------------------------------------------------

std::string manifest_text(const SyntheticOptions& o) {
  return test::read_text_file(fs::path(synthetic_benchmark_folder(o)) / "manifest.jsonl");
}

TEST(SyntheticBenchmark, GeneratesAndReadsBackThroughTheManifest) {
  test::ScratchDir dir;
  const SyntheticOptions options{dir.path().string(), "small", 1};
  std::vector<std::string> messages;
  const auto bench =
      open_synthetic_benchmark(options, [&](const std::string& m) { messages.push_back(m); });
  EXPECT_FALSE(messages.empty());
  EXPECT_EQ(bench->name(), "synthetic");
  EXPECT_EQ(bench->splits(),
            (std::vector<std::string>{"pretrain", "train", "val", "test", "shifted"}));
  const auto spec = synthetic_size_spec("small");
  for (const auto& split : bench->splits()) {
    const auto samples = bench->split(split);
    const auto items = synthetic_split_items(spec, 1, split);
    ASSERT_EQ(samples.size(), items.size()) << split;
    for (size_t i = 0; i < samples.size(); ++i) {
      EXPECT_EQ(samples[i].split, split);
      EXPECT_EQ(samples[i].group, items[i].group);
      ASSERT_EQ(samples[i].captions.size(), 1u);
      EXPECT_EQ(samples[i].captions[0], items[i].caption);
      EXPECT_TRUE(fs::is_regular_file(samples[i].image)) << samples[i].image;
    }
  }
  const fs::path folder = synthetic_benchmark_folder(options);
  EXPECT_EQ(folder.filename().string(),
            "synthetic-small-s1-v" + std::to_string(kSyntheticGeneratorVersion));
  EXPECT_TRUE(fs::is_regular_file(folder / "info.json"));
  EXPECT_TRUE(fs::is_regular_file(folder / "images" / "train" / "000000.png"));
  // The shifted split is its scenes under the shifted light, and that light is far from the
  // standard one (mean absolute difference of more than 20 grey levels).
  const auto shifted_items = synthetic_split_items(spec, 1, kSyntheticShiftedSplit);
  const cv::Mat stored = cv::imread((folder / "images" / "shifted" / "000000.png").string());
  cv::Mat plain = SyntheticRenderer().render(shifted_items[0].scene), lit = plain.clone();
  shift_lighting(lit);
  EXPECT_EQ(cv::norm(stored, lit, cv::NORM_INF), 0.0);
  EXPECT_GT(cv::norm(plain, lit, cv::NORM_L1) / static_cast<double>(plain.total() * 3), 20.0);
  // Nothing but the finished folder is left in the cache.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1);
}

TEST(SyntheticBenchmark, DeterministicBySeed) {
  test::ScratchDir dir_a, dir_b, dir_c;
  const SyntheticOptions a{dir_a.path().string(), "small", 1};
  const SyntheticOptions b{dir_b.path().string(), "small", 1};
  const SyntheticOptions c{dir_c.path().string(), "small", 2};
  open_synthetic_benchmark(a);
  open_synthetic_benchmark(b);
  open_synthetic_benchmark(c);
  EXPECT_EQ(manifest_text(a), manifest_text(b));
  EXPECT_NE(manifest_text(a), manifest_text(c));
  int compared = 0;
  int different_from_c = 0;
  for (const auto& entry :
       fs::recursive_directory_iterator(fs::path(synthetic_benchmark_folder(a)) / "images")) {
    if (!entry.is_regular_file()) continue;
    const auto rel = fs::relative(entry.path(), synthetic_benchmark_folder(a));
    const auto bytes = test::read_text_file(entry.path());
    ASSERT_EQ(bytes, test::read_text_file(fs::path(synthetic_benchmark_folder(b)) / rel)) << rel;
    different_from_c +=
        bytes != test::read_text_file(fs::path(synthetic_benchmark_folder(c)) / rel) ? 1 : 0;
    ++compared;
  }
  const auto small = synthetic_size_spec("small");
  const auto val_test_shifted = synthetic_split_items(small, 1, "val").size() +
                                synthetic_split_items(small, 1, "test").size() +
                                synthetic_split_items(small, 1, "shifted").size();
  EXPECT_EQ(compared, 1024 + 512 + static_cast<int>(val_test_shifted));
  EXPECT_GT(different_from_c, compared / 2);
}

TEST(SyntheticBenchmark, ReusesTheCacheWithoutRegenerating) {
  test::ScratchDir dir;
  const SyntheticOptions options{dir.path().string(), "small", 3};
  open_synthetic_benchmark(options);
  const fs::path manifest = fs::path(synthetic_benchmark_folder(options)) / "manifest.jsonl";
  const auto before = fs::last_write_time(manifest);
  const auto old_time = before - std::chrono::hours(1);
  fs::last_write_time(manifest, old_time);  // a regeneration would bring it back to now
  int messages = 0;
  const auto bench = open_synthetic_benchmark(options, [&](const std::string&) { ++messages; });
  EXPECT_EQ(messages, 0);
  EXPECT_EQ(fs::last_write_time(manifest), old_time);
  EXPECT_EQ(bench->split("train").size(), 512u);
}

TEST(SyntheticBenchmark, InterruptedGenerationIsDiscarded) {
  test::ScratchDir dir;
  const SyntheticOptions options{dir.path().string(), "small", 4};
  const std::string folder = synthetic_benchmark_folder(options);
  // Leftovers of a dead process (pid far above any live one) and of this process.
  const fs::path dead = folder + ".partial-2147483646";
  const fs::path own = folder + ".partial-" + std::to_string(::getpid());
  for (const auto& p : {dead, own}) {
    fs::create_directories(p / "images" / "train");
    test::write_text_file(p / "manifest.jsonl", "{\"image\": \"half");
  }
  const auto bench = open_synthetic_benchmark(options);
  EXPECT_EQ(bench->split("pretrain").size(), 1024u);
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_FALSE(fs::exists(own));
  EXPECT_TRUE(fs::is_regular_file(fs::path(folder) / "info.json"));
}

}  // namespace
}  // namespace hnclip
