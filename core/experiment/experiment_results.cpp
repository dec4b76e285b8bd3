#include "experiment/experiment_results.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <nlohmann/json.hpp>

#include "experiment/experiment_spec.h"
#include "train/best_epoch.h"
#include "train/run_test_set.h"

namespace hnclip {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

int k_index(int k) {
  for (size_t i = 0; i < kExperimentKs.size(); ++i) {
    if (kExperimentKs[i] == k) return static_cast<int>(i);
  }
  return -1;
}

int direction_index(const std::string& d) { return d == "t2i" ? 0 : d == "i2t" ? 1 : -1; }

RecallGrid nan_grid() {
  RecallGrid g;
  for (auto& row : g) row.fill(kNaN);
  return g;
}

// Per epoch, the grid of one split's recalls.
std::map<int, RecallGrid> split_grids(const std::vector<EpochEvalRow>& evals,
                                      const std::string& split) {
  std::map<int, RecallGrid> out;
  for (const auto& e : evals) {
    if (e.split != split) continue;
    const int d = direction_index(e.direction), k = k_index(e.k);
    if (d < 0 || k < 0) continue;
    auto it = out.find(e.epoch);
    if (it == out.end()) it = out.emplace(e.epoch, nan_grid()).first;
    it->second[d][k] = e.recall;
  }
  return out;
}

double mean_r1(const RecallGrid& g) { return best_epoch_score(g[0][0], g[1][0]); }

// The γ = 0 cells a method cell is compared with: same context (everything but γ, Ḡ, scale).
struct CellConfig {
  TrainConfig config;
  std::string context;
};

}  // namespace

std::string selection_rule_text(const std::string& selection, const std::string& val_split) {
  if (selection == kSelectVal) {
    return "epoch selection: best fine-tuned epoch by mean R@1 on the validation split '" +
           val_split + "'; recall reported on the test split";
  }
  if (selection == kSelectLast) return "epoch selection: the last epoch (no selection)";
  return "epoch selection: best epoch on the test split — optimistic (the test split chose it)";
}

SeedResult select_run_epoch(const std::vector<EpochEvalRow>& evals, const std::string& selection,
                            const std::string& test_split, const std::string& val_split) {
  SeedResult r;
  r.recall = nan_grid();
  const auto test = split_grids(evals, test_split);
  int chosen = -1;
  double score = kNaN;
  if (selection == kSelectLast) {
    for (const auto& [epoch, grid] : test) {
      if (epoch >= 1 && epoch > chosen) chosen = epoch, score = mean_r1(grid);
    }
  } else {
    const auto by = split_grids(evals, selection == kSelectVal ? val_split : test_split);
    BestEpochSelector best;  // the core's one rule: epoch >= 1, highest mean R@1, earlier on ties
    for (const auto& [epoch, grid] : by) best.offer(epoch, mean_r1(grid));
    chosen = best.epoch();
    score = chosen >= 0 ? best.score() : kNaN;
  }
  const auto it = test.find(chosen);
  if (chosen < 0 || it == test.end()) return r;
  r.epoch = chosen;
  r.recall = it->second;
  r.selection_score = score;
  return r;
}

