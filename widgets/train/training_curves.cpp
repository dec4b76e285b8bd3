#include "widgets/train/training_curves.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "train/probe_summary.h"

namespace hnclip::gui {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Inserts like QCPDataContainer::add: appended when not before the last key, else at its sorted
// place (after equal keys). Returns false for an insertion that was not an append.
bool insert_sorted(std::vector<CurvePoint>& points, CurvePoint p) {
  if (points.empty() || !(p.key < points.back().key)) {
    points.push_back(p);
    return true;
  }
  const auto at = std::upper_bound(points.begin(), points.end(), p.key,
                                   [](double k, const CurvePoint& q) { return k < q.key; });
  points.insert(at, p);
  return false;
}

// Drops the points with key >= step (steps are integers).
void remove_from(std::vector<CurvePoint>& points, double step) {
  const double cut = step - 0.5;
  points.erase(std::upper_bound(points.begin(), points.end(), cut,
                                [](double k, const CurvePoint& q) { return k < q.key; }),
               points.end());
}

// The first point at `key` (nullptr when there is none).
const CurvePoint* find_key(const std::vector<CurvePoint>& points, double key) {
  const auto it = std::lower_bound(points.begin(), points.end(), key,
                                   [](const CurvePoint& q, double k) { return q.key < k; });
  return it != points.end() && it->key == key ? &*it : nullptr;
}

}  // namespace

double CurveEma::add(double v, double w) {
  last = last * w + (1 - w) * v;
  ++count;
  const double debias = w == 0 ? 1.0 : 1.0 - std::pow(w, static_cast<double>(count));
  return last / debias;
}

void CurveBounds::add(double k, double v) {
  if (!any) {
    key_min = key_max = k;
    val_min = val_max = v;
    any = true;
  } else {
    key_min = std::min(key_min, k);
    key_max = std::max(key_max, k);
    val_min = std::min(val_min, v);
    val_max = std::max(val_max, v);
  }
  if (v > 0) pos_min = std::min(pos_min, v);
}

const std::vector<CurveChartSpec>& TrainingCurves::charts() {
  using S = CurveSource;
  static const std::vector<CurveChartSpec> kCharts = {
      {"loss", S::Steps, true, false, {"loss_boosted", "loss_standard"}},
      {"grad_norm", S::Probes, true, true, {"grad_norm_boosted", "grad_norm_standard"}},
      {"grad_ratio", S::Probes, true, false, {"grad_ratio"}},
      {"grad_cosine", S::Probes, true, false, {"grad_cosine"}},
      {"probe_fractions", S::Probes, false, false, {"solved_fraction", "zero_grad_fraction"}},
      {"lr", S::Steps, false, false, {"lr"}},
      {"recall",
       S::Evals,
       false,
       false,
       {"t2i_R@1", "t2i_R@5", "t2i_R@10", "i2t_R@1", "i2t_R@5", "i2t_R@10"}},
  };
  return kCharts;
}

const std::map<int64_t, std::vector<CurveSeries>>& TrainingCurves::seriesOf(int chart) const {
  return charts_[static_cast<size_t>(chart)].runs;
}

void TrainingCurves::addRun(int64_t run) { runs_[run]; }

std::vector<int64_t> TrainingCurves::runs() const {
  std::vector<int64_t> out;
  for (const auto& [id, data] : runs_) out.push_back(id);
  return out;
}

CurveSeries& TrainingCurves::ensureSeries(int chart, int64_t run, int series) {
  auto& list = charts_[chart].runs[run];
  if (list.size() < charts()[chart].series.size()) list.resize(charts()[chart].series.size());
  CurveSeries& s = list[static_cast<size_t>(series)];
  s.present = true;
  return s;
}

