#include "widgets/train/training_plots_panel.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>

#include <QEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QMouseEvent>
#include <QScrollArea>
#include <QSlider>
#include <QTextStream>
#include <QTimer>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>

#include "widgets/common/plot_export.h"
#include "widgets/common/plot_style.h"
#include "qcustomplot.h"
#include "widgets/common/run_colors.h"
#include "train/probe_summary.h"

namespace hnclip::gui {
namespace {
constexpr int kRawAlpha = 70;              // the raw curve under its EMA: visible, not dominant
// Pens stay 1 px: Qt's raster engine draws those (dashes and antialiasing included) with its fast
// cosmetic stroker, wider ones through QStroker, which was ~10–100× slower on dense curves.
constexpr double kPenWidth = 1;
constexpr double kMarkerSize = 6;          // px; per-epoch points and zero-gradient markers
constexpr int kMaxMarkedPoints = 250;      // denser per-epoch curves drop their markers (unreadable, slow)
constexpr int kTooltipRadiusPx = 24;       // farther than this from every point: no tooltip
constexpr double kLinearMargin = 0.05;     // fraction of the value span added above and below
constexpr double kLogMargin = 1.5;         // factor below the smallest / above the largest value
constexpr int kSliderSteps = 100;          // smoothing slider resolution (0.00 … 0.99)
constexpr double kMaxSmoothing = 0.99;
constexpr int kExportWidth = 800;          // export size when the chart is not on screen
constexpr int kExportHeight = 500;
constexpr int kMinChartWidth = 300;
constexpr int kMinChartHeight = 200;

// Where a chart's data comes from: a repeated step of that stream (a resumed run) truncates it.
enum Source { kSteps, kProbes, kEvals };

QString wallTimeText(double s) {
  if (!std::isfinite(s)) return QStringLiteral("–");
  const auto total = static_cast<int64_t>(s);
  return QStringLiteral("%1:%2:%3 (%4 s)")
      .arg(total / 3600)
      .arg((total / 60) % 60, 2, 10, QLatin1Char('0'))
      .arg(total % 60, 2, 10, QLatin1Char('0'))
      .arg(s, 0, 'f', 1);
}

QString number(double v) { return QString::number(v, 'g', 15); }
}  // namespace

struct TrainingPlotsPanel::SeriesSpec {
  const char* key;    // CSV / API name
  const char* label;  // legend suffix
  Qt::PenStyle style;
  QCPScatterStyle::ScatterShape shape;
};

struct TrainingPlotsPanel::ChartSpec {
  const char* name;
  const char* title;
  const char* yLabel;
  Source source;
  bool smoothed;    // faint raw curve + EMA on top
  bool logDefault;
  bool clampZero;   // values <= 0 drawn at kZeroClamp and marked
  std::vector<SeriesSpec> series;
};

// TensorBoard's debiased EMA: last = w·last + (1−w)·v, shown as last / (1 − w^n), so the first
// points are not pulled towards 0.
struct TrainingPlotsPanel::Ema {
  double last = 0;
  int64_t count = 0;
  double add(double v, double w) {
    last = last * w + (1 - w) * v;
    ++count;
    const double debias = w == 0 ? 1.0 : 1.0 - std::pow(w, static_cast<double>(count));
    return last / debias;
  }
};

struct TrainingPlotsPanel::SeriesGraphs {
  QCPGraph* raw = nullptr;
  QCPGraph* smoothed = nullptr;
  QCPGraph* zeros = nullptr;
  Ema ema;
};

// Data bounds of a chart, kept as points arrive so that following the data costs O(1) per point
// (QCPGraph's own range queries walk every point). The EMA stays inside the raw values' range.
struct TrainingPlotsPanel::Bounds {
  bool any = false;
  double keyMin = 0, keyMax = 0, valMin = 0, valMax = 0;
  double posMin = std::numeric_limits<double>::infinity();  // smallest positive value (log axes)
  void add(double k, double v) {
    if (!any) {
      keyMin = keyMax = k;
      valMin = valMax = v;
      any = true;
    } else {
      keyMin = std::min(keyMin, k);
      keyMax = std::max(keyMax, k);
      valMin = std::min(valMin, v);
      valMax = std::max(valMax, v);
    }
    if (v > 0) posMin = std::min(posMin, v);
  }
};

struct TrainingPlotsPanel::Chart {
  int index = 0;
  const ChartSpec* spec = nullptr;
  QCustomPlot* plot = nullptr;
  QToolButton* logButton = nullptr;
  std::map<int64_t, std::vector<SeriesGraphs>> runs;  // per run: one entry per spec series
  Bounds bounds;
  bool dirty = false;
  bool userView = false;     // the user zoomed or panned: keep their view
  bool log = false;
  bool settingRange = false;  // our own range changes are not the user's
};

struct TrainingPlotsPanel::RunData {
  struct ProbeFlag {
    int64_t step;
    int epoch;
    bool solved;
    bool zero;
  };
  struct EpochCounts {
    int64_t probes = 0, solved = 0, zero = 0;
    int64_t lastStep = 0;
  };
  QString label;
  std::vector<double> stepKeys, stepWalls;  // the step stream's timeline, ascending
  std::vector<ProbeFlag> probes;
  std::map<int, EpochCounts> epochs;
  int fractionEpoch = INT_MIN;  // epoch of the last point on the fractions chart
  bool hasEval = false;
  int64_t lastEvalStep = 0;
  std::string evalSplit;  // the first split seen; other splits are not mixed into its curves
};

const std::vector<TrainingPlotsPanel::ChartSpec>& TrainingPlotsPanel::specs() {
  using SS = QCPScatterStyle;
  static const std::vector<ChartSpec> kSpecs = {
      {"loss", "Training loss", "loss (nats)", kSteps, true, false, false,
       {{"loss_boosted", "boosted", Qt::SolidLine, SS::ssNone},
        {"loss_standard", "standard", Qt::DashLine, SS::ssNone}}},
      {"grad_norm", "Gradient norm (probes)", "‖∇θ‖₂ (zero → 1e-10, ⊗)", kProbes, true, true, true,
       {{"grad_norm_boosted", "boosted", Qt::SolidLine, SS::ssNone},
        {"grad_norm_standard", "standard", Qt::DashLine, SS::ssNone}}},
      {"grad_ratio", "Gradient ratio boosted / standard", "ratio (×)", kProbes, true, true, false,
       {{"grad_ratio", "ratio", Qt::SolidLine, SS::ssNone}}},
      {"grad_cosine", "Gradient cosine standard vs boosted", "cosine", kProbes, true, false, false,
       {{"grad_cosine", "cosine", Qt::SolidLine, SS::ssNone}}},
      {"probe_fractions", "Solved batches and zero gradients per epoch", "fraction of probes", kProbes, false,
       false, false,
       {{"solved_fraction", "solved (loss < 1e-3)", Qt::SolidLine, SS::ssDisc},
        {"zero_grad_fraction", "zero gradient", Qt::DashLine, SS::ssSquare}}},
      {"lr", "Learning rate", "learning rate", kSteps, false, false, false,
       {{"lr", "lr", Qt::SolidLine, SS::ssNone}}},
      {"recall", "Recall per epoch (t2i solid, i2t dashed)", "recall (%)", kEvals, false, false, false,
       {{"t2i_R@1", "t2i R@1", Qt::SolidLine, SS::ssDisc},
        {"t2i_R@5", "t2i R@5", Qt::SolidLine, SS::ssSquare},
        {"t2i_R@10", "t2i R@10", Qt::SolidLine, SS::ssTriangle},
        {"i2t_R@1", "i2t R@1", Qt::DashLine, SS::ssCircle},
        {"i2t_R@5", "i2t R@5", Qt::DashLine, SS::ssDiamond},
        {"i2t_R@10", "i2t R@10", Qt::DashLine, SS::ssTriangleInverted}}},
  };
  return kSpecs;
}

TrainingPlotsPanel::TrainingPlotsPanel(QWidget* parent) : QWidget(parent) {
  replotTimer_ = new QTimer(this);
  replotTimer_->setInterval(1000 / kReplotHz);
  connect(replotTimer_, &QTimer::timeout, this, [this] { onReplotTick(); });

  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("Smoothing"), this));
  smoothingSlider_ = new QSlider(Qt::Horizontal, this);
  smoothingSlider_->setRange(0, static_cast<int>(std::lround(kMaxSmoothing * kSliderSteps)));
  smoothingSlider_->setToolTip(tr("Exponential moving average weight (debiased, as in TensorBoard)"));
  smoothingSlider_->setMaximumWidth(220);
  smoothingLabel_ = new QLabel(this);
  top->addWidget(smoothingSlider_);
  top->addWidget(smoothingLabel_);
  top->addStretch(1);
  auto* hint = new QLabel(tr("Drag: pan · wheel: zoom · double-click: follow the data"), this);
  hint->setEnabled(false);
  top->addWidget(hint);
  connect(smoothingSlider_, &QSlider::valueChanged, this,
          [this](int v) { setSmoothing(static_cast<double>(v) / kSliderSteps); });

  auto* gridHost = new QWidget;
  auto* grid = new QGridLayout(gridHost);
  grid->setContentsMargins(0, 0, 0, 0);
  grid->setSpacing(6);
  buildCharts();
  const int n = static_cast<int>(charts_.size());
  for (int i = 0; i < n; ++i) {
    QWidget* frame = buildChartFrame(*charts_[i]);
    const bool last_alone = i == n - 1 && n % 2 == 1;  // the recall chart gets the full width
    grid->addWidget(frame, i / 2, i % 2, 1, last_alone ? 2 : 1);
  }
  auto* scroll = new QScrollArea(this);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setWidget(gridHost);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(top);
  layout->addWidget(scroll, 1);

  setSmoothing(smoothing_);
  applyPalette();
}

