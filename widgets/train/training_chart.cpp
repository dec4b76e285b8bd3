#include "widgets/train/training_chart.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QMouseEvent>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>

#include "qcustomplot.h"
#include "train/probe_summary.h"
#include "widgets/common/hardness_buckets.h"
#include "widgets/common/elided_legend_item.h"
#include "widgets/common/legend_below.h"
#include "widgets/common/plot_export.h"
#include "widgets/common/plot_style.h"
#include "widgets/common/run_colors.h"
#include "widgets/train/chart_wheel_router.h"
#include "widgets/train/gradient_mass_bars.h"
#include "widgets/train/training_chart_look.h"

namespace hnclip::gui {
namespace {
constexpr int kRawAlpha = 70;  // the raw curve under its EMA: visible, not dominant
// Pens stay 1 px: Qt's raster engine draws those (dashes and antialiasing included) with its fast
// cosmetic stroker, wider ones through QStroker, which was ~10–100× slower on dense curves.
constexpr double kPenWidth = 1;
constexpr double kMarkerSize = 6;  // px; per-epoch points and zero-gradient markers
constexpr int kMaxMarkedPoints =
    250;  // denser per-epoch curves drop their markers (unreadable, slow)
constexpr int kTooltipRadiusPx = 24;    // farther than this from every point: no tooltip
constexpr double kLinearMargin = 0.05;  // fraction of the value span added above and below
constexpr double kLogMargin = 1.5;      // factor below the smallest / above the largest value
constexpr int kExportWidth = 800;       // export size when the chart is not on screen
constexpr int kExportHeight = 500;
constexpr int kMinChartWidth = TrainingChart::kMinWidth;
constexpr int kMinChartHeight = 220;
constexpr int kLegendColumns = 3;        // recall: per run, t2i on one row, i2t on the next
constexpr int kNarrowLegendColumns = 2;  // other charts stand half width: two items a row
constexpr double kUnitPad = 0.03;        // fraction charts: [0, 1] and a little room at the top
constexpr double kEpochPad = 0.6;        // per-epoch bar charts: half a bar group beyond each end
constexpr int kMessageAlpha = 200;       // empty-chart message: text colour, slightly muted

QString wallTimeText(double s) {
  if (!std::isfinite(s)) return QStringLiteral("–");
  const auto total = static_cast<int64_t>(s);
  return QStringLiteral("%1:%2:%3 (%4 s)")
      .arg(total / 3600)
      .arg((total / 60) % 60, 2, 10, QLatin1Char('0'))
      .arg(total % 60, 2, 10, QLatin1Char('0'))
      .arg(s, 0, 'f', 1);
}

// Copies points [from, end) of a model series into a graph.
void add_points(QCPGraph* graph, const std::vector<CurvePoint>& points, size_t from) {
  for (size_t i = from; i < points.size(); ++i) graph->addData(points[i].key, points[i].value);
}
void set_points(QCPGraph* graph, const std::vector<CurvePoint>& points) {
  QVector<double> keys, values;
  keys.reserve(static_cast<int>(points.size()));
  values.reserve(static_cast<int>(points.size()));
  for (const auto& p : points) {
    keys << p.key;
    values << p.value;
  }
  graph->setData(keys, values, true);
}
}  // namespace

struct TrainingChart::SeriesGraphs {
  QCPGraph* raw = nullptr;
  QCPGraph* smoothed = nullptr;
  QCPGraph* zeros = nullptr;
  uint64_t revision = 0;  // the model series' revision these graphs mirror
};

TrainingChart::TrainingChart(const TrainingCurves& curves, int index, LabelFn label,
                             const QFont& font, QWidget* parent)
    : QWidget(parent),
      curves_(curves),
      index_(index),
      spec_(&training_chart_looks()[static_cast<size_t>(index)]),
      data_(&TrainingCurves::charts()[static_cast<size_t>(index)]),
      label_(std::move(label)),
      log_(spec_->logDefault) {
  buildFrame(font);
}

TrainingChart::~TrainingChart() = default;

void TrainingChart::buildFrame(const QFont& font) {
  auto* v = new QVBoxLayout(this);
  v->setContentsMargins(0, 0, 0, 0);
  v->setSpacing(1);
  auto* header = new QHBoxLayout;
  auto* title = new QLabel(QStringLiteral("<b>%1</b>").arg(tr(spec_->title)), this);
  if (*spec_->tooltip) title->setToolTip(tr(spec_->tooltip));
  title->setWordWrap(true);  // a long title wraps instead of widening a half-width column
  header->addWidget(title, 1);

  followButton_ = new QToolButton(this);
  followButton_->setText(tr("Follow"));
  followButton_->setCheckable(true);
  followButton_->setChecked(true);
  followButton_->setToolTip(
      tr("Follow the data (auto-range). A zoom or pan stops following; click here, double-click "
         "the chart or press F on it to follow again."));
  connect(followButton_, &QToolButton::toggled, this, [this](bool on) {
    if (on) {
      resetView();
    } else {
      setUserView(true);
    }
  });
  header->addWidget(followButton_);

  logButton_ = new QToolButton(this);
  logButton_->setText(tr("log"));
  logButton_->setCheckable(true);
  logButton_->setChecked(log_);
  logButton_->setToolTip(tr("Logarithmic y axis"));
  logButton_->setVisible(!spec_->bars);  // shares of a whole stack: linear only
  connect(logButton_, &QToolButton::toggled, this, &TrainingChart::logToggled);
  header->addWidget(logButton_);

  auto* exportButton = new QToolButton(this);
  exportButton->setText(tr("Export"));
  exportButton->setPopupMode(QToolButton::InstantPopup);
  auto* menu = new QMenu(exportButton);
  for (const char* format : {"png", "svg", "pdf", "csv"}) {
    const QString f = QString::fromLatin1(format);
    menu->addAction(tr("%1…").arg(f.toUpper()), this, [this, f] { emit exportRequested(f); });
  }
  exportButton->setMenu(menu);
  header->addWidget(exportButton);
  v->addLayout(header);

  auto* plot = new QCustomPlot(this);
  plot_ = plot;
  plot->setMinimumSize(kMinChartWidth, kMinChartHeight);
  plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  new ChartWheelRouter(plot, [this] { resetView(); });  // wheel: the page's; Ctrl+wheel: zoom
  plot->setNoAntialiasingOnDrag(true);
  plot->setPlottingHint(QCP::phFastPolylines,
                        true);               // solid wide pens (the EMA) without the stroker
  plot->setAutoAddPlottableToLegend(false);  // rebuildLegend() lays the legend out by run
  plot->xAxis->setLabel(data_->per_epoch ? tr("epoch") : tr("step"));
  plot->yAxis->setLabel(tr(spec_->yLabel));
  apply_plot_fonts(plot, font);
  // The legend sits below the axis rect once the chart has a run (rebuildLegend).
  place_legend_below(plot);
  plot->plotLayout()->setRowSpacing(0);
  plot->legend->setIconSize(24, 10);
  plot->legend->setMargins(QMargins(4, 1, 4, 1));
  if (data_->per_epoch) {
    QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
    ticker->setTickStep(1);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    plot->xAxis->setTicker(ticker);
    bars_ = std::make_unique<GradientMassBars>(plot, label_);
    plot->legend->setIconSize(10, 10);  // five bucket swatches must fit a half-width chart
  }
  if (spec_->threshold > 0) {
    thresholdLine_ = new QCPItemStraightLine(plot);
    thresholdLine_->point1->setCoords(0, spec_->threshold);
    thresholdLine_->point2->setCoords(1, spec_->threshold);
    thresholdText_ = new QCPItemText(plot);
    thresholdText_->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
    thresholdText_->position->setTypeY(QCPItemPosition::ptPlotCoords);
    thresholdText_->position->setCoords(0.01, spec_->threshold);
    thresholdText_->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
    thresholdText_->setText(tr("solved < %1").arg(spec_->threshold));
    thresholdText_->setFont(plot->xAxis->tickLabelFont());
  }
  emptyText_ = new QCPItemText(plot);
  emptyText_->position->setType(QCPItemPosition::ptAxisRectRatio);
  emptyText_->position->setCoords(0.5, 0.5);
  emptyText_->setPositionAlignment(Qt::AlignCenter);
  emptyText_->setTextAlignment(Qt::AlignHCenter);
  // Three short lines: on one line the message is wider than a half-width chart's axis rect and
  // was clipped at both ends.
  emptyText_->setText(tr("No data yet:\npress Start (Ctrl+R)\nor select a run"));
  applyScale();

  // Any range change we did not make ourselves is the user's zoom or pan.
  auto userMoved = [this](const QCPRange&) {
    if (!settingRange_) setUserView(true);
  };
  connect(plot->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, userMoved);
  connect(plot->yAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, userMoved);
  connect(plot->yAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
          &TrainingChart::updateTickFormat);
  connect(plot, &QCustomPlot::mouseDoubleClick, this, [this](QMouseEvent*) { resetView(); });
  connect(plot, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
    if (e->buttons() == Qt::NoButton) showTooltip(e->position());
  });
  v->addWidget(plot, 1);
}

