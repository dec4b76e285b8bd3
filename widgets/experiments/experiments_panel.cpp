#include "widgets/experiments/experiments_panel.h"

#include <algorithm>
#include <cmath>

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSaveFile>
#include <QSettings>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QTreeView>
#include <QVBoxLayout>

#include "experiment/experiment_report.h"
#include "widgets/common/run_table_model.h"
#include "widgets/experiments/experiment_grid_model.h"
#include "widgets/experiments/experiment_list_model.h"
#include "widgets/experiments/experiment_loader.h"
#include "widgets/experiments/experiment_plots.h"
#include "widgets/experiments/new_experiment_dialog.h"

namespace hnclip::gui {
namespace {

// How often the list is reread while the tab is shown or an experiment runs here: an experiment
// started by the CLI on the same database moves in the window within this time.
constexpr int kPollMs = 2000;
constexpr int kListHeight = 130;  // the list's share of the splitter before the user moves it
constexpr int kGridHeight = 260;
constexpr int kPlotsHeight = 330;
constexpr int kMsPerSecond = 1000;

QString qs(const std::string& s) { return QString::fromStdString(s); }

// Widens every column to its contents, keeping any column the user made wider.
void widen_to_contents(QAbstractItemView* view, QHeaderView* header) {
  for (int c = 0; c < header->count(); ++c) {
    const int wanted = std::max(view->sizeHintForColumn(c), header->sectionSizeHint(c));
    if (header->sectionSize(c) < wanted) header->resizeSection(c, wanted);
  }
}

}  // namespace

ExperimentsPanel::ExperimentsPanel(QString db_path, QString cache_dir, QWidget* parent)
    : QWidget(parent), db_path_(std::move(db_path)), cache_dir_(std::move(cache_dir)) {
  setObjectName(QStringLiteral("experiments"));
  loader_ = new ExperimentLoader(db_path_, this);
  controller_ = new ExperimentController(this);
  list_model_ = new ExperimentListModel(this);
  grid_model_ = new ExperimentGridModel(this);
  buildLayout();

  connect(loader_, &ExperimentLoader::listLoaded, this, &ExperimentsPanel::onListLoaded);
  connect(loader_, &ExperimentLoader::listFailed, this, [this](const QString& error) {
    showMessage(tr("Cannot read experiments: %1").arg(error), true);
  });
  connect(loader_, &ExperimentLoader::snapshotLoaded, this, &ExperimentsPanel::onSnapshotLoaded);
  connect(loader_, &ExperimentLoader::snapshotFailed, this,
          [this](qint64 id, const QString& error) {
            showMessage(tr("Cannot read experiment %1: %2").arg(id).arg(error), true);
          });

  connect(controller_, &ExperimentController::stateChanged, this, [this] {
    updateButtons();
    updateProgress();
  });
  connect(
      controller_, &ExperimentController::created, this, [this](qint64 id, int runs, int reused) {
        showMessage(
            tr("Experiment %1: %2 runs (%3 filled by finished runs)").arg(id).arg(runs).arg(reused),
            false);
        selectExperiment(id);
        refresh();
        emit experimentStarted(id);
      });
  connect(controller_, &ExperimentController::progress, this, &ExperimentsPanel::onProgress);
  connect(controller_, &ExperimentController::finished, this,
          [this](qint64 id, const QString& status) {
            has_progress_ = false;
            showMessage(tr("Experiment %1 %2").arg(id).arg(status), false);
            refresh();
            // A read that starts now sees every run the experiment finished.
            if (id == selected_) loader_->loadSnapshot(id);
            emit runsChanged();
            emit experimentEnded(id, status);
          });
  connect(controller_, &ExperimentController::failed, this, [this](const QString& message) {
    has_progress_ = false;
    showMessage(message, true);
    refresh();
    emit experimentFailed(message);
  });

  poll_ = new QTimer(this);
  poll_->setInterval(kPollMs);
  connect(poll_, &QTimer::timeout, this, &ExperimentsPanel::refresh);
  updateButtons();
  refresh();
}

ExperimentsPanel::~ExperimentsPanel() { controller_->cancel(); }

void ExperimentsPanel::buildLayout() {
  auto* layout = new QVBoxLayout(this);
  splitter_ = new QSplitter(Qt::Vertical, this);
  splitter_->setObjectName(QStringLiteral("experimentsSplitter"));
  layout->addWidget(splitter_, 1);

  // The experiments, with the controls of the one this window runs.
  auto* top = new QWidget(splitter_);
  auto* top_layout = new QVBoxLayout(top);
  top_layout->setContentsMargins(0, 0, 0, 0);
  auto* bar = new QHBoxLayout;
  new_ = new QPushButton(tr("New experiment…"), top);
  new_->setObjectName(QStringLiteral("newExperiment"));
  pause_ = new QPushButton(tr("Pause"), top);
  pause_->setObjectName(QStringLiteral("pauseExperiment"));
  pause_->setCheckable(true);
  resume_ = new QPushButton(tr("Resume"), top);
  resume_->setObjectName(QStringLiteral("resumeExperiment"));
  resume_->setToolTip(
      tr("Continue a paused experiment, or an interrupted or cancelled one: its "
         "finished runs stay, interrupted runs resume from their checkpoint"));
  cancel_ = new QPushButton(tr("Cancel"), top);
  cancel_->setObjectName(QStringLiteral("cancelExperiment"));
  cancel_->setToolTip(
      tr("Stop after the current step; finished runs are kept and the "
         "experiment can be resumed"));
  for (QPushButton* b : {new_, pause_, resume_, cancel_}) bar->addWidget(b);
  progress_ = new QProgressBar(top);
  progress_->setObjectName(QStringLiteral("experimentProgress"));
  bar->addWidget(progress_, 1);
  top_layout->addLayout(bar);
  progress_text_ = new QLabel(top);
  progress_text_->setObjectName(QStringLiteral("experimentProgressText"));
  progress_text_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  top_layout->addWidget(progress_text_);
  list_ = new QTreeView(top);
  list_->setObjectName(QStringLiteral("experimentList"));
  list_->setModel(list_model_);
  list_->setRootIsDecorated(false);
  list_->setUniformRowHeights(true);
  list_->setSelectionMode(QAbstractItemView::SingleSelection);
  list_->setSelectionBehavior(QAbstractItemView::SelectRows);
  top_layout->addWidget(list_, 1);

  // The selected experiment's table.
  auto* middle = new QWidget(splitter_);
  auto* middle_layout = new QVBoxLayout(middle);
  middle_layout->setContentsMargins(0, 0, 0, 0);
  title_ = new QLabel(middle);
  title_->setObjectName(QStringLiteral("experimentTitle"));
  title_->setTextFormat(Qt::RichText);
  middle_layout->addWidget(title_);
  rule_ = new QLabel(middle);
  rule_->setObjectName(QStringLiteral("selectionRule"));
  rule_->setWordWrap(true);
  rule_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  middle_layout->addWidget(rule_);
  grid_ = new QTableView(middle);
  grid_->setObjectName(QStringLiteral("experimentGrid"));
  grid_->setModel(grid_model_);
  grid_->setSelectionBehavior(QAbstractItemView::SelectRows);
  grid_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  grid_->verticalHeader()->setVisible(false);
  grid_->verticalHeader()->setDefaultSectionSize(grid_->fontMetrics().height() + 8);
  grid_->setContextMenuPolicy(Qt::ActionsContextMenu);
  middle_layout->addWidget(grid_, 1);
  auto* actions = new QHBoxLayout;
  auto* legend = new QLabel(
      tr("Δ: method − control R@1 in points, paired by seed; * significant at α = %1 (paired t, "
         "two-sided). Green: above the control, red: below (over two seeds or more). Best mean "
         "per R@1 column bold, second underlined; controls in italics.")
          .arg(kSignificanceLevel),
      middle);
  legend->setWordWrap(true);
  actions->addWidget(legend, 1);
  compare_ = new QPushButton(tr("Compare with its control"), middle);
  compare_->setObjectName(QStringLiteral("compareWithControl"));
  compare_->setToolTip(
      tr("Open the Retrieval tab with the control's run as A and this cell's "
         "run of the same seed as B"));
  export_table_ = new QPushButton(tr("Export table…"), middle);
  export_table_->setObjectName(QStringLiteral("exportTable"));
  actions->addWidget(compare_);
  actions->addWidget(export_table_);
  middle_layout->addLayout(actions);
  message_ = new QLabel(middle);
  message_->setObjectName(QStringLiteral("experimentMessage"));
  message_->setWordWrap(true);
  message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  middle_layout->addWidget(message_);

  plots_ = new ExperimentPlots(splitter_);
  splitter_->addWidget(top);
  splitter_->addWidget(middle);
  splitter_->addWidget(plots_);
  splitter_->setSizes({kListHeight, kGridHeight, kPlotsHeight});

  auto* select_runs = new QAction(tr("Select its runs in the Runs tab"), grid_);
  connect(select_runs, &QAction::triggered, this, [this] { emit runsSelected(selectedRuns()); });
  auto* compare = new QAction(tr("Compare with its control"), grid_);
  connect(compare, &QAction::triggered, this, &ExperimentsPanel::compareWithControl);
  grid_->addActions({select_runs, compare});

  connect(new_, &QPushButton::clicked, this, &ExperimentsPanel::newExperiment);
  connect(pause_, &QPushButton::toggled, this, &ExperimentsPanel::setPaused);
  connect(resume_, &QPushButton::clicked, this, [this] {
    if (controller_->state() == ExperimentController::State::Paused)
      setPaused(false);
    else
      resumeExperiment(selected_);
  });
  connect(cancel_, &QPushButton::clicked, this, &ExperimentsPanel::cancelExperiment);
  connect(compare_, &QPushButton::clicked, this, &ExperimentsPanel::compareWithControl);
  connect(export_table_, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export the table"), QStringLiteral("experiment-%1.csv").arg(selected_),
        tr("CSV (*.csv);;LaTeX (*.tex)"));
    if (path.isEmpty()) return;
    QString error;
    if (!exportTable(path, &error)) QMessageBox::warning(this, tr("Export failed"), error);
  });
  connect(list_->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
    const auto rows = list_->selectionModel()->selectedRows();
    if (rows.isEmpty()) return;
    const qint64 id = list_model_->data(rows.first(), ExperimentListModel::kIdRole).toLongLong();
    if (id != selected_) selectExperiment(id);
  });
  connect(grid_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
          &ExperimentsPanel::onGridSelection);
  connect(plots_, &ExperimentPlots::runsClicked, this, &ExperimentsPanel::runsSelected);
}

