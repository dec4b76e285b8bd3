// End-to-end tests of `hnclip stats` and `hnclip neighbors` (caption geometry, issue 3) on the
// built-in benchmark (size small) with the default encoder (the pretrained checkpoint): the JSON
// shapes, neighbours sorted by cosine, and bad input exiting 2 with nothing stored.

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "store/run_store.h"
#include "support/cli_runner.h"
#include "support/test_dirs.h"

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

using Result = hnclip::test::CliResult;

// One scratch folder for the whole suite, so the small benchmark is generated once.
class CliGeometry : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { dir_ = std::make_unique<hnclip::test::ScratchDir>(); }
  static void TearDownTestSuite() { dir_.reset(); }
  static std::string db() { return (*dir_ / "runs.db").string(); }
  static std::string common() { return " --db " + db() + " --cache-dir " + (*dir_ / "cache").string(); }
  static Result hnclip(const std::string& args) { return hnclip::test::run_hnclip(args); }
  // Rows of the three caption geometry tables together.
  static int64_t stored_geometry_rows() {
    { hnclip::RunStore migrate(db()); }
    sqlite3* raw = nullptr;
    EXPECT_EQ(sqlite3_open_v2(db().c_str(), &raw, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    int64_t n = 0;
    for (const char* sql : {"SELECT COUNT(*) FROM caption_stats", "SELECT COUNT(*) FROM caption_neighbors",
                            "SELECT COUNT(*) FROM near_duplicate_pairs"}) {
      sqlite3_stmt* st = nullptr;
      EXPECT_EQ(sqlite3_prepare_v2(raw, sql, -1, &st, nullptr), SQLITE_OK);
      if (sqlite3_step(st) == SQLITE_ROW) n += sqlite3_column_int64(st, 0);
      sqlite3_finalize(st);
    }
    sqlite3_close(raw);
    return n;
  }
  static std::unique_ptr<hnclip::test::ScratchDir> dir_;
};
std::unique_ptr<hnclip::test::ScratchDir> CliGeometry::dir_;

void expect_error(const Result& r, int code, const std::string& needle) {
  hnclip::test::expect_one_line_error(r, code, needle);
}

TEST_F(CliGeometry, StatsJsonHasTheDocumentedShape) {
  const auto r = hnclip("stats --benchmark-size small --json" + common());
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  const auto j = json::parse(r.out);
  for (const char* key : {"train", "test", "mean_words", "mean_pairwise", "mean_hardest", "buckets"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["test"], 142);
  EXPECT_GT(j["train"].get<int>(), 0);
  EXPECT_GT(j["mean_words"].get<double>(), 1.0);
  EXPECT_GE(j["mean_hardest"].get<double>(), j["mean_pairwise"].get<double>());
  EXPECT_LE(j["mean_hardest"].get<double>(), 1.0 + 1e-6);
  ASSERT_EQ(j["buckets"].size(), 5u);
  double sum = 0;
  for (const char* b : {"<0.5", "0.5-0.7", "0.7-0.8", "0.8-0.9", ">=0.9"}) {
    ASSERT_TRUE(j["buckets"].contains(b)) << b;
    const double f = j["buckets"][b].get<double>();
    EXPECT_GE(f, 0.0);
    sum += f;
  }
  EXPECT_NEAR(sum, 1.0, 1e-9);
  EXPECT_EQ(j["encoder"].get<std::string>().rfind("init:", 0), 0u) << j["encoder"];

  // Stored: a second call reads the same numbers back.
  const auto again = hnclip("stats --benchmark-size small --json" + common());
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(json::parse(again.out)["mean_pairwise"], j["mean_pairwise"]);
}

TEST_F(CliGeometry, NeighborsJsonAreSortedByCosine) {
  const auto r = hnclip("neighbors --benchmark-size small --index 3 -k 4 --json" + common());
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = json::parse(r.out);
  EXPECT_EQ(j["index"], 3);
  EXPECT_FALSE(j["text"].get<std::string>().empty());
  ASSERT_EQ(j["neighbors"].size(), 4u);
  double previous = 2.0;
  for (const auto& n : j["neighbors"]) {
    for (const char* key : {"index", "cosine", "text", "shared_words", "rank"}) EXPECT_TRUE(n.contains(key)) << key;
    EXPECT_NE(n["index"], 3);
    EXPECT_LE(n["cosine"].get<double>(), previous);
    previous = n["cosine"].get<double>();
    EXPECT_TRUE(n["shared_words"].is_array());
  }
}

// The tables a person reads name the data and the encoder as the Captions tab does, not by the
// store's keys ("synthetic:size=small:seed=1#test", "init:/…/tiny-synthetic-pretrained.pt").
TEST_F(CliGeometry, TextOutputNamesTheDataAndEncoderInWords) {
  const auto stats = hnclip("stats --benchmark-size small" + common());
  ASSERT_EQ(stats.code, 0) << stats.err;
  const auto neighbors = hnclip("neighbors --benchmark-size small --index 3 -k 2" + common());
  ASSERT_EQ(neighbors.code, 0) << neighbors.err;
  for (const auto* r : {&stats, &neighbors}) {
    EXPECT_NE(r->out.find("synthetic small (seed 1) / test"), std::string::npos) << r->out;
    EXPECT_NE(r->out.find("encoder: starting checkpoint /"), std::string::npos) << r->out;
    EXPECT_NE(r->out.find("tiny-synthetic-pretrained.pt"), std::string::npos) << r->out;
    EXPECT_EQ(r->out.find("synthetic:size="), std::string::npos) << r->out;
    EXPECT_EQ(r->out.find("init:"), std::string::npos) << r->out;
  }
}

TEST_F(CliGeometry, BadInputExitsTwoNamingTheProblem) {
  const auto before = stored_geometry_rows();
  expect_error(hnclip("stats --benchmark-size small --encoder run:999 --json" + common()), 2, "run:999");
  expect_error(hnclip("stats --benchmark-size small --encoder ckpt:/nonexistent.pt" + common()), 2,
               "/nonexistent.pt");
  expect_error(hnclip("stats --benchmark-size small --encoder bogus" + common()), 2, "--encoder");
  expect_error(hnclip("neighbors --benchmark-size small --index 100000 --json" + common()), 2, "--index 100000");
  // A split the benchmark lacks is the flag's mistake for both commands (stats said 1).
  expect_error(hnclip("stats --benchmark-size small --split nosuch" + common()), 2,
               "--split nosuch");
  expect_error(hnclip("neighbors --benchmark-size small --split nosuch --index 0" + common()), 2,
               "--split nosuch");
  EXPECT_EQ(stored_geometry_rows(), before);
}

// A checkpoint trained on a tiny manifest with other words does not fit the built-in benchmark.
// Stored geometry is keyed by the manifest's path: after the file was written again with other
// captions, `stats` printed the old file's geometry (its caption count too) as the new one's.
TEST_F(CliGeometry, AManifestWrittenAgainIsMeasuredAgain) {
  ASSERT_EQ(hnclip("benchmark --benchmark-size small --json" + common()).code, 0);
  fs::path generated;
  for (const auto& e : fs::recursive_directory_iterator(*dir_ / "cache")) {
    if (e.path().filename() == "manifest.jsonl") generated = e.path();
  }
  ASSERT_FALSE(generated.empty()) << "no generated manifest in the cache";
  // The built-in benchmark's own test lines (the default encoder's words), images made absolute.
  std::vector<std::string> test_lines;
  std::ifstream in(generated);
  for (std::string line; std::getline(in, line);) {
    auto j = json::parse(line);
    if (j["split"] != "test") continue;
    j["image"] = (generated.parent_path() / j["image"].get<std::string>()).string();
    test_lines.push_back(j.dump());
  }
  ASSERT_GE(test_lines.size(), 40u);
  const fs::path manifest = *dir_ / "rewritten.jsonl";
  auto write_first = [&](size_t n) {
    std::string text;
    for (size_t i = 0; i < n; ++i) text += test_lines[i] + "\n";
    hnclip::test::write_text_file(manifest, text);
  };
  const std::string stats =
      "stats --benchmark manifest --data " + manifest.string() + " --split test --json" + common();
  write_first(40);
  auto first = hnclip(stats);
  ASSERT_EQ(first.code, 0) << first.err;
  EXPECT_EQ(json::parse(first.out)["test"], 40);

  std::this_thread::sleep_for(std::chrono::milliseconds(5));  // a later modification time
  write_first(30);
  auto second = hnclip(stats);
  ASSERT_EQ(second.code, 0) << second.err;
  EXPECT_EQ(json::parse(second.out)["test"], 30) << "the old file's geometry was printed";
  EXPECT_NE(second.err.find("was written again"), std::string::npos) << second.err;
}

TEST_F(CliGeometry, EncoderWhoseTokenizerDoesNotFitExitsTwo) {
  // Images: any the built-in benchmark rendered into the cache (the manifest only needs files).
  ASSERT_EQ(hnclip("benchmark --benchmark-size small --json" + common()).code, 0);
  std::vector<fs::path> pngs;
  for (const auto& e : fs::recursive_directory_iterator(*dir_ / "cache")) {
    if (e.path().extension() == ".png" && pngs.size() < 6) pngs.push_back(e.path());
  }
  ASSERT_EQ(pngs.size(), 6u) << "no rendered images in the cache";
  const char* words[] = {"zebra walrus", "quokka narwhal", "axolotl okapi", "pangolin tapir", "dugong ibex",
                         "wombat lemur"};
  std::string manifest;
  for (size_t i = 0; i < pngs.size(); ++i) {
    manifest += json{{"image", pngs[i].string()}, {"caption", std::string("a ") + words[i] + " grazing"},
                     {"split", i < 4 ? "train" : "test"}}.dump() + "\n";
  }
  hnclip::test::write_text_file(*dir_ / "other.jsonl", manifest);
  const auto train = hnclip("train --benchmark manifest --data " + (*dir_ / "other.jsonl").string() +
                            " --epochs 1 --batch 2 --threads 1 --json" + common());
  ASSERT_EQ(train.code, 0) << train.err;
  const auto id = json::parse(train.out)["run_id"].get<int64_t>();

  const auto before = stored_geometry_rows();
  const auto r = hnclip("stats --benchmark-size small --encoder run:" + std::to_string(id) + common());
  expect_error(r, 2, "unknown to the word tokenizer");
  EXPECT_NE(r.err.find("does not fit synthetic small (seed 1) / test:"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("%"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("run-" + std::to_string(id) + "/epoch-"), std::string::npos) << "names the checkpoint: " << r.err;
  EXPECT_EQ(stored_geometry_rows(), before);
}

}  // namespace