QString TrainingChart::name() const { return QString::fromLatin1(data_->name); }

QString TrainingChart::title() const { return tr(spec_->title); }

QCPGraph* TrainingChart::graph(int64_t run_id, const QString& series, GraphRole role) const {
  const auto run = runs_.find(run_id);
  if (run == runs_.end()) return nullptr;
  for (size_t i = 0; i < spec_->series.size(); ++i) {
    if (series != QLatin1String(data_->series[i]) || i >= run->second.size()) continue;
    const SeriesGraphs& s = run->second[i];
    switch (role) {
      case GraphRole::Raw:
        return s.raw;
      case GraphRole::Smoothed:
        return s.smoothed;
      case GraphRole::ZeroMarks:
        return s.zeros;
    }
  }
  return nullptr;
}

QCPBars* TrainingChart::bars(int64_t run_id, int bucket) const {
  return bars_ ? bars_->bars(run_id, bucket) : nullptr;
}

QString TrainingChart::emptyMessage() const {
  return emptyText_ && emptyText_->visible() ? emptyText_->text() : QString();
}

// ---------------------------------------------------------------- graphs

void TrainingChart::styleSeries(int64_t run_id, int series, SeriesGraphs& s) {
  const TrainingSeriesLook& spec = spec_->series[static_cast<size_t>(series)];
  const QColor color = run_color(run_id);
  const QString name = QStringLiteral("%1 · %2").arg(label_(run_id), tr(spec.label));
  if (s.smoothed) {
    QColor faint = color;
    faint.setAlpha(kRawAlpha);
    s.raw->setPen(
        QPen(faint, kPenWidth));   // solid: a dashed pattern over thousands of raw points is noise
    s.raw->setAntialiased(false);  // dense, noisy and faint: antialiasing costs most of a replot
    s.raw->removeFromLegend();
    s.smoothed->setPen(QPen(color, kPenWidth, spec.style));
    s.smoothed->setName(name);
  } else {
    s.raw->setPen(QPen(color, kPenWidth, spec.style));
    s.raw->setScatterStyle(s.raw->dataCount() <= kMaxMarkedPoints &&
                                   spec.shape != QCPScatterStyle::ssNone
                               ? QCPScatterStyle(spec.shape, color, color, kMarkerSize)
                               : QCPScatterStyle());
    s.raw->setName(name);
  }
  if (s.zeros) {
    s.zeros->setLineStyle(QCPGraph::lsNone);
    s.zeros->setPen(
        QPen(color, kPenWidth));  // the legend icon and the markers share the run's colour
    s.zeros->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCrossCircle, QPen(color, kPenWidth),
                                             Qt::NoBrush, kMarkerSize + 2));
    s.zeros->setName(tr("%1 = 0 (at 1e-10)").arg(name));
  }
}