void TrainingCurves::addPoint(int chart, int64_t run, int series, double step, double value) {
  if (!std::isfinite(value))
    return;  // an infinite ratio / undefined cosine has no place on a curve
  const CurveChartSpec& spec = charts()[chart];
  CurveSeries& s = ensureSeries(chart, run, series);
  const bool clamped = spec.clamp_zero && value <= 0;
  if (clamped) value = kZeroClamp;
  bool appended = insert_sorted(s.raw, {step, value});
  charts_[chart].bounds.add(step, value);
  if (spec.smoothed) appended &= insert_sorted(s.smoothed, {step, s.ema.add(value, smoothing_)});
  if (clamped) {
    s.has_zeros = true;
    appended &= insert_sorted(s.zeros, {step, kZeroClamp});
  }
  if (!appended) ++s.revision;
  ++charts_[chart].changes;
}

void TrainingCurves::recomputeSmoothed(CurveSeries& s) const {
  s.ema = CurveEma{};
  if (s.smoothed.empty() && s.raw.empty()) return;
  s.smoothed.clear();
  for (const auto& p : s.raw) s.smoothed.push_back({p.key, s.ema.add(p.value, smoothing_)});
}

void TrainingCurves::recomputeBounds(int chart) {
  ChartData& c = charts_[chart];
  c.bounds = CurveBounds{};
  for (const auto& [id, list] : c.runs) {
    for (const auto& s : list) {
      for (const auto& p : s.raw) c.bounds.add(p.key, p.value);
    }
  }
}

void TrainingCurves::addStep(int64_t run, const StepMetricRow& row) {
  RunData& data = runs_[run];
  const auto step = static_cast<double>(row.step);
  if (!data.step_keys.empty() && step <= data.step_keys.back())
    truncate(run, CurveSource::Steps, step);
  data.step_keys.push_back(step);
  data.step_walls.push_back(row.wall_time_s);
  addPoint(kLoss, run, 0, step, row.loss);
  addPoint(kLoss, run, 1, step, row.loss_standard);
  addPoint(kLr, run, 0, step, row.lr);
}

void TrainingCurves::addProbe(int64_t run, const ProbeRow& row) {
  RunData& data = runs_[run];
  const auto step = static_cast<double>(row.step);
  if (!data.probes.empty() && row.step <= data.probes.back().step) {
    truncate(run, CurveSource::Probes, step);
  }
  addPoint(kGradNorm, run, 0, step, row.grad_norm_boosted);
  addPoint(kGradNorm, run, 1, step, row.grad_norm_standard);
  addPoint(kGradRatio, run, 0, step, row.grad_ratio);
  addPoint(kGradCosine, run, 0, step, row.grad_cosine);
  const bool solved = row.loss_standard < kSolvedLoss;
  const bool zero = row.grad_norm_standard == 0.0;
  data.probes.push_back({row.step, row.epoch, solved, zero});
  auto& counts = data.epochs[row.epoch];
  ++counts.probes;
  counts.solved += solved ? 1 : 0;
  counts.zero += zero ? 1 : 0;
  counts.last_step = std::max(counts.last_step, row.step);
  updateFractionPoint(run, row.epoch, counts.last_step);
}

// One point per epoch, at the epoch's last probed step: while the epoch runs, its point moves
// (the last point is edited in place; earlier epochs are never touched).
void TrainingCurves::updateFractionPoint(int64_t run, int epoch, int64_t step) {
  RunData& data = runs_[run];
  ChartData& chart = charts_[kProbeFractions];
  const auto& c = data.epochs[epoch];
  const double values[2] = {static_cast<double>(c.solved) / static_cast<double>(c.probes),
                            static_cast<double>(c.zero) / static_cast<double>(c.probes)};
  const auto current = chart.runs.find(run);
  const bool has_point = current != chart.runs.end() && current->second.size() == 2 &&
                         current->second[0].present && current->second[1].present &&
                         !current->second[0].raw.empty() && !current->second[1].raw.empty();
  if (epoch == data.fraction_epoch && has_point) {
    for (int i = 0; i < 2; ++i) {
      CurveSeries& s = ensureSeries(kProbeFractions, run, i);
      s.raw.back() = {static_cast<double>(step), values[i]};
      ++s.revision;
      chart.bounds.add(s.raw.back().key, s.raw.back().value);
    }
    ++chart.changes;
  } else if (epoch > data.fraction_epoch || !has_point) {
    data.fraction_epoch = epoch;
    for (int i = 0; i < 2; ++i)
      addPoint(kProbeFractions, run, i, static_cast<double>(step), values[i]);
  } else {
    rebuildFractions(run);  // an epoch out of order: rare, so simply redo the run's points
  }
}

