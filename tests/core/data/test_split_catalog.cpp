// Tests core/data/split_catalog: the exploration tabs' view of a split numbers captions and images
// exactly as SplitData (and so the trainer, evaluator and store) does, checks indices, and opens a
// benchmark's split by name with an error naming an unknown split.

#include "data/split_catalog.h"

#include <gtest/gtest.h>

#include <opencv2/imgcodecs.hpp>

#include <fstream>

#include "data/benchmark.h"
#include "data/split_data.h"
#include "support/test_dirs.h"
#include "text/word_tokenizer.h"

namespace hnclip {
namespace {

std::vector<Sample> samples() {
  return {Sample{"/d/a.png", {"a red cube", "the cube is red"}, "test", ""},
          Sample{"/d/b.png", {"a blue ball"}, "test", ""},
          Sample{"/d/c.png", {"green cone", "a cone", "cone left"}, "test", ""}};
}

TEST(SplitCatalog, NumbersCaptionsLikeSplitData) {
  const SplitCatalog catalog(samples());
  const SplitData data(samples(), std::make_shared<WordTokenizer>(WordTokenizer::build({"a"}, 8)));
  ASSERT_EQ(catalog.num_images(), 3);
  ASSERT_EQ(catalog.num_captions(), 6);
  ASSERT_EQ(catalog.num_captions(), data.num_captions());
  for (int64_t c = 0; c < catalog.num_captions(); ++c) {
    EXPECT_EQ(catalog.caption_image(c), data.caption_image(c)) << c;
    EXPECT_EQ(catalog.caption_text(c), data.caption_text(c)) << c;
  }
  for (int64_t i = 0; i < catalog.num_images(); ++i)
    EXPECT_EQ(catalog.image_captions(i), data.image_captions(i));
  EXPECT_EQ(catalog.caption_text(4), "a cone");
  EXPECT_EQ(catalog.caption_image_path(2), "/d/b.png");
  EXPECT_EQ(catalog.image_path(2), "/d/c.png");
  // A copy stays valid on its own (no references into the original).
  SplitCatalog copy;
  { copy = SplitCatalog(samples()); }
  EXPECT_EQ(copy.caption_text(5), "cone left");
}

TEST(SplitCatalog, RefusesOutOfRangeIndicesAndCaptionlessImages) {
  const SplitCatalog catalog(samples());
  EXPECT_THROW(catalog.caption_text(6), std::out_of_range);
  EXPECT_THROW(catalog.caption_image(-1), std::out_of_range);
  EXPECT_THROW(catalog.image_path(3), std::out_of_range);
  try {
    SplitCatalog bad({Sample{"/d/x.png", {}, "test", ""}});
    FAIL() << "no error";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("/d/x.png"), std::string::npos) << e.what();
  }
}

TEST(SplitCatalog, OpensASplitOfAManifestAndNamesAnUnknownOne) {
  test::ScratchDir dir;
  for (const char* name : {"p.png", "q.png"}) {
    ASSERT_TRUE(cv::imwrite((dir / name).string(), cv::Mat(2, 2, CV_8UC3, cv::Scalar(9, 9, 9))));
  }
  const auto manifest = (dir / "m.jsonl").string();
  std::ofstream(manifest) << R"({"image": "p.png", "caption": "one", "split": "test"})"
                             "\n"
                          << R"({"image": "q.png", "captions": ["two", "three"], "split": "train"})"
                             "\n";
  BenchmarkSpec spec;
  spec.name = "manifest";
  spec.root = manifest;
  const auto train = SplitCatalog::open(spec, "train");
  ASSERT_EQ(train.num_captions(), 2);
  EXPECT_EQ(train.caption_text(1), "three");
  try {
    SplitCatalog::open(spec, "val");
    FAIL() << "no error";
  } catch (const DataError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("\"val\""), std::string::npos) << m;
    EXPECT_NE(m.find("test, train"), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace hnclip
