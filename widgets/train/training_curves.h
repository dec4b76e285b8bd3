#pragma once
// TrainingCurves: the data behind the Train tab's charts, without Qt — per chart, per run and per
// series the points as drawn (zero gradient norms clamped to kZeroClamp and marked), their
// debiased EMA, each chart's bounds, the per-epoch solved fraction (every step's plain InfoNCE)
// and zero-gradient fraction (probes), the per-epoch gradient-mass shares per Ḡ bucket, a resumed
// run's truncation, each run's step → wall-time timeline, and the rows of a chart's CSV.
//
// TrainingPlotsPanel is its QCustomPlot view: it feeds events in and mirrors the series into
// graphs. A series' `revision` changes whenever points were removed, edited or inserted out of
// order, so the view copies only new points after an append and everything after a rewrite; a
// chart's changeCount() tells the view which charts to look at.
// Threading: not thread-safe; one thread (the GUI's) owns it.

#include <climits>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "store/run_store.h"

namespace hnclip::gui {

// Where a chart's data comes from: a repeated step of that stream (a resumed run) truncates it.
enum class CurveSource { Steps, Probes, Evals };

struct CurveChartSpec {
  const char* name;  // API and CSV name ("loss", "grad_norm", ...)
  CurveSource source;
  bool smoothed;                    // an EMA is kept beside the raw values
  bool clamp_zero;                  // values <= 0 are drawn at kZeroClamp and marked
  std::vector<const char*> series;  // series keys ("loss_boosted", "t2i_R@1", ...)
  bool per_epoch;                   // keys are epochs, not steps (one point per epoch)
};

struct CurvePoint {
  double key = 0;  // the training step
  double value = 0;
};

// TensorBoard's debiased EMA: last = w·last + (1−w)·v, shown as last / (1 − w^n), so the first
// points are not pulled towards 0.
struct CurveEma {
  double last = 0;
  int64_t count = 0;
  double add(double v, double w);
};

struct CurveSeries {
  bool present = false;              // has had a point: the view draws a graph for it
  bool has_zeros = false;            // some value was clamped: the view draws zero markers
  std::vector<CurvePoint> raw;       // sorted by key
  std::vector<CurvePoint> smoothed;  // the EMA of raw (smoothed charts only)
  std::vector<CurvePoint> zeros;     // where raw was clamped
  CurveEma ema;
  uint64_t revision = 0;  // bumped on anything but an append at the end
};

// Data bounds of a chart, kept as points arrive so that following the data costs O(1) per point.
// The EMA stays inside the raw values' range, so only raw values count.
struct CurveBounds {
  bool any = false;
  double key_min = 0, key_max = 0, val_min = 0, val_max = 0;
  double pos_min = std::numeric_limits<double>::infinity();  // smallest positive value (log axes)
  void add(double k, double v);
};

// A chart as a table: "step", "wall_time_s", then per run and present series "run<id>:<key>"
// (+ "_smoothed", + "_zero"); one row per (run, step), runs ascending. NaN = an empty cell.
struct CurveTable {
  std::vector<std::string> header;
  std::vector<std::vector<double>> rows;
};

class TrainingCurves {
 public:
  static constexpr double kZeroClamp = 1e-10;  // where a zero gradient norm is drawn on a log axis
  enum ChartIndex : int {
    kLoss,
    kGradNorm,
    kGradRatio,
    kGradCosine,
    kProbeFractions,
    kLr,
    kRecall,
    kGradientMassPlain,    // per epoch, per Ḡ bucket: mean share of the negatives' softmax mass
    kGradientMassBoosted,  // the same under the boosted logits
    kLossTerms,            // a framework's loss terms (train/loss_term.h), unweighted
  };
  static constexpr int kMassBuckets = 5;  // the Ḡ hardness buckets of core/eval/caption_geometry
  static const std::vector<CurveChartSpec>& charts();

