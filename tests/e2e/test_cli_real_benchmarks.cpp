// End-to-end tests of `hnclip` on the real-data readers (issue 4): tiny copies of DOCCI and
// Urban-1K in their released layouts, made here with real JPEGs. Training on DOCCI prints and
// stores the per-split counts (`show --json`), `stats` reads the same data through --data-root,
// Urban-1K refuses to be trained on, and broken data and a missing --data-root fail with one line.

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>

#include "support/cli_runner.h"
#include "support/test_dirs.h"

namespace {

using nlohmann::json;
namespace fs = std::filesystem;
using hnclip::test::expect_one_line_error;
using hnclip::test::write_text_file;

// Scenes and their captions: each image is a flat colour that its caption names, so the tiny
// model has something to learn; test captions reuse the training words.
const std::vector<std::pair<std::string, cv::Scalar>> kColours = {
    {"red", {0, 0, 230}},     {"green", {0, 200, 0}},    {"blue", {220, 0, 0}},    {"yellow", {0, 220, 220}},
    {"purple", {160, 0, 160}}, {"orange", {0, 140, 255}}, {"white", {250, 250, 250}}, {"black", {10, 10, 10}}};

void write_jpeg(const fs::path& p, const cv::Scalar& colour) {
  fs::create_directories(p.parent_path());
  ASSERT_TRUE(cv::imwrite(p.string(), cv::Mat(24, 32, CV_8UC3, colour)));
}

class CliRealBenchmarks : public ::testing::Test {
 protected:
  hnclip::test::ScratchDir dir;
  std::string common() const {
    return " --db " + (dir / "runs.db").string() + " --cache-dir " + (dir / "cache").string();
  }
  fs::path docci() const { return fs::absolute(dir / "docci").lexically_normal(); }
  fs::path urban() const { return fs::absolute(dir / "urban1k").lexically_normal(); }

  // 8 train images, 3 test + 1 qual_test (the test split: 4), 1 qual_dev.
  void make_docci() {
    std::string lines;
    auto add = [&](const std::string& id, const std::string& split, size_t colour, const std::string& what) {
      write_jpeg(docci() / "images" / (id + ".jpg"), kColours[colour].second);
      lines += json{{"example_id", id}, {"split", split}, {"image_file", id + ".jpg"},
                    {"description", "a " + kColours[colour].first + " " + what}}.dump() + "\n";
    };
    for (size_t i = 0; i < 8; ++i) add("train_0000" + std::to_string(i), "train", i, "square");
    for (size_t i = 0; i < 3; ++i) add("test_0000" + std::to_string(i), "test", i, "square");
    add("qual_test_00000", "qual_test", 3, "square");
    add("qual_dev_00000", "qual_dev", 4, "square");
    write_text_file(docci() / "docci_descriptions.jsonlines", lines);
  }

  void make_urban() {
    fs::create_directories(urban() / "caption");
    for (size_t i = 0; i < 3; ++i) {
      write_jpeg(urban() / "image" / (std::to_string(i + 1) + ".jpg"), kColours[i].second);
      write_text_file(urban() / "caption" / (std::to_string(i + 1) + ".txt"),
                      "a " + kColours[i].first + " city block with long shadows\nsecond line\n");
    }
  }
};

TEST_F(CliRealBenchmarks, TrainOnDocciPrintsAndStoresTheSplitCounts) {
  make_docci();
  const auto r = hnclip::test::run_hnclip("train --benchmark docci --data-root " + docci().string() +
                                          " --epochs 1 --batch 4 --lr 1e-3 --threads 1 --probe-every 0"
                                          " --gbar-snapshots 0 --json" + common());
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string counts = "docci at " + docci().string() +
                             ": train 8 images, 8 captions; test 4 images, 4 captions; qual_dev 1 images, 1 captions";
  EXPECT_NE(r.err.find("data: " + counts), std::string::npos) << r.err;
  const auto out = json::parse(r.out);
  EXPECT_EQ(out["status"], "finished");
  EXPECT_EQ(out["n_test"], 4);
  EXPECT_EQ(out["config"]["benchmark_root"], docci().string());

  const std::string id = std::to_string(out["run_id"].get<int>());
  const auto show = hnclip::test::run_hnclip("show " + id + " --json" + common());
  ASSERT_EQ(show.code, 0) << show.err;
  const auto data = json::parse(show.out)["data"];
  EXPECT_EQ(data["benchmark"], "docci");
  EXPECT_EQ(data["root"], docci().string());
  EXPECT_EQ(data["train_split"], "train");
  EXPECT_EQ(data["test_split"], "test");
  // Counts, and a fingerprint per split (benchmark_summary): 16 hex digits, one per split.
  std::set<std::string> fingerprints;
  for (const auto& [split, images] :
       std::vector<std::pair<std::string, int>>{{"train", 8}, {"test", 4}, {"qual_dev", 1}}) {
    auto counts_of = data["splits"][split];
    const std::string fingerprint = counts_of.value("fingerprint", "");
    EXPECT_EQ(fingerprint.size(), 16u) << split << ": " << counts_of;
    fingerprints.insert(fingerprint);
    counts_of.erase("fingerprint");
    EXPECT_EQ(counts_of, (json{{"images", images}, {"captions", images}})) << split;
  }
  EXPECT_EQ(fingerprints.size(), 3u);
  const auto text = hnclip::test::run_hnclip("show " + id + common());
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("  data " + counts), std::string::npos) << text.out;