void ExperimentsPanel::activated() { refresh(); }

void ExperimentsPanel::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  poll_->start();
}

void ExperimentsPanel::hideEvent(QHideEvent* event) {
  QWidget::hideEvent(event);
  // Hidden, the tab polls only while this window runs an experiment (its progress moves).
  if (!controller_->busy()) poll_->stop();
}

void ExperimentsPanel::refresh() { loader_->loadList(); }

void ExperimentsPanel::onListLoaded(std::shared_ptr<const std::vector<ExperimentListEntry>> list) {
  const ExperimentListEntry* before = list_model_->entry(selected_);
  const int finished_before = before ? before->runs_finished : -1;
  const std::string status_before = before ? before->record.status : std::string();
  list_model_->setEntries(*list);
  if (!columns_fitted_ && list_model_->rowCount() > 0) {
    list_->header()->resizeSections(QHeaderView::ResizeToContents);  // from the default widths
    columns_fitted_ = true;
  }
  widen_to_contents(list_, list_->header());
  int64_t want = pending_selection_ > 0 ? pending_selection_ : selected_;
  if (list_model_->rowOf(want) < 0) want = list->empty() ? 0 : list->front().record.id;
  if (want > 0 && list_model_->rowOf(want) >= 0) {
    if (want == pending_selection_) pending_selection_ = 0;
    if (want != selected_) {
      selectExperiment(want);
    } else {
      // Keep the view's selection on the experiment (a reset of the model drops it).
      const QModelIndex row = list_model_->index(list_model_->rowOf(want), 0);
      if (!list_->selectionModel()->isRowSelected(row.row(), {}))
        list_->selectionModel()->select(
            row, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
      const ExperimentListEntry* now = list_model_->entry(want);
      if (!snapshot_ || now->runs_finished != finished_before ||
          now->record.status != status_before)
        loader_->loadSnapshot(want);
    }
  }
  updateButtons();
  updateProgress();
}

void ExperimentsPanel::selectExperiment(int64_t experiment_id) {
  const int row = list_model_->rowOf(experiment_id);
  if (row < 0) {
    pending_selection_ = experiment_id;
    refresh();
    return;
  }
  if (experiment_id != selected_) {
    selected_ = experiment_id;
    snapshot_.reset();
    grid_model_->clear();
    plots_->setSnapshot(nullptr);
    title_->clear();
    rule_->clear();
  }
  list_->selectionModel()->select(list_model_->index(row, 0),
                                  QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  list_->scrollTo(list_model_->index(row, 0));
  loader_->loadSnapshot(experiment_id);
  updateButtons();
  updateProgress();
}

void ExperimentsPanel::onSnapshotLoaded(std::shared_ptr<const ExperimentSnapshot> snapshot) {
  const auto& r = snapshot->results;
  if (r.experiment.id != selected_) return;
  snapshot_ = snapshot;
  const bool first = grid_model_->experimentId() != r.experiment.id || grid_model_->rowCount() == 0;
  grid_model_->setResults(r);
  // Columns grow to fit what the grid now shows (never shrink below the user's width).
  // Fitted to the first table of an experiment (from the default widths, unless the user's came
  // back from the settings), then only widened as the grid fills in: never below the user's width.
  if (first && !grid_header_restored_)
    grid_->resizeColumnsToContents();
  else
    widen_to_contents(grid_, grid_->horizontalHeader());
  plots_->setSnapshot(snapshot_);
  title_->setText(tr("<b>%1</b> (experiment %2, %3) — %4 of %5 runs with a result, seeds %6")
                      .arg(qs(r.experiment.name).toHtmlEscaped())
                      .arg(r.experiment.id)
                      .arg(qs(r.experiment.status))
                      .arg(r.runs_finished)
                      .arg(r.runs_total)
                      .arg([&r] {
                        QStringList seeds;
                        for (int64_t s : r.seeds) seeds << QString::number(s);
                        return seeds.join(QStringLiteral(", "));
                      }()));
  rule_->setText(qs(r.selection_rule) + QStringLiteral(". ") + qs(experiment_controls_text(r)));
  onGridSelection();
  emit snapshotShown(r.experiment.id);
}

void ExperimentsPanel::onProgress(const hnclip::ExperimentProgress& progress) {
  last_progress_ = progress;
  has_progress_ = true;
  updateProgress();
  if (!progress.event.empty()) {
    refresh();
    emit runsChanged();
  }
}

void ExperimentsPanel::updateProgress() {
  const ExperimentListEntry* entry = list_model_->entry(selected_);
  const bool ours = controller_->busy() && controller_->experimentId() == selected_;
  if (ours && has_progress_) {
    const auto& p = last_progress_;
    showRunCount(p.done, p.total);
    QString text = std::isnan(p.eta_seconds)
                       ? tr("ETA: estimating")
                       : tr("ETA %1").arg(format_duration_ms(
                             static_cast<int64_t>(p.eta_seconds * kMsPerSecond)));
    if (p.failed > 0) text += tr(" · %1 failed").arg(p.failed);
    for (const auto& c : p.current) text += QStringLiteral(" · ") + qs(c);
    if (controller_->state() == ExperimentController::State::Paused) text = tr("Paused · ") + text;
    progress_text_->setText(text);
  } else if (entry) {
    showRunCount(entry->runs_finished, entry->runs_total);
    QString text = qs(entry->record.status);
    if (entry->record.status == kExperimentRunning && !ours)
      text += tr(" in process %1 on %2").arg(entry->record.pid).arg(qs(entry->record.host));
    if (!entry->record.status_message.empty())
      text += QStringLiteral(" — ") + qs(entry->record.status_message);
    progress_text_->setText(text);
  } else {
    progress_->setRange(0, 1);
    progress_->setValue(0);
    progress_->setFormat(QString());  // no experiment, no count (it read "0/1 runs")
    progress_text_->setText(tr("No experiment yet: New experiment… starts one."));
  }
}

// The bar's range is at least 1 (a range of 0 draws Qt's busy indicator), so the text gives the
// real numbers rather than the bar's %v/%m.
void ExperimentsPanel::showRunCount(int done, int total) {
  progress_->setRange(0, std::max(1, total));
  progress_->setValue(done);
  progress_->setFormat(tr("%1/%2 runs").arg(done).arg(total));
}

void ExperimentsPanel::updateButtons() {
  using State = ExperimentController::State;
  const State s = controller_->state();
  const ExperimentListEntry* entry = list_model_->entry(selected_);
  new_->setEnabled(s == State::Idle);
  pause_->setEnabled(s == State::Running || s == State::Paused);
  {
    const QSignalBlocker block(pause_);
    pause_->setChecked(s == State::Paused);
  }
  resume_->setEnabled(s == State::Paused || (s == State::Idle && entry && entry->resumable()));
  cancel_->setEnabled(s == State::Preparing || s == State::Running || s == State::Paused);
  if (s != State::Idle) poll_->start();
}

void ExperimentsPanel::newExperiment() {
  if (controller_->busy()) return;
  NewExperimentDialog dialog(db_path_, form_config_, this);
  if (dialog.exec() != QDialog::Accepted) return;
  try {
    startExperiment(dialog.spec(), dialog.confirmed());
  } catch (const std::exception& e) {
    showMessage(qs(e.what()), true);
  }
}

bool ExperimentsPanel::startExperiment(const hnclip::ExperimentSpec& spec, bool confirmed) {
  ExperimentRequest request;
  request.spec = spec;
  request.confirmed = confirmed;
  request.database = db_path_;
  request.cache_dir = cache_dir_;
  has_progress_ = false;
  if (!controller_->start(request)) {
    emit experimentFailed(tr("an experiment is already running in this window"));
    return false;
  }
  showMessage(tr("Creating experiment “%1”…").arg(qs(spec.name)), false);
  return true;
}

bool ExperimentsPanel::resumeExperiment(int64_t experiment_id) {
  if (experiment_id <= 0) return false;
  ExperimentRequest request;
  request.resume_id = experiment_id;
  request.database = db_path_;
  request.cache_dir = cache_dir_;
  has_progress_ = false;
  if (!controller_->start(request)) return false;
  showMessage(tr("Resuming experiment %1…").arg(experiment_id), false);
  return true;
}

void ExperimentsPanel::setPaused(bool paused) {
  controller_->setPaused(paused);
  updateProgress();
}

void ExperimentsPanel::cancelExperiment() {
  controller_->cancel();
  showMessage(tr("Cancelling after the current step…"), false);
}

bool ExperimentsPanel::isRunning() const { return controller_->busy(); }

QList<int64_t> ExperimentsPanel::selectedRuns() const {
  QList<int64_t> ids;
  for (const QModelIndex& row : grid_->selectionModel()->selectedRows()) {
    for (int64_t id : grid_model_->runIds(row.row())) {
      if (!ids.contains(id)) ids.append(id);
    }
  }
  return ids;
}

void ExperimentsPanel::onGridSelection() {
  const auto rows = grid_->selectionModel()->selectedRows();
  const bool one = rows.size() == 1;
  compare_->setEnabled(one && grid_model_->controlComparisonRuns(rows.first().row()).has_value());
  export_table_->setEnabled(grid_model_->rowCount() > 0);
  if (!rows.isEmpty()) emit runsSelected(selectedRuns());
}

void ExperimentsPanel::compareWithControl() {
  const auto rows = grid_->selectionModel()->selectedRows();
  if (rows.size() != 1) return;
  const auto pair = grid_model_->controlComparisonRuns(rows.first().row());
  if (!pair) {
    showMessage(tr("This cell has no control run of the same seed with a result yet."), true);
    return;
  }
  emit compareRequested(pair->first, pair->second);
}

bool ExperimentsPanel::exportTable(const QString& path, QString* error) const {
  if (grid_model_->rowCount() == 0) {
    if (error) *error = tr("no experiment table to export");
    return false;
  }
  const QString suffix = QFileInfo(path).suffix().toLower();
  std::string text;
  if (suffix == QLatin1String("csv")) {
    text = experiment_report_csv(grid_model_->results());
  } else if (suffix == QLatin1String("tex")) {
    text = experiment_report_latex(grid_model_->results());
  } else {
    if (error) *error = tr("%1: a table is written as .csv or .tex").arg(path);
    return false;
  }
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly) ||
      file.write(text.data(), static_cast<qint64>(text.size())) < 0 || !file.commit()) {
    if (error) *error = tr("cannot write %1: %2").arg(path, file.errorString());
    return false;
  }
  return true;
}

