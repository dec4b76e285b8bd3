#include "widgets/captions/gbar_heatmap_panel.h"

#include "widgets/captions/gbar_pair_view.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QMouseEvent>
#include <QSlider>
#include <QSplitter>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "qcustomplot.h"
#include "store/run_store.h"
#include "train/train_config.h"
#include "widgets/common/narrow_combo.h"
#include "widgets/common/plot_export.h"
#include "widgets/common/plot_style.h"
#include "widgets/common/run_label.h"
#include "widgets/common/thumbnail_cache.h"

namespace hnclip::gui {

namespace {

constexpr int kTooltipChars = 280;

// Perceptually ordered (viridis-like) stops: equal steps in Ḡ look like equal steps in colour,
// which a rainbow scale would not give.
QCPColorGradient heatmap_gradient() {
  QCPColorGradient g;
  g.clearColorStops();
  g.setColorStopAt(0.0, QColor(68, 1, 84));
  g.setColorStopAt(0.25, QColor(59, 82, 139));
  g.setColorStopAt(0.5, QColor(33, 145, 140));
  g.setColorStopAt(0.75, QColor(94, 201, 98));
  g.setColorStopAt(1.0, QColor(253, 231, 37));
  g.setLevelCount(256);
  g.setNanHandling(QCPColorGradient::nhNanColor);  // the masked diagonal
  g.setNanColor(QColor(200, 200, 200));
  return g;
}

QString elide(const std::string& text, int chars) {
  QString s = QString::fromStdString(text);
  if (s.size() > chars) s = s.left(chars - 1) + QChar(0x2026);
  return s;
}

QString gbar_source(const GbarSnapshotSet& set) {
  return set.gbar == "frozen" ? QObject::tr("Ḡ from the frozen starting text encoder")
                              : QObject::tr("Ḡ from the live text encoder");
}

}  // namespace

struct GbarHeatmapPanel::RunsResult {
  struct Entry {
    int64_t id = 0;
    QString label;
  };
  std::vector<Entry> runs;
  QString error;
};

struct GbarHeatmapPanel::LoadResult {
  std::shared_ptr<GbarSnapshotSet> set;
  int64_t run_id = 0;
  QString error;
};

GbarHeatmapPanel::GbarHeatmapPanel(ThumbnailCache* thumbnails, QWidget* parent)
    : QWidget(parent), thumbnails_(thumbnails) {
  auto* layout = new QVBoxLayout(this);

  auto* bar = new QHBoxLayout;
  run_combo_ = new NarrowComboBox(28);
  run_combo_->setToolTip(tr("The run whose stored Ḡ snapshots are shown"));
  prev_epoch_ = new QToolButton;
  prev_epoch_->setArrowType(Qt::LeftArrow);
  prev_epoch_->setToolTip(tr("Previous epoch (Ctrl+Left)"));
  prev_epoch_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Left));
  next_epoch_ = new QToolButton;
  next_epoch_->setArrowType(Qt::RightArrow);
  next_epoch_->setToolTip(tr("Next epoch (Ctrl+Right)"));
  next_epoch_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Right));
  epoch_slider_ = new QSlider(Qt::Horizontal);
  epoch_slider_->setMinimumWidth(120);
  epoch_slider_->setPageStep(1);
  epoch_slider_->setTickPosition(QSlider::TicksBelow);
  epoch_label_ = new QLabel(tr("epoch –"));
  epoch_label_->setMinimumWidth(90);
  batch_combo_ = new QComboBox;
  batch_combo_->setToolTip(tr("Which of the run's fixed snapshot batches"));
  range_lo_ = new QDoubleSpinBox;
  range_hi_ = new QDoubleSpinBox;
  for (auto* box : {range_lo_, range_hi_}) {
    box->setRange(-1.0, 1.0);
    box->setSingleStep(0.05);
    box->setDecimals(2);
  }
  range_lo_->setValue(0.0);
  range_hi_->setValue(1.0);
  range_lo_->setToolTip(
      tr("Colour of the lowest cosine. The range is fixed (not fitted to each matrix), "
         "so heatmaps of different batches, epochs and runs compare by eye."));
  range_hi_->setToolTip(range_lo_->toolTip());
  auto* reload_button = new QToolButton;
  reload_button->setText(tr("Reload"));
  reload_button->setToolTip(
      tr("Read the run list and this run's snapshots again (a running run adds one per epoch)"));
  auto* export_button = new QToolButton;
  export_button->setText(tr("Export…"));
  export_button->setToolTip(tr("Save the heatmap as PNG, SVG or PDF"));
  // Two rows, so that the page fits a 1024-pixel screen beside the run dock (in one row its
  // controls alone were 1108 pixels wide): what is shown (run, epoch, batch), then how.
  bar->addWidget(new QLabel(tr("Run")));
  bar->addWidget(run_combo_, 1);
  bar->addSpacing(8);
  bar->addWidget(prev_epoch_);
  bar->addWidget(epoch_slider_);
  bar->addWidget(next_epoch_);
  bar->addWidget(epoch_label_);
  layout->addLayout(bar);
  auto* view_bar = new QHBoxLayout;
  view_bar->addWidget(new QLabel(tr("Batch")));
  view_bar->addWidget(batch_combo_);
  view_bar->addSpacing(8);
  view_bar->addWidget(new QLabel(tr("Colour range")));
  view_bar->addWidget(range_lo_);
  view_bar->addWidget(new QLabel(QStringLiteral("–")));
  view_bar->addWidget(range_hi_);
  view_bar->addStretch(1);
  view_bar->addWidget(reload_button);
  view_bar->addWidget(export_button);
  layout->addLayout(view_bar);

  auto* splitter = new QSplitter(Qt::Horizontal);
  plot_ = new QCustomPlot;
  plot_->setMinimumSize(360, 320);
  plot_->plotLayout()->insertRow(0);
  title_ =
      new QCPTextElement(plot_, tr("No run selected"), QFont(font().family(), 10, QFont::Bold));
  plot_->plotLayout()->addElement(0, 0, title_);
  map_ = new QCPColorMap(plot_->xAxis, plot_->yAxis);
  map_->setInterpolate(false);
  map_->setTightBoundary(true);
  map_->setGradient(heatmap_gradient());
  scale_ = new QCPColorScale(plot_);
  plot_->plotLayout()->addElement(1, 1, scale_);
  scale_->setType(QCPAxis::atRight);
  scale_->axis()->setLabel(tr("caption cosine Ḡ"));
  map_->setColorScale(scale_);  // the map takes the scale's gradient from here on
  scale_->setGradient(heatmap_gradient());
  auto* margins = new QCPMarginGroup(plot_);
  plot_->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
  scale_->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
  plot_->yAxis->setRangeReversed(true);  // row 0 on top, as a matrix is written
  plot_->xAxis->setLabel(tr("caption (position in the batch)"));
  plot_->yAxis->setLabel(tr("caption (position in the batch)"));
  auto mark = [this](QColor color, Qt::PenStyle style) {
    auto* r = new QCPItemRect(plot_);
    r->setPen(QPen(color, 2, style));
    r->setBrush(Qt::NoBrush);
    r->setVisible(false);
    return r;
  };
  max_mark_ = mark(QColor(220, 30, 30), Qt::SolidLine);
  max_mirror_ = mark(QColor(220, 30, 30), Qt::DotLine);
  selected_mark_ = mark(QColor(255, 255, 255), Qt::SolidLine);
  apply_plot_palette(plot_, palette());
  apply_plot_fonts(plot_, font());
  title_->setTextColor(palette().color(QPalette::WindowText));
  QCPAxis* scale_axis = scale_->axis();  // the colour scale's axis looks like the plot's own
  scale_axis->setBasePen(plot_->xAxis->basePen());
  scale_axis->setTickPen(plot_->xAxis->tickPen());
  scale_axis->setSubTickPen(plot_->xAxis->subTickPen());
  scale_axis->setTickLabelColor(plot_->xAxis->tickLabelColor());
  scale_axis->setLabelColor(plot_->xAxis->labelColor());
  scale_axis->setTickLabelFont(plot_->xAxis->tickLabelFont());
  scale_axis->setLabelFont(plot_->xAxis->labelFont());
  splitter->addWidget(plot_);

  pair_ = new GbarPairView(thumbnails_);
  splitter->addWidget(pair_);
  splitter->setStretchFactor(0, 1);
  splitter->setStretchFactor(1, 0);
  layout->addWidget(splitter, 1);

  status_ = new QLabel;
  status_->setWordWrap(true);
  layout->addWidget(status_);

  runs_watcher_ = new QFutureWatcher<std::shared_ptr<RunsResult>>(this);
  connect(runs_watcher_, &QFutureWatcherBase::finished, this, &GbarHeatmapPanel::onRunsListed);
  set_watcher_ = new QFutureWatcher<std::shared_ptr<LoadResult>>(this);
  connect(set_watcher_, &QFutureWatcherBase::finished, this, &GbarHeatmapPanel::onLoaded);

  connect(run_combo_, &QComboBox::currentIndexChanged, this, &GbarHeatmapPanel::onRunChosen);
  connect(epoch_slider_, &QSlider::valueChanged, this, &GbarHeatmapPanel::onEpochSlider);
  connect(batch_combo_, &QComboBox::currentIndexChanged, this, &GbarHeatmapPanel::onBatchChosen);
  connect(prev_epoch_, &QToolButton::clicked, this, [this] { stepEpoch(-1); });
  connect(next_epoch_, &QToolButton::clicked, this, [this] { stepEpoch(+1); });
  for (auto* box : {range_lo_, range_hi_}) {
    connect(box, &QDoubleSpinBox::valueChanged, this, [this] {
      if (!filling_) setColorRange(range_lo_->value(), range_hi_->value());
    });
  }
  connect(export_button, &QToolButton::clicked, this, [this] { exportInteractive(); });
  connect(reload_button, &QToolButton::clicked, this, [this] {
    refreshRuns();
    if (wanted_run_ > 0) showRun(wanted_run_);
  });
  connect(plot_, &QCustomPlot::mouseMove, this, &GbarHeatmapPanel::onMouseMove);
  connect(plot_, &QCustomPlot::mousePress, this, &GbarHeatmapPanel::onMousePress);
  setColorRange(0.0, 1.0);
  draw();
}