TrainingPlotsPanel::~TrainingPlotsPanel() = default;

void TrainingPlotsPanel::buildCharts() {
  const auto& all = specs();
  for (size_t i = 0; i < all.size(); ++i) {
    auto chart = std::make_unique<Chart>();
    chart->index = static_cast<int>(i);
    chart->spec = &all[i];
    chart->log = all[i].logDefault;
    charts_.push_back(std::move(chart));
  }
}

QWidget* TrainingPlotsPanel::buildChartFrame(Chart& chart) {
  auto* frame = new QWidget;
  auto* v = new QVBoxLayout(frame);
  v->setContentsMargins(0, 0, 0, 0);
  v->setSpacing(1);
  auto* header = new QHBoxLayout;
  auto* title = new QLabel(QStringLiteral("<b>%1</b>").arg(tr(chart.spec->title)), frame);
  header->addWidget(title, 1);

  chart.logButton = new QToolButton(frame);
  chart.logButton->setText(tr("log"));
  chart.logButton->setCheckable(true);
  chart.logButton->setChecked(chart.log);
  chart.logButton->setToolTip(tr("Logarithmic y axis"));
  connect(chart.logButton, &QToolButton::toggled, this,
          [this, &chart](bool on) { setLogScale(QString::fromLatin1(chart.spec->name), on); });
  header->addWidget(chart.logButton);

  auto* exportButton = new QToolButton(frame);
  exportButton->setText(tr("Export"));
  exportButton->setPopupMode(QToolButton::InstantPopup);
  auto* menu = new QMenu(exportButton);
  for (const char* format : {"png", "svg", "pdf", "csv"}) {
    const QString f = QString::fromLatin1(format);
    menu->addAction(tr("%1…").arg(f.toUpper()), this, [this, &chart, f] { exportChartInteractive(chart, f); });
  }
  exportButton->setMenu(menu);
  header->addWidget(exportButton);
  v->addLayout(header);

  auto* plot = new QCustomPlot(frame);
  chart.plot = plot;
  plot->setMinimumSize(kMinChartWidth, kMinChartHeight);
  plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  plot->setNoAntialiasingOnDrag(true);
  plot->setPlottingHint(QCP::phFastPolylines, true);  // solid wide pens (the EMA) without the stroker
  plot->xAxis->setLabel(tr("step"));
  plot->yAxis->setLabel(tr(chart.spec->yLabel));
  apply_plot_fonts(plot, font());
  plot->legend->setVisible(false);  // shown once the chart has a run (applyAutoRange)
  plot->legend->setIconSize(24, 10);
  if (chart.spec->series.size() > 2) {
    // Six series per run would cover the curves: this (full-width) chart lists them on its right.
    plot->axisRect()->insetLayout()->take(plot->legend);
    plot->plotLayout()->addElement(0, 1, plot->legend);
    plot->plotLayout()->setColumnStretchFactor(1, 0.001);
    plot->legend->setFillOrder(QCPLayoutGrid::foRowsFirst);
    plot->legend->setWrap(0);
  } else {
    plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
  }
  applyScale(chart);

  // Any range change we did not make ourselves is the user's zoom or pan.
  auto userMoved = [this, &chart](const QCPRange&) {
    if (!chart.settingRange) chart.userView = true;
  };
  connect(plot->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, userMoved);
  connect(plot->yAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, userMoved);
  connect(plot, &QCustomPlot::mouseDoubleClick, this,
          [this, &chart](QMouseEvent*) { resetView(QString::fromLatin1(chart.spec->name)); });
  connect(plot, &QCustomPlot::mouseMove, this, [this, &chart](QMouseEvent* e) {
    if (e->buttons() == Qt::NoButton) showTooltip(chart, e->position());
  });
  v->addWidget(plot, 1);
  return frame;
}