ExperimentResults experiment_results(const RunStore& store, int64_t experiment_id) {
  const auto experiment = store.find_experiment(experiment_id);
  if (!experiment) {
    throw StoreError(store.path() + ": no experiment with id " + std::to_string(experiment_id));
  }
  ExperimentResults out;
  out.experiment = *experiment;
  ExperimentSpec spec;
  from_json(nlohmann::json::parse(experiment->spec_json), spec);
  out.selection = spec.selection;
  out.controls = spec.controls;

  const auto cells = store.experiment_cells(experiment_id);
  const auto slots = store.experiment_slots(experiment_id);
  // Seeds as stored (an axis named `seed` replaced the list).
  out.seeds.clear();
  for (const auto& slot : slots) {
    if (std::find(out.seeds.begin(), out.seeds.end(), slot.seed) == out.seeds.end())
      out.seeds.push_back(slot.seed);
  }
  std::map<int, CellConfig> configs;
  std::string val_split;
  for (const auto& slot : slots) {
    const auto cj = nlohmann::json::parse(slot.config_json);
    if (!cj.value("val_split", std::string()).empty()) val_split = cj["val_split"];
  }
  // A spec stored before its rule was resolved says "auto": the same resolution as at creation.
  if (out.selection != kSelectVal && out.selection != kSelectLast && out.selection != kSelectTest)
    out.selection = val_split.empty() ? kSelectLast : kSelectVal;
  for (const auto& c : cells) {
    CellResult cr;
    cr.cell = c;
    out.cells.push_back(std::move(cr));
  }
  for (const auto& slot : slots) {
    ++out.runs_total;
    const TrainConfig config = parse_train_config(slot.config_json);
    if (!configs.count(slot.cell)) configs[slot.cell] = {config, control_context(config)};
    if (slot.cell >= 0 && slot.cell < static_cast<int>(out.cells.size()))
      out.cells[slot.cell].test_set = run_test_set(config).key;
    const std::string slot_val =
        nlohmann::json::parse(slot.config_json).value("val_split", std::string());
    SeedResult r;
    r.recall = nan_grid();
    if (slot.run_id != 0) {
      const auto run = store.find_run(slot.run_id);
      if (run) {
        r.run_status = to_string(run->status);
        if (run->status == RunStatus::Finished) {
          r = select_run_epoch(store.epoch_evals(slot.run_id), out.selection, config.test_split,
                               slot_val);
          r.run_status = to_string(run->status);
        }
      }
    }
    r.seed = slot.seed;
    r.run_id = slot.run_id;
    r.reused = slot.reused;
    if (r.epoch >= 0) ++out.runs_finished;
    if (slot.cell >= 0 && slot.cell < static_cast<int>(out.cells.size()))
      out.cells[slot.cell].seeds.push_back(r);
  }
  out.selection_rule = selection_rule_text(out.selection, val_split);

  for (auto& cell : out.cells) {
    std::vector<double> scores;
    for (size_t d = 0; d < 2; ++d) {
      for (size_t k = 0; k < kExperimentKs.size(); ++k) {
        std::vector<double> v;
        for (const auto& s : cell.seeds) v.push_back(s.recall[d][k]);
        cell.summary[d][k] = summarize_seeds(v);
      }
    }
    for (const auto& s : cell.seeds) {
      if (s.epoch >= 0) {
        ++cell.finished;
        scores.push_back(s.selection_score);
      }
    }
    cell.selection_mean = summarize_seeds(scores).mean;
  }

  // Comparisons: every method cell against its controls, paired by seed.
  auto compare = [&](int m, int c, const std::string& kind) {
    ControlComparison cmp;
    cmp.method_cell = m;
    cmp.control_cell = c;
    cmp.kind = kind;
    const auto& ms = out.cells[m].seeds;
    const auto& cs = out.cells[c].seeds;
    for (size_t d = 0; d < 2; ++d) {
      std::vector<double> a, b;
      for (size_t i = 0; i < ms.size() && i < cs.size(); ++i) {
        a.push_back(ms[i].recall[d][0]);
        b.push_back(cs[i].recall[d][0]);
        double p = kNaN;
        if (ms[i].epoch >= 0 && cs[i].epoch >= 0) {
          const auto& test_split = configs[m].config.test_split;
          const auto ra = store.query_ranks(ms[i].run_id, ms[i].epoch, test_split,
                                            kExperimentDirections[d]);
          const auto rb = store.query_ranks(cs[i].run_id, cs[i].epoch, test_split,
                                            kExperimentDirections[d]);
          if (!ra.empty() && ra.size() == rb.size()) {
            int64_t only_a = 0, only_b = 0;
            for (size_t q = 0; q < ra.size(); ++q) {
              const bool hit_a = ra[q].rank == 1, hit_b = rb[q].rank == 1;
              only_a += hit_a && !hit_b;
              only_b += hit_b && !hit_a;
            }
            p = mcnemar_exact_p(only_a, only_b);
          }
        }
        cmp.mcnemar_p[d].push_back(p);
      }
      cmp.r1[d] = compare_paired(a, b);
    }
    out.comparisons.push_back(std::move(cmp));
  };
  // Transfer columns: a run counts where it was evaluated at its selected epoch.
  std::map<std::pair<std::string, std::string>, TransferColumn> transfers;
  std::map<std::pair<std::string, std::string>, std::vector<std::array<std::vector<double>, 2>>> r1s;
  for (size_t c = 0; c < out.cells.size(); ++c) {
    for (const auto& s : out.cells[c].seeds) {
      if (s.epoch < 0 || s.run_id == 0) continue;
      for (const auto& row : store.transfer_evals(s.run_id)) {
        if (row.epoch != s.epoch || row.k != 1) continue;
        const auto key = std::make_pair(row.benchmark, row.split);
        auto& col = transfers[key];
        col.benchmark = row.benchmark;
        col.split = row.split;
        col.images = row.images;
        if (row.training_images)
          col.training_images = std::max(col.training_images.value_or(0), *row.training_images);
        auto& values = r1s[key];
        values.resize(out.cells.size());
        values[c][row.direction == kExperimentDirections[0] ? 0 : 1].push_back(row.recall);
      }
    }
  }
  for (auto& [key, col] : transfers) {
    const auto& values = r1s[key];
    for (size_t c = 0; c < out.cells.size(); ++c) {
      col.r1.push_back({summarize_seeds(values[c][0]), summarize_seeds(values[c][1])});
      col.evaluated.push_back(static_cast<int>(values[c][0].size()));
    }
    out.transfers.push_back(std::move(col));
  }

  for (const auto& mc : out.cells) {
    if (mc.cell.role != kRoleMethod) continue;
    const int m = mc.cell.cell;
    const auto& mconf = configs[m];
    int paired = -1, learnt = -1, strongest = -1;
    double best = -std::numeric_limits<double>::infinity();
    for (const auto& cc : out.cells) {
      const int c = cc.cell.cell;
      if (!is_control_role(cc.cell.role) || configs[c].context != mconf.context) continue;
      const auto& cconf = configs[c].config;
      if (cconf.fixed_scale == mconf.config.fixed_scale &&
          cconf.logit_scale == mconf.config.logit_scale)
        paired = c;
      if (!cconf.fixed_scale && cconf.logit_scale == 0) learnt = c;
      // The earlier cell on ties, as the best epoch (equal hits can differ in the last bit).
      if (score_beats(cc.selection_mean, best)) {
        best = cc.selection_mean;
        strongest = c;
      }
    }
    if (paired >= 0) compare(m, paired, "paired");
    if (learnt >= 0 && learnt != paired) compare(m, learnt, "learnt scale");
    if (strongest >= 0) compare(m, strongest, "strongest");
  }
  return out;
}

}  // namespace hnclip