GbarHeatmapPanel::~GbarHeatmapPanel() {
  runs_watcher_->waitForFinished();
  set_watcher_->waitForFinished();
}

void GbarHeatmapPanel::setSources(const QString& database, const QString& cache_dir) {
  database_ = database;
  cache_dir_ = cache_dir;
  refreshRuns();
}

void GbarHeatmapPanel::refreshRuns() {
  if (database_.isEmpty() || runs_watcher_->isRunning()) return;
  const std::string db = database_.toStdString();
  runs_watcher_->setFuture(QtConcurrent::run([db] {
    auto r = std::make_shared<RunsResult>();
    try {
      RunStore store(db);
      for (const auto& run : store.list_runs()) {
        QString extra;
        try {
          const auto config = parse_train_config(run.config_json);
          extra = QStringLiteral(" · γ=%1").arg(config.loss_gamma);
          if (config.loss_gamma > 0)
            extra +=
                QStringLiteral(", Ḡ %1").arg(QString::fromStdString(to_string(config.loss_gbar)));
        } catch (const std::exception&) {
        }
        r->runs.push_back({run.id, run_choice_label(run.id, run.name) + extra});
      }
    } catch (const std::exception& e) {
      r->error = QString::fromStdString(e.what());
    }
    return r;
  }));
}