bool TrainingChart::restyleRun(int64_t run_id) {
  if (bars_) {
    const auto ids = bars_->runs();
    if (std::find(ids.begin(), ids.end(), run_id) == ids.end()) return false;
    bars_->restyle();
    rebuildLegend();
    return true;
  }
  const auto it = runs_.find(run_id);
  if (it == runs_.end()) return false;
  for (size_t i = 0; i < it->second.size(); ++i) {
    if (it->second[i].raw) styleSeries(run_id, static_cast<int>(i), it->second[i]);
  }
  rebuildLegend();
  return true;
}

// One legend row (or, for many series, a few rows) per run, runs in ascending id: the recall
// chart's six series of a run stay together. Rebuilt whenever graphs appear, vanish or are
// renamed; items copy the legend's colours and font when made.
void TrainingChart::rebuildLegend() {
  QCPLegend* legend = plot_->legend;
  legend->clearItems();
  legend->simplify();
  if (bars_) {
    // Buckets are coloured alike in every run: one row of bucket swatches, from the first run.
    const auto ids = bars_->runs();
    for (int b = 0; !ids.empty() && b < kHardnessBuckets; ++b) {
      if (QCPBars* bars = bars_->bars(ids.front(), b))
        legend->addElement(0, b, new QCPPlottableLegendItem(legend, bars));
    }
  } else {
    int row = 0;
    for (const auto& [id, list] : runs_) {
      std::vector<QCPAbstractPlottable*> items;
      for (const auto& s : list) {
        if (!s.raw) continue;
        items.push_back(s.smoothed ? s.smoothed : s.raw);
        if (s.zeros) items.push_back(s.zeros);
      }
      if (items.empty()) continue;
      const int columns = spec_->series.size() > static_cast<size_t>(kLegendColumns)
                              ? kLegendColumns
                              : std::min(kNarrowLegendColumns, static_cast<int>(items.size()));
      for (size_t k = 0; k < items.size(); ++k) {
        legend->addElement(row + static_cast<int>(k) / columns, static_cast<int>(k) % columns,
                           new ElidedLegendItem(legend, items[k]));
      }
      row += (static_cast<int>(items.size()) + columns - 1) / columns;
    }
  }
  place_legend_below(plot_);
}

