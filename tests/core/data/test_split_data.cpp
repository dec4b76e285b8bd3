// Tests core/data/split_data: caption numbering, tensors from the image pipeline and the
// tokenizer, index checks, errors naming the file, concurrent loading, and GOAL's segment inputs
// (on hand-made segments and on the built-in benchmark's exact ones).

#include "data/split_data.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <thread>
#include <utility>
#include <vector>

#include <torch/torch.h>
#include <opencv2/imgcodecs.hpp>

#include "data/benchmark.h"
#include "data/goal_segments.h"
#include "data/image_pipeline.h"
#include "data/structure_map.h"
#include "data/synthetic_benchmark.h"
#include "support/test_dirs.h"
#include "text/caption_sentences.h"
#include "text/word_tokenizer.h"

namespace hnclip {
namespace {

using test::ScratchDir;

constexpr int64_t kTokenizerContext = 8;  // tokenizer context length used by these tests

class SplitDataTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Image i is a flat grey of value 40 * (i + 1), so a loaded tensor tells which file it was.
    const std::vector<std::vector<std::string>> captions = {
        {"a red cube", "the cube is red"}, {"a blue ball"}, {"green cone", "a cone", "cone left"}};
    for (size_t i = 0; i < captions.size(); ++i) {
      const std::string path = (dir_ / ("img" + std::to_string(i) + ".png")).string();
      cv::imwrite(path, cv::Mat(30 + 10 * static_cast<int>(i), 50, CV_8UC1,
                                cv::Scalar(40.0 * static_cast<double>(i + 1))));
      samples_.push_back(Sample{path, captions[i], "train", ""});
    }
    tokenizer_ = std::make_shared<WordTokenizer>(
        WordTokenizer::build({"a red cube the is blue ball green cone left"}, kTokenizerContext));
  }

  ScratchDir dir_;
  std::vector<Sample> samples_;
  std::shared_ptr<const Tokenizer> tokenizer_;
};

TEST_F(SplitDataTest, CaptionsAreNumberedImageByImage) {
  SplitData d(samples_, tokenizer_);
  EXPECT_EQ(d.num_images(), 3);
  EXPECT_EQ(d.num_captions(), 6);
  EXPECT_EQ(d.image_captions(0), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(d.image_captions(1), (std::vector<int64_t>{2}));
  EXPECT_EQ(d.image_captions(2), (std::vector<int64_t>{3, 4, 5}));
  const std::vector<int64_t> owner = {0, 0, 1, 2, 2, 2};
  for (int64_t c = 0; c < 6; ++c) EXPECT_EQ(d.caption_image(c), owner[c]);
  EXPECT_EQ(d.caption_text(1), "the cube is red");
  EXPECT_EQ(d.caption_text(5), "cone left");
  EXPECT_EQ(d.sample(2).image, samples_[2].image);
  EXPECT_THROW(d.sample(3), std::out_of_range);
  EXPECT_THROW(d.caption_text(6), std::out_of_range);
  EXPECT_THROW(d.caption_image(-1), std::out_of_range);
  EXPECT_THROW(d.image_captions(3), std::out_of_range);
}

TEST_F(SplitDataTest, LoadImagesRunsThePipelineInRequestOrder) {
  SplitData d(samples_, tokenizer_);
  const at::Tensor t = d.load_images({2, 0, 2});
  EXPECT_EQ(t.sizes(), (std::vector<int64_t>{3, 3, 48, 48}));
  EXPECT_EQ(t.scalar_type(), torch::kFloat32);
  const ImagePipelineConfig& cfg = d.pipeline().config();
  const std::vector<int> grey = {120, 40, 120};
  for (int64_t k = 0; k < 3; ++k) {
    for (int64_t c = 0; c < 3; ++c) {
      const float want = (static_cast<float>(grey[k]) / 255.0f - cfg.mean[c]) / cfg.std[c];
      EXPECT_NEAR(t[k][c].min().item<float>(), want, 1e-6);
      EXPECT_NEAR(t[k][c].max().item<float>(), want, 1e-6);
    }
  }
  EXPECT_EQ(d.load_images({}).size(0), 0);
  EXPECT_THROW(d.load_images({0, 3}), std::out_of_range);

  ImagePipelineConfig small;
  small.image_size = 16;
  EXPECT_EQ(SplitData(samples_, tokenizer_, small).load_images({1}).sizes(),
            (std::vector<int64_t>{1, 3, 16, 16}));
}

TEST_F(SplitDataTest, LoadTokensEncodesEachCaption) {
  SplitData d(samples_, tokenizer_);
  const at::Tensor t = d.load_tokens({5, 0});
  EXPECT_EQ(t.sizes(), (std::vector<int64_t>{2, kTokenizerContext}));
  EXPECT_EQ(t.scalar_type(), torch::kInt64);
  const auto row0 = tokenizer_->encode("cone left");
  const auto row1 = tokenizer_->encode("a red cube");
  for (int64_t j = 0; j < kTokenizerContext; ++j) {
    EXPECT_EQ(t[0][j].item<int64_t>(), row0[j]);
    EXPECT_EQ(t[1][j].item<int64_t>(), row1[j]);
  }
  EXPECT_THROW(d.load_tokens({6}), std::out_of_range);
}

TEST_F(SplitDataTest, ConcurrentLoadsGiveTheSameTensors) {
  SplitData d(samples_, tokenizer_);
  const at::Tensor images = d.load_images({0, 1, 2, 1});
  const at::Tensor tokens = d.load_tokens({0, 1, 2, 3, 4, 5});
  std::vector<std::thread> threads;
  std::vector<int> ok(4, 0);
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] {
      bool same = true;
      for (int r = 0; r < 10; ++r) {
        same = same && torch::equal(d.load_images({0, 1, 2, 1}), images) &&
               torch::equal(d.load_tokens({0, 1, 2, 3, 4, 5}), tokens);
      }
      ok[i] = same ? 1 : 0;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok, (std::vector<int>{1, 1, 1, 1}));
}