  // Feeding. A step at or before a stream's last step (a resumed run repeating the steps after
  // its checkpoint) first drops that stream's points from that step on.
  void addStep(int64_t run, const StepMetricRow& row);
  void addProbe(int64_t run, const ProbeRow& row);
  void beginEval(int64_t run, int64_t step, const std::string& split);  // before its recalls
  void addRecall(int64_t run, int64_t step, const std::string& split, const std::string& direction,
                 int k, double recall);
  // Replaces the run's data with a stored history (evaluation rows of one step form one eval).
  void setHistory(int64_t run, const std::vector<StepMetricRow>& steps,
                  const std::vector<ProbeRow>& probes, const std::vector<EpochEvalRow>& evals);
  void addRun(int64_t run);  // known, with no points yet
  void removeRun(int64_t run);
  std::vector<int64_t> runs() const;  // ascending

  double smoothing() const { return smoothing_; }
  void setSmoothing(double weight);  // recomputes every EMA

  const std::map<int64_t, std::vector<CurveSeries>>& seriesOf(int chart) const;
  const CurveBounds& bounds(int chart) const { return charts_[chart].bounds; }
  uint64_t changeCount(int chart) const { return charts_[chart].changes; }
  // The wall time of a run's step (NaN when the step stream has no such step; 0 for step 0,
  // the starting point's evaluation, which precedes any training).
  double wallTimeAt(int64_t run, double step) const;
  CurveTable table(int chart) const;

 private:
  struct ChartData {
    std::map<int64_t, std::vector<CurveSeries>> runs;  // per run: one entry per spec series
    CurveBounds bounds;
    uint64_t changes = 0;
  };
  // What the per-epoch points are rebuilt from after a truncation or an epoch out of order.
  struct StepFlag {
    int64_t step;
    int epoch;
    bool known;  // loss_standard was recorded (not NaN)
    bool solved;
  };
  struct ProbeFlag {
    int64_t step;
    int epoch;
    bool zero;
    std::vector<double> mass_plain, mass_boosted;
  };
  struct EpochCounts {
    int64_t count = 0, hits = 0;  // steps (probes) of the epoch, and those solved (zero)
    int64_t last_step = 0;
  };
  struct EpochMass {
    int64_t count = 0;  // probes of the epoch with defined shares
    std::vector<double> plain = std::vector<double>(kMassBuckets, 0.0);
    std::vector<double> boosted = std::vector<double>(kMassBuckets, 0.0);
  };
  struct RunData {
    std::vector<double> step_keys, step_walls;  // the step stream's timeline, ascending
    std::vector<StepFlag> steps;
    std::vector<ProbeFlag> probes;
    std::map<int, EpochCounts> solved_epochs;  // from every step's plain InfoNCE loss
    std::map<int, EpochCounts> zero_epochs;    // from the probes' standard gradient norms
    std::map<int, EpochMass> mass_epochs;
    std::map<std::pair<int, int>, int> last_epoch;  // (chart, series) -> epoch of its last point
    bool has_eval = false;
    int64_t last_eval_step = 0;
    std::string eval_split;  // the first split seen; other splits are not mixed into its curves
  };

  CurveSeries& ensureSeries(int chart, int64_t run, int series);
  void addPoint(int chart, int64_t run, int series, double step, double value);
  void truncate(int64_t run, CurveSource source, double step);
  // Sets the point of `epoch` on a per-epoch series: edits its last point while that epoch runs,
  // appends for a later epoch; false for an earlier epoch (the caller rebuilds).
  bool setEpochPoint(int chart, int64_t run, int series, int epoch, double key, double value);
  void addSolvedFlag(int64_t run, const StepFlag& flag);
  void addProbeFlag(int64_t run, const ProbeFlag& flag);
  void rebuildEpochCharts(int64_t run);
  void recomputeSmoothed(CurveSeries& s) const;
  void recomputeBounds(int chart);

  std::vector<ChartData> charts_ = std::vector<ChartData>(charts().size());
  std::map<int64_t, RunData> runs_;
  double smoothing_ = 0.6;
};

}  // namespace hnclip::gui