// ---------------------------------------------------------------- lookup

int TrainingPlotsPanel::chartIndex(const QString& chart) const {
  for (const auto& c : charts_) {
    if (chart == QLatin1String(c->spec->name)) return c->index;
  }
  bool ok = false;
  const int i = chart.toInt(&ok);
  return ok && i >= 0 && i < static_cast<int>(charts_.size()) ? i : -1;
}

TrainingPlotsPanel::Chart* TrainingPlotsPanel::findChart(const QString& chart) const {
  const int i = chartIndex(chart);
  return i < 0 ? nullptr : charts_[static_cast<size_t>(i)].get();
}

QStringList TrainingPlotsPanel::chartNames() const {
  QStringList out;
  for (const auto& c : charts_) out << QString::fromLatin1(c->spec->name);
  return out;
}

QString TrainingPlotsPanel::chartTitle(const QString& chart) const {
  const Chart* c = findChart(chart);
  return c ? tr(c->spec->title) : QString();
}

QStringList TrainingPlotsPanel::seriesNames(const QString& chart) const {
  QStringList out;
  if (const Chart* c = findChart(chart)) {
    for (const auto& s : c->spec->series) out << QString::fromLatin1(s.key);
  }
  return out;
}

QCustomPlot* TrainingPlotsPanel::plot(const QString& chart) const {
  const Chart* c = findChart(chart);
  return c ? c->plot : nullptr;
}

QCPGraph* TrainingPlotsPanel::graph(const QString& chart, int64_t run_id, const QString& series,
                                    GraphRole role) const {
  const Chart* c = findChart(chart);
  if (!c) return nullptr;
  const auto run = c->runs.find(run_id);
  if (run == c->runs.end()) return nullptr;
  for (size_t i = 0; i < c->spec->series.size(); ++i) {
    if (series != QLatin1String(c->spec->series[i].key) || i >= run->second.size()) continue;
    const SeriesGraphs& s = run->second[i];
    switch (role) {
      case GraphRole::Raw: return s.raw;
      case GraphRole::Smoothed: return s.smoothed;
      case GraphRole::ZeroMarks: return s.zeros;
    }
  }
  return nullptr;
}

QList<int64_t> TrainingPlotsPanel::runs() const {
  QList<int64_t> out;
  for (const auto& [id, data] : runs_) out << id;
  return out;
}