TEST_F(SplitDataTest, ErrorsNameTheProblem) {
  auto broken = samples_;
  std::filesystem::remove(broken[1].image);
  SplitData d(broken, tokenizer_);
  try {
    d.load_images({0, 1});
    FAIL();
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find(broken[1].image), std::string::npos) << e.what();
  }
  auto uncaptioned = samples_;
  uncaptioned[2].captions.clear();
  EXPECT_THROW(SplitData(uncaptioned, tokenizer_), DataError);
  EXPECT_THROW(SplitData(samples_, nullptr), std::invalid_argument);
}

// A segment belongs to one caption of its image: only that pair gets it. The crop is the box's
// pixels through the pipeline, the patch mask follows the resize and crop, the span is the
// sentence's place in the caption row.
TEST_F(SplitDataTest, SegmentsGoToTheirOwnCaptionsPairs) {
  SplitData data(samples_, tokenizer_, ImagePipelineConfig{16});
  EXPECT_EQ(data.images_with_segments(), 0);
  SegmentsByImage segments;
  ImageSegment seg;
  seg.box = {10, 5, 30, 25};  // image 0 is 50 x 30: resized to 26 x 16, crop x offset 5
  seg.caption = 0;
  seg.sentence = 0;
  segments[samples_[0].image] = {seg};
  data.set_segments(segments);
  EXPECT_EQ(data.images_with_segments(), 1);
  // Captions 0 and 1 are image 0's; 2 is image 1's (no segment).
  const SegmentBatch none = data.load_segments({1, 2}, 4, false);
  EXPECT_TRUE(none.rows.empty());
  EXPECT_EQ(none.crops.size(0), 0);
  const SegmentBatch got = data.load_segments({2, 0, 1}, 4, false);
  ASSERT_EQ(got.rows, (std::vector<int64_t>{1}));
  EXPECT_EQ(got.crops.sizes(), (std::vector<int64_t>{1, 3, 16, 16}));
  // A flat image's crop is flat: every value equals the image's own preprocessed grey.
  const auto image = data.load_images({0});
  EXPECT_TRUE(torch::allclose(got.crops[0].flatten(1).mean(1), image[0].flatten(1).mean(1), 1e-4));
  // Box x 10..30 -> 5.2..15.6 -> 0.2..10.6 in the crop: patch columns 0..2; y 5..25 -> 2.7..13.3:
  // rows 0..3 of the 4 x 4 grid.
  std::vector<int64_t> touched;
  for (int64_t p = 0; p < 16; ++p) {
    if (got.patch_mask[0][p].item<bool>()) touched.push_back(p);
  }
  EXPECT_EQ(touched, (std::vector<int64_t>{0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14}));
  // "a red cube": the whole caption is sentence 0, positions 1..3.
  EXPECT_EQ(got.span_mask[0].sum().item<int64_t>(), 3);
  EXPECT_TRUE(got.span_mask[0][1].item<bool>() && got.span_mask[0][3].item<bool>());
  EXPECT_TRUE(torch::equal(got.sentences[0], data.load_tokens({0})[0]));
}

