#include "main_window.h"

#include <QAction>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QInputDialog>
#include <QMenuBar>
#include <QMessageBox>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QVBoxLayout>

#include "job/available_devices.h"
#include "widgets/captions/captions_panel.h"
#include "widgets/captions/gbar_heatmap_panel.h"
#include "widgets/common/message_banner.h"
#include "widgets/common/run_list_view.h"
#include "widgets/common/thumbnail_cache.h"
#include "widgets/common/workbench_tab.h"
#include "widgets/experiments/experiments_panel.h"
#include "widgets/retrieval/retrieval_panel.h"
#include "widgets/runs/runs_panel.h"
#include "widgets/train/train_panel.h"

namespace hnclip::app {
namespace {

constexpr int kRunListInitialWidth = 210;         // name and status fit; the plots get the rest
constexpr qint64 kThumbnailMemory = 128LL << 20;  // bytes of decoded thumbnails kept in memory
constexpr int kDefaultWidth = 1400, kDefaultHeight = 900;

}  // namespace

using namespace hnclip::gui;

MainWindow::MainWindow(const WorkbenchOptions& options, QWidget* parent)
    : QMainWindow(parent), options_(options) {
  setWindowTitle(tr("HN-CLIP Workbench"));
  setObjectName(QStringLiteral("mainWindow"));

  // One thumbnail cache for every tab (the Captions tab's detail view, its heatmap pairs and the
  // Retrieval tab show the same benchmark images), kept on disk beside the generated benchmarks.
  thumbnails_ =
      new ThumbnailCache(options_.cache_dir.isEmpty()
                             ? QString()
                             : QDir(options_.cache_dir).filePath(QStringLiteral("thumbnails")),
                         kThumbnailMemory, this);
  tabs_ = new QTabWidget(this);
  train_ =
      new TrainPanel(options_.database, options_.cache_dir, hnclip::available_devices(), tabs_);
  runs_ = new RunsPanel(options_.database, tabs_);
  captions_ = new CaptionsPanel(options_.database, options_.cache_dir, thumbnails_, tabs_);
  retrieval_ = new RetrievalPanel(options_.database, options_.cache_dir, thumbnails_, tabs_);
  addTab(train_, tr("Train"));
  addTab(runs_, tr("Runs"));
  addTab(captions_, tr("Captions"));
  gbar_ = new GbarHeatmapPanel(thumbnails_);
  gbar_->setObjectName(QStringLiteral("heatmaps"));  // --show-tab captions/heatmaps
  captions_->addPage(gbar_, tr("Ḡ heatmaps"));
  gbar_->setSources(options_.database, options_.cache_dir);
  addTab(retrieval_, tr("Retrieval"));
  experiments_ = new ExperimentsPanel(options_.database, options_.cache_dir, tabs_);
  addTab(experiments_, tr("Experiments"));
  // Above the tabs: a store every tab depends on that cannot be used is said where it is seen.
  auto* central = new QWidget(this);
  auto* column = new QVBoxLayout(central);
  column->setContentsMargins(0, 0, 0, 0);
  banner_ = new MessageBanner(central);
  column->addWidget(banner_);
  column->addWidget(tabs_, 1);
  setCentralWidget(central);
  connect(runs_, &RunsPanel::refreshed, this, [this] {
    const QString error = runs_->loadError();
    banner_->setMessage(
        error.isEmpty() ? QString()
                        : tr("The run database %1 cannot be used: %2. Runs can neither be listed "
                             "nor recorded; start the workbench with --db PATH to use another.")
                              .arg(options_.database, error));
    train_->setStoreProblem(error.isEmpty() ? QString()
                                            : tr("the run database cannot be used (see above)"));
  });
  connect(tabs_, &QTabWidget::currentChanged, this, [this] {
    if (WorkbenchTab* tab = currentTab()) tab->activated();
  });

  buildDock();
  wireTabs();
  buildActions();
  restoreSettings();
  applyOptions();
  runs_->refresh();
}

MainWindow::~MainWindow() = default;

void MainWindow::addTab(QWidget* tab, const QString& title) {
  Q_ASSERT(dynamic_cast<WorkbenchTab*>(tab));
  tabs_->addTab(tab, title);
}

WorkbenchTab* MainWindow::currentTab() const {
  return dynamic_cast<WorkbenchTab*>(tabs_->currentWidget());
}

// Run list dock: the Runs tab's model, compact; its selection and the Runs tab's move together.
void MainWindow::buildDock() {
  auto* dock = new QDockWidget(tr("Runs"), this);
  dock->setObjectName(QStringLiteral("runListDock"));
  run_list_ = new RunListView(runs_->runModel(), dock);
  run_list_->setContextMenuPolicy(Qt::ActionsContextMenu);
  dock->setWidget(run_list_);
  addDockWidget(Qt::LeftDockWidgetArea, dock);
  resizeDocks({dock}, {kRunListInitialWidth}, Qt::Horizontal);  // restoreState overrides it

  auto* resume = new QAction(tr("Resume"), run_list_);
  resume->setToolTip(tr("Continue an interrupted, stopped or failed run from its last checkpoint"));
  connect(resume, &QAction::triggered, this, [this] {
    const auto ids = run_list_->selectedRuns();
    if (ids.size() != 1) return;
    tabs_->setCurrentWidget(train_);
    train_->resumeRun(ids.first());
  });
  run_list_->addAction(resume);
  connect(run_list_, &RunListView::runSelectionChanged, runs_, &RunsPanel::selectRuns);
  connect(runs_, &RunsPanel::selectionChanged, run_list_, &RunListView::selectRuns);
}

void MainWindow::wireTabs() {
  connect(runs_, &RunsPanel::selectionChanged, train_, &TrainPanel::showStoredRuns);
  connect(runs_, &RunsPanel::resumeRequested, this, [this](qint64 id) {
    tabs_->setCurrentWidget(train_);
    train_->resumeRun(id);
  });
  connect(runs_, &RunsPanel::sameAsRequested, train_, &TrainPanel::copyConfigOfRun);
  connect(train_, &TrainPanel::sameAsRunRequested, this, &MainWindow::chooseSameAsRun);
  connect(train_, &TrainPanel::configCopied, this, [this] { tabs_->setCurrentWidget(train_); });
  connect(train_, &TrainPanel::statusMessage, statusBar(),
          [this](const QString& text) { statusBar()->showMessage(text); });
  connect(train_, &TrainPanel::runStarted, runs_, &RunsPanel::refresh);
  connect(train_, &TrainPanel::runStarted, gbar_, &GbarHeatmapPanel::refreshRuns);
  // The heatmap page follows a running run: an epoch's checkpoint comes after its Ḡ snapshots.
  connect(train_, &TrainPanel::checkpointed, this, [this](qint64 run) {
    if (gbar_->runId() == run) gbar_->showRun(gbar_->runId());
  });
  connect(runs_, &RunsPanel::selectionChanged, gbar_, &GbarHeatmapPanel::followRunSelection);
  connect(train_, &TrainPanel::runEnded, this, [this](qint64) {
    runs_->refresh();
    if (closing_) close();
  });
  connect(train_, &TrainPanel::epochEvaluated, runs_, &RunsPanel::refresh);
  connect(train_, &TrainPanel::trainingStateChanged, this, [this](bool training) {
    statusBar()->showMessage(training ? tr("Training run %1").arg(train_->trainingRunId())
                                      : tr("Idle"));
  });
  // The Captions tab offers the benchmark the Train form names.
  captions_->setFormConfigSource([this] { return train_->currentConfig(); });
  // Experiments: the form is a base to offer; a grid cell's runs are selected in the Runs tab
  // (and the run dock); "compare with its control" opens the Retrieval tab on the pair.
  experiments_->setFormConfigSource([this] { return train_->currentConfig(); });
  connect(experiments_, &ExperimentsPanel::runsSelected, runs_, &RunsPanel::selectRuns);
  connect(experiments_, &ExperimentsPanel::runsChanged, runs_, &RunsPanel::refresh);
  connect(experiments_, &ExperimentsPanel::compareRequested, this,
          [this](qint64 control_run, qint64 method_run) {
            retrieval_->setRuns(control_run, method_run);
            tabs_->setCurrentWidget(retrieval_);
            retrieval_->refresh();
          });
  // Closing waits for a cancelled experiment to stop (closeEvent), then closes.
  connect(experiments_, &ExperimentsPanel::experimentEnded, this, [this] {
    if (closing_) close();
  });
  connect(experiments_, &ExperimentsPanel::experimentFailed, this, [this] {
    if (closing_ && !experiments_->isRunning()) close();
  });
}

void MainWindow::buildActions() {
  auto* file = menuBar()->addMenu(tr("&File"));
  auto* export_action = file->addAction(tr("&Export…"), this, &MainWindow::exportCurrent);
  export_action->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
  file->addSeparator();
  auto* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setShortcut(QKeySequence::Quit);

  auto* edit = menuBar()->addMenu(tr("&Edit"));
  auto* find_action = edit->addAction(tr("&Find…"), this, &MainWindow::find);
  find_action->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_F));

  auto* run = menuBar()->addMenu(tr("&Run"));
  auto* start = run->addAction(tr("&Start"), train_, &TrainPanel::startRun);
  start->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
  auto* pause = run->addAction(tr("&Pause / Resume"), train_, &TrainPanel::togglePause);
  pause->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_P));
  auto* stop = run->addAction(tr("S&top"), train_, &TrainPanel::stopRun);
  stop->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Period));
}

