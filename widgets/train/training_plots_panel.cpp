#include "widgets/train/training_plots_panel.h"

#include <algorithm>
#include <cmath>

#include <QEvent>
#include <QFile>
#include <QFileDialog>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QScrollArea>
#include <QSlider>
#include <QTextStream>
#include <QTimer>
#include <QVBoxLayout>

#include "widgets/common/run_label.h"

namespace hnclip::gui {
namespace {
constexpr int kSliderSteps = 100;  // smoothing slider resolution (0.00 … 0.99)
constexpr double kMaxSmoothing = 0.99;
constexpr int kGridSpacing = 6;
// Narrower than two minimum-width charts side by side, the charts stand in one column.
constexpr int kTwoColumnWidth = 2 * TrainingChart::kMinWidth + kGridSpacing;

// The order the charts are laid out in (TrainingCurves::ChartIndex): saturation first — the loss
// against its "solved" line, the solved fractions, where the gradient goes (plain beside
// boosted) — then the probes' gradient norms, ratio and cosine, the learning rate, and the recall
// chart, whose legend of six series per run wants the full width.
const int kLayoutOrder[] = {TrainingCurves::kLoss,
                            TrainingCurves::kLossTerms,  // laid out only once a run has terms
                            TrainingCurves::kProbeFractions,
                            TrainingCurves::kGradientMassPlain,
                            TrainingCurves::kGradientMassBoosted,
                            TrainingCurves::kGradNorm,
                            TrainingCurves::kGradRatio,
                            TrainingCurves::kGradCosine,
                            TrainingCurves::kLr,
                            TrainingCurves::kRecall};

QString number(double v) { return QString::number(v, 'g', 15); }
}  // namespace

TrainingPlotsPanel::TrainingPlotsPanel(QWidget* parent) : QWidget(parent) {
  replotTimer_ = new QTimer(this);
  replotTimer_->setInterval(1000 / kReplotHz);
  connect(replotTimer_, &QTimer::timeout, this, [this] { onReplotTick(); });

  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("Smoothing"), this));
  smoothingSlider_ = new QSlider(Qt::Horizontal, this);
  smoothingSlider_->setRange(0, static_cast<int>(std::lround(kMaxSmoothing * kSliderSteps)));
  smoothingSlider_->setToolTip(
      tr("Exponential moving average weight (debiased, as in TensorBoard)"));
  smoothingSlider_->setMaximumWidth(220);
  smoothingLabel_ = new QLabel(this);
  top->addWidget(smoothingSlider_);
  top->addWidget(smoothingLabel_);
  top->addStretch(1);
  auto* hint = new QLabel(
      tr("Wheel: scroll · Ctrl+wheel (or click a chart): zoom · drag: pan · Follow, double-click "
         "or F: follow the data"),
      this);
  hint->setObjectName(QStringLiteral("chartHint"));
  hint->setForegroundRole(QPalette::WindowText);  // readable in a dark palette, unlike disabled
  hint->setWordWrap(true);
  // A row of its own under the slider: beside it, the Train tab's share of a 1024-pixel window
  // left the hint a column six lines tall, pushing the charts down.
  connect(smoothingSlider_, &QSlider::valueChanged, this,
          [this](int v) { setSmoothing(static_cast<double>(v) / kSliderSteps); });

  auto* gridHost = new QWidget;
  grid_ = new QGridLayout(gridHost);
  grid_->setContentsMargins(0, 0, 0, 0);
  grid_->setSpacing(kGridSpacing);
  const int n = static_cast<int>(TrainingCurves::charts().size());
  for (int i = 0; i < n; ++i) {
    auto* chart = new TrainingChart(
        curves_, i, [this](int64_t run_id) { return labelOf(run_id); }, font(), gridHost);
    charts_.push_back(chart);
    connect(chart, &TrainingChart::logToggled, this,
            [this, chart](bool on) { setLogScale(chart->name(), on); });
    connect(chart, &TrainingChart::exportRequested, this,
            [this, chart](const QString& format) { exportChartInteractive(*chart, format); });
  }
  scroll_ = new QScrollArea(this);
  scroll_->setWidgetResizable(true);
  scroll_->setFrameShape(QFrame::NoFrame);
  scroll_->setWidget(gridHost);
  scroll_->viewport()->installEventFilter(this);  // its resizes reflow the columns
  layoutCharts(2);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(top);
  layout->addWidget(hint);
  layout->addWidget(scroll_, 1);

  setSmoothing(curves_.smoothing());
  applyPalette();
}

