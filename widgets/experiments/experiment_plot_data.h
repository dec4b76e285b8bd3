#pragma once
// The numbers behind the Experiments tab's plots, taken from an ExperimentSnapshot without any
// drawing, so tests can check them:
//  - the γ sweep (Table 3 / A6): mean R@1 against γ with the std as error bars, one series per
//    setting of everything else (a scale, a data fraction, …; the γ = 0 cell with everything else
//    equal is the series' point at 0), and the other controls (learnt scale, fixed scales) as
//    horizontal bands mean ± std;
//  - sample efficiency (Fig. 6 / A9): mean R@1 against the data fraction, one series per method
//    or control, and the strongest control's level at the largest fraction (a dotted line);
//  - the hyper-parameter view (in the spirit of TensorBoard's HParams): any config key against any
//    metric, one point per run with a result; a key whose values are words or booleans is placed
//    on categories.
// Plain values and pure functions: any thread.

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "widgets/experiments/experiment_snapshot.h"

namespace hnclip::gui {

struct ExperimentPlotPoint {
  double x = 0;
  double mean = std::numeric_limits<double>::quiet_NaN();
  double std = std::numeric_limits<double>::quiet_NaN();  // NaN below two seeds
  int n = 0;                                              // seeds with a result
  int cell = 0;
};

struct ExperimentPlotSeries {
  std::string name;
  bool control = false;                     // every point is a control cell's
  std::vector<ExperimentPlotPoint> points;  // by x
};

struct ExperimentPlotBand {
  std::string name;
  int cell = 0;
  double mean = std::numeric_limits<double>::quiet_NaN();
  double std = std::numeric_limits<double>::quiet_NaN();
  int n = 0;
};

struct GammaSweepPlot {
  std::vector<ExperimentPlotSeries> series;
  std::vector<ExperimentPlotBand> bands;  // controls that are not a series' γ = 0 point
  // False when no series has two γ values: the experiment does not sweep γ.
  bool applicable() const;
};

struct SampleEfficiencyPlot {
  std::vector<ExperimentPlotSeries> series;  // x: data fraction in percent
  // The strongest control (best selection score) at the largest fraction; its mean R@1.
  std::optional<ExperimentPlotBand> strongest_full;
  bool applicable() const;  // some series has two fractions
};

// `direction`: 0 text→image, 1 image→text. R@1 at each run's selected epoch.
GammaSweepPlot gamma_sweep_plot(const ExperimentSnapshot& snapshot, int direction);
SampleEfficiencyPlot sample_efficiency_plot(const ExperimentSnapshot& snapshot, int direction);

// The metrics the hyper-parameter view offers: R@K of both directions, then the selection score.
struct HParamMetric {
  std::string name;    // "R@1 t→i", …, "selection score (mean R@1)"
  int direction = -1;  // -1: the selection score
  int k_index = 0;     // into kExperimentKs
};
const std::vector<HParamMetric>& hparam_metrics();

// The config keys of the experiment's cells, the keys whose values differ between cells first
// (each group alphabetical).
std::vector<std::string> hparam_keys(const ExperimentSnapshot& snapshot);

struct HParamPoint {
  double x = 0;
  double y = 0;
  int64_t run_id = 0;
  int64_t seed = 0;
  int cell = 0;
  bool control = false;
};
struct HParamScatter {
  std::vector<HParamPoint> points;
  // The key's values in order when they are words or booleans (x is then their index).
  std::vector<std::string> categories;
};
HParamScatter hparam_scatter(const ExperimentSnapshot& snapshot, const std::string& key,
                             const HParamMetric& metric);

}  // namespace hnclip::gui