// The command line's choices, over what the settings restored.
void MainWindow::applyOptions() {
  statusBar()->showMessage(tr("Database: %1").arg(options_.database));
  if (!options_.initial_config_json.isEmpty()) {
    QString error;
    if (!train_->setConfigJson(options_.initial_config_json, &error)) {
      statusBar()->showMessage(tr("--config: %1").arg(error));  // after the database's line
    }
  }
  if (!options_.caption_encoder.isEmpty()) captions_->setEncoder(options_.caption_encoder);
  if (!options_.caption_overlay.isEmpty()) captions_->setOverlayEncoder(options_.caption_overlay);
  if (!options_.show_tab.isEmpty()) showTabNamed(options_.show_tab);
  if (options_.retrieval_runs.size() == 2) {
    retrieval_->setRuns(options_.retrieval_runs[0], options_.retrieval_runs[1]);
    if (!options_.retrieval_direction.isEmpty())
      retrieval_->setDirection(options_.retrieval_direction);
    tabs_->setCurrentWidget(retrieval_);
    retrieval_->refresh();
  }
  if (options_.gbar_run > 0) {
    // The run's last snapshot, its largest off-diagonal entry's pair selected.
    tabs_->setCurrentWidget(captions_);
    captions_->showPage(QStringLiteral("heatmaps"));
    auto once = std::make_shared<QMetaObject::Connection>();
    *once = connect(gbar_, &GbarHeatmapPanel::loaded, this, [this, once](qint64 run) {
      if (run != options_.gbar_run) return;
      disconnect(*once);
      if (const auto* snapshot = gbar_->currentSnapshot()) {
        gbar_->selectCell(static_cast<int>(snapshot->max_i), static_cast<int>(snapshot->max_j));
      } else {
        qWarning("--gbar-run %lld: %s", static_cast<long long>(run),
                 qPrintable(gbar_->statusText()));
      }
    });
    gbar_->showRun(options_.gbar_run);
  }
}

