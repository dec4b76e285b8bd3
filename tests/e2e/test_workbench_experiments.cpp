// End-to-end check of the Experiments tab in the real hnclip-workbench under Xvfb: the window
// starts a tiny γ sweep with its controls (--start-experiment: the gamma-sweep preset cut down to
// γ ∈ {0, 0.5}, the learnt-scale and s = 10 controls, 2 seeds, 1 epoch of the `small` built-in
// benchmark), waits until it has ended and the grid shows the final table, saves the window (grid
// and γ plot) and the γ chart into the test's output folder, writes the grid as shown, and quits.
// The grid must hold one row per cell of the stored experiment, with the labels, roles, seed
// counts and R@1 mean ± std that the store's table (the core's experiment_results) gives.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "experiment/experiment_results.h"
#include "experiment/experiment_spec.h"
#include "store/run_store.h"
#include "support/png_size.h"
#include "support/test_dirs.h"

namespace {

namespace fs = std::filesystem;

using hnclip::test::png_size;

std::vector<std::vector<std::string>> read_tsv(const fs::path& p) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(hnclip::test::read_text_file(p));
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::string cell;
    std::istringstream fields(line);
    while (std::getline(fields, cell, '\t')) cells.push_back(cell);
    if (!line.empty() && line.back() == '\t') cells.push_back("");
    rows.push_back(cells);
  }
  return rows;
}

// As the grid writes a summary: two decimals, "mean ± std".
std::string mean_std(const hnclip::SeedSummary& s) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f ± %.2f", s.mean, s.std);
  return buf;
}

TEST(WorkbenchExperiments, StartsATinySweepFromTheWindowAndShowsItsTable) {
  hnclip::test::ScratchDir dir;
  const fs::path out = fs::path(HNCLIP_TEST_OUTPUT_DIR) / "test_workbench_experiments";
  fs::remove_all(out);
  fs::create_directories(out);
  const auto db = (dir / "runs.db").string();
  const std::string spec =
      R"({"name":"gui sweep","preset":"gamma-sweep",)"
      R"("base":{"benchmark_size":"small","epochs":1,"batch_size":32,"lr":0.001,"threads":2},)"
      R"("axes":[{"key":"loss_gamma","values":[0.0,0.5]}],"seeds":[1,2],"control_scales":[10],)"
      R"("parallel":2})";
  const std::string cmd =
      "XDG_CONFIG_HOME=" + (dir / "config").string() + " xvfb-run -a -s '-screen 0 1400x900x24' " +
      HNCLIP_WORKBENCH_PATH + " --db " + db + " --cache-dir " + (dir / "cache").string() +
      " --start-experiment '" + spec + "' --screenshot-experiment " +
      (out / "experiments-window.png").string() + " --experiment-plot " +
      (out / "gamma-sweep.png").string() + " --experiment-grid " + (out / "grid.tsv").string();
  std::string so, se;
  const int code = hnclip::test::run_command(cmd, &so, &se);
  ASSERT_EQ(code, 0) << cmd << "\nstdout:\n" << so << "\nstderr:\n" << se;

  const auto [w, h] = png_size(out / "experiments-window.png");
  EXPECT_GE(w, 800u) << "window screenshot missing or too small";
  EXPECT_GE(h, 500u);
  EXPECT_GT(png_size(out / "gamma-sweep.png").first, 300u) << "γ chart missing";

  hnclip::RunStore store(db);
  const auto experiments = store.list_experiments();
  ASSERT_EQ(experiments.size(), 1u);
  EXPECT_EQ(experiments[0].status, hnclip::kExperimentFinished) << experiments[0].status_message;
  const auto results = hnclip::experiment_results(store, experiments[0].id);
  // γ 0 (paired with γ 0.5 at s 100), γ 0.5, learnt scale, s 10 — each with 2 seeds.
  ASSERT_EQ(results.cells.size(), 4u);
  EXPECT_EQ(results.runs_total, 8);
  EXPECT_EQ(results.runs_finished, 8);

  const auto grid = read_tsv(out / "grid.tsv");
  ASSERT_EQ(grid.size(), 1 + results.cells.size())
      << hnclip::test::read_text_file(out / "grid.tsv");
  ASSERT_GE(grid[0].size(), 5u);
  EXPECT_EQ(grid[0][1], "Configuration");
  EXPECT_EQ(grid[0][3], "R@1 t→i");
  int controls = 0;
  for (size_t i = 0; i < results.cells.size(); ++i) {
    const auto& cell = results.cells[i];
    const auto& row = grid[i + 1];
    ASSERT_GE(row.size(), 5u) << "row " << i;
    EXPECT_EQ(row[1], cell.cell.label);
    const bool control = hnclip::is_control_role(cell.cell.role);
    controls += control;
    EXPECT_EQ(row[0].rfind("control", 0) == 0, control) << row[0] << " for " << cell.cell.role;
    EXPECT_EQ(row[2], "2/2");
    EXPECT_EQ(row[3], mean_std(cell.summary[0][0])) << cell.cell.label;
    EXPECT_EQ(row[4], mean_std(cell.summary[1][0])) << cell.cell.label;
  }
  EXPECT_EQ(controls, 3);
  // The method row carries its differences to the three controls.
  for (size_t i = 0; i < results.cells.size(); ++i) {
    if (results.cells[i].cell.role != hnclip::kRoleMethod) continue;
    ASSERT_GE(grid[i + 1].size(), 11u);
    for (size_t c = 5; c < 11; ++c) EXPECT_FALSE(grid[i + 1][c].empty()) << "column " << c;
  }
}

}  // namespace