void TrainingCurves::rebuildFractions(int64_t run) {
  RunData& data = runs_[run];
  ChartData& chart = charts_[kProbeFractions];
  data.epochs.clear();
  for (const auto& p : data.probes) {
    auto& c = data.epochs[p.epoch];
    ++c.probes;
    c.solved += p.solved ? 1 : 0;
    c.zero += p.zero ? 1 : 0;
    c.last_step = std::max(c.last_step, p.step);
  }
  const auto it = chart.runs.find(run);
  if (it != chart.runs.end()) {
    for (auto& s : it->second) {
      if (!s.present) continue;
      s.raw.clear();
      ++s.revision;
    }
  }
  data.fraction_epoch = INT_MIN;
  for (const auto& [epoch, c] : data.epochs) {
    data.fraction_epoch = epoch;
    const auto key = static_cast<double>(c.last_step);
    addPoint(kProbeFractions, run, 0, key, static_cast<double>(c.solved) / c.probes);
    addPoint(kProbeFractions, run, 1, key, static_cast<double>(c.zero) / c.probes);
  }
  recomputeBounds(kProbeFractions);
  ++chart.changes;
}

void TrainingCurves::beginEval(int64_t run, int64_t step, const std::string& split) {
  RunData& data = runs_[run];
  if (data.eval_split.empty()) data.eval_split = split;
  if (split != data.eval_split) return;
  if (data.has_eval && step <= data.last_eval_step) {
    truncate(run, CurveSource::Evals, static_cast<double>(step));
  }
  data.has_eval = true;
  data.last_eval_step = step;
}

void TrainingCurves::addRecall(int64_t run, int64_t step, const std::string& split,
                               const std::string& direction, int k, double recall) {
  if (split != runs_[run].eval_split) return;
  const std::string key = direction + "_R@" + std::to_string(k);
  const auto& series = charts()[kRecall].series;
  for (size_t i = 0; i < series.size(); ++i) {
    if (key == series[i])
      addPoint(kRecall, run, static_cast<int>(i), static_cast<double>(step), recall);
  }
}

// A stream repeated a step (a resumed run redoing the steps after its checkpoint): its points
// from that step on are dropped. O(points), but only on a resume.
void TrainingCurves::truncate(int64_t run, CurveSource source, double step) {
  RunData& data = runs_[run];
  for (size_t c = 0; c < charts_.size(); ++c) {
    if (charts()[c].source != source) continue;
    const auto it = charts_[c].runs.find(run);
    if (it == charts_[c].runs.end()) continue;
    for (auto& s : it->second) {
      remove_from(s.raw, step);
      remove_from(s.smoothed, step);
      remove_from(s.zeros, step);
      if (charts()[c].smoothed) recomputeSmoothed(s);
      ++s.revision;
    }
    recomputeBounds(static_cast<int>(c));
    ++charts_[c].changes;
  }
  if (source == CurveSource::Steps) {
    while (!data.step_keys.empty() && data.step_keys.back() >= step) {
      data.step_keys.pop_back();
      data.step_walls.pop_back();
    }
  } else if (source == CurveSource::Probes) {
    while (!data.probes.empty() && static_cast<double>(data.probes.back().step) >= step) {
      data.probes.pop_back();
    }
    rebuildFractions(run);
  }
}

