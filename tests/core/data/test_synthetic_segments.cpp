// Tests core/data/synthetic_segments and the built-in benchmark's segments.json: every box holds
// exactly the pixels its object changes (tight on all four sides), every segment names the
// sentence that describes its object, and the generated sidecar reads back through GOAL's reader
// (data/goal_segments.h) with one segment per drawn object.

#include "data/synthetic_segments.h"

#include <gtest/gtest.h>

#include <filesystem>

#include <opencv2/core.hpp>

#include "data/synthetic_benchmark.h"
#include "data/synthetic_caption.h"
#include "text/caption_sentences.h"
#include "support/test_dirs.h"

namespace hnclip {
namespace {

namespace fs = std::filesystem;

// A change of more than this many levels in some channel is more than an anti-aliased edge's
// spill into the next cell.
constexpr int kVisibleChange = 48;

// Pixels where two renders differ by more than `levels` in some channel.
cv::Mat changed_pixels(const cv::Mat& a, const cv::Mat& b, int levels) {
  cv::Mat diff, channels[3];
  cv::absdiff(a, b, diff);
  cv::split(diff, channels);
  return cv::max(cv::max(channels[0], channels[1]), channels[2]) > levels;
}

TEST(SyntheticSegments, BoxesHoldExactlyTheirObjectsPixels) {
  const SyntheticRenderer renderer;
  SceneGenerator gen(7);
  int checked = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const Scene scene = gen.random_scene(1, kSceneMaxObjects);
    const auto sentences = caption_sentences(synthetic_caption(scene));
    const auto segments = synthetic_segments(scene, renderer, synthetic_caption(scene));
    ASSERT_EQ(segments.size(), scene.objects.size());
    const cv::Mat full = renderer.render(scene);
    for (size_t i = 0; i < scene.objects.size(); ++i) {
      SCOPED_TRACE("trial " + std::to_string(trial) + " object " + std::to_string(i));
      Scene without = scene;
      without.objects.erase(without.objects.begin() + static_cast<std::ptrdiff_t>(i));
      const cv::Mat mine = changed_pixels(full, renderer.render(without), 0);
      const auto& b = segments[i].box;
      EXPECT_EQ(segments[i].sentence, static_cast<int64_t>(1 + i));
      // Every pixel the object visibly changes (more than anti-aliasing's faint tint) lies in the
      // box ...
      const cv::Rect box(static_cast<int>(b.x1), static_cast<int>(b.y1), static_cast<int>(b.x2 - b.x1),
                         static_cast<int>(b.y2 - b.y1));
      const cv::Mat visible = changed_pixels(full, renderer.render(without), kVisibleChange);
      EXPECT_EQ(cv::countNonZero(visible), cv::countNonZero(visible(box)));
      // ... and each of the box's edge rows and columns holds one of them (tight).
      EXPECT_GT(cv::countNonZero(mine(cv::Rect(box.x, box.y, box.width, 1))), 0);
      EXPECT_GT(cv::countNonZero(mine(cv::Rect(box.x, box.y + box.height - 1, box.width, 1))), 0);
      EXPECT_GT(cv::countNonZero(mine(cv::Rect(box.x, box.y, 1, box.height))), 0);
      EXPECT_GT(cv::countNonZero(mine(cv::Rect(box.x + box.width - 1, box.y, 1, box.height))), 0);
      // The box lies in the object's own grid cell.
      const int cell = renderer.image_size() / kSceneGridSide;
      const int col = scene.objects[i].cell % kSceneGridSide, row = scene.objects[i].cell / kSceneGridSide;
      EXPECT_GE(box.x, col * cell);
      EXPECT_LE(box.x + box.width, (col + 1) * cell);
      EXPECT_GE(box.y, row * cell);
      EXPECT_LE(box.y + box.height, (row + 1) * cell);
      // The sentence is the object's: it names its colour, shape, size and texture.
      ASSERT_LT(static_cast<size_t>(segments[i].sentence), sentences.size());
      const std::string& s = sentences[static_cast<size_t>(segments[i].sentence)];
      const auto& o = scene.objects[i];
      for (const char* word : {scene_name(o.colour), scene_name(o.shape), scene_name(o.size),
                               scene_name(o.texture)}) {
        EXPECT_NE(s.find(word), std::string::npos) << s << " lacks " << word;
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 60);
}

TEST(SyntheticSegments, BenchmarkWritesASidecarThatReadsBack) {
  test::ScratchDir dir;
  const SyntheticOptions options{dir.path().string(), "small", 1};
  const auto benchmark = open_synthetic_benchmark(options);
  const fs::path sidecar = fs::path(synthetic_benchmark_folder(options)) / "segments.json";
  ASSERT_TRUE(fs::is_regular_file(sidecar));
  std::vector<Sample> all;
  for (const auto& split : benchmark->splits()) {
    const auto samples = benchmark->split(split);
    all.insert(all.end(), samples.begin(), samples.end());
  }
  const auto segments = read_goal_segments(sidecar, all);
  ASSERT_EQ(segments.size(), all.size());  // every image of every split
  for (const auto& sample : all) {
    SCOPED_TRACE(sample.image);
    ASSERT_EQ(segments.count(sample.image), 1u);
    const auto& mine = segments.at(sample.image);
    // One segment per described object: a full caption is summary + one sentence per object +
    // background; a pretrain caption lacks the summary and describes some of the objects.
    const auto sentences = caption_sentences(sample.captions[0]);
    ASSERT_GE(sentences.size(), mine.size() + 1);
    const size_t extra = sentences.size() - mine.size();  // summary (if any) and background
    if (sample.split == "pretrain") {
      EXPECT_TRUE(extra == 1 || extra == 2) << extra;
    } else {
      EXPECT_EQ(extra, 2u);
    }
    for (size_t k = 0; k < mine.size(); ++k) {
      EXPECT_EQ(mine[k].sentence, static_cast<int64_t>(k + extra - 1));
      EXPECT_LT(mine[k].box.x1, mine[k].box.x2);
    }
  }
}

}  // namespace
}  // namespace hnclip