TrainingPlotsPanel::RunData& TrainingPlotsPanel::ensureRun(int64_t run_id) {
  auto& slot = runs_[run_id];
  if (!slot) {
    slot = std::make_unique<RunData>();
    slot->label = tr("run %1").arg(run_id);
  }
  return *slot;
}

// ---------------------------------------------------------------- graphs

TrainingPlotsPanel::SeriesGraphs& TrainingPlotsPanel::ensureSeries(Chart& chart, int64_t run_id, int series) {
  auto& list = chart.runs[run_id];
  if (list.size() < chart.spec->series.size()) list.resize(chart.spec->series.size());
  SeriesGraphs& s = list[static_cast<size_t>(series)];
  if (!s.raw) {
    s.raw = chart.plot->addGraph();
    s.raw->setAdaptiveSampling(true);
    if (chart.spec->smoothed) s.smoothed = chart.plot->addGraph();
    styleSeries(chart, run_id, series, s);
  }
  return s;
}

void TrainingPlotsPanel::styleSeries(Chart& chart, int64_t run_id, int series, SeriesGraphs& s) {
  const SeriesSpec& spec = chart.spec->series[static_cast<size_t>(series)];
  const QColor color = run_color(run_id);
  const QString name = QStringLiteral("%1 · %2").arg(ensureRun(run_id).label, tr(spec.label));
  if (s.smoothed) {
    QColor faint = color;
    faint.setAlpha(kRawAlpha);
    s.raw->setPen(QPen(faint, kPenWidth));  // solid: a dashed pattern over thousands of raw points is noise
    s.raw->setAntialiased(false);   // dense, noisy and faint: antialiasing costs most of a replot
    s.raw->removeFromLegend();
    s.smoothed->setPen(QPen(color, kPenWidth, spec.style));
    s.smoothed->setName(name);
  } else {
    s.raw->setPen(QPen(color, kPenWidth, spec.style));
    s.raw->setScatterStyle(s.raw->dataCount() <= kMaxMarkedPoints && spec.shape != QCPScatterStyle::ssNone
                               ? QCPScatterStyle(spec.shape, color, color, kMarkerSize)
                               : QCPScatterStyle());
    s.raw->setName(name);
  }
  if (s.zeros) {
    s.zeros->setLineStyle(QCPGraph::lsNone);
    s.zeros->setPen(QPen(color, kPenWidth));  // the legend icon and the markers share the run's colour
    s.zeros->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCrossCircle, QPen(color, kPenWidth), Qt::NoBrush,
                                             kMarkerSize + 2));
    s.zeros->setName(tr("%1 = 0 (at 1e-10)").arg(name));
  }
}

void TrainingPlotsPanel::renameRunGraphs(int64_t run_id) {
  for (auto& chart : charts_) {
    const auto it = chart->runs.find(run_id);
    if (it == chart->runs.end()) continue;
    for (size_t i = 0; i < it->second.size(); ++i) {
      if (it->second[i].raw) styleSeries(*chart, run_id, static_cast<int>(i), it->second[i]);
    }
    markDirty(*chart);
  }
}

void TrainingPlotsPanel::addPoint(Chart& chart, int64_t run_id, int series, double step, double value) {
  if (!std::isfinite(value)) return;  // an infinite ratio / undefined cosine has no place on a curve
  SeriesGraphs& s = ensureSeries(chart, run_id, series);
  const bool clamped = chart.spec->clampZero && value <= 0;
  if (clamped) value = kZeroClamp;
  s.raw->addData(step, value);
  if (s.raw->dataCount() == kMaxMarkedPoints + 1) styleSeries(chart, run_id, series, s);  // markers off
  chart.bounds.add(step, value);
  if (s.smoothed) s.smoothed->addData(step, s.ema.add(value, smoothing_));
  if (clamped) {
    if (!s.zeros) {
      s.zeros = chart.plot->addGraph();
      styleSeries(chart, run_id, series, s);
    }
    s.zeros->addData(step, kZeroClamp);
  }
  markDirty(chart);
}

void TrainingPlotsPanel::recomputeSmoothed(SeriesGraphs& s) {
  if (!s.smoothed) return;
  s.ema = Ema{};
  const auto data = s.raw->data();
  QVector<double> keys, values;
  keys.reserve(data->size());
  values.reserve(data->size());
  for (auto it = data->constBegin(); it != data->constEnd(); ++it) {
    keys << it->key;
    values << s.ema.add(it->value, smoothing_);
  }
  s.smoothed->setData(keys, values, true);
}

void TrainingPlotsPanel::recomputeBounds(Chart& chart) {
  chart.bounds = Bounds{};
  for (const auto& [id, list] : chart.runs) {
    for (const auto& s : list) {
      if (!s.raw) continue;
      const auto data = s.raw->data();
      for (auto it = data->constBegin(); it != data->constEnd(); ++it) chart.bounds.add(it->key, it->value);
    }
  }
}

// ---------------------------------------------------------------- feeding

void TrainingPlotsPanel::appendStep(int64_t run_id, const hnclip::StepEvent& e) {
  feedStep(run_id, StepMetricRow{e.step, e.epoch, e.wall_time_s, e.loss, e.loss_standard, e.lr, e.logit_scale,
                                 e.grad_norm});
}

void TrainingPlotsPanel::appendProbe(int64_t run_id, const hnclip::ProbeEvent& e) {
  feedProbe(run_id, ProbeRow{e.step, e.epoch, e.loss_standard, e.loss_boosted, e.grad_norm_standard,
                             e.grad_norm_boosted, e.grad_ratio, e.grad_cosine});
}

