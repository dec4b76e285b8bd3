// Tests core/data/image_pipeline: exact normalised values, RGB channel order, the centre crop of
// non-square images (with and without resizing), torchvision's resize sizes and round-half-even
// crop offsets, grey/alpha inputs, and decoding errors. (Agreement with Python's PIL + torch
// preprocessing is tested in test_pillow_resize.cpp.)

#include "data/image_pipeline.h"

#include <gtest/gtest.h>

#include <array>
#include <utility>
#include <vector>

#include <opencv2/imgcodecs.hpp>

#include "data/benchmark.h"
#include "support/test_dirs.h"

namespace hnclip {
namespace {

using test::ScratchDir;

constexpr int kSize = 48;  // pipeline output side used throughout

// The value the pipeline must produce for an 8-bit channel value v of channel c (R=0).
float expected(const ImagePipelineConfig& cfg, int c, int v) {
  return (static_cast<float>(v) / 255.0f - cfg.mean[c]) / cfg.std[c];
}

std::vector<float> run(const ImagePipeline& p, const std::string& path) {
  std::vector<float> out(static_cast<size_t>(p.floats_per_image()), -1000.0f);
  p.load(path, out.data());
  return out;
}

float at(const std::vector<float>& chw, int c, int y, int x) {
  return chw[static_cast<size_t>((c * kSize + y) * kSize + x)];
}

TEST(ImagePipeline, DefaultsAreClipNormalisation) {
  ImagePipelineConfig cfg;
  EXPECT_EQ(cfg.image_size, 48);
  EXPECT_FLOAT_EQ(cfg.mean[0], 0.48145466f);
  EXPECT_FLOAT_EQ(cfg.std[2], 0.27577711f);
  EXPECT_EQ(ImagePipeline(cfg).floats_per_image(), 3 * 48 * 48);
}

TEST(ImagePipeline, FlatColourGivesExactNormalisedValuesInRgbOrder) {
  ScratchDir dir;
  ImagePipeline p;
  const ImagePipelineConfig& cfg = p.config();
  // B, G, R as OpenCV stores them; one image enlarged, one shrunk (both Pillow bicubic, whose
  // weights sum to one, so a flat colour stays exact), one used as it is.
  const cv::Scalar bgr(30, 120, 200);
  for (const auto& size : {cv::Size(60, 40), cv::Size(90, 200), cv::Size(kSize, kSize)}) {
    const std::string path = (dir / ("flat" + std::to_string(size.width) + ".png")).string();
    ASSERT_TRUE(cv::imwrite(path, cv::Mat(size, CV_8UC3, bgr)));
    const auto out = run(p, path);
    for (int y = 0; y < kSize; ++y) {
      for (int x = 0; x < kSize; ++x) {
        ASSERT_NEAR(at(out, 0, y, x), expected(cfg, 0, 200), 1e-6) << size << " " << y << "," << x;
        ASSERT_NEAR(at(out, 1, y, x), expected(cfg, 1, 120), 1e-6);
        ASSERT_NEAR(at(out, 2, y, x), expected(cfg, 2, 30), 1e-6);
      }
    }
  }
}

// Three equal bands across the longer side; the crop must keep only the middle one.
cv::Mat three_bands(int long_side, int short_side, bool wide) {
  cv::Mat m(wide ? cv::Size(long_side, short_side) : cv::Size(short_side, long_side), CV_8UC3);
  const int band = long_side / 3;
  for (int i = 0; i < long_side; ++i) {
    const cv::Vec3b colour = i < band       ? cv::Vec3b(0, 0, 255)   // red
                             : i < 2 * band ? cv::Vec3b(0, 255, 0)   // green
                                            : cv::Vec3b(255, 0, 0);  // blue
    if (wide) {
      m.col(i).setTo(colour);
    } else {
      m.row(i).setTo(colour);
    }
  }
  return m;
}

TEST(ImagePipeline, CentreCropOfNonSquareImagePicksTheCentre) {
  ScratchDir dir;
  ImagePipeline p;
  const ImagePipelineConfig& cfg = p.config();
  for (bool wide : {true, false}) {
    // Short side already 48: no resize, the crop is exactly the middle band.
    const std::string path = (dir / (wide ? "wide.png" : "tall.png")).string();
    ASSERT_TRUE(cv::imwrite(path, three_bands(3 * kSize, kSize, wide)));
    const auto out = run(p, path);
    for (int y = 0; y < kSize; ++y) {
      for (int x = 0; x < kSize; ++x) {
        ASSERT_NEAR(at(out, 0, y, x), expected(cfg, 0, 0), 1e-6) << wide << " " << y << "," << x;
        ASSERT_NEAR(at(out, 1, y, x), expected(cfg, 1, 255), 1e-6);
        ASSERT_NEAR(at(out, 2, y, x), expected(cfg, 2, 0), 1e-6);
      }
    }
  }
  // Shrunk by 4/3 (192x64 -> 144x48): the middle band is cropped; its interior stays pure green
  // (the antialiasing bicubic kernel, 2 * 4/3 source pixels wide, mixes colours only near the
  // band edges, which the crop's 2-pixel rim may show).
  const std::string path = (dir / "big.png").string();
  ASSERT_TRUE(cv::imwrite(path, three_bands(4 * kSize, 4 * kSize / 3, true)));
  const auto out = run(p, path);
  for (int y = 0; y < kSize; ++y) {
    for (int x = 2; x < kSize - 2; ++x) {
      ASSERT_NEAR(at(out, 1, y, x), expected(cfg, 1, 255), 1e-6) << y << "," << x;
      ASSERT_NEAR(at(out, 0, y, x), expected(cfg, 0, 0), 1e-6);
    }
  }
}

TEST(ImagePipeline, ResizedSizeFollowsTorchvision) {
  // Shorter side -> 224, longer int(224 * long / short); the width counts as shorter when square.
  EXPECT_EQ(ImagePipeline::resized_size({640, 480}, 224), cv::Size(298, 224));  // 298.67
  EXPECT_EQ(ImagePipeline::resized_size({481, 333}, 224), cv::Size(323, 224));  // 323.56
  EXPECT_EQ(ImagePipeline::resized_size({333, 481}, 224), cv::Size(224, 323));
  EXPECT_EQ(ImagePipeline::resized_size({30, 20}, 224), cv::Size(336, 224));  // exact
  EXPECT_EQ(ImagePipeline::resized_size({50, 50}, 224), cv::Size(224, 224));
  EXPECT_EQ(ImagePipeline::resized_size({224, 300}, 224), cv::Size(224, 300));  // unchanged
  EXPECT_EQ(ImagePipeline::resized_size({1, 1000}, 48), cv::Size(48, 48000));
  EXPECT_THROW(ImagePipeline::resized_size({0, 10}, 48), std::invalid_argument);
}

TEST(ImagePipeline, CropOffsetRoundsHalfToEvenLikePython) {
  // int(round(excess / 2.0)): halves go to the even neighbour.
  const std::vector<std::pair<int, int>> excess_offset = {{0, 0}, {1, 0}, {2, 1}, {3, 2}, {4, 2},
                                                          {5, 2}, {6, 3}, {7, 4}, {9, 4}, {11, 6}};
  for (const auto& [excess, offset] : excess_offset) {
    EXPECT_EQ(ImagePipeline::crop_offset(kSize + excess, kSize), offset) << "excess " << excess;
  }
  EXPECT_EQ(ImagePipeline::crop_offset(298, 224), 37);  // 640x480 at 224: excess 74
  EXPECT_EQ(ImagePipeline::crop_offset(323, 224), 50);  // excess 99: round(49.5) = 50
  EXPECT_EQ(ImagePipeline::crop_offset(325, 224), 50);  // excess 101: round(50.5) = 50
  EXPECT_THROW(ImagePipeline::crop_offset(47, kSize), std::invalid_argument);

  // The pipeline crops there: rows numbered by their grey value, 5 and 7 rows too many.
  ImagePipeline p;
  const ImagePipelineConfig& cfg = p.config();
  std::vector<float> out(static_cast<size_t>(p.floats_per_image()));
  for (const auto& [excess, top] : std::vector<std::pair<int, int>>{{5, 2}, {7, 4}}) {
    cv::Mat rows(kSize + excess, kSize, CV_8UC1);
    for (int y = 0; y < rows.rows; ++y) rows.row(y).setTo(y);
    p.process(rows, out.data());
    EXPECT_NEAR(at(out, 0, 0, 0), expected(cfg, 0, top), 1e-6) << "excess " << excess;
    EXPECT_NEAR(at(out, 1, kSize - 1, 5), expected(cfg, 1, top + kSize - 1), 1e-6);
  }
}

TEST(ImagePipeline, GreyAndAlphaImagesBecomeRgb) {
  ImagePipeline p;
  const ImagePipelineConfig& cfg = p.config();
  std::vector<float> out(static_cast<size_t>(p.floats_per_image()));
  p.process(cv::Mat(kSize, kSize, CV_8UC1, cv::Scalar(77)), out.data());
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(at(out, c, 5, 7), expected(cfg, c, 77), 1e-6);
  p.process(cv::Mat(kSize, kSize, CV_8UC4, cv::Scalar(1, 2, 3, 0)), out.data());
  EXPECT_NEAR(at(out, 0, 0, 0), expected(cfg, 0, 3), 1e-6);
  EXPECT_NEAR(at(out, 2, 0, 0), expected(cfg, 2, 1), 1e-6);
  EXPECT_THROW(p.process(cv::Mat(), out.data()), std::invalid_argument);
  EXPECT_THROW(p.process(cv::Mat(4, 4, CV_32FC3), out.data()), std::invalid_argument);
}

TEST(ImagePipeline, CustomSizeAndStatistics) {
  ImagePipelineConfig cfg;
  cfg.image_size = 8;
  cfg.mean = {0.5f, 0.5f, 0.5f};
  cfg.std = {0.5f, 0.25f, 1.0f};
  ImagePipeline p(cfg);
  std::vector<float> out(3 * 8 * 8);
  p.process(cv::Mat(20, 30, CV_8UC3, cv::Scalar(0, 255, 255)), out.data());
  EXPECT_NEAR(out[0], 1.0f, 1e-6);          // R: (1 - 0.5) / 0.5
  EXPECT_NEAR(out[64], 2.0f, 1e-6);         // G: (1 - 0.5) / 0.25
  EXPECT_NEAR(out[128 + 63], -0.5f, 1e-6);  // B: (0 - 0.5) / 1
  cfg.image_size = 0;
  EXPECT_THROW(ImagePipeline{cfg}, std::invalid_argument);
  cfg.image_size = 8;
  cfg.std[1] = 0.0f;
  EXPECT_THROW(ImagePipeline{cfg}, std::invalid_argument);
}

TEST(ImagePipeline, UndecodableFileErrorNamesThePath) {
  ScratchDir dir;
  ImagePipeline p;
  std::vector<float> out(static_cast<size_t>(p.floats_per_image()));
  for (const std::string name : {"missing.png", "garbage.png"}) {
    const std::string path = (dir / name).string();
    if (name == "garbage.png") test::write_text_file(path, "not a png");
    try {
      p.load(path, out.data());
      FAIL() << "no DataError for " << path;
    } catch (const DataError& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace hnclip