TrainingPlotsPanel::~TrainingPlotsPanel() = default;

// ---------------------------------------------------------------- layout

// Two columns, or one when the page is narrow, so the charts never need a horizontal scrollbar.
void TrainingPlotsPanel::layoutCharts(int columns) {
  columns_ = columns;
  for (TrainingChart* chart : charts_) grid_->removeWidget(chart);
  int cell = 0;
  lossTermsShown_ = !curves_.seriesOf(TrainingCurves::kLossTerms).empty();
  for (const int index : kLayoutOrder) {
    TrainingChart* chart = charts_[static_cast<size_t>(index)];
    if (index == TrainingCurves::kLossTerms && !lossTermsShown_) {
      chart->hide();
      continue;
    }
    chart->show();
    const bool full = columns == 2 && index == TrainingCurves::kRecall;
    if (full && cell % 2 == 1) ++cell;  // a full-width chart starts a row
    grid_->addWidget(chart, cell / columns, cell % columns, 1, full ? 2 : 1);
    cell += full ? 2 : 1;
  }
  for (int c = 0; c < 2; ++c) grid_->setColumnStretch(c, c < columns ? 1 : 0);
}

bool TrainingPlotsPanel::eventFilter(QObject* watched, QEvent* event) {
  if (watched == scroll_->viewport() && event->type() == QEvent::Resize) {
    const int wanted = scroll_->viewport()->width() >= kTwoColumnWidth ? 2 : 1;
    if (wanted != columns_) layoutCharts(wanted);
  }
  return QWidget::eventFilter(watched, event);
}

int TrainingPlotsPanel::columnOf(const QString& chart) const {
  const TrainingChart* c = findChart(chart);
  if (!c) return -1;
  int row = 0, column = 0, rowSpan = 0, columnSpan = 0;
  grid_->getItemPosition(grid_->indexOf(c), &row, &column, &rowSpan, &columnSpan);
  return column;
}

// ---------------------------------------------------------------- lookup

TrainingChart* TrainingPlotsPanel::findChart(const QString& chart) const {
  for (TrainingChart* c : charts_) {
    if (chart == c->name()) return c;
  }
  bool ok = false;
  const int i = chart.toInt(&ok);
  return ok && i >= 0 && i < static_cast<int>(charts_.size()) ? charts_[static_cast<size_t>(i)]
                                                              : nullptr;
}

QStringList TrainingPlotsPanel::chartNames() const {
  QStringList out;
  for (const TrainingChart* c : charts_) out << c->name();
  return out;
}

QString TrainingPlotsPanel::chartTitle(const QString& chart) const {
  const TrainingChart* c = findChart(chart);
  return c ? c->title() : QString();
}

QStringList TrainingPlotsPanel::seriesNames(const QString& chart) const {
  QStringList out;
  if (const TrainingChart* c = findChart(chart)) {
    for (const char* key : TrainingCurves::charts()[static_cast<size_t>(c->index())].series) {
      out << QString::fromLatin1(key);
    }
  }
  return out;
}

QCustomPlot* TrainingPlotsPanel::plot(const QString& chart) const {
  const TrainingChart* c = findChart(chart);
  return c ? c->plot() : nullptr;
}

QCPGraph* TrainingPlotsPanel::graph(const QString& chart, int64_t run_id, const QString& series,
                                    GraphRole role) const {
  const TrainingChart* c = findChart(chart);
  return c ? c->graph(run_id, series, role) : nullptr;
}

QCPBars* TrainingPlotsPanel::massBars(const QString& chart, int64_t run_id, int bucket) const {
  const TrainingChart* c = findChart(chart);
  return c ? c->bars(run_id, bucket) : nullptr;
}

TrainingChart* TrainingPlotsPanel::chart(const QString& chart) const { return findChart(chart); }

QList<int64_t> TrainingPlotsPanel::runs() const {
  QList<int64_t> out;
  for (const int64_t id : curves_.runs()) out << id;
  return out;
}

