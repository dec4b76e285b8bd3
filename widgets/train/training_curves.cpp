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
  // Gradient-mass series: one per Ḡ hardness bucket, in eval/caption_geometry's order.
  static const std::vector<const char*> kMassSeries = {
      "share_lt_0.5", "share_0.5-0.7", "share_0.7-0.8", "share_0.8-0.9", "share_ge_0.9"};
  static const std::vector<CurveChartSpec> kCharts = {
      {"loss", S::Steps, true, false, {"loss_boosted", "loss_standard"}, false},
      {"grad_norm", S::Probes, true, true, {"grad_norm_boosted", "grad_norm_standard"}, false},
      {"grad_ratio", S::Probes, true, false, {"grad_ratio"}, false},
      {"grad_cosine", S::Probes, true, false, {"grad_cosine"}, false},
      // solved_fraction comes from every step (the step stream), zero_grad_fraction from probes.
      {"probe_fractions",
       S::Probes,
       false,
       false,
       {"solved_fraction", "zero_grad_fraction"},
       false},
      {"lr", S::Steps, false, false, {"lr"}, false},
      {"recall",
       S::Evals,
       false,
       false,
       {"t2i_R@1", "t2i_R@5", "t2i_R@10", "i2t_R@1", "i2t_R@5", "i2t_R@10"},
       false},
      {"gradient_mass_plain", S::Probes, false, false, kMassSeries, true},
      {"gradient_mass_boosted", S::Probes, false, false, kMassSeries, true},
      {"loss_terms", S::Steps, true, false, loss_term_names(), false},
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
  const auto& term_names = loss_term_names();
  for (const auto& t : row.loss_terms) {
    const auto at = std::find(term_names.begin(), term_names.end(), t.name);
    if (at != term_names.end())  // a name this build does not know has no series to go to
      addPoint(kLossTerms, run, static_cast<int>(at - term_names.begin()), step, t.value);
  }
  const bool known = std::isfinite(row.loss_standard);
  const StepFlag flag{row.step, row.epoch, known, known && row.loss_standard < kSolvedLoss};
  data.steps.push_back(flag);
  addSolvedFlag(run, flag);
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
  ProbeFlag flag{row.step, row.epoch, row.grad_norm_standard == 0.0, row.mass_share_plain,
                 row.mass_share_boosted};
  data.probes.push_back(flag);
  addProbeFlag(run, data.probes.back());
}

// Per-epoch points: while an epoch runs its point moves (the last point is edited in place;
// earlier epochs are never touched); an epoch out of order redoes the run's per-epoch points.
bool TrainingCurves::setEpochPoint(int chart, int64_t run, int series, int epoch, double key,
                                   double value) {
  RunData& data = runs_[run];
  const auto last = data.last_epoch.find({chart, series});
  CurveSeries& s = ensureSeries(chart, run, series);
  if (last != data.last_epoch.end() && epoch == last->second && !s.raw.empty()) {
    s.raw.back() = {key, value};
    ++s.revision;
    charts_[chart].bounds.add(key, value);
    ++charts_[chart].changes;
    return true;
  }
  if (last == data.last_epoch.end() || epoch > last->second || s.raw.empty()) {
    data.last_epoch[{chart, series}] = epoch;
    addPoint(chart, run, series, key, value);
    return true;
  }
  return false;
}

void TrainingCurves::addSolvedFlag(int64_t run, const StepFlag& flag) {
  if (!flag.known) return;  // a step stored before the plain loss was recorded
  auto& c = runs_[run].solved_epochs[flag.epoch];
  ++c.count;
  c.hits += flag.solved ? 1 : 0;
  c.last_step = std::max(c.last_step, flag.step);
  const double fraction = static_cast<double>(c.hits) / static_cast<double>(c.count);
  if (!setEpochPoint(kProbeFractions, run, 0, flag.epoch, static_cast<double>(c.last_step),
                     fraction)) {
    rebuildEpochCharts(run);
  }
}