void MainWindow::restoreSettings() {
  QSettings s;
  if (!restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray())) {
    const QRect avail =
        screen() ? screen()->availableGeometry() : QRect(0, 0, kDefaultWidth, kDefaultHeight);
    resize(std::min(kDefaultWidth, avail.width()), std::min(kDefaultHeight, avail.height()));
  }
  restoreState(s.value(QStringLiteral("window/state")).toByteArray());
  tabs_->setCurrentIndex(s.value(QStringLiteral("window/tab"), 0).toInt());
  for (int i = 0; i < tabs_->count(); ++i)
    dynamic_cast<WorkbenchTab*>(tabs_->widget(i))->restoreState(s);
}

void MainWindow::saveSettings() {
  QSettings s;
  s.setValue(QStringLiteral("window/geometry"), saveGeometry());
  s.setValue(QStringLiteral("window/state"), saveState());
  s.setValue(QStringLiteral("window/tab"), tabs_->currentIndex());
  for (int i = 0; i < tabs_->count(); ++i)
    dynamic_cast<WorkbenchTab*>(tabs_->widget(i))->saveState(s);
}

void MainWindow::closeWithoutAsking() {
  closing_ = true;
  close();
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (train_->isTraining()) {
    if (!closing_) {
      const auto answer =
          QMessageBox::question(this, tr("Training in progress"),
                                tr("Run %1 is training. Stop it after the current step and quit?\n"
                                   "It keeps its checkpoints and can be resumed later.")
                                    .arg(train_->trainingRunId()),
                                QMessageBox::Yes | QMessageBox::No, QMessageBox::No);
      if (answer != QMessageBox::Yes) {
        event->ignore();
        return;
      }
    }
    closing_ = true;
    train_->stopRun();
    statusBar()->showMessage(tr("stopping… the window closes when the run has stopped"));
    event->ignore();  // runEnded calls close() again
    return;
  }
  if (experiments_->isRunning()) {
    if (!closing_) {
      const auto answer = QMessageBox::question(
          this, tr("Experiment in progress"),
          tr("Experiment %1 is running. Cancel it after the current step and quit?\n"
             "Its finished runs are kept; it can be resumed later.")
              .arg(experiments_->controller()->experimentId()),
          QMessageBox::Yes | QMessageBox::No, QMessageBox::No);
      if (answer != QMessageBox::Yes) {
        event->ignore();
        return;
      }
    }
    closing_ = true;
    experiments_->cancelExperiment();
    statusBar()->showMessage(tr("cancelling… the window closes when the experiment has stopped"));
    event->ignore();  // experimentEnded calls close() again
    return;
  }
  saveSettings();
  emit closing();
  event->accept();
}

