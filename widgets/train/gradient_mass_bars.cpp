#include "widgets/train/gradient_mass_bars.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "qcustomplot.h"
#include "widgets/common/hardness_buckets.h"
#include "widgets/common/run_colors.h"

namespace hnclip::gui {
namespace {
constexpr double kGroupWidth = 0.8;  // of one epoch's unit on the key axis, shared by the runs
constexpr double kOutlineWidth = 1.5;
}  // namespace

GradientMassBars::GradientMassBars(QCustomPlot* plot, LabelFn label)
    : plot_(plot), label_(std::move(label)) {}

double GradientMassBars::barWidth() const {
  return kGroupWidth / static_cast<double>(std::max<size_t>(1, runs_.size()));
}

double GradientMassBars::barKey(int index, double epoch) const {
  return epoch - kGroupWidth / 2 + barWidth() * (static_cast<double>(index) + 0.5);
}

std::vector<int64_t> GradientMassBars::runs() const {
  std::vector<int64_t> out;
  for (const auto& [id, r] : runs_) out.push_back(id);
  return out;
}

QCPBars* GradientMassBars::bars(int64_t run_id, int bucket) const {
  const auto it = runs_.find(run_id);
  if (it == runs_.end() || bucket < 0 || bucket >= static_cast<int>(it->second.layers.size()))
    return nullptr;
  return it->second.layers[static_cast<size_t>(bucket)];
}

void GradientMassBars::mirror(const std::map<int64_t, std::vector<CurveSeries>>& model) {
  for (auto it = runs_.begin(); it != runs_.end();) {  // runs the model dropped
    const auto m = model.find(it->first);
    if (m != model.end() && !m->second.empty()) {
      ++it;
      continue;
    }
    for (QCPBars* b : it->second.layers) plot_->removePlottable(b);
    it = runs_.erase(it);
  }
  for (const auto& [id, list] : model) {
    if (list.empty()) continue;
    RunBars& r = runs_[id];
    if (r.layers.empty()) {
      for (int b = 0; b < kHardnessBuckets; ++b) {
        auto* bars = new QCPBars(plot_->xAxis, plot_->yAxis);
        bars->setWidthType(QCPBars::wtPlotCoords);
        if (!r.layers.empty()) bars->moveAbove(r.layers.back());
        r.layers.push_back(bars);
      }
    }
    r.shares.assign(static_cast<size_t>(kHardnessBuckets), {});
    for (size_t b = 0; b < list.size() && b < r.shares.size(); ++b) r.shares[b] = list[b].raw;
  }
  // Keys depend on how many runs share an epoch, so every run's bars are laid out again.
  int index = 0;
  for (auto& [id, r] : runs_) {
    for (size_t b = 0; b < r.layers.size(); ++b) {
      QVector<double> keys, values;
      for (const auto& p : r.shares[b]) {
        keys << barKey(index, p.key);
        values << p.value;
      }
      r.layers[b]->setData(keys, values, true);
      r.layers[b]->setWidth(barWidth());
    }
    styleRun(id, r);
    ++index;
  }
}

void GradientMassBars::styleRun(int64_t run_id, RunBars& r) {
  const QColor outline = run_color(run_id);
  for (size_t b = 0; b < r.layers.size(); ++b) {
    const int bucket = static_cast<int>(b);
    r.layers[b]->setPen(QPen(outline, kOutlineWidth));
    r.layers[b]->setBrush(hardness_bucket_color(bucket));
    r.layers[b]->setName(hardness_bucket_name(bucket));  // the y label names Ḡ
  }
}

void GradientMassBars::restyle() {
  for (auto& [id, r] : runs_) styleRun(id, r);
}

QString GradientMassBars::tooltip(double key) const {
  const double epoch = std::round(key);
  const double w = barWidth();
  const double offset = key - (epoch - kGroupWidth / 2);
  if (offset < 0 || offset >= kGroupWidth) return {};
  const int index = static_cast<int>(offset / w);
  auto it = runs_.begin();
  for (int i = 0; i < index && it != runs_.end(); ++i) ++it;
  if (it == runs_.end()) return {};
  QString rows;
  bool any = false;
  for (int b = kHardnessBuckets - 1; b >= 0; --b) {  // top layer first, as drawn
    const auto& shares = it->second.shares[static_cast<size_t>(b)];
    for (const auto& p : shares) {
      if (p.key != epoch) continue;
      rows += QObject::tr("<br>Ḡ %1: %2%")
                  .arg(hardness_bucket_name(b).toHtmlEscaped())
                  .arg(100.0 * p.value, 0, 'f', 1);
      any = true;
    }
  }
  if (!any) return {};
  return QObject::tr("<b>%1</b> (run %2), epoch %3%4")
      .arg(label_(it->first).toHtmlEscaped())
      .arg(it->first)
      .arg(static_cast<int>(epoch))
      .arg(rows);
}

}  // namespace hnclip::gui