void GbarHeatmapPanel::onRunsListed() {
  const auto r = runs_watcher_->result();
  if (!r->error.isEmpty()) {
    setStatus(tr("Could not read the runs: %1").arg(r->error), true);
    emit runsListed();
    return;
  }
  const int64_t keep = wanted_run_;
  filling_ = true;
  run_combo_->clear();
  int select = -1;
  for (const auto& entry : r->runs) {
    run_combo_->addItem(entry.label, QVariant::fromValue<qlonglong>(entry.id));
    if (entry.id == keep) select = run_combo_->count() - 1;
  }
  run_combo_->setCurrentIndex(select);
  filling_ = false;
  if (r->runs.empty()) setStatus(tr("No runs yet: Ḡ snapshots are stored while a run trains."));
  emit runsListed();
}

void GbarHeatmapPanel::onRunChosen(int index) {
  if (filling_ || index < 0) return;
  showRun(run_combo_->itemData(index).toLongLong());
}

void GbarHeatmapPanel::showRun(int64_t run_id) {
  wanted_run_ = run_id;
  dock_run_ = 0;  // asked for explicitly: that wins over an earlier dock selection
  const int index = run_combo_->findData(QVariant::fromValue<qlonglong>(run_id));
  if (index >= 0 && index != run_combo_->currentIndex()) {
    filling_ = true;
    run_combo_->setCurrentIndex(index);
    filling_ = false;
  }
  if (database_.isEmpty()) return;
  loading_ = true;
  setStatus(tr("Reading the Ḡ snapshots of run %1…").arg(run_id));
  if (set_watcher_->isRunning()) return;  // onLoaded starts the wanted run when this one ends
  const std::string db = database_.toStdString(), cache = cache_dir_.toStdString();
  set_watcher_->setFuture(QtConcurrent::run([db, cache, run_id] {
    auto r = std::make_shared<LoadResult>();
    r->run_id = run_id;
    try {
      r->set = std::make_shared<GbarSnapshotSet>(load_gbar_snapshot_set(db, cache, run_id));
    } catch (const std::exception& e) {
      r->error = QString::fromStdString(e.what());
    }
    return r;
  }));
}

