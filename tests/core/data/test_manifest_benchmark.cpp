// Tests core/data/manifest_benchmark: both manifest formats, path resolution, and that every
// rejected manifest names the file, the 1-based line and the key or column of the problem.

#include "data/manifest_benchmark.h"

#include <gtest/gtest.h>

#include <opencv2/imgcodecs.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "support/test_dirs.h"

namespace hnclip {
namespace {

namespace fs = std::filesystem;
using test::ScratchDir;
using test::write_text_file;

// A manifest folder with a few tiny image files (the reader reads their headers, never their
// pixels).
class ManifestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(dir_ / "img");
    for (const char* name : {"img/a.png", "img/b.png", "img/c.png", "img/d.png"}) {
      ASSERT_TRUE(cv::imwrite((dir_ / name).string(), cv::Mat(4, 6, CV_8UC3, cv::Scalar(1, 2, 3))));
    }
  }

  std::string write(const std::string& name, const std::string& text) {
    write_text_file(dir_ / name, text);
    return (dir_ / name).string();
  }

  std::string image(const std::string& rel) const {
    return fs::absolute(dir_ / rel).lexically_normal().string();
  }

  // Opening `path` throws a DataError whose message contains the file, ":line:" and `field`.
  void expect_error(const std::string& path, int line, const std::string& field,
                    const std::string& also = "") {
    try {
      open_manifest_benchmark(path, "m");
      FAIL() << "no DataError for " << path;
    } catch (const DataError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(path + ":" + std::to_string(line) + ":"), std::string::npos) << msg;
      if (!field.empty()) EXPECT_NE(msg.find("\"" + field + "\""), std::string::npos) << msg;
      if (!also.empty()) EXPECT_NE(msg.find(also), std::string::npos) << msg;
    }
  }

  ScratchDir dir_;
};

// ---- JSON Lines ---------------------------------------------------------------------------------

TEST_F(ManifestTest, JsonlReadsSamplesSplitsAndGroupsInOrder) {
  const std::string path =
      write("m.jsonl",
            R"({"image": "img/b.png", "captions": ["a red cube", "a cube, red"], "split": "test"})"
            "\n"
            "\n"
            R"({"image": "img/a.png", "caption": "a blue ball", "split": "train", "group": "g1"})"
            "\n"
            "   \r\n"
            R"({"image": "img/c.png", "caption": "a green cone", "split": "test", "group": 7})"
            "\r\n");
  auto b = open_manifest_benchmark(path, "mine");
  EXPECT_EQ(b->name(), "mine");
  EXPECT_EQ(b->root(), fs::absolute(dir_.path()).lexically_normal().string());
  EXPECT_EQ(b->splits(), (std::vector<std::string>{"test", "train"}));

  const auto test = b->split("test");
  ASSERT_EQ(test.size(), 2u);
  EXPECT_EQ(test[0].image, image("img/b.png"));
  EXPECT_EQ(test[0].captions, (std::vector<std::string>{"a red cube", "a cube, red"}));
  EXPECT_EQ(test[0].split, "test");
  EXPECT_EQ(test[0].group, "");
  EXPECT_EQ(test[1].image, image("img/c.png"));
  EXPECT_EQ(test[1].group, "7");

  const auto train = b->split("train");
  ASSERT_EQ(train.size(), 1u);
  EXPECT_EQ(train[0].captions, (std::vector<std::string>{"a blue ball"}));
  EXPECT_EQ(train[0].group, "g1");
  EXPECT_THROW(b->split("val"), DataError);
}

TEST_F(ManifestTest, PathsLeavingTheManifestFolderAreRefusedUnlessAllowed) {
  fs::create_directories(dir_ / "sub");
  const std::string abs = image("img/d.png");
  const std::string up =
      write("sub/up.jsonl", R"({"image": "../img/a.png", "caption": "x", "split": "train"})"
                            "\n");
  expect_error(up, 1, "image", "is outside the data root " + image("sub"));
  const std::string absolute = write(
      "sub/abs.jsonl", R"({"image": ")" + abs + R"(", "caption": "y", "split": "train"})" "\n");
  expect_error(absolute, 1, "image", "--allow-outside-root");
  // Absolute paths inside the folder are fine without it.
  const std::string inside = write(
      "in.jsonl", R"({"image": ")" + abs + R"(", "caption": "y", "split": "train"})" "\n");
  EXPECT_EQ(open_manifest_benchmark(inside, "m")->split("train")[0].image, abs);

  ImageChecks allow;
  allow.allow_outside_root = true;
  const std::string both =
      write("sub/m.jsonl", R"({"image": "../img/a.png", "caption": "x", "split": "train"})"
                           "\n"
                           R"({"image": ")" +
                               abs +
                               R"(", "caption": "y", "split": "train"})"
                               "\n");
  const auto train = open_manifest_benchmark(both, "m", allow)->split("train");
  ASSERT_EQ(train.size(), 2u);
  EXPECT_EQ(train[0].image, image("img/a.png"));
  EXPECT_EQ(train[1].image, abs);
}

