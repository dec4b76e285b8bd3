// Tests core/data/goal_segments: GOAL's sidecar read in its own layout (sentences by text or by
// index, optional caption choice, crops, scores), the training segment chosen by score, and every
// refusal — unknown image, box outside the image or empty, sentence index out of range, a
// sentence the caption lacks, a missing crop, malformed JSON — naming the file and the line of the
// entry or segment, all problems of a file reported together.

#include "data/goal_segments.h"

#include <gtest/gtest.h>

#include <filesystem>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include "data/benchmark.h"
#include "support/test_dirs.h"

namespace hnclip {
namespace {

namespace fs = std::filesystem;

class GoalSegmentsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(dir_ / "images");
    // 64 x 48 pixels: boxes are checked against width and height separately.
    const cv::Mat img(48, 64, CV_8UC3, cv::Scalar(10, 20, 30));
    cv::imwrite((dir_ / "images" / "a.png").string(), img);
    cv::imwrite((dir_ / "images" / "b.png").string(), img);
    cv::imwrite((dir_ / "crop.png").string(), img(cv::Rect(0, 0, 8, 8)));
    samples_ = {{(dir_ / "images" / "a.png").string(),
                 {"Two shapes. A red circle at the top. A blue square below.", "Another caption"},
                 "train",
                 ""},
                {(dir_ / "images" / "b.png").string(), {"One shape. A green cross."}, "test", ""}};
  }

  SegmentsByImage read(const std::string& json) {
    test::write_text_file(dir_ / "segments.json", json);
    return read_goal_segments(dir_ / "segments.json", samples_);
  }

  // The DataError's message for a sidecar that must be refused.
  std::string refusal(const std::string& json) {
    try {
      read(json);
    } catch (const DataError& e) {
      return e.what();
    }
    ADD_FAILURE() << "not refused: " << json;
    return "";
  }

  std::string file() const { return (dir_ / "segments.json").string(); }

  test::ScratchDir dir_;
  std::vector<Sample> samples_;
};

TEST_F(GoalSegmentsTest, ReadsGoalsLayout) {
  const auto got = read(R"([
  {"original_filename": "images/a.png",
   "segment": [
     {"caption": "A red circle at the top", "bbox_coordinates": {"x1": 0, "y1": 0, "x2": 64, "y2": 48,
      "width": 64, "height": 48}, "similarity_score": 20.5, "filename": "crop.png"},
     {"sentence": 2, "bbox_coordinates": {"x1": 3.5, "y1": 4, "x2": 10, "y2": 12}, "similarity_score": 30}
   ]},
  {"original_filename": ")" + (dir_ / "images" / "b.png").string() + R"(",
   "original_caption": "One  shape. A green cross.",
   "segment": [{"caption": "A green cross.", "bbox_coordinates": {"x1": 1, "y1": 2, "x2": 3, "y2": 4}}]}
])");
  ASSERT_EQ(got.size(), 2u);
  const auto& a = got.at(samples_[0].image);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].sentence, 1);
  EXPECT_EQ(a[0].caption, 0);
  EXPECT_EQ(a[0].crop, (dir_ / "crop.png").string());
  EXPECT_DOUBLE_EQ(a[0].box.x2, 64);
  EXPECT_EQ(a[1].sentence, 2);
  EXPECT_DOUBLE_EQ(a[1].box.x1, 3.5);
  EXPECT_EQ(a[1].crop, "");
  // GOAL trains on the highest-scoring segment.
  EXPECT_EQ(goal_training_segment(a), &a[1]);
  const auto& b = got.at(samples_[1].image);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].sentence, 1);  // white space and the final "." do not matter
  EXPECT_EQ(goal_training_segment({}), nullptr);
}

TEST_F(GoalSegmentsTest, ChosenCaptionNumbersItsOwnSentences) {
  const auto got = read(R"([{"original_filename": "images/a.png", "original_caption": "Another caption",
    "segment": [{"sentence": 0, "bbox_coordinates": {"x1": 0, "y1": 0, "x2": 1, "y2": 1}}]}])");
  EXPECT_EQ(got.at(samples_[0].image)[0].caption, 1);
  EXPECT_NE(refusal(R"([{"original_filename": "images/a.png", "original_caption": "Another caption",
    "segment": [{"sentence": 1, "bbox_coordinates": {"x1": 0, "y1": 0, "x2": 1, "y2": 1}}]}])")
                .find("sentence index 1 is out of range: the caption has 1 sentence(s)"),
            std::string::npos);
}

TEST_F(GoalSegmentsTest, UnknownImageNamesFileAndLine) {
  const auto m = refusal("[\n  {\"original_filename\": \"images/c.png\", \"segment\": []}\n]");
  EXPECT_NE(m.find(file() + ":2: entry 1: key \"original_filename\": images/c.png is not an image "
                            "of the benchmark"),
            std::string::npos)
      << m;
}