TEST(SplitDataSegments, BuiltInBenchmarksSegmentsFeedGoal) {
  ScratchDir dir;
  const SyntheticOptions options{dir.path().string(), "small", 1};
  const auto benchmark = open_synthetic_benchmark(options);
  std::vector<Sample> all;
  for (const auto& split : benchmark->splits()) {
    const auto samples = benchmark->split(split);
    all.insert(all.end(), samples.begin(), samples.end());
  }
  const auto train = benchmark->split("train");
  std::vector<std::string> captions;
  for (const auto& s : train) captions.push_back(s.captions[0]);
  auto tokenizer = std::make_shared<WordTokenizer>(WordTokenizer::build(captions, 96));
  SplitData data(train, tokenizer, ImagePipelineConfig{48});
  data.set_segments(read_goal_segments(std::filesystem::path(synthetic_benchmark_folder(options)) / "segments.json", all));
  ASSERT_EQ(data.images_with_segments(), data.num_images());
  std::vector<int64_t> pairs;
  for (int64_t c = 0; c < 16; ++c) pairs.push_back(c);
  const SegmentBatch got = data.load_segments(pairs, 8, true);
  ASSERT_EQ(got.rows.size(), pairs.size());  // every training image has one
  EXPECT_TRUE(torch::isfinite(got.crops).all().item<bool>());
  for (size_t k = 0; k < pairs.size(); ++k) {
    SCOPED_TRACE("pair " + std::to_string(k));
    const auto row = data.load_tokens({pairs[k]})[0];
    const auto span = got.span_mask[static_cast<int64_t>(k)];
    const auto in_caption = row.masked_select(span);
    // The span holds the sentence's own tokens (start and end stripped).
    const auto own = got.sentences[static_cast<int64_t>(k)];
    const int64_t end = own.argmax().item<int64_t>();
    EXPECT_TRUE(torch::equal(in_caption, own.slice(0, 1, end)));
    // The patches are those of one grid cell (6 x 6 patches of 8 px, cells of 2 x 2 patches).
    const auto patches = got.patch_mask[static_cast<int64_t>(k)].nonzero().flatten();
    ASSERT_GT(patches.numel(), 0);
    const int64_t first = patches[0].item<int64_t>();
    for (int64_t i = 0; i < patches.numel(); ++i) {
      const int64_t p = patches[i].item<int64_t>();
      EXPECT_EQ((p % 6) / 2, (first % 6) / 2);
      EXPECT_EQ((p / 6) / 2, (first / 6) / 2);
    }
    // StructXLIP's edge segment: the crop's structure map, and its sentence's text.
    const auto crop = got.crops[static_cast<int64_t>(k)];
    EXPECT_FALSE(torch::equal(got.structure_crops[static_cast<int64_t>(k)], crop));
    const auto sentences = caption_sentences(data.caption_text(pairs[k]));
    EXPECT_NE(std::find(sentences.begin(), sentences.end(), got.sentence_texts[k]),
              sentences.end())
        << got.sentence_texts[k];
    EXPECT_TRUE(torch::equal(data.tokenize_texts({got.sentence_texts[k]})[0], own));
  }
  // Without asking, no structure maps are made.
  EXPECT_FALSE(data.load_segments(pairs, 8, false).structure_crops.defined());
}

// StructXLIP's structure maps: the file's Canny map through the pipeline, the same on a second
// call (from the cache, which then holds the image) and from several threads at once.
TEST(SplitDataStructureMaps, AreTheImagesEdgeMapsAndAreCached) {
  ScratchDir dir;
  const SyntheticOptions options{dir.path().string(), "small", 1};
  const auto benchmark = open_synthetic_benchmark(options);
  const auto train = benchmark->split("train");
  auto tokenizer = std::make_shared<WordTokenizer>(WordTokenizer::build({"a b"}, 8));
  SplitData data(train, tokenizer, ImagePipelineConfig{48});
  EXPECT_EQ(data.cached_structure_maps(), 0u);
  const auto maps = data.load_structure_maps({3, 0});
  EXPECT_EQ(maps.sizes(), (std::vector<int64_t>{2, 3, 48, 48}));
  EXPECT_EQ(data.cached_structure_maps(), 2u);
  for (const auto& [row, image] : {std::pair{0, 3}, std::pair{1, 0}}) {
    SCOPED_TRACE("image " + std::to_string(image));
    auto expected = torch::empty({3, 48, 48}, torch::kFloat32);
    data.pipeline().process(structure_map(ImagePipeline::decode(train[image].image)),
                            expected.data_ptr<float>());
    EXPECT_TRUE(torch::equal(maps[row], expected));
    // An edge map holds two values per channel (edge, background), unlike the image.
    EXPECT_LE(std::get<0>(at::_unique(maps[row][0])).numel(), 2);
    EXPECT_GT(std::get<0>(at::_unique(data.load_images({image})[0][0])).numel(), 2);
  }
  EXPECT_TRUE(torch::equal(data.load_structure_maps({0, 3}), maps.flip(0)));
  std::vector<std::thread> threads;
  std::vector<int> same(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      same[static_cast<size_t>(t)] =
          torch::equal(data.load_structure_maps({5, 6, 3}).select(0, 2), maps[0]) ? 1 : 0;
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(same, (std::vector<int>{1, 1, 1, 1}));
  EXPECT_EQ(data.cached_structure_maps(), 4u);
}

}  // namespace
}  // namespace hnclip
