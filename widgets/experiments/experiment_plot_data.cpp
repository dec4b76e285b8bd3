#include "widgets/experiments/experiment_plot_data.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "train/best_epoch.h"
#include "widgets/experiments/experiment_spec_for_qt.h"

namespace hnclip::gui {
namespace {

constexpr const char* kLabelSeparator = " · ";  // between the parts of a cell's label
constexpr double kPercent = 100.0;              // data fractions are plotted in percent

std::vector<std::string> label_parts(const std::string& label) {
  std::vector<std::string> parts;
  const std::string sep = kLabelSeparator;
  size_t from = 0;
  while (true) {
    const size_t at = label.find(sep, from);
    parts.push_back(label.substr(from, at == std::string::npos ? std::string::npos : at - from));
    if (at == std::string::npos) break;
    from = at + sep.size();
  }
  return parts;
}

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : kLabelSeparator) + p;
  return out;
}

double number_or_nan(const nlohmann::json& v) {
  return v.is_number() ? v.get<double>() : std::numeric_limits<double>::quiet_NaN();
}

// The cell's config without `keys`, as text: cells that differ only in those keys share it.
std::string context_without(const ExperimentSnapshot& s, int cell,
                            std::initializer_list<const char*> keys) {
  nlohmann::json c = cell < static_cast<int>(s.cell_configs.size()) ? s.cell_configs[cell]
                                                                    : nlohmann::json::object();
  for (const char* k : keys) c.erase(k);
  return c.dump();
}

ExperimentPlotPoint point_of(const CellResult& cell, int direction, double x) {
  ExperimentPlotPoint p;
  p.x = x;
  const auto& s = cell.summary[static_cast<size_t>(direction)][0];
  p.mean = s.mean;
  p.std = s.std;
  p.n = s.n;
  p.cell = cell.cell.cell;
  return p;
}

ExperimentPlotBand band_of(const CellResult& cell, int direction, const std::string& name) {
  ExperimentPlotBand b;
  b.name = name;
  b.cell = cell.cell.cell;
  const auto& s = cell.summary[static_cast<size_t>(direction)][0];
  b.mean = s.mean;
  b.std = s.std;
  b.n = s.n;
  return b;
}

void sort_points(std::vector<ExperimentPlotSeries>& series) {
  for (auto& s : series) {
    std::stable_sort(s.points.begin(), s.points.end(),
                     [](const auto& a, const auto& b) { return a.x < b.x; });
  }
}

bool has_two_x(const std::vector<ExperimentPlotSeries>& series) {
  for (const auto& s : series) {
    std::set<double> xs;
    for (const auto& p : s.points) xs.insert(p.x);
    if (xs.size() >= 2) return true;
  }
  return false;
}

}  // namespace

bool GammaSweepPlot::applicable() const { return has_two_x(series); }
bool SampleEfficiencyPlot::applicable() const { return has_two_x(series); }

GammaSweepPlot gamma_sweep_plot(const ExperimentSnapshot& snapshot, int direction) {
  GammaSweepPlot out;
  const auto& cells = snapshot.results.cells;
  std::map<std::string, size_t> series_of;  // (context without γ, Ḡ) + Ḡ -> series index
  std::vector<std::string> series_context;  // each series' context without γ, Ḡ
  std::vector<const CellResult*> zero_cells;
  for (const auto& cell : cells) {
    const int c = cell.cell.cell;
    const std::string& role = cell.cell.role;
    if (role == kRoleLearnableScale || role == kRoleFixedScale) {
      out.bands.push_back(band_of(cell, direction, cell.cell.label));
      continue;
    }
    const double gamma = number_or_nan(snapshot.cellValue(c, "loss_gamma"));
    if (std::isnan(gamma)) continue;
    if (gamma <= 0) {
      zero_cells.push_back(&cell);
      continue;
    }
    const std::string context = context_without(snapshot, c, {"loss_gamma", "loss_gbar"});
    const auto gbar = snapshot.cellValue(c, "loss_gbar");
    const bool frozen = gbar.is_string() && gbar.get<std::string>() == "frozen";
    const std::string key = context + "|" + (frozen ? "frozen" : "recomputed");
    auto it = series_of.find(key);
    if (it == series_of.end()) {
      auto parts = label_parts(cell.cell.label);
      parts.erase(parts.begin());  // the γ part: the x axis says it
      ExperimentPlotSeries s;
      // "HN · s 100 fixed": the margins over γ (the x axis) at everything else of the cell.
      s.name = std::string(frozen ? "HN Ḡ frozen" : "HN") + kLabelSeparator + join(parts);
      it = series_of.emplace(key, out.series.size()).first;
      out.series.push_back(std::move(s));
      series_context.push_back(context);
    }
    out.series[it->second].points.push_back(point_of(cell, direction, gamma));
  }
  // γ = 0 (the paired control, or an axis's own γ = 0) is the point at 0 of every series it
  // shares everything else with; alone, it is a series of its own.
  for (const CellResult* cell : zero_cells) {
    const std::string context =
        context_without(snapshot, cell->cell.cell, {"loss_gamma", "loss_gbar"});
    bool placed = false;
    for (size_t i = 0; i < out.series.size(); ++i) {
      if (series_context[i] != context) continue;
      out.series[i].points.push_back(point_of(*cell, direction, 0.0));
      placed = true;
    }
    if (placed) continue;
    ExperimentPlotSeries s;
    auto parts = label_parts(cell->cell.label);
    parts.erase(parts.begin());
    s.name = join(parts);
    s.control = is_control_role(cell->cell.role);
    s.points.push_back(point_of(*cell, direction, 0.0));
    out.series.push_back(std::move(s));
    series_context.push_back(context);
  }
  sort_points(out.series);
  return out;
}