void TrainingPlotsPanel::appendEval(int64_t run_id, const hnclip::EvalEvent& e) {
  beginEval(run_id, e.step, e.split);
  for (const auto* result : {&e.t2i, &e.i2t}) {
    const std::string direction = result->direction.empty() ? (result == &e.t2i ? "t2i" : "i2t") : result->direction;
    for (const auto& [k, recall] : result->recall) feedRecall(run_id, e.step, e.split, direction, k, recall);
  }
}

void TrainingPlotsPanel::feedStep(int64_t run_id, const StepMetricRow& row) {
  RunData& run = ensureRun(run_id);
  const auto step = static_cast<double>(row.step);
  if (!run.stepKeys.empty() && step <= run.stepKeys.back()) truncate(run_id, kSteps, step);
  run.stepKeys.push_back(step);
  run.stepWalls.push_back(row.wall_time_s);
  Chart& loss = *charts_[0];
  addPoint(loss, run_id, 0, step, row.loss);
  addPoint(loss, run_id, 1, step, row.loss_standard);
  addPoint(*charts_[5], run_id, 0, step, row.lr);
}

void TrainingPlotsPanel::feedProbe(int64_t run_id, const ProbeRow& row) {
  RunData& run = ensureRun(run_id);
  const auto step = static_cast<double>(row.step);
  if (!run.probes.empty() && row.step <= run.probes.back().step) truncate(run_id, kProbes, step);
  addPoint(*charts_[1], run_id, 0, step, row.grad_norm_boosted);
  addPoint(*charts_[1], run_id, 1, step, row.grad_norm_standard);
  addPoint(*charts_[2], run_id, 0, step, row.grad_ratio);
  addPoint(*charts_[3], run_id, 0, step, row.grad_cosine);
  const bool solved = row.loss_standard < kSolvedLoss;
  const bool zero = row.grad_norm_standard == 0.0;
  run.probes.push_back({row.step, row.epoch, solved, zero});
  auto& counts = run.epochs[row.epoch];
  ++counts.probes;
  counts.solved += solved ? 1 : 0;
  counts.zero += zero ? 1 : 0;
  counts.lastStep = std::max(counts.lastStep, row.step);
  updateFractionPoint(run_id, row.epoch, counts.lastStep);
}

// One point per epoch, at the epoch's last probed step: while the epoch runs, its point moves
// (the last data point is edited in place; earlier epochs are never touched).
void TrainingPlotsPanel::updateFractionPoint(int64_t run_id, int epoch, int64_t step) {
  RunData& run = ensureRun(run_id);
  Chart& chart = *charts_[4];
  const auto& c = run.epochs[epoch];
  const double values[2] = {static_cast<double>(c.solved) / static_cast<double>(c.probes),
                            static_cast<double>(c.zero) / static_cast<double>(c.probes)};
  const auto current = chart.runs.find(run_id);
  const bool hasPoint = current != chart.runs.end() && current->second.size() == 2 && current->second[0].raw &&
                        current->second[1].raw && !current->second[0].raw->data()->isEmpty() &&
                        !current->second[1].raw->data()->isEmpty();
  if (epoch == run.fractionEpoch && hasPoint) {
    for (int i = 0; i < 2; ++i) {
      SeriesGraphs& s = ensureSeries(chart, run_id, i);
      auto last = s.raw->data()->end() - 1;
      last->key = static_cast<double>(step);
      last->value = values[i];
      chart.bounds.add(last->key, last->value);
    }
    markDirty(chart);
  } else if (epoch > run.fractionEpoch || !hasPoint) {
    run.fractionEpoch = epoch;
    for (int i = 0; i < 2; ++i) addPoint(chart, run_id, i, static_cast<double>(step), values[i]);
  } else {
    rebuildFractions(run_id);  // an epoch out of order: rare, so simply redo the run's points
  }
}

void TrainingPlotsPanel::rebuildFractions(int64_t run_id) {
  RunData& run = ensureRun(run_id);
  Chart& chart = *charts_[4];
  run.epochs.clear();
  for (const auto& p : run.probes) {
    auto& c = run.epochs[p.epoch];
    ++c.probes;
    c.solved += p.solved ? 1 : 0;
    c.zero += p.zero ? 1 : 0;
    c.lastStep = std::max(c.lastStep, p.step);
  }
  const auto it = chart.runs.find(run_id);
  if (it != chart.runs.end()) {
    for (auto& s : it->second) {
      if (s.raw) s.raw->data()->clear();
    }
  }
  run.fractionEpoch = INT_MIN;
  for (const auto& [epoch, c] : run.epochs) {
    run.fractionEpoch = epoch;
    addPoint(chart, run_id, 0, static_cast<double>(c.lastStep), static_cast<double>(c.solved) / c.probes);
    addPoint(chart, run_id, 1, static_cast<double>(c.lastStep), static_cast<double>(c.zero) / c.probes);
  }
  recomputeBounds(chart);
  markDirty(chart);
}

void TrainingPlotsPanel::beginEval(int64_t run_id, int64_t step, const std::string& split) {
  RunData& run = ensureRun(run_id);
  if (run.evalSplit.empty()) run.evalSplit = split;
  if (split != run.evalSplit) return;
  if (run.hasEval && step <= run.lastEvalStep) truncate(run_id, kEvals, static_cast<double>(step));
  run.hasEval = true;
  run.lastEvalStep = step;
}

