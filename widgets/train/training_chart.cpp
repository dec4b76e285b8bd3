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
#include "widgets/common/plot_export.h"
#include "widgets/common/plot_style.h"
#include "widgets/common/run_colors.h"

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
constexpr int kMinChartWidth = 300;
constexpr int kMinChartHeight = 200;

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

// How a chart looks; what it holds is TrainingCurves::charts(), index for index.
struct TrainingChart::SeriesSpec {
  const char* label;  // legend suffix
  Qt::PenStyle style;
  QCPScatterStyle::ScatterShape shape;
};

struct TrainingChart::ChartSpec {
  const char* title;
  const char* yLabel;
  bool logDefault;
  std::vector<SeriesSpec> series;
};

struct TrainingChart::SeriesGraphs {
  QCPGraph* raw = nullptr;
  QCPGraph* smoothed = nullptr;
  QCPGraph* zeros = nullptr;
  uint64_t revision = 0;  // the model series' revision these graphs mirror
};

const std::vector<TrainingChart::ChartSpec>& TrainingChart::specs() {
  using SS = QCPScatterStyle;
  static const std::vector<ChartSpec> kSpecs = {
      {"Training loss",
       "loss (nats)",
       false,
       {{"boosted", Qt::SolidLine, SS::ssNone}, {"standard", Qt::DashLine, SS::ssNone}}},
      {"Gradient norm (probes)",
       "‖∇θ‖₂ (zero → 1e-10, ⊗)",
       true,
       {{"boosted", Qt::SolidLine, SS::ssNone}, {"standard", Qt::DashLine, SS::ssNone}}},
      {"Gradient ratio boosted / standard",
       "ratio (×)",
       true,
       {{"ratio", Qt::SolidLine, SS::ssNone}}},
      {"Gradient cosine standard vs boosted",
       "cosine",
       false,
       {{"cosine", Qt::SolidLine, SS::ssNone}}},
      {"Solved batches and zero gradients per epoch",
       "fraction of probes",
       false,
       {{"solved (loss < 1e-3)", Qt::SolidLine, SS::ssDisc},
        {"zero gradient", Qt::DashLine, SS::ssSquare}}},
      {"Learning rate", "learning rate", false, {{"lr", Qt::SolidLine, SS::ssNone}}},
      {"Recall per epoch (t2i solid, i2t dashed)",
       "recall (%)",
       false,
       {{"t2i R@1", Qt::SolidLine, SS::ssDisc},
        {"t2i R@5", Qt::SolidLine, SS::ssSquare},
        {"t2i R@10", Qt::SolidLine, SS::ssTriangle},
        {"i2t R@1", Qt::DashLine, SS::ssCircle},
        {"i2t R@5", Qt::DashLine, SS::ssDiamond},
        {"i2t R@10", Qt::DashLine, SS::ssTriangleInverted}}},
  };
  return kSpecs;
}

TrainingChart::TrainingChart(const TrainingCurves& curves, int index, LabelFn label,
                             const QFont& font, QWidget* parent)
    : QWidget(parent),
      curves_(curves),
      index_(index),
      spec_(&specs()[static_cast<size_t>(index)]),
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
  header->addWidget(title, 1);

  logButton_ = new QToolButton(this);
  logButton_->setText(tr("log"));
  logButton_->setCheckable(true);
  logButton_->setChecked(log_);
  logButton_->setToolTip(tr("Logarithmic y axis"));
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
  plot->setNoAntialiasingOnDrag(true);
  plot->setPlottingHint(QCP::phFastPolylines,
                        true);  // solid wide pens (the EMA) without the stroker
  plot->xAxis->setLabel(tr("step"));
  plot->yAxis->setLabel(tr(spec_->yLabel));
  apply_plot_fonts(plot, font);
  plot->legend->setVisible(false);  // shown once the chart has a run (applyAutoRange)
  plot->legend->setIconSize(24, 10);
  if (spec_->series.size() > 2) {
    // Six series per run would cover the curves: this (full-width) chart lists them on its right.
    plot->axisRect()->insetLayout()->take(plot->legend);
    plot->plotLayout()->addElement(0, 1, plot->legend);
    plot->plotLayout()->setColumnStretchFactor(1, 0.001);
    plot->legend->setFillOrder(QCPLayoutGrid::foRowsFirst);
    plot->legend->setWrap(0);
  } else {
    plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
  }
  applyScale();

  // Any range change we did not make ourselves is the user's zoom or pan.
  auto userMoved = [this](const QCPRange&) {
    if (!settingRange_) userView_ = true;
  };
  connect(plot->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, userMoved);
  connect(plot->yAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, userMoved);
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

// ---------------------------------------------------------------- graphs

void TrainingChart::styleSeries(int64_t run_id, int series, SeriesGraphs& s) {
  const SeriesSpec& spec = spec_->series[static_cast<size_t>(series)];
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
  const auto it = runs_.find(run_id);
  if (it == runs_.end()) return false;
  for (size_t i = 0; i < it->second.size(); ++i) {
    if (it->second[i].raw) styleSeries(run_id, static_cast<int>(i), it->second[i]);
  }
  return true;
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
  userView_ = false;  // the old view means nothing on the other scale
}

void TrainingChart::applyScale() {
  QCPAxis* y = plot_->yAxis;
  settingRange_ = true;
  if (log_) {
    y->setScaleType(QCPAxis::stLogarithmic);
    y->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTickerLog));
    y->setNumberFormat(QStringLiteral("eb"));
    y->setNumberPrecision(0);
  } else {
    y->setScaleType(QCPAxis::stLinear);
    y->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    y->setNumberFormat(QStringLiteral("g"));
    y->setNumberPrecision(4);
  }
  settingRange_ = false;
  applyAutoRange();
}

void TrainingChart::applyAutoRange() {
  // An empty legend would draw as a stray box on a chart with no runs yet.
  plot_->legend->setVisible(plot_->graphCount() > 0);
  const CurveBounds& b = curves_.bounds(index_);
  settingRange_ = true;
  if (!b.any) {
    plot_->xAxis->setRange(0, 1);
    plot_->yAxis->setRange(log_ ? 1e-3 : 0, 1);
  } else {
    const double kPad = b.key_max > b.key_min ? 0 : 1;
    plot_->xAxis->setRange(b.key_min - kPad, b.key_max + kPad);
    if (log_) {
      const double lo = std::isfinite(b.pos_min) ? b.pos_min : 1e-3;
      const double hi = std::max(b.val_max, lo);
      plot_->yAxis->setRange(lo / kLogMargin, hi * kLogMargin);
    } else {
      const double span = b.val_max - b.val_min;
      const double pad =
          span > 0 ? span * kLinearMargin : std::max(std::abs(b.val_max) * 0.1, 1e-12);
      plot_->yAxis->setRange(b.val_min - pad, b.val_max + pad);
    }
  }
  settingRange_ = false;
}

void TrainingChart::resetView() {
  userView_ = false;
  applyAutoRange();
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void TrainingChart::replot(bool immediate) {
  if (!userView_) applyAutoRange();
  plot_->replot(immediate ? QCustomPlot::rpImmediateRefresh : QCustomPlot::rpQueuedReplot);
}

void TrainingChart::applyPalette(const QPalette& palette) { apply_plot_palette(plot_, palette); }

// ---------------------------------------------------------------- tooltip

void TrainingChart::showTooltip(const QPointF& pos) {
  QCustomPlot* p = plot_;
  const double key = p->xAxis->pixelToCoord(pos.x());
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