// Read from the header before any run exists: each of these used to fail a run half-way.
TEST_F(ManifestTest, ImagesAreCheckedByContentAndSizeWhenOpened) {
  write_text_file(dir_ / "img/empty.png", "");
  write_text_file(dir_ / "img/text.png", "a caption file saved under the wrong name\n");
  const std::string ok = R"({"image": "img/a.png", "caption": "x", "split": "train"})" "\n";
  expect_error(write("z.jsonl", ok + R"({"image": "img/empty.png", "caption": "x", "split": "t"})"),
               2, "image", "empty file");
  expect_error(write("t.jsonl", ok + R"({"image": "img/text.png", "caption": "x", "split": "t"})"),
               2, "image", "not a JPEG/PNG/BMP/WebP/TIFF image");
  ImageChecks small;
  small.max_pixels = 23;  // the fixtures are 6 x 4 = 24 pixels
  try {
    open_manifest_benchmark(write("s.jsonl", ok), "m", small);
    FAIL() << "an image over the pixel limit was accepted";
  } catch (const DataError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(":1: key \"image\": "), std::string::npos) << msg;
    EXPECT_NE(msg.find("6 x 4 = 24 pixels is over the limit of 23"), std::string::npos) << msg;
  }
  small.max_pixels = 24;
  EXPECT_EQ(open_manifest_benchmark(write("s.jsonl", ok), "m", small)->split("train").size(), 1u);
}

TEST_F(ManifestTest, SameImageMayAppearInDifferentSplits) {
  const std::string path =
      write("m.jsonl", R"({"image": "img/a.png", "caption": "x", "split": "train"})"
                       "\n"
                       R"({"image": "img/a.png", "caption": "y", "split": "test"})"
                       "\n");
  auto b = open_manifest_benchmark(path, "m");
  EXPECT_EQ(b->split("train").size(), 1u);
  EXPECT_EQ(b->split("test").size(), 1u);
}

TEST_F(ManifestTest, JsonlErrorsNameFileLineAndKey) {
  const std::string ok = R"({"image": "img/a.png", "caption": "x", "split": "train"})"
                         "\n\n";
  expect_error(write("e1.jsonl", ok + R"({"image": "img/b.png", "caption": "x", "split": )"
                                      "\n"),
               3, "", "malformed JSON");
  expect_error(write("e2.jsonl", ok + R"({"caption": "x", "split": "train"})"
                                      "\n"),
               3, "image", "missing");
  expect_error(write("e3.jsonl", ok + R"({"image": 5, "caption": "x", "split": "train"})"), 3,
               "image", "string");
  expect_error(write("e4.jsonl", ok + R"({"image": "img/b.png", "split": "train"})"), 3, "captions",
               "missing");
  expect_error(write("e5.jsonl", ok + R"({"image": "img/b.png", "captions": "x", "split": "t"})"),
               3, "captions", "array");
  expect_error(write("e6.jsonl", ok + R"({"image": "img/b.png", "captions": [], "split": "t"})"), 3,
               "captions", "non-empty");
  expect_error(
      write("e7.jsonl", ok + R"({"image": "img/b.png", "captions": ["a", 3], "split": "t"})"), 3,
      "captions", "strings");
  expect_error(
      write("e8.jsonl", ok + R"({"image": "img/b.png", "captions": ["a", " "], "split": "t"})"), 3,
      "captions", "empty caption");
  expect_error(write("e9.jsonl", ok + R"({"image": "img/b.png", "caption": "", "split": "t"})"), 3,
               "caption", "empty caption");
  expect_error(write("e10.jsonl", ok + R"({"image": "img/b.png", "caption": "x"})"), 3, "split",
               "missing");
  expect_error(write("e11.jsonl", ok + R"({"image": "img/b.png", "caption": "x", "split": 1})"), 3,
               "split", "string");
  expect_error(write("e12.jsonl",
                     ok + R"({"image": "img/b.png", "caption": "x", "split": "t", "group": [1]})"),
               3, "group", "string");
  expect_error(write("e13.jsonl", ok + R"({"image": "img/zz.png", "caption": "x", "split": "t"})"),
               3, "image", image("img/zz.png"));
  expect_error(
      write("e14.jsonl", ok + R"({"image": "./img/a.png", "caption": "y", "split": "train"})"), 3,
      "image", "already listed in split 'train' on line 1");
  expect_error(write("e15.jsonl",
                     ok + R"({"image": "img/b.png", "caption": "x", "split": "t", "captionz": 1})"),
               3, "captionz", "unknown key");
  expect_error(
      write("e16.jsonl",
            ok + R"({"image": "img/b.png", "caption": "x", "captions": ["y"], "split": "t"})"),
      3, "captions", "either");
  expect_error(write("e17.jsonl", ok + R"(["img/b.png", "x", "t"])"), 3, "", "JSON object");
  expect_error(write("e18.jsonl", ok + R"({"image": "", "caption": "x", "split": "t"})"), 3,
               "image", "empty");
}