void GbarHeatmapPanel::followRunSelection(const QList<int64_t>& ids) {
  if (ids.isEmpty()) return;
  if (!isVisible()) {
    dock_run_ = ids.first();  // no load for a page nobody looks at
    return;
  }
  if (ids.first() != wanted_run_) showRun(ids.first());
}

void GbarHeatmapPanel::activated() {
  refreshRuns();
  const int64_t run = dock_run_;
  if (run > 0 && run != wanted_run_) showRun(run);
  dock_run_ = 0;
}

int64_t GbarHeatmapPanel::runId() const { return set_ ? set_->run_id : 0; }

void GbarHeatmapPanel::onLoaded() {
  const auto r = set_watcher_->result();
  if (r->run_id != wanted_run_) {  // the user moved on while this one was read
    showRun(wanted_run_);
    return;
  }
  loading_ = false;
  const int64_t previous_run = runId();
  const int previous_epoch = epoch_, previous_batch = batch_;
  if (!r->error.isEmpty()) {
    selected_.reset();
    wanted_pair_.reset();
    set_.reset();
    epoch_ = batch_ = -1;
    setStatus(tr("Could not read run %1: %2").arg(r->run_id).arg(r->error), true);
    draw();
    emit loaded(r->run_id);
    return;
  }
  set_ = r->set;
  const auto epochs = set_->epochs();
  filling_ = true;
  epoch_slider_->setRange(0, std::max<int>(0, static_cast<int>(epochs.size()) - 1));
  filling_ = false;
  if (epochs.empty()) {
    epoch_ = batch_ = -1;
    selected_.reset();
    wanted_pair_.reset();
    setStatus(tr("Run %1 has no Ḡ snapshots stored (they are written at the start and after every "
                 "epoch).")
                  .arg(set_->run_id));
  } else {
    QString note = gbar_source(*set_);
    if (!set_->captions_error.empty()) {
      note +=
          tr(" — caption texts unavailable: %1").arg(QString::fromStdString(set_->captions_error));
    }
    setStatus(note, !set_->captions_error.empty());
    // Open on the last epoch — what training ended with, one click away from where it started —
    // unless this is a reload of the run on screen: then stay where the user was.
    const bool reload = previous_run == set_->run_id && set_->find(previous_epoch, previous_batch);
    if (!reload) wanted_pair_.reset();  // a reload keeps the pair selected (setSnapshot finds it)
    const int epoch = reload ? previous_epoch : epochs.back();
    setSnapshot(epoch, reload ? previous_batch : set_->batches(epoch).front());  // draws it
  }
  if (epoch_ < 0) draw();  // nothing to show: clear the previous run's matrix
  emit loaded(set_->run_id);
}