// Brings one series' graphs up to its model series: new points are appended, a rewritten series
// (truncated, edited, re-smoothed) is copied whole. Restyled when created, rewritten, or when it
// crosses the point count above which markers are dropped.
void TrainingChart::mirrorSeries(int64_t run_id, int series, const CurveSeries& m,
                                 SeriesGraphs& v) {
  bool restyle = false;
  if (!v.raw) {
    v.raw = plot_->addGraph();
    v.raw->setAdaptiveSampling(true);
    if (data_->smoothed) v.smoothed = plot_->addGraph();
    v.revision = m.revision;
    restyle = true;
  }
  if (m.has_zeros && !v.zeros) {
    v.zeros = plot_->addGraph();
    restyle = true;
  }
  const int before = v.raw->dataCount();
  if (v.revision != m.revision) {
    v.revision = m.revision;
    set_points(v.raw, m.raw);
    if (v.smoothed) set_points(v.smoothed, m.smoothed);
    if (v.zeros) set_points(v.zeros, m.zeros);
    restyle = true;
  } else {
    add_points(v.raw, m.raw, static_cast<size_t>(v.raw->dataCount()));
    if (v.smoothed)
      add_points(v.smoothed, m.smoothed, static_cast<size_t>(v.smoothed->dataCount()));
    if (v.zeros) add_points(v.zeros, m.zeros, static_cast<size_t>(v.zeros->dataCount()));
  }
  const int after = v.raw->dataCount();
  if ((before <= kMaxMarkedPoints) != (after <= kMaxMarkedPoints)) restyle = true;
  if (restyle) styleSeries(run_id, series, v);
}

bool TrainingChart::mirror() {
  const uint64_t changes = curves_.changeCount(index_);
  if (changes == seenChanges_) return false;
  seenChanges_ = changes;
  const auto& model = curves_.seriesOf(index_);
  if (bars_) {
    bars_->mirror(model);
    rebuildLegend();
    return true;
  }
  size_t graphsBefore = 0;
  for (const auto& [id, list] : runs_) {
    for (const auto& v : list) graphsBefore += (v.raw ? 1 : 0) + (v.zeros ? 1 : 0);
  }
  for (auto it = runs_.begin(); it != runs_.end();) {  // runs the model dropped
    if (model.count(it->first)) {
      ++it;
      continue;
    }
    for (auto& s : it->second) {
      for (QCPGraph* g : {s.raw, s.smoothed, s.zeros}) {
        if (g) plot_->removeGraph(g);
      }
    }
    it = runs_.erase(it);
  }
  for (const auto& [run_id, list] : model) {
    auto& views = runs_[run_id];
    if (views.size() < list.size()) views.resize(list.size());
    for (size_t i = 0; i < list.size(); ++i) {
      if (list[i].present) mirrorSeries(run_id, static_cast<int>(i), list[i], views[i]);
    }
  }
  size_t graphsAfter = 0;
  for (const auto& [id, list] : runs_) {
    for (const auto& v : list) graphsAfter += (v.raw ? 1 : 0) + (v.zeros ? 1 : 0);
  }
  if (graphsAfter != graphsBefore) rebuildLegend();
  return true;
}

// ---------------------------------------------------------------- scale, view, palette