TEST_F(GoalSegmentsTest, BoxOutsideTheImageNamesTheSegmentsLine) {
  const auto m = refusal(R"([
  {"original_filename": "images/a.png",
   "segment": [
     {"sentence": 1, "bbox_coordinates": {"x1": 0, "y1": 0, "x2": 5, "y2": 5}},
     {"sentence": 2,
      "bbox_coordinates": {"x1": 10, "y1": 0, "x2": 65, "y2": 48}}
   ]}
])");
  // The box is 1 pixel wider than the 64-pixel image; the segment's object starts on line 5.
  EXPECT_NE(m.find(file() + ":5: entry 1 (images/a.png), segment 2: key \"bbox_coordinates\": "
                            "(10, 0)-(65, 48) is outside the image (64 x 48)"),
            std::string::npos)
      << m;
  EXPECT_NE(refusal(R"([{"original_filename": "images/a.png", "segment": [
    {"sentence": 1, "bbox_coordinates": {"x1": 0, "y1": 0, "x2": 5, "y2": 49}}]}])")
                .find("is outside the image (64 x 48)"),
            std::string::npos);
  EXPECT_NE(refusal(R"([{"original_filename": "images/a.png", "segment": [
    {"sentence": 1, "bbox_coordinates": {"x1": -1, "y1": 0, "x2": 5, "y2": 5}}]}])")
                .find("is outside the image"),
            std::string::npos);
  EXPECT_NE(refusal(R"([{"original_filename": "images/a.png", "segment": [
    {"sentence": 1, "bbox_coordinates": {"x1": 5, "y1": 0, "x2": 5, "y2": 5}}]}])")
                .find("empty box"),
            std::string::npos);
  EXPECT_NE(refusal(R"([{"original_filename": "images/a.png", "segment": [
    {"sentence": 1, "bbox_coordinates": {"x1": 0, "y1": 0, "x2": "5", "y2": 5}}]}])")
                .find("x2 missing or not a finite number"),
            std::string::npos);
}

TEST_F(GoalSegmentsTest, SentenceProblemsAreNamed) {
  const auto out_of_range = refusal("[{\"original_filename\": \"images/a.png\", \"segment\": [\n"
                                    "{\"sentence\": 3, \"bbox_coordinates\": {\"x1\": 0, \"y1\": 0, \"x2\": 1, \"y2\": 1}}]}]");
  EXPECT_NE(out_of_range.find(file() + ":2: entry 1 (images/a.png), segment 1: key \"sentence\": "
                                       "sentence index 3 is out of range: the caption has 3 "
                                       "sentence(s), 0..2"),
            std::string::npos)
      << out_of_range;
  EXPECT_NE(refusal(R"([{"original_filename": "images/a.png", "segment": [
    {"sentence": -1, "bbox_coordinates": {"x1": 0, "y1": 0, "x2": 1, "y2": 1}}]}])")
                .find("sentence index -1 is out of range"),
            std::string::npos);
  EXPECT_NE(refusal(R"([{"original_filename": "images/a.png", "segment": [
    {"caption": "A purple circle", "bbox_coordinates": {"x1": 0, "y1": 0, "x2": 1, "y2": 1}}]}])")
                .find("\"A purple circle\" is not a sentence of the image's caption"),
            std::string::npos);
  EXPECT_NE(refusal(R"([{"original_filename": "images/a.png", "segment": [
    {"caption": "Two shapes", "sentence": 0, "bbox_coordinates": {"x1": 0, "y1": 0, "x2": 1, "y2": 1}}]}])")
                .find("exactly one of them"),
            std::string::npos);
  EXPECT_NE(refusal(R"([{"original_filename": "images/a.png", "original_caption": "Nope",
    "segment": []}])")
                .find("key \"original_caption\": not one of the image's 2 caption(s)"),
            std::string::npos);
}

TEST_F(GoalSegmentsTest, OtherProblemsAndAllAtOnce) {
  EXPECT_NE(refusal(R"([{"original_filename": "images/a.png", "segment": [
    {"sentence": 1, "bbox_coordinates": {"x1": 0, "y1": 0, "x2": 1, "y2": 1}, "filename": "nope.png"}]}])")
                .find("key \"filename\": "),
            std::string::npos);
  EXPECT_NE(refusal("[\n{\"original_filename\": \"images/a.png\",\n \"segment\": [}]").find(file() + ":3: malformed JSON"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"original_filename": "images/a.png"})").find("expected an array"), std::string::npos);
  EXPECT_NE(refusal(R"([{"original_filename": "images/a.png", "segment": []},
                        {"original_filename": "images/a.png", "segment": []}])")
                .find("the image is listed twice (first as entry 1)"),
            std::string::npos);
  // Every problem of the file in one message, not one per attempt.
  const auto m = refusal(R"([{"original_filename": "images/x.png", "segment": []},
                             {"original_filename": "images/b.png", "segment": [
                               {"sentence": 9, "bbox_coordinates": {"x1": 0, "y1": 0, "x2": 1, "y2": 1}}]}])");
  EXPECT_NE(m.find("2 problems"), std::string::npos) << m;
  EXPECT_NE(m.find("images/x.png is not an image"), std::string::npos) << m;
  EXPECT_NE(m.find("sentence index 9"), std::string::npos) << m;
  EXPECT_THROW(read_goal_segments(dir_ / "missing.json", samples_), DataError);
}

}  // namespace
}  // namespace hnclip