SampleEfficiencyPlot sample_efficiency_plot(const ExperimentSnapshot& snapshot, int direction) {
  SampleEfficiencyPlot out;
  std::map<std::string, size_t> series_of;
  double largest = -1;
  for (const auto& cell : snapshot.results.cells) {
    const double fraction = number_or_nan(snapshot.cellValue(cell.cell.cell, "data_fraction"));
    if (!std::isnan(fraction)) largest = std::max(largest, fraction);
  }
  const CellResult* strongest = nullptr;
  for (const auto& cell : snapshot.results.cells) {
    const int c = cell.cell.cell;
    const double fraction = number_or_nan(snapshot.cellValue(c, "data_fraction"));
    if (std::isnan(fraction)) continue;
    const bool control = is_control_role(cell.cell.role);
    const std::string key = context_without(snapshot, c, {"data_fraction"});
    auto it = series_of.find(key);
    if (it == series_of.end()) {
      auto parts = label_parts(cell.cell.label);
      parts.erase(
          std::remove_if(parts.begin(), parts.end(),
                         [](const std::string& p) { return p.rfind("data_fraction ", 0) == 0; }),
          parts.end());
      ExperimentPlotSeries s;
      s.name = join(parts);
      s.control = control;
      it = series_of.emplace(key, out.series.size()).first;
      out.series.push_back(std::move(s));
    }
    out.series[it->second].points.push_back(point_of(cell, direction, fraction * kPercent));
    // The strongest simple control is chosen as the core chooses it: on the selection split.
    if (control && fraction == largest && !std::isnan(cell.selection_mean) &&
        (!strongest || score_beats(cell.selection_mean, strongest->selection_mean)))
      strongest = &cell;
  }
  if (strongest) out.strongest_full = band_of(*strongest, direction, strongest->cell.label);
  sort_points(out.series);
  return out;
}

const std::vector<HParamMetric>& hparam_metrics() {
  static const std::vector<HParamMetric> metrics = [] {
    std::vector<HParamMetric> m;
    const char* arrows[] = {" t→i", " i→t"};
    for (int d = 0; d < 2; ++d) {
      for (size_t k = 0; k < kExperimentKs.size(); ++k) {
        m.push_back({"R@" + std::to_string(kExperimentKs[k]) + arrows[d], d, static_cast<int>(k)});
      }
    }
    m.push_back({"selection score (mean R@1)", -1, 0});
    return m;
  }();
  return metrics;
}

std::vector<std::string> hparam_keys(const ExperimentSnapshot& snapshot) {
  std::map<std::string, std::set<std::string>> values;
  for (const auto& config : snapshot.cell_configs) {
    for (const auto& [k, v] : config.items()) values[k].insert(v.dump());
  }
  std::vector<std::string> varying, fixed;
  for (const auto& [k, v] : values) (v.size() > 1 ? varying : fixed).push_back(k);
  varying.insert(varying.end(), fixed.begin(), fixed.end());
  return varying;
}

HParamScatter hparam_scatter(const ExperimentSnapshot& snapshot, const std::string& key,
                             const HParamMetric& metric) {
  HParamScatter out;
  // Words and booleans go on categories, in order of first appearance.
  bool categorical = false;
  for (const auto& config : snapshot.cell_configs) {
    const auto it = config.find(key);
    if (it != config.end() && !it->is_number()) categorical = true;
  }
  for (const auto& cell : snapshot.results.cells) {
    const auto v = snapshot.cellValue(cell.cell.cell, key);
    if (v.is_null()) continue;
    double x = 0;
    if (categorical) {
      const std::string text = v.is_string() ? v.get<std::string>() : v.dump();
      auto at = std::find(out.categories.begin(), out.categories.end(), text);
      if (at == out.categories.end()) at = out.categories.insert(at, text);
      x = static_cast<double>(at - out.categories.begin());
    } else {
      x = v.get<double>();
    }
    for (const auto& s : cell.seeds) {
      if (s.epoch < 0) continue;
      const double y = metric.direction < 0 ? s.selection_score
                                            : s.recall[static_cast<size_t>(metric.direction)]
                                                      [static_cast<size_t>(metric.k_index)];
      if (std::isnan(y)) continue;
      out.points.push_back(
          {x, y, s.run_id, s.seed, cell.cell.cell, is_control_role(cell.cell.role)});
    }
  }
  return out;
}

}  // namespace hnclip::gui