void TrainingChart::setLogScale(bool log) {
  log_ = log;
  {
    const QSignalBlocker block(logButton_);
    logButton_->setChecked(log);
  }
  applyScale();
  setUserView(false);  // the old view means nothing on the other scale
}

void TrainingChart::setUserView(bool user) {
  userView_ = user;
  const QSignalBlocker block(followButton_);
  followButton_->setChecked(!user);
}

void TrainingChart::updateEmptyMessage() { emptyText_->setVisible(!curves_.bounds(index_).any); }

void TrainingChart::applyScale() {
  QCPAxis* y = plot_->yAxis;
  settingRange_ = true;
  if (log_) {
    y->setScaleType(QCPAxis::stLogarithmic);
    y->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTickerLog));
  } else {
    y->setScaleType(QCPAxis::stLinear);
    y->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
  }
  settingRange_ = false;
  applyAutoRange();
  updateTickFormat(y->range());
}

void TrainingChart::updateTickFormat(const QCPRange& range) {
  QCPAxis* y = plot_->yAxis;
  // A log axis over a decade and more has ticks at powers of ten: "10⁻²". Over less,
  // QCPAxisTickerLog falls back to linear ticks (fewer than 1.6 decades), which "10⁻²" style at
  // no decimals printed alike: 0.45 and 0.5 both as 5·10⁻¹, 0.8, 1 and 1.2 all as 10⁰ (a
  // gradient ratio near 1). Such ticks, and linear ones, get plain numbers with as many
  // significant digits as the tick spacing needs (about a fifth of the range).
  const bool decades = log_ && range.lower > 0 && range.upper / range.lower >= std::pow(10.0, 1.6);
  if (decades) {
    y->setNumberFormat(QStringLiteral("eb"));
    y->setNumberPrecision(0);
    return;
  }
  const double magnitude = std::max(std::abs(range.lower), std::abs(range.upper));
  const double spacing = range.size() / 5;
  int digits = 4;
  if (magnitude > 0 && spacing > 0 && std::isfinite(magnitude) && std::isfinite(spacing)) {
    const int needed = static_cast<int>(std::floor(std::log10(magnitude))) -
                       static_cast<int>(std::floor(std::log10(spacing))) + 2;
    digits = std::clamp(needed, 4, 12);
  }
  y->setNumberFormat(QStringLiteral("g"));
  y->setNumberPrecision(digits);
}

void TrainingChart::applyAutoRange() {
  const CurveBounds& b = curves_.bounds(index_);
  updateEmptyMessage();
  settingRange_ = true;
  if (!b.any) {
    plot_->xAxis->setRange(data_->per_epoch ? 0.5 : 0, data_->per_epoch ? 1.5 : 1);
    plot_->yAxis->setRange(log_ ? 1e-3 : 0, 1);
  } else if (data_->per_epoch) {
    plot_->xAxis->setRange(b.key_min - kEpochPad, b.key_max + kEpochPad);
  } else {
    // Per-epoch markers (fraction charts) would be cut in half at the ends without a margin.
    const double span = b.key_max - b.key_min;
    const double kPad = span > 0 ? (spec_->unitRange ? span * kLinearMargin : 0) : 1;
    plot_->xAxis->setRange(b.key_min - kPad, b.key_max + kPad);
  }
  if (b.any && spec_->unitRange && !log_) {
    plot_->yAxis->setRange(0, 1 + kUnitPad);
  } else if (b.any && log_) {
    double lo = std::isfinite(b.pos_min) ? b.pos_min : 1e-3;
    double hi = std::max(b.val_max, lo);
    if (spec_->threshold > 0) {  // the "solved" line stays in sight: how far the loss has to go
      lo = std::min(lo, spec_->threshold);
      hi = std::max(hi, spec_->threshold);
    }
    plot_->yAxis->setRange(lo / kLogMargin, hi * kLogMargin);
  } else if (b.any) {
    const double span = b.val_max - b.val_min;
    if (span == 0 && b.val_max == 0) {
      plot_->yAxis->setRange(0, 1);  // all zero: a readable axis, not ±1e-12
    } else {
      const double pad = span > 0 ? span * kLinearMargin : std::abs(b.val_max) * 0.1;
      plot_->yAxis->setRange(b.val_min - pad, b.val_max + pad);
    }
  }
  settingRange_ = false;
}