QString TrainingPlotsPanel::labelOf(int64_t run_id) const {
  const auto it = labels_.find(run_id);
  return it != labels_.end() ? it->second : run_label(run_id, {});
}

// ---------------------------------------------------------------- mirroring

// Mirrors every chart the model changed since the last call.
void TrainingPlotsPanel::mirrorChanges() {
  // The loss-terms chart comes and goes with the runs that record terms.
  if (lossTermsShown_ == curves_.seriesOf(TrainingCurves::kLossTerms).empty())
    layoutCharts(columns_);
  for (TrainingChart* chart : charts_) {
    if (chart->mirror()) markDirty(*chart);
  }
}

// ---------------------------------------------------------------- feeding

void TrainingPlotsPanel::appendStep(int64_t run_id, const hnclip::StepEvent& e) {
  curves_.addStep(run_id, StepMetricRow{e.step, e.epoch, e.wall_time_s, e.loss, e.loss_standard,
                                        e.lr, e.logit_scale, e.grad_norm, e.loss_terms});
  mirrorChanges();
}

void TrainingPlotsPanel::appendProbe(int64_t run_id, const hnclip::ProbeEvent& e) {
  curves_.addProbe(run_id, ProbeRow{e.step, e.epoch, e.loss_standard, e.loss_boosted,
                                    e.grad_norm_standard, e.grad_norm_boosted, e.grad_ratio,
                                    e.grad_cosine, e.mass_share_plain, e.mass_share_boosted});
  mirrorChanges();
}

void TrainingPlotsPanel::appendEval(int64_t run_id, const hnclip::EvalEvent& e) {
  curves_.beginEval(run_id, e.step, e.split);
  for (const auto* result : {&e.t2i, &e.i2t}) {
    const std::string direction =
        result->direction.empty() ? (result == &e.t2i ? "t2i" : "i2t") : result->direction;
    for (const auto& [k, recall] : result->recall)
      curves_.addRecall(run_id, e.step, e.split, direction, k, recall);
  }
  mirrorChanges();
}

void TrainingPlotsPanel::setRunHistory(int64_t run_id, const QString& label,
                                       const std::vector<hnclip::StepMetricRow>& steps,
                                       const std::vector<hnclip::ProbeRow>& probes,
                                       const std::vector<hnclip::EpochEvalRow>& evals) {
  removeRun(run_id);
  labels_[run_id] = label.isEmpty() ? run_label(run_id, {}) : label;
  curves_.setHistory(run_id, steps, probes, evals);
  mirrorChanges();
}

void TrainingPlotsPanel::setRunLabel(int64_t run_id, const QString& label) {
  curves_.addRun(run_id);
  labels_[run_id] = label;
  for (TrainingChart* chart : charts_) {
    if (chart->restyleRun(run_id)) markDirty(*chart);
  }
}

void TrainingPlotsPanel::removeRun(int64_t run_id) {
  curves_.removeRun(run_id);
  labels_.erase(run_id);
  mirrorChanges();
}

void TrainingPlotsPanel::clearRuns() {
  const QList<int64_t> ids = runs();
  for (const int64_t id : ids) removeRun(id);
}

// ---------------------------------------------------------------- smoothing, scale, view

double TrainingPlotsPanel::smoothing() const { return curves_.smoothing(); }

void TrainingPlotsPanel::setSmoothing(double weight) {
  if (!std::isfinite(weight)) weight = 0;
  curves_.setSmoothing(std::clamp(weight, 0.0, kMaxSmoothing));
  {
    const QSignalBlocker block(smoothingSlider_);
    smoothingSlider_->setValue(static_cast<int>(std::lround(curves_.smoothing() * kSliderSteps)));
  }
  smoothingLabel_->setText(QString::number(curves_.smoothing(), 'f', 2));
  mirrorChanges();
}

bool TrainingPlotsPanel::logScale(const QString& chart) const {
  const TrainingChart* c = findChart(chart);
  return c && c->logScale();
}

void TrainingPlotsPanel::setLogScale(const QString& chart, bool log) {
  TrainingChart* c = findChart(chart);
  if (!c) return;
  c->setLogScale(log);
  markDirty(*c);
}

void TrainingPlotsPanel::resetView(const QString& chart) {
  if (TrainingChart* c = findChart(chart)) c->resetView();
}

