// Tests core/data/urban1k_benchmark: Urban-1K's released layout (image/<n>.jpg, caption/<n>.txt)
// read as one test split in numeric order with first-line captions, that it refuses to be a
// training set, and that every problem of a broken copy is reported with its file.

#include "data/urban1k_benchmark.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <opencv2/imgcodecs.hpp>

#include "support/error_check.h"
#include "support/test_dirs.h"

namespace hnclip {
namespace {

namespace fs = std::filesystem;
using test::ScratchDir;
using test::write_text_file;

class Urban1kTest : public ::testing::Test {
 protected:
  fs::path root() const { return fs::absolute(dir_.path()).lexically_normal(); }

  void pair(const std::string& n, const std::string& caption_text) {
    fs::create_directories(root() / "image");
    fs::create_directories(root() / "caption");
    ASSERT_TRUE(
        cv::imwrite((root() / "image" / (n + ".jpg")).string(),
                    cv::Mat(6, 8, CV_8UC3, cv::Scalar(20, 200, static_cast<int>(n.size()) * 40))));
    write_text_file(root() / "caption" / (n + ".txt"), caption_text);
  }

  std::string expect_error(const std::vector<std::string>& needles) {
    return test::expect_error_containing<DataError>(
        [&] { open_urban1k_benchmark(root().string()); }, needles);
  }

  ScratchDir dir_;
};

TEST_F(Urban1kTest, ReadsOneTestSplitInNumericOrderWithFirstLineCaptions) {
  pair("10", "A tram crosses a square at night.\nThis second line is not part of the caption.\n");
  pair("2", "  Market stalls under striped awnings.\r\n");
  pair("1", "A narrow street with hanging laundry.");
  write_text_file(root() / "image/.DS_Store", "ignored");

  const auto b = open_urban1k_benchmark(root().string());
  EXPECT_EQ(b->name(), "urban1k");
  EXPECT_EQ(b->root(), root().string());
  EXPECT_EQ(b->splits(), std::vector<std::string>{"test"});
  const auto test = b->split("test");
  ASSERT_EQ(test.size(), 3u);
  EXPECT_EQ(test[0].image, (root() / "image/1.jpg").string());
  EXPECT_EQ(test[0].captions, std::vector<std::string>{"A narrow street with hanging laundry."});
  EXPECT_EQ(test[1].captions, std::vector<std::string>{"Market stalls under striped awnings."});
  EXPECT_EQ(test[2].image, (root() / "image/10.jpg").string());
  EXPECT_EQ(test[2].captions, std::vector<std::string>{"A tram crosses a square at night."});
  EXPECT_EQ(test[2].split, "test");
}

TEST_F(Urban1kTest, AskingForATrainingSplitSaysItIsEvaluationOnly) {
  pair("1", "A caption.");
  const auto b = open_urban1k_benchmark(root().string());
  try {
    b->split("train");
    FAIL() << "no DataError";
  } catch (const DataError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("benchmark 'urban1k': unknown split 'train' (it has: test)"),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find("Urban-1K is an evaluation-only benchmark"), std::string::npos) << msg;
  }
}

TEST_F(Urban1kTest, EveryProblemIsReportedWithItsFile) {
  pair("1", "Fine.");
  pair("3", "No caption below.");
  fs::remove(root() / "caption/3.txt");
  write_text_file(root() / "caption/4.txt", "A caption without its image.");
  pair("5", "\nThe first line is empty.");
  write_text_file(root() / "image/6.jpg", "GIF89a is not accepted either");
  write_text_file(root() / "caption/6.txt", "Six.");
  write_text_file(root() / "image/notes.md", "stray file");
  expect_error({"5 problems",
                (root() / "image/3.jpg").string() + ": image without a caption (no " +
                    (root() / "caption/3.txt").string() + ")",
                (root() / "caption/4.txt").string() + ": caption without an image",
                (root() / "caption/5.txt").string() + ":1: empty caption",
                (root() / "image/6.jpg").string() + ": not a JPEG/PNG/BMP/WebP/TIFF image",
                (root() / "image/notes.md").string() + ": not an image file name"});
}

TEST_F(Urban1kTest, MissingFoldersAreNamed) {
  expect_error({"urban1k: no folder " + (root() / "image").string()});
  fs::create_directories(root() / "image");
  expect_error({"urban1k: no folder " + (root() / "caption").string()});
  fs::create_directories(root() / "caption");
  expect_error({(root() / "image").string() + ": no images"});
}

}  // namespace
}  // namespace hnclip