void MainWindow::chooseSameAsRun() {
  const auto choices = runs_->runChoices();
  if (choices.isEmpty()) {
    QMessageBox::information(this, tr("Same as run"), tr("There are no stored runs yet."));
    return;
  }
  QStringList items;
  for (const auto& [id, name] : choices) items << tr("%1 — %2").arg(id).arg(name);
  bool ok = false;
  const QString item = QInputDialog::getItem(
      this, tr("Same as run"), tr("Copy the configuration of:"), items, 0, false, &ok);
  if (ok) train_->copyConfigOfRun(choices.at(items.indexOf(item)).first);
}

void MainWindow::exportCurrent() {
  WorkbenchTab* tab = currentTab();
  const QString message = tab ? tab->exportInteractive() : QString();
  if (!message.isEmpty()) statusBar()->showMessage(message);
}

// Ctrl+F: the current tab's search, or the Runs tab's filter for a tab that has none.
void MainWindow::find() {
  WorkbenchTab* tab = currentTab();
  if (tab && tab->focusSearch()) return;
  tabs_->setCurrentWidget(runs_);
  runs_->focusSearch();
}

void MainWindow::showTabNamed(const QString& name) {
  const QString tab = name.section(QLatin1Char('/'), 0, 0);
  const QString page = name.section(QLatin1Char('/'), 1);
  int at = -1;
  for (int i = 0; i < tabs_->count() && at < 0; ++i) {
    if (tabs_->tabText(i).remove(QLatin1Char('&')).compare(tab, Qt::CaseInsensitive) == 0 ||
        tabs_->widget(i)->objectName().compare(tab, Qt::CaseInsensitive) == 0) {
      at = i;
    }
  }
  if (at < 0) {
    qWarning("--show-tab: no tab named '%s'", qPrintable(tab));
    return;
  }
  tabs_->setCurrentIndex(at);
  if (page.isEmpty()) return;
  const bool shown = tabs_->widget(at) == captions_ && captions_->showPage(page);
  if (!shown)
    qWarning("--show-tab: tab '%s' has no page named '%s'", qPrintable(tab), qPrintable(page));
}

}  // namespace hnclip::app
