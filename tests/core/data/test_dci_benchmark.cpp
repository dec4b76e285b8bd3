// Tests core/data/dci_benchmark: DCI's released layout (annotations/*.json, photos/, splits.json)
// read as `dci` (splits.json's splits + all, short + "\n" + extra captions) and as `long-dci`
// (TULIP's rule: every annotation by file name, extra_caption alone, empty ones left out), and
// every problem of a broken copy reported with its file and key.

#include "data/dci_benchmark.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>

#include "data/benchmark_registry.h"
#include "support/error_check.h"
#include "support/test_dirs.h"

namespace hnclip {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::ScratchDir;
using test::write_text_file;

void write_jpeg(const fs::path& p, int shade) {
  fs::create_directories(p.parent_path());
  ASSERT_TRUE(cv::imwrite(p.string(), cv::Mat(6, 8, CV_8UC3, cv::Scalar(shade, 30, 255 - shade))));
}

// An annotation shaped like DCI's: the caption keys plus mask data (nested objects, base64
// strings) that the reader must skip.
json annotation(const std::string& image, const std::string& short_caption,
                const std::string& extra) {
  json mask = {
      {"outer_mask", "iVBORw0KGgoAAAANSUhEUgAA"},
      {"area", 120},
      {"bounds", {{"topLeft", {{"x", 0}, {"y", 0}}}, {"bottomRight", {{"x", 8}, {"y", 6}}}}},
      {"idx", 0},
      {"requirements", json::array({1})},
      {"parent", -1},
      {"label", "mug"},
      {"caption", "a mug"},
      {"mask_quality", 0}};
  return {{"image", image},
          {"short_caption", short_caption},
          {"extra_caption", extra},
          {"mask_keys", json::array({"0"})},
          {"mask_data", {{"0", mask}}}};
}

class DciTest : public ::testing::Test {
 protected:
  // <scratch>/data/densely_captioned_images/{annotations,photos,splits.json}, as DCI unpacks.
  fs::path data() const { return fs::absolute(dir_.path() / "data").lexically_normal(); }
  fs::path base() const { return data() / "densely_captioned_images"; }

  void add(const std::string& file, const std::string& image, const std::string& short_caption,
           const std::string& extra, bool with_photo = true) {
    fs::create_directories(base() / "annotations");
    write_text_file(base() / "annotations" / file, annotation(image, short_caption, extra).dump(2));
    if (with_photo) write_jpeg(base() / "photos" / image, static_cast<int>(file.size() * 17 % 255));
  }
  void splits(const std::string& text) { write_text_file(base() / "splits.json", text); }

  // The standard fixture: four listed annotations (one with an empty extra_caption) and one that
  // splits.json does not list.
  void make_dci() {
    add("sa_3.json", "sa_3.jpg", "A kitchen.", "A red kettle sits on the stove.");
    add("sa_1.json", "sa_1.jpg", "A street.", "Cars are parked along the curb.");
    add("sa_2.json", "sa_2.jpg", "A beach.", "Two umbrellas, one striped.");
    add("sa_4.json", "sa_4.jpg", "A dog.", "");
    add("sa_0.json", "sa_0.jpg", "A field.", "Sheep graze under a cloudy sky.");
    fs::create_directories(base() / "photos");
    // Deliberately not alphabetical: the file's order is the benchmark's.
    splits(
        R"({"train": ["sa_3.json", "sa_1.json"], "valid": ["sa_2.json"], "test": ["sa_4.json"]})");
  }

  template <typename Open>
  std::string expect_error(Open open, const std::vector<std::string>& needles) {
    return test::expect_error_containing<DataError>(open, needles);
  }