bool GbarHeatmapPanel::setSnapshot(int epoch, int batch) {
  if (!set_ || !set_->find(epoch, batch)) return false;
  epoch_ = epoch;
  batch_ = batch;
  // The pair stays selected wherever this snapshot holds both its captions: stepping through the
  // epochs shows how that one pair's Ḡ moves (and a batch without it does not forget it).
  selected_.reset();
  if (wanted_pair_)
    selected_ = gbar_cell_of(*set_->find(epoch, batch), wanted_pair_->first, wanted_pair_->second);
  const auto epochs = set_->epochs();
  const auto batches = set_->batches(epoch);
  filling_ = true;
  epoch_slider_->setValue(
      static_cast<int>(std::find(epochs.begin(), epochs.end(), epoch) - epochs.begin()));
  batch_combo_->clear();
  for (int b : batches) batch_combo_->addItem(QString::number(b), b);
  batch_combo_->setCurrentIndex(batch_combo_->findData(batch));
  filling_ = false;
  epoch_label_->setText(epoch == 0 ? tr("epoch 0 (start)")
                                   : tr("epoch %1 of %2").arg(epoch).arg(epochs.back()));
  prev_epoch_->setEnabled(epoch != epochs.front());
  next_epoch_->setEnabled(epoch != epochs.back());
  draw();
  showPair();
  emit snapshotShown(epoch, batch);
  return true;
}

const GbarSnapshotRow* GbarHeatmapPanel::currentSnapshot() const {
  return set_ ? set_->find(epoch_, batch_) : nullptr;
}

void GbarHeatmapPanel::onEpochSlider(int index) {
  if (filling_ || !set_) return;
  const auto epochs = set_->epochs();
  if (index < 0 || index >= static_cast<int>(epochs.size())) return;
  const int epoch = epochs[static_cast<size_t>(index)];
  const auto batches = set_->batches(epoch);
  // Stay on the same batch when it exists in the new epoch: that is the point of stepping.
  const bool same = std::find(batches.begin(), batches.end(), batch_) != batches.end();
  setSnapshot(epoch, same ? batch_ : batches.front());
}

void GbarHeatmapPanel::onBatchChosen(int index) {
  if (filling_ || index < 0) return;
  setSnapshot(epoch_, batch_combo_->itemData(index).toInt());
}

void GbarHeatmapPanel::stepEpoch(int delta) {
  epoch_slider_->setValue(epoch_slider_->value() + delta);
}

