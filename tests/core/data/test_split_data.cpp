// Tests core/data/split_data: caption numbering, tensors from the image pipeline and the
// tokenizer, index checks, errors naming the file, and concurrent loading.

#include "data/split_data.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include <torch/torch.h>
#include <opencv2/imgcodecs.hpp>

#include "data/benchmark.h"
#include "support/test_dirs.h"
#include "text/word_tokenizer.h"

namespace hnclip {
namespace {

using test::ScratchDir;

constexpr int64_t kContext = 8;  // tokenizer context length used by these tests

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
        WordTokenizer::build({"a red cube the is blue ball green cone left"}, kContext));
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
  EXPECT_EQ(t.sizes(), (std::vector<int64_t>{2, kContext}));
  EXPECT_EQ(t.scalar_type(), torch::kInt64);
  const auto row0 = tokenizer_->encode("cone left");
  const auto row1 = tokenizer_->encode("a red cube");
  for (int64_t j = 0; j < kContext; ++j) {
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

}  // namespace
}  // namespace hnclip
