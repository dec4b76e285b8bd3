// End-to-end test of `hnclip train --framework structxlip`: on the built-in benchmark (size small)
// it trains with the shipped word list and the benchmark's own segments, says both, and records
// StructXLIP's terms per step (exported as loss_term_structure / _consistency / _local); a word
// list that is not UTF-8 fails with one line naming the file and line before anything is
// recorded.

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

class CliStructxlip : public ::testing::Test {
 protected:
  hnclip::test::ScratchDir dir;
  std::string common() const {
    return " --db " + (dir / "runs.db").string() + " --cache-dir " + (dir / "cache").string();
  }
  static std::string small_structxlip() {
    return "train --benchmark-size small --epochs 1 --batch 32 --lr 1e-4 --threads 1 "
           "--framework structxlip";
  }
};

TEST_F(CliStructxlip, TrainsWithTheShippedWordsAndRecordsItsTerms) {
  auto r = hnclip::test::run_hnclip(small_structxlip() + " --gamma 0.5 --json" + common());
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = json::parse(r.out);
  EXPECT_EQ(j["status"], "finished");
  EXPECT_EQ(j["config"]["framework"], "structxlip");
  EXPECT_DOUBLE_EQ(j["config"]["structxlip_structure_weight"].get<double>(), 0.5);
  EXPECT_NE(r.err.find("StructXLIP: filtered captions drop"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("structxlip_words.txt"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("training images have a segment"), std::string::npos) << r.err;
  const std::string id = std::to_string(j["run_id"].get<int>());
  const auto csv = (dir / "metrics.csv").string();
  auto ex = hnclip::test::run_hnclip("export --run " + id + " --metrics " + csv + common());
  ASSERT_EQ(ex.code, 0) << ex.err;
  std::map<std::string, int> positive;  // loss term -> steps with a finite value > 0
  std::istringstream lines(hnclip::test::read_text_file(csv));
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> cells;
    std::istringstream row(line);
    for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
    if (cells.size() != 7 || cells[5].rfind("loss_term_", 0) != 0) continue;
    const double v = std::stod(cells[6]);
    if (std::isfinite(v) && v > 0) ++positive[cells[5]];
  }
  const int steps = positive["loss_term_global"];
  EXPECT_GT(steps, 0);
  for (const char* term : {"loss_term_structure", "loss_term_consistency", "loss_term_local"})
    EXPECT_EQ(positive[term], steps) << term;
}

TEST_F(CliStructxlip, WordListThatIsNotUtf8IsRefusedBeforeAnythingIsRecorded) {
  const auto file = dir / "words.txt";
  hnclip::test::write_text_file(file, "red\nbl\xff" "ue\n");
  auto r = hnclip::test::run_hnclip(small_structxlip() + " --structxlip-words " + file.string() +
                                    common());
  expect_one_line_error(r, 1, file.string() + ":2: not UTF-8");
  // Nothing recorded: not even the database, which a new run creates only once its data passed.
  EXPECT_FALSE(std::filesystem::exists(dir / "runs.db"));
}

}  // namespace
