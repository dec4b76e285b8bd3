#include "widgets/experiments/experiment_plots.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <QComboBox>
#include <QEvent>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QTabWidget>
#include <QVBoxLayout>

#include "qcustomplot.h"
#include "widgets/common/legend_below.h"
#include "widgets/common/plot_export.h"
#include "widgets/common/plot_style.h"
#include "widgets/experiments/experiment_plot_data.h"

namespace hnclip::gui {
namespace {

constexpr int kMinPlotHeight = 200;
constexpr int kExportWidth = 900;  // exported charts: a figure's size and proportions
constexpr int kExportHeight = 560;
constexpr double kLineWidth = 1.8;
constexpr double kMarkerSize = 7;
constexpr int kBandAlpha = 45;         // a control band's fill: the series stay readable over it
constexpr double kRangePad = 0.06;     // share of the x span added either side
constexpr double kMinRangePad = 0.05;  // in x units, for a single x value
constexpr double kPercentAxis = 100;   // the sample-efficiency axis is in percent
constexpr double kCategoryPad = 0.5;   // half a category either side of the first and last
constexpr double kYPadPoints = 1.0;    // R@1 points above and below the data
constexpr int kLegendColumns = 3;      // legend entries per row under the chart
// Tableau 10: distinct hues that read on light and dark backgrounds.
const QColor kSeriesColors[] = {{31, 119, 180},  {255, 127, 14}, {44, 160, 44},   {214, 39, 40},
                                {148, 103, 189}, {140, 86, 75},  {227, 119, 194}, {127, 127, 127},
                                {188, 189, 34},  {23, 190, 207}};
constexpr int kSeriesColorCount = sizeof(kSeriesColors) / sizeof(kSeriesColors[0]);

QColor series_color(int i) {
  return kSeriesColors[((i % kSeriesColorCount) + kSeriesColorCount) % kSeriesColorCount];
}

QString qs(const std::string& s) { return QString::fromStdString(s); }

// Legend entries fill rows of kLegendColumns; place_legend_below() puts the legend under the
// axis rect whenever a draw gives it entries.
void wrap_legend(QCustomPlot* plot) {
  plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  plot->legend->setWrap(kLegendColumns);
}

void clear_plot(QCustomPlot* plot) {
  plot->clearPlottables();
  plot->clearItems();
}

void note(QCustomPlot* plot, const QString& text) {
  auto* item = new QCPItemText(plot);
  item->position->setType(QCPItemPosition::ptAxisRectRatio);
  item->position->setCoords(0.5, 0.08);
  item->setPositionAlignment(Qt::AlignHCenter | Qt::AlignTop);
  item->setText(text);
  item->setColor(plot->xAxis->labelColor());
}

// A series of points with error bars; NaN means are left out.
QCPGraph* add_series(QCustomPlot* plot, const ExperimentPlotSeries& s, const QColor& color) {
  QVector<double> x, y, err;
  for (const auto& p : s.points) {
    if (std::isnan(p.mean)) continue;
    x << p.x;
    y << p.mean;
    err << (std::isnan(p.std) ? 0.0 : p.std);
  }
  auto* g = plot->addGraph();
  g->setName(qs(s.name));
  g->setPen(QPen(color, kLineWidth, s.control ? Qt::DashLine : Qt::SolidLine));
  g->setScatterStyle(QCPScatterStyle(
      s.control ? QCPScatterStyle::ssSquare : QCPScatterStyle::ssDisc, color, kMarkerSize));
  g->setData(x, y, true);
  auto* bars = new QCPErrorBars(plot->xAxis, plot->yAxis);
  bars->removeFromLegend();
  bars->setDataPlottable(g);
  bars->setData(err);
  bars->setPen(QPen(color, 1.2));
  return g;
}

// A horizontal band mean ± std across [x0, x1], with its mean as a dashed line.
void add_band(QCustomPlot* plot, const ExperimentPlotBand& b, const QColor& color, double x0,
              double x1) {
  if (std::isnan(b.mean)) return;
  auto* mean = plot->addGraph();
  mean->setName(qs(b.name) + QStringLiteral(" (control)"));
  mean->setPen(QPen(color, 1.2, Qt::DashLine));
  mean->setData({x0, x1}, {b.mean, b.mean}, true);
  if (std::isnan(b.std)) return;
  QColor fill = color;
  fill.setAlpha(kBandAlpha);
  auto* lower = plot->addGraph();
  lower->removeFromLegend();
  lower->setPen(Qt::NoPen);
  lower->setData({x0, x1}, {b.mean - b.std, b.mean - b.std}, true);
  auto* upper = plot->addGraph();
  upper->removeFromLegend();
  upper->setPen(Qt::NoPen);
  upper->setBrush(fill);
  upper->setChannelFillGraph(lower);
  upper->setData({x0, x1}, {b.mean + b.std, b.mean + b.std}, true);
}

struct Span {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  void add(double v) {
    if (std::isnan(v)) return;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  bool empty() const { return lo > hi; }
};

// Where `series` lie: x of every point, y of every mean ± its error bar.
void add_extent(const std::vector<ExperimentPlotSeries>& series, Span* x, Span* y) {
  for (const auto& s : series) {
    for (const auto& p : s.points) {
      const double err = std::isnan(p.std) ? 0 : p.std;
      x->add(p.x);
      y->add(p.mean - err);
      y->add(p.mean + err);
    }
  }
}

// The drawn x range: the points' span with a margin, or `fallback` without points.
std::pair<double, double> x_range(Span x, double fallback_hi, double min_pad) {
  if (x.empty()) {
    x.lo = 0;
    x.hi = fallback_hi;
  }
  const double pad = std::max(min_pad, (x.hi - x.lo) * kRangePad);
  return {x.lo - pad, x.hi + pad};
}

void fit_y(QCustomPlot* plot, const Span& y) {
  if (y.empty()) {
    plot->yAxis->setRange(0, 100);
    return;
  }
  plot->yAxis->setRange(y.lo - kYPadPoints, y.hi + kYPadPoints);
}

bool has_axis(const ExperimentSnapshot& snapshot, const char* key) {
  const auto& axes = snapshot.axis_keys;
  return std::find(axes.begin(), axes.end(), key) != axes.end();
}

QString direction_text(int direction) {
  return direction == 0 ? QObject::tr("R@1 text→image (%)") : QObject::tr("R@1 image→text (%)");
}

}  // namespace

ExperimentPlots::ExperimentPlots(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(tr("Direction:"), this));
  direction_ = new QComboBox(this);
  direction_->setObjectName(QStringLiteral("plotDirection"));
  direction_->addItems({tr("text → image"), tr("image → text")});
  bar->addWidget(direction_);
  bar->addSpacing(12);
  bar->addWidget(new QLabel(tr("Hyper-parameters:"), this));
  hparam_key_ = new QComboBox(this);
  hparam_key_->setObjectName(QStringLiteral("hparamKey"));
  hparam_key_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  hparam_key_->setToolTip(tr("Config key on the x axis (keys that vary in this experiment first)"));
  bar->addWidget(hparam_key_);
  bar->addWidget(new QLabel(tr("against"), this));
  hparam_metric_ = new QComboBox(this);
  hparam_metric_->setObjectName(QStringLiteral("hparamMetric"));
  for (const auto& m : hparam_metrics()) hparam_metric_->addItem(qs(m.name));
  bar->addWidget(hparam_metric_);
  bar->addStretch(1);
  layout->addLayout(bar);