void TrainingCurves::setHistory(int64_t run, const std::vector<StepMetricRow>& steps,
                                const std::vector<ProbeRow>& probes,
                                const std::vector<EpochEvalRow>& evals) {
  removeRun(run);
  addRun(run);
  for (const auto& row : steps) addStep(run, row);
  for (const auto& row : probes) addProbe(run, row);
  // Stored evaluations are one row per (epoch, direction, K): rows of one step form one eval.
  bool open = false;
  int64_t open_step = 0;
  std::string open_split;
  for (const auto& row : evals) {
    if (!open || row.step != open_step || row.split != open_split) {
      beginEval(run, row.step, row.split);
      open = true;
      open_step = row.step;
      open_split = row.split;
    }
    addRecall(run, row.step, row.split, row.direction, row.k, row.recall);
  }
}

void TrainingCurves::removeRun(int64_t run) {
  for (size_t c = 0; c < charts_.size(); ++c) {
    if (charts_[c].runs.erase(run) == 0) continue;
    recomputeBounds(static_cast<int>(c));
    ++charts_[c].changes;
  }
  runs_.erase(run);
}

void TrainingCurves::setSmoothing(double weight) {
  smoothing_ = weight;
  for (size_t c = 0; c < charts_.size(); ++c) {
    if (!charts()[c].smoothed) continue;
    for (auto& [id, list] : charts_[c].runs) {
      for (auto& s : list) {
        if (!s.present) continue;
        recomputeSmoothed(s);
        ++s.revision;
      }
    }
    ++charts_[c].changes;
  }
}

double TrainingCurves::wallTimeAt(int64_t run, double step) const {
  const auto it = runs_.find(run);
  if (it != runs_.end()) {
    const auto& keys = it->second.step_keys;
    const auto pos = std::lower_bound(keys.begin(), keys.end(), step);
    if (pos != keys.end() && *pos == step) {
      return it->second.step_walls[static_cast<size_t>(pos - keys.begin())];
    }
  }
  if (step == 0) return 0;  // the starting point (epoch-0 evaluation) precedes any training time
  return kNaN;
}

CurveTable TrainingCurves::table(int chart) const {
  struct Column {
    int64_t run;
    const std::vector<CurvePoint>* points;
    bool flag;  // "_zero": 1 where the series has a point
  };
  CurveTable out;
  out.header = {"step", "wall_time_s"};
  std::vector<Column> columns;
  const ChartData& c = charts_[static_cast<size_t>(chart)];
  const CurveChartSpec& spec = charts()[static_cast<size_t>(chart)];
  for (const auto& [id, list] : c.runs) {
    for (size_t i = 0; i < list.size(); ++i) {
      const CurveSeries& s = list[i];
      if (!s.present) continue;
      const std::string base = "run" + std::to_string(id) + ":" + spec.series[i];
      out.header.push_back(base);
      columns.push_back({id, &s.raw, false});
      if (spec.smoothed) {
        out.header.push_back(base + "_smoothed");
        columns.push_back({id, &s.smoothed, false});
      }
      if (s.has_zeros) {
        out.header.push_back(base + "_zero");
        columns.push_back({id, &s.zeros, true});
      }
    }
  }
  for (const auto& [id, list] : c.runs) {
    // This run's steps: the union of its series' keys.
    std::vector<double> keys;
    for (const auto& col : columns) {
      if (col.run != id) continue;
      for (const auto& p : *col.points) keys.push_back(p.key);
    }
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    for (const double key : keys) {
      std::vector<double> row{key, wallTimeAt(id, key)};
      for (const auto& col : columns) {
        const CurvePoint* p = col.run == id ? find_key(*col.points, key) : nullptr;
        row.push_back(p ? (col.flag ? 1.0 : p->value) : kNaN);
      }
      out.rows.push_back(std::move(row));
    }
  }
  return out;
}

}  // namespace hnclip::gui
