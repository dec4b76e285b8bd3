// Tests core/data/docci_benchmark: DOCCI's released layout (docci_descriptions.jsonlines +
// images/) read into train / test (= test + qual_test) / qual_dev, and every problem of a broken
// copy reported with its file, line and key.

#include "data/docci_benchmark.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <opencv2/imgcodecs.hpp>

#include "data/benchmark_registry.h"
#include "support/error_check.h"
#include "support/test_dirs.h"

namespace hnclip {
namespace {

namespace fs = std::filesystem;
using test::ScratchDir;
using test::write_text_file;

// A tiny real JPEG, so the reader's header check sees what DOCCI ships.
void write_jpeg(const fs::path& p, int shade) {
  fs::create_directories(p.parent_path());
  ASSERT_TRUE(cv::imwrite(p.string(), cv::Mat(6, 8, CV_8UC3, cv::Scalar(shade, 255 - shade, 40))));
}

std::string record(const std::string& id, const std::string& split,
                   const std::string& description) {
  return R"({"example_id": ")" + id + R"(", "split": ")" + split + R"(", "image_file": ")" + id +
         R"(.jpg", "description": ")" + description + "\"}\n";
}

class DocciTest : public ::testing::Test {
 protected:
  fs::path root() const { return fs::absolute(dir_.path()).lexically_normal(); }
  std::string descriptions() const { return (root() / "docci_descriptions.jsonlines").string(); }
  void image(const std::string& id, int shade = 90) {
    write_jpeg(root() / "images" / (id + ".jpg"), shade);
  }

  // Opening the root throws a DataError whose message contains every one of `needles`.
  std::string expect_error(const std::vector<std::string>& needles) {
    return test::expect_error_containing<DataError>([&] { open_docci_benchmark(root().string()); },
                                                    needles);
  }