void TrainingPlotsPanel::feedRecall(int64_t run_id, int64_t step, const std::string& split,
                                    const std::string& direction, int k, double recall) {
  if (split != ensureRun(run_id).evalSplit) return;
  Chart& chart = *charts_[6];
  const QString key = QStringLiteral("%1_R@%2").arg(QString::fromStdString(direction)).arg(k);
  for (size_t i = 0; i < chart.spec->series.size(); ++i) {
    if (key == QLatin1String(chart.spec->series[i].key)) {
      addPoint(chart, run_id, static_cast<int>(i), static_cast<double>(step), recall);
    }
  }
}

// A stream repeated a step (a resumed run redoing the steps after its checkpoint): its points from
// that step on are dropped. O(points) but only on a resume.
void TrainingPlotsPanel::truncate(int64_t run_id, int source, double step) {
  RunData& run = ensureRun(run_id);
  const double cut = step - 0.5;  // steps are integers: removeAfter(cut) drops keys >= step
  for (auto& chart : charts_) {
    if (chart->spec->source != source) continue;
    const auto it = chart->runs.find(run_id);
    if (it == chart->runs.end()) continue;
    for (auto& s : it->second) {
      for (QCPGraph* g : {s.raw, s.smoothed, s.zeros}) {
        if (g) g->data()->removeAfter(cut);
      }
      recomputeSmoothed(s);
    }
    for (size_t i = 0; i < it->second.size(); ++i) {
      if (it->second[i].raw) styleSeries(*chart, run_id, static_cast<int>(i), it->second[i]);  // markers back
    }
    recomputeBounds(*chart);
    markDirty(*chart);
  }
  if (source == kSteps) {
    while (!run.stepKeys.empty() && run.stepKeys.back() >= step) {
      run.stepKeys.pop_back();
      run.stepWalls.pop_back();
    }
  } else if (source == kProbes) {
    while (!run.probes.empty() && static_cast<double>(run.probes.back().step) >= step) run.probes.pop_back();
    rebuildFractions(run_id);
  }
}

void TrainingPlotsPanel::setRunHistory(int64_t run_id, const QString& label,
                                       const std::vector<hnclip::StepMetricRow>& steps,
                                       const std::vector<hnclip::ProbeRow>& probes,
                                       const std::vector<hnclip::EpochEvalRow>& evals) {
  removeRun(run_id);
  ensureRun(run_id).label = label.isEmpty() ? tr("run %1").arg(run_id) : label;
  for (const auto& row : steps) feedStep(run_id, row);
  for (const auto& row : probes) feedProbe(run_id, row);
  // Stored evaluations are one row per (epoch, direction, K): rows of one step form one evaluation.
  bool open = false;
  int64_t openStep = 0;
  std::string openSplit;
  for (const auto& row : evals) {
    if (!open || row.step != openStep || row.split != openSplit) {
      beginEval(run_id, row.step, row.split);
      open = true;
      openStep = row.step;
      openSplit = row.split;
    }
    feedRecall(run_id, row.step, row.split, row.direction, row.k, row.recall);
  }
}

void TrainingPlotsPanel::setRunLabel(int64_t run_id, const QString& label) {
  ensureRun(run_id).label = label;
  renameRunGraphs(run_id);
}

void TrainingPlotsPanel::removeRun(int64_t run_id) {
  for (auto& chart : charts_) {
    const auto it = chart->runs.find(run_id);
    if (it == chart->runs.end()) continue;
    for (auto& s : it->second) {
      for (QCPGraph* g : {s.raw, s.smoothed, s.zeros}) {
        if (g) chart->plot->removeGraph(g);
      }
    }
    chart->runs.erase(it);
    recomputeBounds(*chart);
    markDirty(*chart);
  }
  runs_.erase(run_id);
}

void TrainingPlotsPanel::clearRuns() {
  const QList<int64_t> ids = runs();
  for (const int64_t id : ids) removeRun(id);
}

double TrainingPlotsPanel::wallTimeAt(int64_t run_id, double step) const {
  const auto it = runs_.find(run_id);
  if (it != runs_.end()) {
    const auto& keys = it->second->stepKeys;
    const auto pos = std::lower_bound(keys.begin(), keys.end(), step);
    if (pos != keys.end() && *pos == step) return it->second->stepWalls[static_cast<size_t>(pos - keys.begin())];
  }
  if (step == 0) return 0;  // the starting point (epoch-0 evaluation) precedes any training time
  return std::numeric_limits<double>::quiet_NaN();
}

// ---------------------------------------------------------------- smoothing, scale, view

double TrainingPlotsPanel::smoothing() const { return smoothing_; }

void TrainingPlotsPanel::setSmoothing(double weight) {
  if (!std::isfinite(weight)) weight = 0;
  smoothing_ = std::clamp(weight, 0.0, kMaxSmoothing);
  {
    const QSignalBlocker block(smoothingSlider_);
    smoothingSlider_->setValue(static_cast<int>(std::lround(smoothing_ * kSliderSteps)));
  }
  smoothingLabel_->setText(QString::number(smoothing_, 'f', 2));
  for (auto& chart : charts_) {
    if (!chart->spec->smoothed) continue;
    for (auto& [id, list] : chart->runs) {
      for (auto& s : list) {
        if (s.raw) recomputeSmoothed(s);
      }
    }
    markDirty(*chart);
  }
}