// Seen with fuzz_manifest_reader (its dictionary has 1e999): a number too large for a double is
// nlohmann's out_of_range, not a parse_error, and escaped the reader without the file and line.
TEST_F(ManifestTest, JsonlNumberTooLargeIsMalformedJsonNamingTheLine) {
  const std::string ok = R"({"image": "img/a.png", "caption": "x", "split": "train"})"
                         "\n";
  expect_error(write("big.jsonl", ok + R"({"image": "img/b.png", "caption": "x", "split": "t", "group": 1e999})"),
               2, "", "malformed JSON");
}

// ---- CSV ----------------------------------------------------------------------------------------

TEST_F(ManifestTest, CsvMergesCaptionsOfTheSameImageAndSplit) {
  const std::string path = write("m.csv",
                                 "\xEF\xBB\xBF"
                                 "split,image,caption,group\r\n"
                                 "train,img/a.png,\"a red cube, small\",g1\r\n"
                                 "\r\n"
                                 "train, img/b.png ,\"he said \"\"hi\"\"\",\n"
                                 "train,img/a.png,\"two\nlines\",\n"
                                 "test,img/a.png,a test caption,g2\n"
                                 "train,img/a.png,third,g1");
  auto b = open_manifest_benchmark(path, "m");
  EXPECT_EQ(b->splits(), (std::vector<std::string>{"train", "test"}));
  const auto train = b->split("train");
  ASSERT_EQ(train.size(), 2u);
  EXPECT_EQ(train[0].image, image("img/a.png"));
  EXPECT_EQ(train[0].captions,
            (std::vector<std::string>{"a red cube, small", "two\nlines", "third"}));
  EXPECT_EQ(train[0].group, "g1");
  EXPECT_EQ(train[1].image, image("img/b.png"));
  EXPECT_EQ(train[1].captions, (std::vector<std::string>{"he said \"hi\""}));
  EXPECT_EQ(train[1].group, "");
  const auto test = b->split("test");
  ASSERT_EQ(test.size(), 1u);
  EXPECT_EQ(test[0].group, "g2");
}

TEST_F(ManifestTest, CsvGroupColumnIsOptional) {
  const std::string path = write("m.csv", "image,caption,split\nimg/a.png,x,train\n");
  const auto train = open_manifest_benchmark(path, "m")->split("train");
  ASSERT_EQ(train.size(), 1u);
  EXPECT_EQ(train[0].group, "");
}

TEST_F(ManifestTest, CsvErrorsNameFileLineAndColumn) {
  const std::string head = "image,caption,split,group\nimg/a.png,x,train,g\n";
  expect_error(write("c1.csv", "image,split\nimg/a.png,train\n"), 1, "caption", "missing");
  expect_error(write("c2.csv", "image,caption,split,color\n"), 1, "color", "unknown column");
  expect_error(write("c3.csv", "image,caption,split,image\n"), 1, "image", "twice");
  expect_error(write("c4.csv", head + "img/b.png,x\n"), 3, "", "expected 4 fields, found 2");
  expect_error(write("c5.csv", head + "img/b.png,  ,train,\n"), 3, "caption", "empty caption");
  expect_error(write("c6.csv", head + "img/zz.png,x,train,\n"), 3, "image", image("img/zz.png"));
  expect_error(write("c7.csv", head + "img/a.png,y,train,h\n"), 3, "group", "line 2");
  expect_error(write("c8.csv", head + "\nimg/b.png,\"never closed,train,\n\n"), 4, "",
               "never closed");
  expect_error(write("c9.csv", head + "img/b.png,say \"x\",train,\n"), 3, "", "quote");
  expect_error(write("c10.csv", head + "img/b.png,\"x\"y,train,\n"), 3, "", "closing quote");
  expect_error(write("c11.csv", head + "img/b.png,x,,\n"), 3, "split", "empty");
  expect_error(write("c12.csv", "\n\n"), 1, "", "header");
}

// ---- Either format ------------------------------------------------------------------------------

TEST_F(ManifestTest, FileLevelErrorsNameTheFile) {
  const std::string missing = (dir_ / "nope.jsonl").string();
  try {
    open_manifest_benchmark(missing, "m");
    FAIL();
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
  }
  const std::string txt = write("m.txt", "image,caption,split\n");
  EXPECT_THROW(open_manifest_benchmark(txt, "m"), DataError);
  const std::string empty = write("empty.jsonl", "\n  \n");
  try {
    open_manifest_benchmark(empty, "m");
    FAIL();
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find(empty), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace hnclip
