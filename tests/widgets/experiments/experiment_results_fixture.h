#pragma once
// Hand-made experiment results for the Experiments tab's tests: cells with their roles, per-seed
// R@1 values and configs, summarised and compared with the core's own statistics
// (experiment/paired_statistics.h), so the tests check what the tab makes of them.

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiment/experiment_results.h"
#include "widgets/experiments/experiment_snapshot.h"
#include "widgets/experiments/experiment_spec_for_qt.h"

namespace hnclip::test {

struct FixtureCell {
  std::string label;
  std::string role;
  nlohmann::json config;       // the keys the plots read (loss_gamma, logit_scale, …)
  std::vector<double> r1_t2i;  // per seed; NaN: no result yet
  std::vector<double> r1_i2t;
  std::vector<int64_t> run_ids;  // per seed; 0: no run
};

inline hnclip::gui::ExperimentSnapshot make_snapshot(int64_t experiment_id,
                                                     const std::vector<FixtureCell>& cells) {
  hnclip::gui::ExperimentSnapshot snap;
  auto& r = snap.results;
  r.experiment.id = experiment_id;
  r.experiment.name = "fixture";
  r.selection = hnclip::kSelectVal;
  r.selection_rule = hnclip::selection_rule_text(hnclip::kSelectVal, "val");
  for (size_t i = 0; i < cells.size(); ++i) {
    const auto& fc = cells[i];
    hnclip::CellResult cell;
    cell.cell.cell = static_cast<int>(i);
    cell.cell.label = fc.label;
    cell.cell.role = fc.role;
    cell.cell.settings_json = fc.config.dump();
    std::vector<double> scores;
    for (size_t s = 0; s < fc.r1_t2i.size(); ++s) {
      hnclip::SeedResult seed;
      seed.seed = static_cast<int64_t>(s + 1);
      seed.run_id = s < fc.run_ids.size() ? fc.run_ids[s] : 0;
      for (auto& row : seed.recall) row.fill(std::numeric_limits<double>::quiet_NaN());
      seed.recall[0][0] = fc.r1_t2i[s];
      seed.recall[1][0] = fc.r1_i2t[s];
      const bool has = !std::isnan(fc.r1_t2i[s]);
      seed.epoch = has ? 1 : -1;
      seed.run_status = seed.run_id == 0 ? "" : has ? "finished" : "running";
      if (has) {
        seed.selection_score = (fc.r1_t2i[s] + fc.r1_i2t[s]) / 2;
        scores.push_back(seed.selection_score);
        ++cell.finished;
        ++r.runs_finished;
      }
      ++r.runs_total;
      cell.seeds.push_back(seed);
    }
    cell.summary[0][0] = hnclip::summarize_seeds(fc.r1_t2i);
    cell.summary[1][0] = hnclip::summarize_seeds(fc.r1_i2t);
    cell.selection_mean = hnclip::summarize_seeds(scores).mean;
    r.cells.push_back(cell);
    snap.cell_configs.push_back(fc.config);
  }
  for (size_t s = 0; !cells.empty() && s < cells[0].r1_t2i.size(); ++s)
    r.seeds.push_back(static_cast<int64_t>(s + 1));
  return snap;
}

// Adds `method` − `control` as a comparison of `kind`, as the core pairs them.
inline void add_comparison(hnclip::ExperimentResults& r, int method, int control,
                           const std::string& kind) {
  hnclip::ControlComparison c;
  c.method_cell = method;
  c.control_cell = control;
  c.kind = kind;
  for (size_t d = 0; d < 2; ++d) {
    std::vector<double> a, b;
    for (const auto& s : r.cells[method].seeds) a.push_back(s.recall[d][0]);
    for (const auto& s : r.cells[control].seeds) b.push_back(s.recall[d][0]);
    c.r1[d] = hnclip::compare_paired(a, b);
    c.mcnemar_p[d].assign(a.size(), std::numeric_limits<double>::quiet_NaN());
  }
  r.comparisons.push_back(c);
}

}  // namespace hnclip::test