bool TrainingPlotsPanel::logScale(const QString& chart) const {
  const Chart* c = findChart(chart);
  return c && c->log;
}

void TrainingPlotsPanel::setLogScale(const QString& chart, bool log) {
  Chart* c = findChart(chart);
  if (!c) return;
  c->log = log;
  {
    const QSignalBlocker block(c->logButton);
    c->logButton->setChecked(log);
  }
  applyScale(*c);
  c->userView = false;  // the old view means nothing on the other scale
  markDirty(*c);
}

void TrainingPlotsPanel::applyScale(Chart& chart) {
  QCPAxis* y = chart.plot->yAxis;
  chart.settingRange = true;
  if (chart.log) {
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
  chart.settingRange = false;
  applyAutoRange(chart);
}

void TrainingPlotsPanel::applyAutoRange(Chart& chart) {
  // An empty legend would draw as a stray box on a chart with no runs yet.
  chart.plot->legend->setVisible(chart.plot->graphCount() > 0);
  const Bounds& b = chart.bounds;
  chart.settingRange = true;
  if (!b.any) {
    chart.plot->xAxis->setRange(0, 1);
    chart.plot->yAxis->setRange(chart.log ? 1e-3 : 0, 1);
  } else {
    const double kPad = b.keyMax > b.keyMin ? 0 : 1;
    chart.plot->xAxis->setRange(b.keyMin - kPad, b.keyMax + kPad);
    if (chart.log) {
      const double lo = std::isfinite(b.posMin) ? b.posMin : 1e-3;
      const double hi = std::max(b.valMax, lo);
      chart.plot->yAxis->setRange(lo / kLogMargin, hi * kLogMargin);
    } else {
      const double span = b.valMax - b.valMin;
      const double pad = span > 0 ? span * kLinearMargin : std::max(std::abs(b.valMax) * 0.1, 1e-12);
      chart.plot->yAxis->setRange(b.valMin - pad, b.valMax + pad);
    }
  }
  chart.settingRange = false;
}

void TrainingPlotsPanel::resetView(const QString& chart) {
  Chart* c = findChart(chart);
  if (!c) return;
  c->userView = false;
  applyAutoRange(*c);
  c->plot->replot(QCustomPlot::rpQueuedReplot);
}

// ---------------------------------------------------------------- replot throttling

void TrainingPlotsPanel::markDirty(Chart& chart) {
  chart.dirty = true;
  if (isVisible() && !replotTimer_->isActive()) replotTimer_->start();
}

void TrainingPlotsPanel::onReplotTick() {
  if (!isVisible()) {  // hidden (another tab): keep the dirty marks for showEvent
    replotTimer_->stop();
    return;
  }
  bool any = false;
  for (auto& chart : charts_) {
    if (!chart->dirty) continue;
    chart->dirty = false;
    any = true;
    if (!chart->userView) applyAutoRange(*chart);
    chart->plot->replot(QCustomPlot::rpQueuedReplot);
  }
  if (!any) replotTimer_->stop();
}

void TrainingPlotsPanel::replotNow() {
  for (auto& chart : charts_) {
    chart->dirty = false;
    if (!chart->userView) applyAutoRange(*chart);
    chart->plot->replot(QCustomPlot::rpImmediateRefresh);
  }
}

void TrainingPlotsPanel::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  for (const auto& chart : charts_) {
    if (chart->dirty) {
      replotTimer_->start();
      break;
    }
  }
}

// ---------------------------------------------------------------- palette

void TrainingPlotsPanel::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::PaletteChange) applyPalette();
}

void TrainingPlotsPanel::applyPalette() {
  for (auto& chart : charts_) applyPalette(*chart);
}

void TrainingPlotsPanel::applyPalette(Chart& chart) {
  apply_plot_palette(chart.plot, palette());
  markDirty(chart);
}

// ---------------------------------------------------------------- tooltip