// ---------------------------------------------------------------- replot throttling

void TrainingPlotsPanel::markDirty(TrainingChart& chart) {
  chart.setDirty(true);
  if (isVisible() && !replotTimer_->isActive()) replotTimer_->start();
}

void TrainingPlotsPanel::onReplotTick() {
  if (!isVisible()) {  // hidden (another tab): keep the dirty marks for showEvent
    replotTimer_->stop();
    return;
  }
  bool any = false;
  for (TrainingChart* chart : charts_) {
    if (!chart->dirty()) continue;
    chart->setDirty(false);
    any = true;
    chart->replot(false);
  }
  if (!any) replotTimer_->stop();
}

void TrainingPlotsPanel::replotNow() {
  for (TrainingChart* chart : charts_) {
    chart->setDirty(false);
    chart->replot(true);
  }
}

void TrainingPlotsPanel::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  for (const TrainingChart* chart : charts_) {
    if (chart->dirty()) {
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
  for (TrainingChart* chart : charts_) {
    chart->applyPalette(palette());
    markDirty(*chart);
  }
}

// ---------------------------------------------------------------- export

bool TrainingPlotsPanel::exportChart(const QString& chart, const QString& path, QString* error) {
  auto fail = [error](const QString& message) {
    if (error) *error = message;
    return false;
  };
  TrainingChart* c = findChart(chart);
  if (!c)
    return fail(
        tr("unknown chart '%1' (known: %2)").arg(chart, chartNames().join(QStringLiteral(", "))));
  return c->exportTo(path, error);
}

bool TrainingPlotsPanel::exportCsv(const QString& chart, const QString& path, QString* error) {
  auto fail = [error](const QString& message) {
    if (error) *error = message;
    return false;
  };
  const TrainingChart* c = findChart(chart);
  if (!c)
    return fail(
        tr("unknown chart '%1' (known: %2)").arg(chart, chartNames().join(QStringLiteral(", "))));

  const CurveTable table = curves_.table(c->index());
  QFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Text)) {
    return fail(tr("%1: cannot write: %2").arg(path, file.errorString()));
  }
  QTextStream out(&file);
  QStringList header;
  for (const auto& h : table.header) header << QString::fromStdString(h);
  out << header.join(QLatin1Char(',')) << '\n';
  for (const auto& values : table.rows) {
    QStringList row{QString::number(static_cast<qint64>(values[0]))};  // the step
    for (size_t i = 1; i < values.size(); ++i)
      row << (std::isfinite(values[i]) ? number(values[i]) : QString());
    out << row.join(QLatin1Char(',')) << '\n';
  }
  out.flush();
  if (out.status() != QTextStream::Ok || !file.flush())
    return fail(tr("%1: write failed").arg(path));
  return true;
}

void TrainingPlotsPanel::exportChartInteractive(TrainingChart& chart, const QString& format) {
  const QString name = chart.name();
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Export %1").arg(chart.title()), QStringLiteral("%1.%2").arg(name, format),
      QStringLiteral("%1 (*.%2)").arg(format.toUpper(), format));
  if (path.isEmpty()) return;
  QString error;
  const bool ok = format == QLatin1String("csv") ? exportCsv(name, path, &error)
                                                 : exportChart(name, path, &error);
  if (!ok) QMessageBox::warning(this, tr("Export failed"), error);
}

// ---------------------------------------------------------------- options

QVariantMap TrainingPlotsPanel::options() const {
  QVariantMap out;
  out.insert(QStringLiteral("smoothing"), curves_.smoothing());
  for (const TrainingChart* chart : charts_) {
    out.insert(QStringLiteral("log/%1").arg(chart->name()), chart->logScale());
  }
  return out;
}

void TrainingPlotsPanel::setOptions(const QVariantMap& options) {
  const auto s = options.find(QStringLiteral("smoothing"));
  if (s != options.end()) {
    bool ok = false;
    const double w = s->toDouble(&ok);
    if (ok) setSmoothing(w);
  }
  for (const TrainingChart* chart : charts_) {
    const auto it = options.find(QStringLiteral("log/%1").arg(chart->name()));
    if (it != options.end()) setLogScale(chart->name(), it->toBool());
  }
}

}  // namespace hnclip::gui
