// End-to-end test of `hnclip train --framework goal`: on the built-in benchmark (size small) it
// trains on the segments the benchmark wrote itself, says how many images have one, and records
// GOAL's terms per step (exported as loss_term_crop / _patch / _span); a segment file with a bad
// entry fails with one line naming the file and line before anything is recorded.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "support/cli_runner.h"
#include "support/test_dirs.h"

namespace {

using hnclip::test::expect_one_line_error;
using nlohmann::json;

class CliGoal : public ::testing::Test {
 protected:
  hnclip::test::ScratchDir dir;
  std::string common() const {
    return " --db " + (dir / "runs.db").string() + " --cache-dir " + (dir / "cache").string();
  }
  static std::string small_goal() {
    return "train --benchmark-size small --epochs 1 --batch 32 --lr 1e-4 --threads 1 "
           "--framework goal";
  }
};

TEST_F(CliGoal, TrainsOnTheBuiltInSegmentsAndRecordsItsTerms) {
  auto r = hnclip::test::run_hnclip(small_goal() + " --gamma 0.5 --json" + common());
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = json::parse(r.out);
  EXPECT_EQ(j["status"], "finished");
  EXPECT_EQ(j["config"]["framework"], "goal");
  EXPECT_DOUBLE_EQ(j["config"]["goal_crop_weight"].get<double>(), 0.5);
  // Every training image of the built-in benchmark has a segment, and the run says so.
  EXPECT_NE(r.err.find("GOAL: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("training images have a segment"), std::string::npos) << r.err;
  const std::string id = std::to_string(j["run_id"].get<int>());
  const auto csv = (dir / "metrics.csv").string();
  auto ex = hnclip::test::run_hnclip("export --run " + id + " --metrics " + csv + common());
  ASSERT_EQ(ex.code, 0) << ex.err;
  std::map<std::string, int> finite;  // loss term -> steps with a finite value
  std::istringstream lines(hnclip::test::read_text_file(csv));
  for (std::string line; std::getline(lines, line);) {
    // kind,run_id,epoch,step,wall_time_s,metric,value
    std::vector<std::string> cells;
    std::istringstream row(line);
    for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
    if (cells.size() != 7 || cells[5].rfind("loss_term_", 0) != 0) continue;
    if (std::isfinite(std::stod(cells[6]))) ++finite[cells[5]];
  }
  const int steps = finite["loss_term_global"];
  EXPECT_GT(steps, 0);
  for (const char* term : {"loss_term_crop", "loss_term_patch", "loss_term_span"})
    EXPECT_EQ(finite[term], steps) << term;
}

TEST_F(CliGoal, BadSegmentFileIsRefusedBeforeAnythingIsRecorded) {
  const auto file = dir / "segments.json";
  hnclip::test::write_text_file(
      file, "[\n  {\"original_filename\": \"images/train/999999.png\", \"segment\": []}\n]\n");
  auto r = hnclip::test::run_hnclip(small_goal() + " --goal-segments " + file.string() + common());
  expect_one_line_error(r, 1, file.string() + ":2: entry 1: key \"original_filename\"");
  // Nothing recorded: not even the database, which a new run creates only once its data passed.
  EXPECT_FALSE(std::filesystem::exists(dir / "runs.db"));
}

}  // namespace