void TrainingChart::resetView() {
  setUserView(false);
  applyAutoRange();
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void TrainingChart::replot(bool immediate) {
  if (!userView_) applyAutoRange();
  updateEmptyMessage();
  plot_->replot(immediate ? QCustomPlot::rpImmediateRefresh : QCustomPlot::rpQueuedReplot);
}

void TrainingChart::applyPalette(const QPalette& palette) {
  apply_plot_palette(plot_, palette);
  apply_toggle_palette(logButton_, palette);
  apply_toggle_palette(followButton_, palette);
  QColor message = palette.color(QPalette::WindowText);
  message.setAlpha(kMessageAlpha);
  emptyText_->setColor(message);
  if (thresholdLine_) {
    QColor line = palette.color(QPalette::WindowText);
    line.setAlpha(150);
    thresholdLine_->setPen(QPen(line, kPenWidth, Qt::DotLine));
    thresholdText_->setColor(line);
  }
  rebuildLegend();  // legend items copy the legend's text colour when made
}

// ---------------------------------------------------------------- tooltip

void TrainingChart::showTooltip(const QPointF& pos) {
  QCustomPlot* p = plot_;
  const double key = p->xAxis->pixelToCoord(pos.x());
  if (bars_) {
    const QString text = bars_->tooltip(key);
    if (text.isEmpty()) {
      QToolTip::hideText();
    } else {
      QToolTip::showText(p->mapToGlobal(pos.toPoint()), text, p);
    }
    return;
  }
  double best = static_cast<double>(kTooltipRadiusPx) * kTooltipRadiusPx;
  const SeriesGraphs* hit = nullptr;
  int64_t hitRun = 0;
  size_t hitSeries = 0;
  double hitKey = 0, hitValue = 0;
  for (const auto& [id, list] : runs_) {
    for (size_t i = 0; i < list.size(); ++i) {
      if (!list[i].raw) continue;
      const auto data = list[i].raw->data();
      if (data->isEmpty()) continue;
      // Binary search: the two points around the cursor's key (O(log n) per curve).
      const int after = static_cast<int>(data->findBegin(key, false) - data->constBegin());
      for (const int index : {after - 1, after}) {
        if (index < 0 || index >= data->size()) continue;
        const auto it = data->at(index);
        const double dx = p->xAxis->coordToPixel(it->key) - pos.x();
        const double dy = p->yAxis->coordToPixel(it->value) - pos.y();
        const double d = dx * dx + dy * dy;
        if (d <= best) {
          best = d;
          hit = &list[i];
          hitRun = id;
          hitSeries = i;
          hitKey = it->key;
          hitValue = it->value;
        }
      }
    }
  }
  if (!hit) {
    QToolTip::hideText();
    return;
  }
  QString valueText = QString::number(hitValue, 'g', 6);
  if (hit->zeros && hitValue == TrainingCurves::kZeroClamp) {
    const auto z = hit->zeros->data()->findBegin(hitKey, false);
    if (z != hit->zeros->data()->constEnd() && z->key == hitKey)
      valueText = tr("0 (drawn at 1e-10)");
  }
  QString text = QStringLiteral("<b>%1</b> (run %2)<br>%3: %4")
                     .arg(label_(hitRun).toHtmlEscaped())
                     .arg(hitRun)
                     .arg(tr(spec_->series[hitSeries].label).toHtmlEscaped(), valueText);
  if (hit->smoothed) {
    const auto s = hit->smoothed->data()->findBegin(hitKey, false);
    if (s != hit->smoothed->data()->constEnd() && s->key == hitKey) {
      text += tr("<br>smoothed: %1").arg(QString::number(s->value, 'g', 6));
    }
  }
  text += tr("<br>step %1<br>wall time %2")
              .arg(static_cast<qint64>(hitKey))
              .arg(wallTimeText(curves_.wallTimeAt(hitRun, hitKey)));
  QToolTip::showText(p->mapToGlobal(pos.toPoint()), text, p);
}

// ---------------------------------------------------------------- export

bool TrainingChart::exportTo(const QString& path, QString* error) {
  if (!userView_) applyAutoRange();
  const bool onScreen = plot_->isVisible() && plot_->width() >= kMinChartWidth / 2;
  const int w = onScreen ? plot_->width() : kExportWidth;
  const int h = onScreen ? plot_->height() : kExportHeight;
  return save_plot(plot_, path, w, h, title(), error);
}

}  // namespace hnclip::gui