void TrainingPlotsPanel::showTooltip(Chart& chart, const QPointF& pos) {
  QCustomPlot* p = chart.plot;
  const double key = p->xAxis->pixelToCoord(pos.x());
  double best = static_cast<double>(kTooltipRadiusPx) * kTooltipRadiusPx;
  const SeriesGraphs* hit = nullptr;
  int64_t hitRun = 0;
  size_t hitSeries = 0;
  double hitKey = 0, hitValue = 0;
  for (const auto& [id, list] : chart.runs) {
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
  const auto run = runs_.find(hitRun);
  QString valueText = QString::number(hitValue, 'g', 6);
  if (hit->zeros && hitValue == kZeroClamp) {
    const auto z = hit->zeros->data()->findBegin(hitKey, false);
    if (z != hit->zeros->data()->constEnd() && z->key == hitKey) valueText = tr("0 (drawn at 1e-10)");
  }
  QString text = QStringLiteral("<b>%1</b> (run %2)<br>%3: %4")
                     .arg((run != runs_.end() ? run->second->label : QString()).toHtmlEscaped())
                     .arg(hitRun)
                     .arg(tr(chart.spec->series[hitSeries].label).toHtmlEscaped(), valueText);
  if (hit->smoothed) {
    const auto s = hit->smoothed->data()->findBegin(hitKey, false);
    if (s != hit->smoothed->data()->constEnd() && s->key == hitKey) {
      text += tr("<br>smoothed: %1").arg(QString::number(s->value, 'g', 6));
    }
  }
  text += tr("<br>step %1<br>wall time %2")
              .arg(static_cast<qint64>(hitKey))
              .arg(wallTimeText(wallTimeAt(hitRun, hitKey)));
  QToolTip::showText(p->mapToGlobal(pos.toPoint()), text, p);
}

// ---------------------------------------------------------------- export

bool TrainingPlotsPanel::exportChart(const QString& chart, const QString& path, QString* error) {
  auto fail = [error](const QString& message) {
    if (error) *error = message;
    return false;
  };
  Chart* c = findChart(chart);
  if (!c) return fail(tr("unknown chart '%1' (known: %2)").arg(chart, chartNames().join(QStringLiteral(", "))));
  QCustomPlot* p = c->plot;
  if (!c->userView) applyAutoRange(*c);
  const bool onScreen = p->isVisible() && p->width() >= kMinChartWidth / 2;
  const int w = onScreen ? p->width() : kExportWidth;
  const int h = onScreen ? p->height() : kExportHeight;
  return save_plot(p, path, w, h, tr(c->spec->title), error);
}

bool TrainingPlotsPanel::exportCsv(const QString& chart, const QString& path, QString* error) {
  auto fail = [error](const QString& message) {
    if (error) *error = message;
    return false;
  };
  const Chart* c = findChart(chart);
  if (!c) return fail(tr("unknown chart '%1' (known: %2)").arg(chart, chartNames().join(QStringLiteral(", "))));

  struct Column {
    int64_t run;
    QCPGraph* graph;
    bool flag;  // "_zero": 1 where the graph has a point
  };
  QStringList header{QStringLiteral("step"), QStringLiteral("wall_time_s")};
  std::vector<Column> columns;
  for (const auto& [id, list] : c->runs) {
    for (size_t i = 0; i < list.size(); ++i) {
      const SeriesGraphs& s = list[i];
      if (!s.raw) continue;
      const QString base = QStringLiteral("run%1:%2").arg(id).arg(QLatin1String(c->spec->series[i].key));
      header << base;
      columns.push_back({id, s.raw, false});
      if (s.smoothed) {
        header << base + QStringLiteral("_smoothed");
        columns.push_back({id, s.smoothed, false});
      }
      if (s.zeros) {
        header << base + QStringLiteral("_zero");
        columns.push_back({id, s.zeros, true});
      }
    }
  }

  QFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Text)) {
    return fail(tr("%1: cannot write: %2").arg(path, file.errorString()));
  }
  QTextStream out(&file);
  out << header.join(QLatin1Char(',')) << '\n';
  for (const auto& [id, list] : c->runs) {
    // This run's steps: the union of its graphs' keys (each graph is sorted).
    std::vector<double> keys;
    for (const auto& col : columns) {
      if (col.run != id) continue;
      const auto data = col.graph->data();
      for (auto it = data->constBegin(); it != data->constEnd(); ++it) keys.push_back(it->key);
    }
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    for (const double key : keys) {
      QStringList row{QString::number(static_cast<qint64>(key))};
      const double wall = wallTimeAt(id, key);
      row << (std::isfinite(wall) ? number(wall) : QString());
      for (const auto& col : columns) {
        QString cell;
        if (col.run == id) {
          const auto data = col.graph->data();
          const auto it = data->findBegin(key, false);
          if (it != data->constEnd() && it->key == key) cell = col.flag ? QStringLiteral("1") : number(it->value);
        }
        row << cell;
      }
      out << row.join(QLatin1Char(',')) << '\n';
    }
  }
  out.flush();
  if (out.status() != QTextStream::Ok || !file.flush()) return fail(tr("%1: write failed").arg(path));
  return true;
}

void TrainingPlotsPanel::exportChartInteractive(Chart& chart, const QString& format) {
  const QString name = QString::fromLatin1(chart.spec->name);
  const QString path = QFileDialog::getSaveFileName(this, tr("Export %1").arg(tr(chart.spec->title)),
                                                    QStringLiteral("%1.%2").arg(name, format),
                                                    QStringLiteral("%1 (*.%2)").arg(format.toUpper(), format));
  if (path.isEmpty()) return;
  QString error;
  const bool ok = format == QLatin1String("csv") ? exportCsv(name, path, &error) : exportChart(name, path, &error);
  if (!ok) QMessageBox::warning(this, tr("Export failed"), error);
}

// ---------------------------------------------------------------- options

QVariantMap TrainingPlotsPanel::options() const {
  QVariantMap out;
  out.insert(QStringLiteral("smoothing"), smoothing_);
  for (const auto& chart : charts_) out.insert(QStringLiteral("log/%1").arg(QLatin1String(chart->spec->name)), chart->log);
  return out;
}

void TrainingPlotsPanel::setOptions(const QVariantMap& options) {
  const auto s = options.find(QStringLiteral("smoothing"));
  if (s != options.end()) {
    bool ok = false;
    const double w = s->toDouble(&ok);
    if (ok) setSmoothing(w);
  }
  for (const auto& chart : charts_) {
    const auto it = options.find(QStringLiteral("log/%1").arg(QLatin1String(chart->spec->name)));
    if (it != options.end()) setLogScale(QString::fromLatin1(chart->spec->name), it->toBool());
  }
}

}  // namespace hnclip::gui