void TrainingCurves::addProbeFlag(int64_t run, const ProbeFlag& flag) {
  RunData& data = runs_[run];
  auto& c = data.zero_epochs[flag.epoch];
  ++c.count;
  c.hits += flag.zero ? 1 : 0;
  c.last_step = std::max(c.last_step, flag.step);
  bool in_order =
      setEpochPoint(kProbeFractions, run, 1, flag.epoch, static_cast<double>(c.last_step),
                    static_cast<double>(c.hits) / static_cast<double>(c.count));
  // A probe whose batch carried no negative mass at all (NaN shares) or that predates the
  // recording (no shares) does not enter the epoch's mean.
  bool defined = flag.mass_plain.size() == static_cast<size_t>(kMassBuckets) &&
                 flag.mass_boosted.size() == static_cast<size_t>(kMassBuckets);
  for (size_t b = 0; defined && b < flag.mass_plain.size(); ++b)
    defined = std::isfinite(flag.mass_plain[b]) && std::isfinite(flag.mass_boosted[b]);
  if (defined) {
    auto& m = data.mass_epochs[flag.epoch];
    ++m.count;
    const auto epoch_key = static_cast<double>(flag.epoch);
    for (int b = 0; b < kMassBuckets; ++b) {
      const auto i = static_cast<size_t>(b);
      m.plain[i] += flag.mass_plain[i];
      m.boosted[i] += flag.mass_boosted[i];
      const auto n = static_cast<double>(m.count);
      in_order &= setEpochPoint(kGradientMassPlain, run, b, flag.epoch, epoch_key, m.plain[i] / n);
      in_order &=
          setEpochPoint(kGradientMassBoosted, run, b, flag.epoch, epoch_key, m.boosted[i] / n);
    }
  }
  if (!in_order) rebuildEpochCharts(run);
}

// Redoes every per-epoch point of a run from its step and probe flags (a truncation, or an epoch
// that arrived out of order: rare, so simply redo them).
void TrainingCurves::rebuildEpochCharts(int64_t run) {
  RunData& data = runs_[run];
  data.solved_epochs.clear();
  data.zero_epochs.clear();
  data.mass_epochs.clear();
  data.last_epoch.clear();
  for (const int chart : {kProbeFractions, kGradientMassPlain, kGradientMassBoosted}) {
    const auto it = charts_[chart].runs.find(run);
    if (it == charts_[chart].runs.end()) continue;
    for (auto& s : it->second) {
      if (!s.present) continue;
      s.raw.clear();
      ++s.revision;
    }
  }
  // Sorted by epoch, so every point below is an append.
  std::vector<StepFlag> steps = data.steps;
  std::vector<ProbeFlag> probes = data.probes;
  std::stable_sort(steps.begin(), steps.end(),
                   [](const StepFlag& a, const StepFlag& b) { return a.epoch < b.epoch; });
  std::stable_sort(probes.begin(), probes.end(),
                   [](const ProbeFlag& a, const ProbeFlag& b) { return a.epoch < b.epoch; });
  for (const auto& f : steps) addSolvedFlag(run, f);
  for (const auto& f : probes) addProbeFlag(run, f);
  for (const int chart : {kProbeFractions, kGradientMassPlain, kGradientMassBoosted}) {
    recomputeBounds(chart);
    ++charts_[chart].changes;
  }
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
    while (!data.steps.empty() && static_cast<double>(data.steps.back().step) >= step) {
      data.steps.pop_back();
    }
    rebuildEpochCharts(run);  // the solved fractions come from the steps
  } else if (source == CurveSource::Probes) {
    while (!data.probes.empty() && static_cast<double>(data.probes.back().step) >= step) {
      data.probes.pop_back();
    }
    rebuildEpochCharts(run);  // remove_from above cut the per-epoch charts by step, not epoch
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
  std::vector<Column> columns;
  const ChartData& c = charts_[static_cast<size_t>(chart)];
  const CurveChartSpec& spec = charts()[static_cast<size_t>(chart)];
  out.header = {spec.per_epoch ? "epoch" : "step", "wall_time_s"};
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
      std::vector<double> row{key, spec.per_epoch ? kNaN : wallTimeAt(id, key)};
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