QString ExperimentsPanel::exportInteractive() {
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Export"), QStringLiteral("experiment-%1.csv").arg(selected_),
      tr("Table as CSV (*.csv);;Table as LaTeX (*.tex);;Current chart as PNG (*.png);;"
         "Current chart as SVG (*.svg);;Current chart as PDF (*.pdf)"));
  if (path.isEmpty()) return {};
  const QString suffix = QFileInfo(path).suffix().toLower();
  QString error;
  const bool table = suffix == QLatin1String("csv") || suffix == QLatin1String("tex");
  const bool ok =
      table ? exportTable(path, &error) : plots_->exportPlot(plots_->currentPage(), path, &error);
  if (!ok) {
    QMessageBox::warning(this, tr("Export failed"), error);
    return {};
  }
  return tr("Saved %1").arg(path);
}

void ExperimentsPanel::showMessage(const QString& text, bool error) {
  message_->setText(
      error ? QStringLiteral("<span style='color:#c0392b'>%1</span>").arg(text.toHtmlEscaped())
            : text.toHtmlEscaped());
}

void ExperimentsPanel::saveState(QSettings& s) const {
  s.setValue(QStringLiteral("experiments/splitter"), splitter_->saveState());
  s.setValue(QStringLiteral("experiments/gridHeader"), grid_->horizontalHeader()->saveState());
  s.setValue(QStringLiteral("experiments/selected"), QVariant::fromValue<qint64>(selected_));
  s.setValue(QStringLiteral("experiments/plotPage"), plots_->currentPage());
  s.setValue(QStringLiteral("experiments/direction"), plots_->direction());
  s.setValue(QStringLiteral("experiments/hparamKey"), plots_->hparamKey());
  s.setValue(QStringLiteral("experiments/hparamMetric"), plots_->hparamMetric());
}

void ExperimentsPanel::restoreState(QSettings& s) {
  splitter_->restoreState(s.value(QStringLiteral("experiments/splitter")).toByteArray());
  grid_header_restored_ = grid_->horizontalHeader()->restoreState(
      s.value(QStringLiteral("experiments/gridHeader")).toByteArray());
  const qint64 selected = s.value(QStringLiteral("experiments/selected"), 0).toLongLong();
  if (selected > 0) selectExperiment(selected);
  plots_->showPage(s.value(QStringLiteral("experiments/plotPage")).toString());
  plots_->setDirection(s.value(QStringLiteral("experiments/direction"), 0).toInt());
  plots_->setHparamKey(s.value(QStringLiteral("experiments/hparamKey")).toString());
  plots_->setHparamMetric(s.value(QStringLiteral("experiments/hparamMetric"), 0).toInt());
}

}  // namespace hnclip::gui