  ScratchDir dir_;
};

TEST_F(DocciTest, ReadsTrainTestWithQualTestAndQualDevInFileOrder) {
  std::string text;
  int shade = 0;
  for (const char* id : {"train_00001", "train_00002", "test_00001", "qual_test_00001",
                         "qual_dev_00001", "test_00002", "train_00003"}) {
    image(id, shade += 30);
  }
  text += record("train_00001", "train", "A red mug on a wooden table.");
  text += record("train_00002", "train", "Two cats asleep on a grey sofa.");
  text += record("test_00001", "test", "A bicycle leaning on a blue door.");
  text += "\n";  // blank lines are skipped
  text += record("qual_test_00001", "qual_test", "A lighthouse at dusk.");
  text += record("qual_dev_00001", "qual_dev", "A bowl of lemons.");
  text += record("test_00002", "test", "Snow on a parked car.");
  text += record("train_00003", "train", "A dog with a \\\"ball\\\" in its mouth.");
  write_text_file(descriptions(), text);

  const auto b = open_docci_benchmark(dir_.path().string());
  EXPECT_EQ(b->name(), "docci");
  EXPECT_EQ(b->root(), root().string());
  EXPECT_EQ(b->splits(), (std::vector<std::string>{"train", "test", "qual_dev"}));
  // qual_dev is what sweeps select epochs on (data/benchmark_registry.h).
  EXPECT_EQ(default_validation_split("docci"), "qual_dev");

  const auto train = b->split("train");
  ASSERT_EQ(train.size(), 3u);
  EXPECT_EQ(train[0].image, (root() / "images/train_00001.jpg").string());
  EXPECT_EQ(train[0].captions, std::vector<std::string>{"A red mug on a wooden table."});
  EXPECT_EQ(train[2].captions[0], "A dog with a \"ball\" in its mouth.");
  EXPECT_EQ(train[1].split, "train");

  const auto test = b->split("test");  // test + qual_test, file order
  ASSERT_EQ(test.size(), 3u);
  EXPECT_EQ(fs::path(test[0].image).filename(), "test_00001.jpg");
  EXPECT_EQ(fs::path(test[1].image).filename(), "qual_test_00001.jpg");
  EXPECT_EQ(test[1].captions[0], "A lighthouse at dusk.");
  EXPECT_EQ(test[1].split, "test");
  EXPECT_EQ(fs::path(test[2].image).filename(), "test_00002.jpg");

  const auto dev = b->split("qual_dev");
  ASSERT_EQ(dev.size(), 1u);
  EXPECT_EQ(dev[0].captions[0], "A bowl of lemons.");

  try {
    b->split("qual_test");  // folded into test, not a split of its own
    FAIL() << "no DataError";
  } catch (const DataError& e) {
    EXPECT_NE(
        std::string(e.what()).find("unknown split 'qual_test' (it has: train, test, qual_dev)"),
        std::string::npos)
        << e.what();
  }
}

TEST_F(DocciTest, OtherKeysAreIgnoredAndSplitsWithoutRecordsAreNotListed) {
  image("test_00001");
  write_text_file(
      descriptions(),
      R"({"example_id": "test_00001", "split": "test", "image_file": "test_00001.jpg", "description": "x y", "cluster_id": 7})"
      "\n");
  const auto b = open_docci_benchmark(root().string());
  EXPECT_EQ(b->splits(), std::vector<std::string>{"test"});
  EXPECT_EQ(b->split("test").size(), 1u);
}

TEST_F(DocciTest, EveryBrokenRecordIsReportedWithFileLineAndKey) {
  image("train_00001");
  image("train_00002");
  image("train_00003");
  std::string text;
  text += record("train_00001", "train", "fine");                      // 1
  text += "{\"example_id\": \"train_00002\", \"split\": \"train\"\n";  // 2 malformed
  text += R"({"example_id": "train_00003", "split": "train", "image_file": "train_00003.jpg"})"
          "\n";                                                  // 3
  text += record("train_00004", "validation", "unknown split");  // 4
  text += record("train_00005", "train", "no image file");       // 5
  text += record("train_00001", "train", "same id again");       // 6
  text +=
      R"({"example_id": 12, "split": "train", "image_file": "train_00001.jpg", "description": "d"})"
      "\n";            // 7
  text += "[1, 2]\n";  // 8
  write_text_file(descriptions(), text);

  const std::string f = descriptions();
  expect_error({"7 problems", f + ":2: malformed JSON", f + ":3: key \"description\": missing",
                f + ":4: key \"split\": unknown split 'validation' (expected train, test, qual_dev "
                    "or qual_test)",
                f + ":5: key \"image_file\": no image file at " +
                    (root() / "images/train_00005.jpg").string(),
                f + ":6: key \"example_id\": 'train_00001' is already used on line 1",
                f + ":7: key \"example_id\": must be a string, not number",
                f + ":8: expected a JSON object, found array"});
}

TEST_F(DocciTest, ManyMissingImagesAreCountedNotDropped) {
  std::string text;
  for (int i = 0; i < 25; ++i)
    text += record("test_" + std::to_string(100 + i), "test", "a caption");
  write_text_file(descriptions(), text);
  const std::string msg =
      expect_error({"25 problems", "test_100.jpg", "test_119.jpg", "and 5 more"});
  EXPECT_EQ(msg.find("test_120.jpg"), std::string::npos) << "only the first 20 are listed: " << msg;
}

TEST_F(DocciTest, AFileThatIsNotAnImageIsReported) {
  fs::create_directories(root() / "images");
  write_text_file(root() / "images/test_00001.jpg", "<html>not found</html>");
  write_text_file(descriptions(), record("test_00001", "test", "a caption"));
  expect_error({descriptions() + ":1: key \"image_file\": ",
                "test_00001.jpg: not a JPEG/PNG/BMP/WebP/TIFF image"});
}

TEST_F(DocciTest, MissingDescriptionsFileOrEmptyFileIsAnError) {
  expect_error({descriptions(), "no such file"});
  write_text_file(descriptions(), "\n\n");
  expect_error({descriptions() + ": lists no images"});
}

}  // namespace
}  // namespace hnclip