  // The geometry commands take the same --data-root (here with the trained run's encoder, whose
  // tokenizer knows the DOCCI words).
  const auto stats = hnclip::test::run_hnclip("stats --benchmark docci --data-root " + docci().string() +
                                              " --split test --batch 2 --encoder run:" + id + " --json" + common());
  ASSERT_EQ(stats.code, 0) << stats.err;
  const auto s = json::parse(stats.out);
  EXPECT_EQ(s["train"], 8);
  EXPECT_EQ(s["test"], 4);
  EXPECT_EQ(s["captions"], 4);
}

TEST_F(CliRealBenchmarks, Urban1kIsReadButCannotBeTrainedOn) {
  make_urban();
  const auto b = hnclip::test::run_hnclip("benchmark --benchmark urban1k --data " + urban().string() + " --json" + common());
  ASSERT_EQ(b.code, 0) << b.err;
  const auto j = json::parse(b.out);
  EXPECT_EQ(j["benchmark"], "urban1k");
  EXPECT_EQ(j["splits"].size(), 1u);
  EXPECT_EQ(j["splits"]["test"]["images"], 3);
  EXPECT_EQ(j["splits"]["test"]["captions"], 3);

  const auto t = hnclip::test::run_hnclip("train --benchmark urban1k --data-root " + urban().string() +
                                          " --epochs 1 --batch 2 --threads 1" + common());
  expect_one_line_error(t, 2,
                        "--train-split train: benchmark 'urban1k': unknown split 'train' (it has: "
                        "test); Urban-1K is an evaluation-only benchmark");
  // Nothing is stored for a run whose data was refused: not even a new database.
  EXPECT_FALSE(std::filesystem::exists(dir / "runs.db"));
}

TEST_F(CliRealBenchmarks, BrokenDataAndAMissingRootFailWithOneLine) {
  make_docci();
  fs::remove(docci() / "images/test_00001.jpg");
  fs::remove(docci() / "images/train_00003.jpg");
  const auto r = hnclip::test::run_hnclip("benchmark --benchmark docci --data-root " + docci().string() + common());
  expect_one_line_error(r, 1, "2 problems");
  EXPECT_NE(r.err.find((docci() / "images/test_00001.jpg").string()), std::string::npos) << r.err;
  EXPECT_NE(r.err.find((docci() / "images/train_00003.jpg").string()), std::string::npos) << r.err;
  EXPECT_NE(r.err.find((docci() / "docci_descriptions.jsonlines").string() + ":4: key \"image_file\""),
            std::string::npos) << r.err;

  for (const char* name : {"docci", "dci", "long-dci", "urban1k"}) {
    const auto m = hnclip::test::run_hnclip(std::string("benchmark --benchmark ") + name + common());
    expect_one_line_error(m, 2, std::string("--benchmark ") + name + " needs --data-root PATH");
  }
  const auto u = hnclip::test::run_hnclip("benchmark --benchmark coco --data-root /tmp" + common());
  expect_one_line_error(u, 2, "known: synthetic, manifest, docci, dci, long-dci, urban1k");
}

// A sweep on DOCCI selects its epochs on DOCCI's own dev split (qual_dev), like the built-in
// benchmark's val, and its table says so (issue 13, req 4).
TEST_F(CliRealBenchmarks, SweepOnDocciSelectsOnItsDevSplit) {
  make_docci();
  const auto r = hnclip::test::run_hnclip(
      "sweep --benchmark docci --data-root " + docci().string() +
      " --epochs 1 --batch 4 --lr 1e-3 --threads 1 --probe-every 0 --gbar-snapshots 0"
      " --set loss_gamma=0.5 --seeds 1 --no-controls --json" + common());
  ASSERT_EQ(r.code, 0) << r.err;
  const auto table = json::parse(r.out);
  EXPECT_EQ(table["selection"], "val");
  EXPECT_NE(table["selection_rule"].get<std::string>().find("qual_dev"), std::string::npos)
      << table["selection_rule"];
  EXPECT_EQ(table["runs_with_result"], 1);
}

}  // namespace
