// Tests of core/experiment/experiment_results.cpp and experiment_report.cpp on a real RunStore
// holding hand-made runs: the selection rules, mean ± std over seeds, the paired comparisons
// against each control (numbers computed by hand), the strongest control chosen on the selection
// split, McNemar from the stored per-query ranks, unfinished runs left out, and the exports.

#include "experiment/experiment_results.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <set>

#include "experiment/experiment_report.h"
#include "experiment/experiment_spec.h"
#include "support/test_dirs.h"

namespace hnclip {
namespace {

using test::ScratchDir;

constexpr int kQueries = 20;

RetrievalResult result(const std::string& direction, double r1, int hits) {
  RetrievalResult r;
  r.direction = direction;
  for (int k : kExperimentKs) r.recall.emplace_back(k, k == 1 ? r1 : std::min(100.0, r1 + k));
  // The first `hits` queries are found at rank 1, the others at rank 2.
  for (int q = 0; q < kQueries; ++q) r.ranks.push_back(q < hits ? 1 : 2);
  r.topk.assign(kQueries, {});
  return r;
}

EpochEvalRow row(int epoch, const std::string& split, const std::string& dir, int k, double v) {
  return {epoch, 0, split, dir, k, v};
}

class ExperimentResultsTest : public ::testing::Test {
 protected:
  ScratchDir dir;
  RunStore store{(dir / "runs.db").string()};

  // A finished run whose test R@1 (both directions) is `test_r1` at every epoch >= 1 and 50 at
  // epoch 0; the validation split says `val_r1`. Test ranks: the first `hits` queries at rank 1.
  int64_t add_run(const TrainConfig& c, double test_r1, double val_r1, int hits,
                  RunStatus status = RunStatus::Finished) {
    RunRecord r;
    r.name = c.name;
    r.status = status;
    r.config_json = nlohmann::json(c).dump();
    const int64_t id = store.create_run(r);
    for (int epoch = 0; epoch <= 2; ++epoch) {
      const double t = epoch == 0 ? 50 : test_r1;
      store.write_epoch_eval(id, epoch, epoch * 10, "test", result("t2i", t, hits),
                             result("i2t", t - 1, hits));
      store.write_epoch_eval(id, epoch, epoch * 10, "val", result("t2i", epoch == 0 ? 99 : val_r1, 0),
                             result("i2t", epoch == 0 ? 99 : val_r1, 0));
    }
    return id;
  }

  // Stores `plan` (expanded from `spec`) with a run per slot whose test R@1 is r1(cell, seed)
  // (validation 70, 10 queries at rank 1), and returns the experiment's results.
  ExperimentResults store_experiment(const ExperimentSpec& spec, const ExperimentPlan& plan,
                                     const std::function<double(int, int64_t)>& r1) {
    std::vector<ExperimentCellRow> cells;
    std::vector<ExperimentSlotRow> slots;
    for (const auto& c : plan.cells) cells.push_back({c.index, c.label, c.role, c.settings.dump()});
    for (const auto& s : plan.slots) {
      const auto seed = static_cast<int64_t>(s.seed);
      const int64_t id = add_run(s.config, r1(s.cell, seed), 70, 10);
      slots.push_back({s.cell, seed, nlohmann::json(s.config).dump(), id, false});
    }
    ExperimentRecord rec;
    rec.name = spec.name;
    rec.spec_json = nlohmann::json(spec).dump();
    return experiment_results(store, store.create_experiment(rec, cells, slots));
  }