void GbarHeatmapPanel::setColorRange(double lower, double upper) {
  if (!(upper > lower)) upper = lower + 0.01;
  filling_ = true;
  range_lo_->setValue(lower);
  range_hi_->setValue(upper);
  filling_ = false;
  map_->setDataRange(QCPRange(lower, upper));
  scale_->setDataRange(QCPRange(lower, upper));
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

QPair<double, double> GbarHeatmapPanel::colorRange() const {
  const auto r = map_->dataRange();
  return {r.lower, r.upper};
}

void GbarHeatmapPanel::draw() {
  const GbarSnapshotRow* s = currentSnapshot();
  const auto range = map_->dataRange();
  max_mark_->setVisible(false);
  max_mirror_->setVisible(false);
  selected_mark_->setVisible(false);
  if (!s || s->captions.empty()) {
    map_->data()->clear();
    map_->setVisible(false);
    title_->setText(set_ ? tr("Run %1: no Ḡ snapshot").arg(set_->run_id) : tr("No run selected"));
    plot_->replot(QCustomPlot::rpQueuedReplot);
    return;
  }
  const int n = static_cast<int>(s->captions.size());
  map_->setVisible(true);
  map_->data()->setSize(n, n);
  map_->data()->setRange(QCPRange(0, n - 1), QCPRange(0, n - 1));
  for (int r = 0; r < n; ++r) {
    for (int c = 0; c < n; ++c) {
      const double v = r == c ? std::numeric_limits<double>::quiet_NaN()
                              : static_cast<double>(s->matrix[static_cast<size_t>(r) * n + c]);
      map_->data()->setCell(c, r, v);  // key = column, value = row
    }
  }
  map_->setDataRange(range);  // setCell never refits the range, but be explicit: it is fixed
  plot_->xAxis->setRange(-0.5, n - 0.5);
  plot_->yAxis->setRange(-0.5, n - 0.5);
  auto place = [](QCPItemRect* rect, double col, double row) {
    rect->topLeft->setCoords(col - 0.5, row - 0.5);
    rect->bottomRight->setCoords(col + 0.5, row + 0.5);
    rect->setVisible(true);
  };
  place(max_mark_, static_cast<double>(s->max_j), static_cast<double>(s->max_i));
  place(max_mirror_, static_cast<double>(s->max_i), static_cast<double>(s->max_j));
  title_->setText(
      tr("epoch %1 · batch %2 · %3 captions · max off-diagonal Ḡ %4 at positions (%5, %6)")
          .arg(s->epoch)
          .arg(s->batch)
          .arg(n)
          .arg(s->max_value, 0, 'f', 3)
          .arg(s->max_i)
          .arg(s->max_j));
  if (selected_) place(selected_mark_, selected_->col, selected_->row);
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

std::optional<GbarCell> GbarHeatmapPanel::cellAtPixel(const QPoint& pixel) const {
  const GbarSnapshotRow* s = currentSnapshot();
  if (!s || !plot_->axisRect()->rect().contains(pixel)) return std::nullopt;
  return gbar_cell_at(*s, plot_->xAxis->pixelToCoord(pixel.x()),
                      plot_->yAxis->pixelToCoord(pixel.y()));
}

QString GbarHeatmapPanel::hoverText(const GbarCell& cell) const {
  if (!set_) return {};
  if (cell.diagonal)
    return tr("caption %1 against itself (masked: Ḡ's diagonal is 0)").arg(cell.caption_row);
  return tr("<b>Ḡ = %1</b> (row %2, column %3)<br><b>caption %4:</b> %5<br><b>caption %6:</b> %7")
      .arg(cell.value, 0, 'f', 3)
      .arg(cell.row)
      .arg(cell.col)
      .arg(cell.caption_row)
      .arg(elide(set_->caption_text(cell.caption_row), kTooltipChars).toHtmlEscaped())
      .arg(cell.caption_col)
      .arg(elide(set_->caption_text(cell.caption_col), kTooltipChars).toHtmlEscaped());
}

void GbarHeatmapPanel::onMouseMove(QMouseEvent* event) {
  const auto cell = cellAtPixel(event->pos());
  if (!cell) {
    QToolTip::hideText();
    return;
  }
  QToolTip::showText(
      event->globalPosition().toPoint(),
      QStringLiteral("<p style='white-space:normal; width:420px'>%1</p>").arg(hoverText(*cell)),
      plot_);
}

void GbarHeatmapPanel::onMousePress(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return;
  if (const auto cell = cellAtPixel(event->pos())) selectCell(cell->row, cell->col);
}

bool GbarHeatmapPanel::selectCell(int row, int col) {
  const GbarSnapshotRow* s = currentSnapshot();
  if (!s) return false;
  const auto cell = gbar_cell_at(*s, col, row);
  if (!cell || cell->diagonal) return false;
  selected_ = cell;
  wanted_pair_ = std::make_pair(cell->caption_row, cell->caption_col);
  draw();
  showPair();
  emit pairSelected(cell->caption_row, cell->caption_col);
  return true;
}

void GbarHeatmapPanel::showPair() {
  if (!selected_ || !set_) {
    pair_->clear();
    return;
  }
  const auto side = [this](int64_t caption) {
    return GbarPairView::Side{caption, QString::fromStdString(set_->caption_text(caption)),
                              QString::fromStdString(set_->caption_image(caption))};
  };
  pair_->showPair(selected_->value, epoch_, batch_, side(selected_->caption_row),
                  side(selected_->caption_col));
}

bool GbarHeatmapPanel::pairImagesShown() const { return selected_ && pair_->imagesShown(); }

bool GbarHeatmapPanel::exportChart(const QString& path, QString* error) {
  const bool on_screen = plot_->isVisible() && plot_->width() > 100;
  return save_plot(plot_, path, on_screen ? plot_->width() : 900, on_screen ? plot_->height() : 800,
                   title_->text(), error);
}

QString GbarHeatmapPanel::exportInteractive() {
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Export heatmap"),
      QStringLiteral("gbar-run%1-epoch%2-batch%3.png").arg(runId()).arg(epoch_).arg(batch_),
      tr("PNG image (*.png);;SVG image (*.svg);;PDF document (*.pdf)"));
  if (path.isEmpty()) return {};
  QString error;
  if (exportChart(path, &error)) return tr("Saved %1").arg(path);
  QMessageBox::warning(this, tr("Export failed"), error);
  return {};
}

void GbarHeatmapPanel::setStatus(const QString& text, bool error) {
  status_->setText(text);
  status_->setStyleSheet(error ? QStringLiteral("color: #b03030") : QString());
}

QString GbarHeatmapPanel::statusText() const { return status_->text(); }

}  // namespace hnclip::gui