  ScratchDir dir_;
};

TEST_F(DciTest, DciReadsTheSplitsOfSplitsJsonInFileOrderPlusAll) {
  make_dci();
  const auto b = open_dci_benchmark(base().string());
  EXPECT_EQ(b->name(), "dci");
  EXPECT_EQ(b->root(), base().string());
  EXPECT_EQ(b->splits(), (std::vector<std::string>{"train", "valid", "test", "all"}));
  // valid is what sweeps select epochs on (data/benchmark_registry.h); Long-DCI has none.
  EXPECT_EQ(default_validation_split("dci"), "valid");
  EXPECT_EQ(default_validation_split("long-dci"), "");

  const auto train = b->split("train");
  ASSERT_EQ(train.size(), 2u);
  EXPECT_EQ(train[0].image, (base() / "photos/sa_3.jpg").string());
  EXPECT_EQ(train[0].captions,
            std::vector<std::string>{"A kitchen.\nA red kettle sits on the stove."});
  EXPECT_EQ(train[1].captions[0], "A street.\nCars are parked along the curb.");
  EXPECT_EQ(train[1].split, "train");
  const auto test = b->split("test");
  ASSERT_EQ(test.size(), 1u);
  EXPECT_EQ(test[0].captions[0], "A dog.")
      << "an empty extra_caption leaves the short caption alone";

  const auto all = b->split("all");
  ASSERT_EQ(all.size(), 4u) << "sa_0 is in no split of splits.json";
  std::vector<std::string> names;
  for (const auto& s : all) names.push_back(fs::path(s.image).filename().string());
  EXPECT_EQ(names, (std::vector<std::string>{"sa_3.jpg", "sa_1.jpg", "sa_2.jpg", "sa_4.jpg"}));
  EXPECT_EQ(all[2].split, "all");
}

TEST_F(DciTest, TheFolderAboveTheDataFolderAlsoWorks) {
  make_dci();
  const auto b = open_dci_benchmark(data().string());
  EXPECT_EQ(b->root(), base().string());
  EXPECT_EQ(b->split("all").size(), 4u);
}

TEST_F(DciTest, LongDciUsesEveryAnnotationByFileNameWithItsExtraCaption) {
  make_dci();
  std::vector<std::string> said;
  const auto b =
      open_long_dci_benchmark(base().string(), [&](const std::string& m) { said.push_back(m); });
  EXPECT_EQ(b->name(), "long-dci");
  EXPECT_EQ(b->splits(), std::vector<std::string>{"test"});
  const auto test = b->split("test");
  ASSERT_EQ(test.size(), 4u)
      << "sa_4 has an empty extra_caption; sa_0 counts although splits.json omits it";
  std::vector<std::string> names;
  for (const auto& s : test) names.push_back(fs::path(s.image).filename().string());
  EXPECT_EQ(names, (std::vector<std::string>{"sa_0.jpg", "sa_1.jpg", "sa_2.jpg", "sa_3.jpg"}));
  EXPECT_EQ(test[3].captions, std::vector<std::string>{"A red kettle sits on the stove."});
  ASSERT_EQ(said.size(), 1u);
  EXPECT_NE(
      said[0].find("4 images with an extra_caption; 1 annotations with an empty extra_caption"),
      std::string::npos)
      << said[0];

  expect_error([&] { b->split("train"); },
               {"benchmark 'long-dci': unknown split 'train'", "evaluation-only"});
}

TEST_F(DciTest, LongDciDoesNotNeedSplitsJsonNorThePhotosOfLeftOutImages) {
  add("sa_1.json", "sa_1.jpg", "A street.", "Cars.");
  add("sa_2.json", "sa_2.jpg", "A dog.", "", /*with_photo=*/false);
  EXPECT_EQ(open_long_dci_benchmark(base().string())->split("test").size(), 1u);
  expect_error([&] { open_dci_benchmark(base().string()); },
               {(base() / "splits.json").string(), "no such file"});
}

TEST_F(DciTest, SplitsJsonProblemsNameTheKeyAndTheAnnotation) {
  make_dci();
  splits(R"({"train": ["sa_3.json", "sa_9.json"], "valid": ["sa_3.json"], "test": "sa_4.json"})");
  const std::string f = (base() / "splits.json").string();
  expect_error([&] { open_dci_benchmark(base().string()); },
               {"3 problems",
                f + ": key \"train\": 'sa_9.json' has no annotation file at " +
                    (base() / "annotations/sa_9.json").string(),
                f + ": key \"valid\": 'sa_3.json' is already listed in split 'train'",
                f + ": key \"test\": must be an array of annotation file names, not string"});
  splits("{\"train\": [\"sa_3.json\",\n  ]}");
  expect_error([&] { open_dci_benchmark(base().string()); }, {f + ":2: malformed JSON"});
}

// Seen with fuzz_dci_json (its dictionary has 1e999): a number too large for a double is
// nlohmann's out_of_range, not a parse_error, and escaped as a bare nlohmann exception without
// the file.
TEST_F(DciTest, SplitsJsonNumberTooLargeIsMalformedJsonNamingTheFile) {
  make_dci();
  splits(R"({"train": [1e999]})");
  const std::string f = (base() / "splits.json").string();
  expect_error([&] { open_dci_benchmark(base().string()); }, {f + ": malformed JSON", "1e999"});
}

TEST_F(DciTest, AnnotationProblemsNameTheFileLineAndKeyAndMissingPhotosAllAppear) {
  make_dci();
  const fs::path ann = base() / "annotations";
  write_text_file(ann / "sa_3.json", "{\n  \"image\": \"sa_3.jpg\",\n  \"short_caption\": oops\n}");
  json no_short = annotation("sa_1.jpg", "", "x");
  no_short.erase("short_caption");
  write_text_file(ann / "sa_1.json", no_short.dump());
  json bad_image = annotation("sa_2.jpg", "A beach.", "x");
  bad_image["image"] = 17;
  write_text_file(ann / "sa_2.json", bad_image.dump());
  fs::remove(base() / "photos/sa_4.jpg");
  expect_error([&] { open_dci_benchmark(base().string()); },
               {"4 problems", (ann / "sa_3.json").string() + ":3: malformed JSON",
                (ann / "sa_1.json").string() + ": key \"short_caption\": missing",
                (ann / "sa_2.json").string() + ": key \"image\": must be a string, not number",
                (ann / "sa_4.json").string() + ": key \"image\": no image file at " +
                    (base() / "photos/sa_4.jpg").string()});
  // long-dci reads the same annotations (and sa_0, whose photo exists) and finds the same three
  // broken files; sa_4 is left out for its empty extra_caption, so its photo is not needed.
  const std::string msg =
      expect_error([&] { open_long_dci_benchmark(base().string()); },
                   {"3 problems", (ann / "sa_3.json").string() + ":3: malformed JSON"});
  EXPECT_EQ(msg.find("sa_4"), std::string::npos) << msg;
}

TEST_F(DciTest, AFolderWithoutDciPartsIsAnError) {
  expect_error([&] { open_dci_benchmark(dir_.path().string()); },
               {"no annotations/ folder", "densely_captioned_images"});
  fs::create_directories(base() / "annotations");
  expect_error([&] { open_long_dci_benchmark(base().string()); }, {"no photos/ folder"});
}

}  // namespace
}  // namespace hnclip