  // The two-seed experiment of the tie tests: γ 0.5 with its paired (learnt-scale) control and a
  // fixed scale 50 control, cells in that order; per_cell[cell][seed - 1] is the run's test R@1.
  ExperimentResults store_tie_experiment(const double (&per_cell)[3][2]) {
    ExperimentSpec spec;
    spec.name = "tie";
    spec.axes = {{"loss_gamma", {0.5}}};
    spec.seeds = {1, 2};
    spec.control_scales = {50};
    const auto plan = expand_experiment(spec, false);
    EXPECT_EQ(plan.cells.size(), 3u);  // method, paired (learnt scale), fixed scale 50
    return store_experiment(spec, plan,
                            [&](int cell, int64_t seed) { return per_cell[cell][seed - 1]; });
  }
};

TEST(SelectRunEpoch, EachRuleReportsTestRecallAtItsEpoch) {
  std::vector<EpochEvalRow> e;
  // test R@1 t2i/i2t per epoch: 0: 90 (the start, never chosen), 1: 60, 2: 70, 3: 80.
  // val mean R@1 per epoch: 0: 99, 1: 40, 2: 55, 3: 50 -> best fine-tuned on val: 2.
  const double test[] = {90, 60, 70, 80}, val[] = {99, 40, 55, 50};
  for (int ep = 0; ep <= 3; ++ep) {
    for (const char* d : {"t2i", "i2t"}) {
      e.push_back(row(ep, "test", d, 1, test[ep]));
      e.push_back(row(ep, "test", d, 5, test[ep] + 5));
      e.push_back(row(ep, "val", d, 1, val[ep]));
    }
  }
  const auto v = select_run_epoch(e, kSelectVal, "test", "val");
  EXPECT_EQ(v.epoch, 2);
  EXPECT_EQ(v.recall[0][0], 70);
  EXPECT_EQ(v.recall[1][1], 75);  // i2t R@5
  EXPECT_EQ(v.selection_score, 55);
  EXPECT_TRUE(std::isnan(v.recall[0][2]));  // R@10 was not stored
  const auto last = select_run_epoch(e, kSelectLast, "test", "val");
  EXPECT_EQ(last.epoch, 3);
  EXPECT_EQ(last.recall[0][0], 80);
  const auto t = select_run_epoch(e, kSelectTest, "test", "val");
  EXPECT_EQ(t.epoch, 3);  // epoch 0's 90 is the start, not a candidate
  EXPECT_EQ(select_run_epoch(e, kSelectVal, "test", "dev").epoch, -1);  // no such split
  EXPECT_EQ(select_run_epoch({}, kSelectLast, "test", "").epoch, -1);
}

TEST_F(ExperimentResultsTest, TableComparisonsAndExports) {
  ExperimentSpec spec;
  spec.name = "grid";
  spec.base = {{"logit_scale", 100.0}, {"fixed_scale", true}, {"val_split", "val"}};
  spec.axes = {{"loss_gamma", {0.5}}};
  spec.seeds = {1, 2, 3};
  spec.control_scales = {10};
  const auto plan = expand_experiment(spec, false);
  ASSERT_EQ(plan.selection, kSelectVal);
  ASSERT_EQ(plan.cells.size(), 4u);  // method, paired (s 100), learnt, s 10

  // Test R@1 t2i per seed (i2t is 1 less), val R@1 per seed, and test hits (rank-1 queries):
  //   method  87.1 86.5 87.6   val 80 80 80
  //   paired  83.2 83.4 83.2   val 70 70 70
  //   learnt  85.0 85.0 85.0   val 75 75 75
  //   s 10    88.0 88.5 88.2   val 90 91 92   <- the strongest on validation
  const std::vector<std::vector<double>> test = {
      {87.1, 86.5, 87.6}, {83.2, 83.4, 83.2}, {85.0, 85.0, 85.0}, {88.0, 88.5, 88.2}};
  const std::vector<std::vector<double>> val = {{80, 80, 80}, {70, 70, 70}, {75, 75, 75}, {90, 91, 92}};
  const int hits[] = {15, 12, 13, 16};
  std::vector<ExperimentCellRow> cells;
  std::vector<ExperimentSlotRow> slots;
  for (const auto& c : plan.cells) cells.push_back({c.index, c.label, c.role, c.settings.dump()});
  for (const auto& s : plan.slots) {
    const size_t i = s.seed - 1;
    // The learnt control's third seed is still running: it has no result yet.
    const auto status = s.cell == 2 && s.seed == 3 ? RunStatus::Running : RunStatus::Finished;
    const int64_t id = add_run(s.config, test[s.cell][i], val[s.cell][i], hits[s.cell], status);
    slots.push_back({s.cell, static_cast<int64_t>(s.seed), nlohmann::json(s.config).dump(), id,
                     false});
  }
  ExperimentRecord rec;
  rec.name = "grid";
  ExperimentSpec stored = spec;
  stored.selection = plan.selection;
  rec.spec_json = nlohmann::json(stored).dump();
  const int64_t id = store.create_experiment(rec, cells, slots);

  const auto r = experiment_results(store, id);
  EXPECT_EQ(r.runs_total, 12);
  EXPECT_EQ(r.runs_finished, 11);
  EXPECT_EQ(r.seeds, (std::vector<int64_t>{1, 2, 3}));
  ASSERT_EQ(r.cells.size(), 4u);
  const auto& m = r.cells[0].summary[0][0];
  EXPECT_EQ(m.n, 3);
  EXPECT_NEAR(m.mean, (87.1 + 86.5 + 87.6) / 3, 1e-9);
  EXPECT_NEAR(r.cells[0].summary[1][0].mean, (86.1 + 85.5 + 86.6) / 3, 1e-9);
  EXPECT_EQ(r.cells[2].summary[0][0].n, 2);  // the running seed is left out
  EXPECT_EQ(r.cells[2].finished, 2);
  EXPECT_NEAR(r.cells[3].selection_mean, 91, 1e-9);

  // Comparisons: paired, learnt scale, strongest (= s 10, best on validation).
  ASSERT_EQ(r.comparisons.size(), 3u);
  EXPECT_EQ(r.comparisons[0].kind, "paired");
  EXPECT_EQ(r.comparisons[0].control_cell, 1);
  EXPECT_EQ(r.comparisons[1].kind, "learnt scale");
  EXPECT_EQ(r.comparisons[2].kind, "strongest");
  EXPECT_EQ(r.comparisons[2].control_cell, 3);
  // Method − paired, t2i: differences 3.9, 3.1, 4.4; mean 3.8; sample variance
  // ((0.1)² + (0.7)² + (0.6)²) / 2 = 0.43; t = 3.8 / sqrt(0.43 / 3).
  const auto& paired = r.comparisons[0].r1[0];
  EXPECT_EQ(paired.n, 3);
  EXPECT_NEAR(paired.mean_diff, 3.8, 1e-9);
  EXPECT_NEAR(paired.std_diff, std::sqrt(0.43), 1e-9);
  EXPECT_NEAR(paired.t, 3.8 / std::sqrt(0.43 / 3), 1e-6);
  EXPECT_EQ(paired.improved, 3);
  // Against the learnt control only the two seeds with a result pair up.
  EXPECT_EQ(r.comparisons[1].r1[0].n, 2);
  // Against the strongest (s 10) the method is worse on every seed.
  EXPECT_EQ(r.comparisons[2].r1[0].worse, 3);
  EXPECT_LT(r.comparisons[2].r1[0].mean_diff, 0);
  // McNemar per seed from the ranks: method hits queries 0-14, paired 0-11 -> b = 3, c = 0.
  ASSERT_EQ(r.comparisons[0].mcnemar_p[0].size(), 3u);
  EXPECT_NEAR(r.comparisons[0].mcnemar_p[0][0], mcnemar_exact_p(3, 0), 1e-12);
  EXPECT_TRUE(std::isnan(r.comparisons[1].mcnemar_p[0][2]));  // seed 3 of learnt has no result

  const std::string text = experiment_report_text(r);
  EXPECT_NE(text.find("validation split 'val'"), std::string::npos) << text;
  EXPECT_NE(text.find("controls: included"), std::string::npos);
  EXPECT_NE(text.find("strongest"), std::string::npos);
  EXPECT_NE(text.find("88.23 ± 0.25 *"), std::string::npos) << text;  // s 10's t2i R@1, best

  const std::string csv = experiment_report_csv(r);
  const auto blank = csv.find("\n\n");
  ASSERT_NE(blank, std::string::npos);
  EXPECT_EQ(std::count(csv.begin(), csv.begin() + static_cast<long>(blank), '\n'), 4) << csv;
  EXPECT_NE(csv.find("strongest"), std::string::npos);

  const std::string latex = experiment_report_latex(r);
  EXPECT_NE(latex.find("\\toprule"), std::string::npos);
  EXPECT_NE(latex.find("\\textbf{88.23$\\pm$0.25}"), std::string::npos) << latex;
  EXPECT_NE(latex.find("\\underline{87.07$\\pm$0.55}"), std::string::npos) << latex;
  EXPECT_NE(latex.find("HN $\\gamma$ 0.5"), std::string::npos);
  // LaTeX's own quotes: a straight 'val' typesets as two closing quotes.
  EXPECT_NE(latex.find("validation split `val'"), std::string::npos) << latex;

  const auto j = experiment_report_json(r);
  EXPECT_EQ(j["selection"], "val");
  EXPECT_EQ(j["cells"][0]["seeds"].size(), 3u);
  EXPECT_EQ(j["comparisons"][0]["t2i"]["improved"], 3);
  EXPECT_TRUE(j["comparisons"][0]["t2i"]["significant"].get<bool>());
}

TEST_F(ExperimentResultsTest, WithoutControlsEveryReportSaysSo) {
  ExperimentSpec spec;
  spec.name = "bare";
  spec.controls = false;
  spec.axes = {{"loss_gamma", {0.5}}};
  spec.seeds = {1};
  const auto plan = expand_experiment(spec, false);
  std::vector<ExperimentCellRow> cells;
  for (const auto& c : plan.cells) cells.push_back({c.index, c.label, c.role, c.settings.dump()});
  const int64_t run = add_run(plan.slots[0].config, 80, 70, 10);
  ExperimentRecord rec;
  rec.name = "bare";
  rec.spec_json = nlohmann::json(spec).dump();
  const int64_t id = store.create_experiment(
      rec, cells, {{0, 1, nlohmann::json(plan.slots[0].config).dump(), run, false}});
  const auto r = experiment_results(store, id);
  EXPECT_EQ(r.selection, kSelectLast);  // stored as "auto", no validation split: the last epoch
  EXPECT_TRUE(r.comparisons.empty());
  EXPECT_NE(experiment_report_text(r).find("NONE (--no-controls)"), std::string::npos);
  EXPECT_NE(experiment_report_latex(r).find("No controls"), std::string::npos);
  EXPECT_FALSE(experiment_report_json(r)["controls"].get<bool>());
  // One seed: a mean without a spread, and the LaTeX caption says so (it said "mean ± std over
  // 1 seeds").
  EXPECT_TRUE(std::isnan(r.cells[0].summary[0][0].std));
  EXPECT_NE(experiment_report_latex(r).find("test recall (\\%), one seed (no std); "),
            std::string::npos)
      << experiment_report_latex(r);
  // One cell: a mean without a rank (there is nothing to be best among).
  EXPECT_NE(experiment_report_text(r).find("80.00 "), std::string::npos) << experiment_report_text(r);
  EXPECT_EQ(experiment_report_text(r).find("80.00 *"), std::string::npos) << experiment_report_text(r);
}

// Two seeds that each move R@1 by the same one query (of 1,064) are no evidence, however the
// t-test is written: every report says "no spread" where t and p would be, and none calls it
// significant. The two differences are also not one double (see test_paired_statistics).
TEST_F(ExperimentResultsTest, IdenticalDifferencesOverSeedsAreNotTested) {
  ExperimentSpec spec;
  spec.name = "flat";
  spec.axes = {{"loss_gamma", {0.5}}};
  spec.seeds = {1, 2};
  spec.control_scales = {};
  const auto plan = expand_experiment(spec, false);
  ASSERT_EQ(plan.cells.size(), 2u);  // method and paired (a learnt scale: also the learnt control)
  const double method[] = {100.0 * 1000 / 1064, 100.0 * 300 / 1064};
  const double control[] = {100.0 * 999 / 1064, 100.0 * 299 / 1064};
  const auto r = store_experiment(spec, plan, [&](int cell, int64_t seed) {
    return cell == 0 ? method[seed - 1] : control[seed - 1];
  });
  ASSERT_FALSE(r.comparisons.empty());
  const auto& paired = r.comparisons[0].r1[0];
  EXPECT_EQ(paired.n, 2);
  EXPECT_NEAR(paired.mean_diff, 100.0 / 1064, 1e-9);
  EXPECT_EQ(paired.std_diff, 0.0);
  EXPECT_TRUE(std::isnan(paired.t));
  EXPECT_TRUE(std::isnan(paired.p_two_sided));

  const std::string text = experiment_report_text(r);
  EXPECT_NE(text.find("no spread"), std::string::npos) << text;
  EXPECT_EQ(text.find(" yes "), std::string::npos) << text;
  EXPECT_EQ(text.find("inf"), std::string::npos) << text;
  const std::string csv = experiment_report_csv(r);
  EXPECT_NE(csv.find(",no spread,"), std::string::npos) << csv;
  EXPECT_EQ(csv.find("inf"), std::string::npos) << csv;
  const auto j = experiment_report_json(r)["comparisons"][0]["t2i"];
  EXPECT_FALSE(j["significant"].get<bool>()) << j.dump();
  EXPECT_TRUE(j["t"].is_null()) << j.dump();
  EXPECT_EQ(j["untested"], "no spread") << j.dump();
  EXPECT_EQ(experiment_report_latex(r).find("\\textbf{+0.09"), std::string::npos);
}

// Two cells with the same hits over their seeds print the same mean, though the doubles differ in
// the last bit (100·120/142 and 100·124/142 vs 100·122/142 twice): both are best, none is second,
// in the text table and in LaTeX; their difference, a residue of -7e-15, reads +0.00, not -0.00.
TEST_F(ExperimentResultsTest, MeansThatPrintAlikeShareTheirRank) {
  const double per_cell[3][2] = {{100.0 * 120 / 142, 100.0 * 124 / 142},
                                 {100.0 * 122 / 142, 100.0 * 122 / 142},
                                 {100.0 * 110 / 142, 100.0 * 112 / 142}};
  ASSERT_NE((per_cell[0][0] + per_cell[0][1]) / 2, (per_cell[1][0] + per_cell[1][1]) / 2)
      << "the two means are meant to differ in the last bit";
  const auto r = store_tie_experiment(per_cell);
  ASSERT_EQ(r.cells.size(), 3u);

  const std::string text = experiment_report_text(r);
  for (size_t i = 0; i < 2; ++i) {
    const auto row = text.find("\n" + r.cells[i].cell.label + " ");
    ASSERT_NE(row, std::string::npos) << text;
    const auto row_text = text.substr(row + 1, text.find('\n', row + 1) - row - 1);
    EXPECT_NE(row_text.find("85.92 ± " + std::string(i == 0 ? "1.99" : "0.00") + " *"),
              std::string::npos)
        << row_text;
  }
  const auto third = text.find("\n" + r.cells[2].cell.label + " ");
  ASSERT_NE(third, std::string::npos) << text;
  // The third cell's 78.17 is the second value of the column.
  EXPECT_NE(text.find("78.17 ± 1.00 +", third), std::string::npos) << text;

  const std::string latex = experiment_report_latex(r);
  EXPECT_NE(latex.find("\\textbf{85.92$\\pm$0.00}"), std::string::npos) << latex;
  EXPECT_NE(latex.find("\\textbf{85.92$\\pm$1.99}"), std::string::npos) << latex;
  EXPECT_EQ(latex.find("\\underline{85.92"), std::string::npos) << latex;

  ASSERT_FALSE(r.comparisons.empty());
  ASSERT_LT(r.comparisons[0].r1[0].mean_diff, 0.0) << "the residue is meant to be negative";
  EXPECT_NE(text.find("+0.00 ± 1.99"), std::string::npos) << text;
  EXPECT_EQ(text.find("-0.00"), std::string::npos) << text;
  EXPECT_EQ(latex.find("-0.00"), std::string::npos) << latex;
}

// Two controls whose seeds have the same hits (120 + 124 and 122 + 122 of 142) are equally
// strong, though their mean selection scores differ in the last bit with the later cell's higher:
// the strongest control is the earlier cell, as the earlier epoch is the best on ties.
TEST_F(ExperimentResultsTest, EquallyStrongControlsGoToTheEarlierCell) {
  const double per_cell[3][2] = {{100.0 * 110 / 142, 100.0 * 112 / 142},
                                 {100.0 * 120 / 142, 100.0 * 124 / 142},
                                 {100.0 * 122 / 142, 100.0 * 122 / 142}};
  const auto r = store_tie_experiment(per_cell);
  ASSERT_EQ(r.cells.size(), 3u);
  ASSERT_GT(r.cells[2].selection_mean, r.cells[1].selection_mean)
      << "the later control is meant to be higher in the last bit";
  ASSERT_LT(r.cells[2].selection_mean - r.cells[1].selection_mean, 1e-12);
  int strongest = -1;
  for (const auto& c : r.comparisons)
    if (c.kind == "strongest") strongest = c.control_cell;
  EXPECT_EQ(strongest, 1);
}

// An axis over the benchmark's size gives cells tested on different data: each set has its own
// best and second, in the text table and in LaTeX (the small benchmark's higher recall does not
// outrank the default's cells).
TEST_F(ExperimentResultsTest, CellsOnDifferentTestSetsAreRankedApart) {
  ExperimentSpec spec;
  spec.name = "sizes";
  spec.axes = {{"loss_gamma", {0.5}}, {"benchmark_size", {"small", "default"}}};
  spec.seeds = {1};
  spec.control_scales = {};
  const auto plan = expand_experiment(spec, false);
  ASSERT_EQ(plan.cells.size(), 4u);  // method and paired control per size
  // t2i R@1: small 90 (method) / 80 (control); default 70 / 60.
  auto value = [&](int cell) {
    const auto& c = plan.cells[static_cast<size_t>(cell)];
    const bool small = c.settings.dump().find("small") != std::string::npos;
    return (small ? 90.0 : 70.0) - (c.role == kRoleMethod ? 0.0 : 10.0);
  };
  const auto r = store_experiment(spec, plan, [&](int cell, int64_t) { return value(cell); });
  ASSERT_EQ(r.cells.size(), 4u);
  std::set<std::string> sets;
  for (const auto& c : r.cells) sets.insert(c.test_set);
  EXPECT_EQ(sets.size(), 2u);

  const std::string text = experiment_report_text(r);
  EXPECT_NE(text.find("among the cells of one test set"), std::string::npos) << text;
  const std::string latex = experiment_report_latex(r);
  for (int i = 0; i < 4; ++i) {
    const auto at = text.find("\n" + r.cells[static_cast<size_t>(i)].cell.label + " ");
    ASSERT_NE(at, std::string::npos) << text;
    const auto row = text.substr(at + 1, text.find('\n', at + 1) - at - 1);
    const double v = value(i);
    const bool best = v == 90.0 || v == 70.0;
    const std::string printed = std::to_string(static_cast<int>(v)) + ".00";
    EXPECT_NE(row.find(printed + (best ? " *" : " +")), std::string::npos) << row;
    EXPECT_NE(latex.find((best ? "\\textbf{" : "\\underline{") + printed + "}"), std::string::npos)
        << latex;
  }
}

// Transfer columns: a run counts where it was evaluated at its selected epoch (here the best on
// val, epoch 1), not at another epoch; per cell mean ± std of R@1 in both directions, in every
// export.
TEST_F(ExperimentResultsTest, TransferColumnsUseTheSelectedEpoch) {
  ExperimentSpec spec;
  spec.name = "transfer";
  spec.base = {{"val_split", "val"}};
  spec.axes = {{"loss_gamma", {0.5}}};
  spec.seeds = {1, 2};
  spec.controls = false;
  const auto plan = expand_experiment(spec, false);
  ASSERT_EQ(plan.cells.size(), 1u);
  std::vector<ExperimentCellRow> cells;
  std::vector<ExperimentSlotRow> slots;
  for (const auto& c : plan.cells) cells.push_back({c.index, c.label, c.role, c.settings.dump()});
  const std::string bench = "synthetic:size=default:seed=1";
  for (const auto& s : plan.slots) {
    const int64_t run = add_run(s.config, 80, 70, 10);
    const double shifted = s.seed == 1 ? 60 : 64;
    // Selected epoch 1 (val ties at 70 from epoch 1 on: the earlier wins).
    store.write_transfer_eval(run, 1, bench, "shifted", 1000, 1000, result("t2i", shifted, 0),
                              result("i2t", shifted - 2, 0));
    // Another epoch's transfer result must not count.
    store.write_transfer_eval(run, 2, bench, "shifted", 1000, 1000, result("t2i", 5, 0),
                              result("i2t", 5, 0));
    slots.push_back({s.cell, static_cast<int64_t>(s.seed), nlohmann::json(s.config).dump(), run, false});
  }
  ExperimentRecord rec;
  rec.name = "transfer";
  ExperimentSpec stored = spec;
  stored.selection = plan.selection;
  rec.spec_json = nlohmann::json(stored).dump();
  const auto r = experiment_results(store, store.create_experiment(rec, cells, slots));
  ASSERT_EQ(r.cells[0].seeds[0].epoch, 1);
  ASSERT_EQ(r.transfers.size(), 1u);
  const auto& t = r.transfers[0];
  EXPECT_EQ(t.benchmark, bench);
  EXPECT_EQ(t.split, "shifted");
  EXPECT_EQ(t.images, 1000);
  ASSERT_EQ(t.evaluated.size(), 1u);
  EXPECT_EQ(t.evaluated[0], 2);
  EXPECT_NEAR(t.r1[0][0].mean, 62, 1e-9);
  EXPECT_NEAR(t.r1[0][0].std, std::sqrt(8.0), 1e-9);
  EXPECT_NEAR(t.r1[0][1].mean, 60, 1e-9);
  const auto text = experiment_report_text(r);
  EXPECT_NE(text.find("[1] shifted (" + bench + "), 1000 images"), std::string::npos) << text;
  EXPECT_NE(text.find("62.00 ± 2.83"), std::string::npos) << text;
  // One cell: nothing to rank, so no column marks a best (every mean ties with itself).
  const auto row = text.find(r.cells[0].cell.label + " ");
  ASSERT_NE(row, std::string::npos);
  const auto row_text = text.substr(row, text.find('\n', row) - row);
  EXPECT_EQ(row_text.find('*'), std::string::npos) << row_text;
  EXPECT_EQ(experiment_report_latex(r).find("\\textbf"), std::string::npos);
  EXPECT_NE(experiment_report_csv(r).find(",shifted,1000,2,62.0000,2.8284,60.0000,2.8284"),
            std::string::npos)
      << experiment_report_csv(r);
  EXPECT_NE(experiment_report_latex(r).find("62.00$\\pm$2.83"), std::string::npos);
  EXPECT_EQ(experiment_report_json(r)["transfers"][0]["cells"][0]["t2i"]["R@1"]["mean"], 62.0);
  EXPECT_FALSE(t.training_images.has_value()) << "none counted: none said";
  EXPECT_TRUE(experiment_report_json(r)["transfers"][0]["training_images"].is_null());

  // A target naming some of the runs' training images (counted by eval): every report says so.
  for (const auto& s : r.cells[0].seeds)
    store.write_transfer_eval(s.run_id, 1, bench, "shifted", 1000, 1000, result("t2i", 60, 0),
                              result("i2t", 58, 0), 40);
  const auto counted = experiment_results(store, r.experiment.id);
  ASSERT_EQ(counted.transfers.size(), 1u);
  EXPECT_EQ(counted.transfers[0].training_images, std::optional<int64_t>(40));
  const std::string said = "1000 images (40 of them training images of its runs: not transfer)";
  EXPECT_NE(experiment_report_text(counted).find(said), std::string::npos)
      << experiment_report_text(counted);
  EXPECT_NE(experiment_report_latex(counted).find(said), std::string::npos);
  EXPECT_NE(experiment_report_csv(counted).find(",60.0000,0.0000,58.0000,0.0000,40\n"),
            std::string::npos)
      << experiment_report_csv(counted);
  EXPECT_EQ(experiment_report_json(counted)["transfers"][0]["training_images"], 40);
}

}  // namespace
}  // namespace hnclip