  pages_ = new QTabWidget(this);
  pages_->setDocumentMode(true);
  auto make_plot = [this](const QString& name) {
    auto* plot = new QCustomPlot(this);
    plot->setObjectName(QStringLiteral("plot_") + name);
    plot->setMinimumHeight(kMinPlotHeight);
    wrap_legend(plot);
    place_legend_below(plot);
    pages_->addTab(plot, pageTitle(name));
    return plot;
  };
  gamma_ = make_plot(QStringLiteral("gamma"));
  fractions_ = make_plot(QStringLiteral("fractions"));
  hparams_ = make_plot(QStringLiteral("hparams"));
  // One point per run: a legend would be noise, so this chart's legend stays out of its layout
  // (drawHparams() never places it) and hidden.
  layout->addWidget(pages_, 1);
  styleAll();

  connect(direction_, &QComboBox::currentIndexChanged, this, [this] {
    drawGammaSweep();
    drawSampleEfficiency();
  });
  connect(hparam_key_, &QComboBox::currentIndexChanged, this, [this] {
    if (hparam_key_->currentIndex() >= 0) wanted_hparam_key_ = hparam_key_->currentText();
    drawHparams();
  });
  connect(hparam_metric_, &QComboBox::currentIndexChanged, this, [this] { drawHparams(); });
  connect(
      hparams_, &QCustomPlot::plottableClick, this,
      [this](QCPAbstractPlottable* plottable, int index, QMouseEvent*) {
        for (int g = 0; g < hparams_->graphCount(); ++g) {
          if (hparams_->graph(g) != plottable || g >= static_cast<int>(hparam_graph_runs_.size()))
            continue;
          const auto point = hparams_->graph(g)->data()->at(index);
          // One cell's points share their x: the clicked one's run is found by its value.
          for (const auto& [y, run] : hparam_graph_runs_[static_cast<size_t>(g)]) {
            if (y == point->value) {
              emit runsClicked({run});
              return;
            }
          }
        }
      });
  redraw();
}

QStringList ExperimentPlots::pageNames() {
  return {QStringLiteral("gamma"), QStringLiteral("fractions"), QStringLiteral("hparams")};
}

QString ExperimentPlots::pageTitle(const QString& page) const {
  if (page == QLatin1String("gamma")) return tr("γ sweep");
  if (page == QLatin1String("fractions")) return tr("Sample efficiency");
  return tr("Hyper-parameters");
}

QString ExperimentPlots::currentPage() const { return pageNames().value(pages_->currentIndex()); }

bool ExperimentPlots::showPage(const QString& name) {
  const int at = static_cast<int>(pageNames().indexOf(name));
  if (at < 0) return false;
  pages_->setCurrentIndex(at);
  return true;
}

QCustomPlot* ExperimentPlots::plot(const QString& page) const {
  if (page == QLatin1String("gamma")) return gamma_;
  if (page == QLatin1String("fractions")) return fractions_;
  if (page == QLatin1String("hparams")) return hparams_;
  return nullptr;
}

int ExperimentPlots::direction() const { return direction_->currentIndex(); }
void ExperimentPlots::setDirection(int direction) {
  if (direction == 0 || direction == 1) direction_->setCurrentIndex(direction);
}
QString ExperimentPlots::hparamKey() const { return hparam_key_->currentText(); }
void ExperimentPlots::setHparamKey(const QString& key) {
  wanted_hparam_key_ = key;
  const int at = hparam_key_->findText(key);
  if (at >= 0) hparam_key_->setCurrentIndex(at);
}
int ExperimentPlots::hparamMetric() const { return hparam_metric_->currentIndex(); }
void ExperimentPlots::setHparamMetric(int index) {
  if (index >= 0 && index < hparam_metric_->count()) hparam_metric_->setCurrentIndex(index);
}

void ExperimentPlots::setSnapshot(std::shared_ptr<const ExperimentSnapshot> snapshot) {
  const int64_t before = snapshot_ ? snapshot_->results.experiment.id : 0;
  snapshot_ = std::move(snapshot);
  if (snapshot_ && snapshot_->results.experiment.id != before) {
    // Another experiment: open the chart its axes ask for (an axis over data_fraction: sample
    // efficiency, else the γ sweep); the hyper-parameter view stays where the user put it.
    if (currentPage() != QLatin1String("hparams"))
      showPage(has_axis(*snapshot_, "data_fraction") ? QStringLiteral("fractions")
                                                     : QStringLiteral("gamma"));
  }
  fillHparamKeys();
  redraw();
}

void ExperimentPlots::fillHparamKeys() {
  QStringList keys;
  if (snapshot_) {
    for (const auto& k : hparam_keys(*snapshot_)) keys << qs(k);
  }
  QStringList had;
  for (int i = 0; i < hparam_key_->count(); ++i) had << hparam_key_->itemText(i);
  if (had == keys) return;
  // The user's key, else the experiment's first axis: what the grid is about.
  QString wanted = wanted_hparam_key_;
  if (wanted.isEmpty() && snapshot_ && !snapshot_->axis_keys.empty())
    wanted = qs(snapshot_->axis_keys.front());
  {
    const QSignalBlocker block(hparam_key_);
    hparam_key_->clear();
    hparam_key_->addItems(keys);
    const int at = hparam_key_->findText(wanted);
    hparam_key_->setCurrentIndex(at >= 0 ? at : (keys.isEmpty() ? -1 : 0));
  }
}

void ExperimentPlots::redraw() {
  drawGammaSweep();
  drawSampleEfficiency();
  drawHparams();
}

void ExperimentPlots::drawGammaSweep() {
  QCustomPlot* plot = gamma_;
  clear_plot(plot);
  plot->xAxis->setLabel(tr("γ (loss_gamma)"));
  plot->yAxis->setLabel(direction_text(direction()));
  if (!snapshot_) {
    note(plot, tr("No experiment selected"));
    place_legend_below(plot);
    plot->replot();
    return;
  }
  const GammaSweepPlot data = gamma_sweep_plot(*snapshot_, direction());
  Span x, y;
  add_extent(data.series, &x, &y);
  for (const auto& b : data.bands) {
    const double err = std::isnan(b.std) ? 0 : b.std;
    y.add(b.mean - err);
    y.add(b.mean + err);
  }
  const auto [x0, x1] = x_range(x, 1, kMinRangePad);
  int color = static_cast<int>(data.series.size());
  for (const auto& b : data.bands) add_band(plot, b, series_color(color++), x0, x1);
  for (size_t i = 0; i < data.series.size(); ++i)
    add_series(plot, data.series[i], series_color(static_cast<int>(i)));
  plot->xAxis->setRange(x0, x1);
  fit_y(plot, y);
  if (y.empty())
    note(plot, tr("No finished runs yet"));
  else if (!data.applicable() || !has_axis(*snapshot_, "loss_gamma"))
    note(plot, tr("γ is not an axis of this experiment (a γ = 0 point is a paired control)"));
  place_legend_below(plot);
  plot->replot();
}

void ExperimentPlots::drawSampleEfficiency() {
  QCustomPlot* plot = fractions_;
  clear_plot(plot);
  plot->xAxis->setLabel(tr("data fraction (% of the training split)"));
  plot->yAxis->setLabel(direction_text(direction()));
  if (!snapshot_) {
    note(plot, tr("No experiment selected"));
    place_legend_below(plot);
    plot->replot();
    return;
  }
  const SampleEfficiencyPlot data = sample_efficiency_plot(*snapshot_, direction());
  Span x, y;
  add_extent(data.series, &x, &y);
  const auto [x0, x1] = x_range(x, kPercentAxis, kMinRangePad * kPercentAxis);
  for (size_t i = 0; i < data.series.size(); ++i)
    add_series(plot, data.series[i], series_color(static_cast<int>(i)));
  if (data.strongest_full && !std::isnan(data.strongest_full->mean)) {
    auto* line = plot->addGraph();
    line->setName(
        tr("strongest control at %1%: %2").arg(x.hi, 0, 'g', 3).arg(qs(data.strongest_full->name)));
    line->setPen(QPen(plot->xAxis->labelColor(), kLineWidth, Qt::DotLine));
    line->setData({x0, x1}, {data.strongest_full->mean, data.strongest_full->mean}, true);
    y.add(data.strongest_full->mean);
  }
  plot->xAxis->setRange(x0, x1);
  fit_y(plot, y);
  if (y.empty())
    note(plot, tr("No finished runs yet"));
  else if (!data.applicable() || !has_axis(*snapshot_, "data_fraction"))
    note(plot, tr("data_fraction is not an axis of this experiment"));
  place_legend_below(plot);
  plot->replot();
}

void ExperimentPlots::drawHparams() {
  QCustomPlot* plot = hparams_;
  clear_plot(plot);
  hparam_graph_runs_.clear();
  const QString key = hparam_key_->currentText();
  const int metric = hparam_metric_->currentIndex();
  plot->xAxis->setLabel(key);
  plot->yAxis->setLabel(hparam_metric_->currentText());
  if (!snapshot_ || key.isEmpty() || metric < 0) {
    note(plot, tr("No experiment selected"));
    plot->replot();
    return;
  }
  const HParamScatter data =
      hparam_scatter(*snapshot_, key.toStdString(), hparam_metrics()[static_cast<size_t>(metric)]);
  // One graph per cell, so a cell keeps its colour and a click finds its run.
  std::map<int, std::pair<QVector<double>, QVector<double>>> by_cell;
  std::map<int, std::vector<std::pair<double, int64_t>>> runs;  // (y, run) per cell
  std::map<int, bool> control;
  Span x, y;
  for (const auto& p : data.points) {
    by_cell[p.cell].first << p.x;
    by_cell[p.cell].second << p.y;
    runs[p.cell].emplace_back(p.y, p.run_id);
    control[p.cell] = p.control;
    x.add(p.x);
    y.add(p.y);
  }
  for (const auto& [cell, xy] : by_cell) {
    auto* g = plot->addGraph();
    const QColor color = series_color(cell);
    g->setLineStyle(QCPGraph::lsNone);
    g->setScatterStyle(control[cell]
                           ? QCPScatterStyle(QCPScatterStyle::ssSquare, QPen(color, 1.5),
                                             Qt::NoBrush, kMarkerSize + 1)
                           : QCPScatterStyle(QCPScatterStyle::ssDisc, color, kMarkerSize));
    g->setData(xy.first, xy.second);  // sorted by x: a click finds its run by value
    hparam_graph_runs_.push_back(runs[cell]);
  }
  if (!data.categories.empty()) {
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (size_t i = 0; i < data.categories.size(); ++i)
      ticker->addTick(static_cast<double>(i), qs(data.categories[i]));
    plot->xAxis->setTicker(ticker);
    x.lo = 0;
    x.hi = static_cast<double>(data.categories.size()) - 1;
  } else {
    plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
  }
  const auto [x0, x1] = x_range(x, 1, data.categories.empty() ? kMinRangePad : kCategoryPad);
  plot->xAxis->setRange(x0, x1);
  fit_y(plot, y);
  if (y.empty()) note(plot, tr("No finished runs yet"));
  plot->replot();
}

void ExperimentPlots::styleAll() {
  for (QCustomPlot* plot : {gamma_, fractions_, hparams_}) {
    apply_plot_palette(plot, palette());
    apply_plot_fonts(plot, font());
  }
}

void ExperimentPlots::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange) {
    styleAll();
    redraw();
  }
}

bool ExperimentPlots::exportPlot(const QString& page, const QString& path, QString* error) const {
  QCustomPlot* p = plot(page);
  if (!p) {
    if (error) *error = tr("no chart named '%1'").arg(page);
    return false;
  }
  // A figure's proportions, whatever the window's: the tab's strip of a chart is too flat.
  return save_plot(p, path, kExportWidth, kExportHeight, pageTitle(page), error);
}

QString ExperimentPlots::exportInteractive() {
  const QString page = currentPage();
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Export %1").arg(pageTitle(page)), QStringLiteral("%1.png").arg(page),
      tr("PNG image (*.png);;SVG (*.svg);;PDF (*.pdf)"));
  if (path.isEmpty()) return {};
  QString error;
  if (!exportPlot(page, path, &error)) {
    QMessageBox::warning(this, tr("Export failed"), error);
    return {};
  }
  return tr("Saved %1").arg(path);
}

}  // namespace hnclip::gui
