#include "main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFutureWatcher>
#include <QHeaderView>
#include <QInputDialog>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMenuBar>
#include <QMessageBox>
#include <QScreen>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

#include <nlohmann/json.hpp>

#include "widgets/captions/caption_detail_view.h"
#include "widgets/captions/captions_panel.h"
#include "widgets/captions/gbar_heatmap_panel.h"
#include "widgets/common/event_loop_latency_monitor.h"
#include "job/available_devices.h"
#include "widgets/retrieval/retrieval_panel.h"
#include "widgets/train/run_history.h"
#include "widgets/common/run_list_view.h"
#include "widgets/common/run_table_model.h"
#include "widgets/runs/runs_panel.h"
#include "widgets/common/thumbnail_cache.h"
#include "widgets/train/train_config_form.h"
#include "widgets/train/train_panel.h"
#include "widgets/train/training_plots_panel.h"

namespace hnclip::app {
namespace {

constexpr int kRunListInitialWidth = 210;   // name and status fit; the plots get the rest

// Parses a stored or typed run configuration; missing keys keep their defaults.
bool parse_config(const QString& json, hnclip::TrainConfig* out, QString* error) {
  try {
    *out = nlohmann::json::parse(json.toStdString()).get<hnclip::TrainConfig>();
    return true;
  } catch (const std::exception& e) {
    *error = QString::fromStdString(e.what());
    return false;
  }
}

}  // namespace

MainWindow::MainWindow(const WorkbenchOptions& options, QWidget* parent)
    : QMainWindow(parent), options_(options) {
  setWindowTitle(tr("HN-CLIP Workbench"));
  setObjectName(QStringLiteral("mainWindow"));

  // One thumbnail cache for every tab (the Captions tab's detail view, its heatmap pairs and the
  // Retrieval tab show the same benchmark images), kept on disk beside the generated benchmarks.
  thumbnails_ = new hnclip::gui::ThumbnailCache(
      options_.cache_dir.isEmpty() ? QString() : QDir(options_.cache_dir).filePath(QStringLiteral("thumbnails")),
      128LL << 20, this);
  tabs_ = new QTabWidget(this);
  train_ = new hnclip::gui::TrainPanel(options_.database, options_.cache_dir, hnclip::available_devices(), tabs_);
  runs_ = new hnclip::gui::RunsPanel(options_.database, tabs_);
  tabs_->addTab(train_, tr("Train"));
  tabs_->addTab(runs_, tr("Runs"));
  captions_ = new hnclip::gui::CaptionsPanel(options_.database, options_.cache_dir, thumbnails_, tabs_);
  tabs_->addTab(captions_, tr("Captions"));
  gbar_ = new hnclip::gui::GbarHeatmapPanel(thumbnails_);
  gbar_->setObjectName(QStringLiteral("heatmaps"));  // --show-tab captions/heatmaps
  captions_->addPage(gbar_, tr("Ḡ heatmaps"));
  gbar_->setSources(options_.database, options_.cache_dir);
  // The Captions tab shows the benchmark the Train form names: read it when the tab is opened —
  // queued, because at start-up the tab is restored before the form's configuration is.
  connect(tabs_, &QTabWidget::currentChanged, this, [this](int) {
    QTimer::singleShot(0, this, [this] {
      if (tabs_->currentWidget() != captions_) return;
      captions_->setFormConfig(train_->form()->config());
      captions_->refreshRuns();
      captions_->reload();
      gbar_->refreshRuns();
    });
  });
  retrieval_ = new hnclip::gui::RetrievalPanel(options_.database, options_.cache_dir, thumbnails_, tabs_);
  tabs_->addTab(retrieval_, tr("Retrieval"));
  setCentralWidget(tabs_);

  // Run list dock: the Runs tab's model, compact; its selection and the Runs tab's move together.
  auto* dock = new QDockWidget(tr("Runs"), this);
  dock->setObjectName(QStringLiteral("runListDock"));
  run_list_ = new hnclip::gui::RunListView(runs_->runModel(), dock);
  run_list_->setContextMenuPolicy(Qt::ActionsContextMenu);
  dock->setWidget(run_list_);
  addDockWidget(Qt::LeftDockWidgetArea, dock);
  resizeDocks({dock}, {kRunListInitialWidth}, Qt::Horizontal);  // restoreState overrides it

  auto* resume = new QAction(tr("Resume"), run_list_);
  resume->setToolTip(tr("Continue an interrupted or stopped run"));
  connect(resume, &QAction::triggered, this, [this] {
    const auto ids = run_list_->selectedRuns();
    if (ids.size() != 1) return;
    tabs_->setCurrentWidget(train_);
    train_->resumeRun(ids.first());
  });
  run_list_->addAction(resume);
  connect(run_list_, &hnclip::gui::RunListView::runSelectionChanged, runs_, &hnclip::gui::RunsPanel::selectRuns);
  connect(runs_, &hnclip::gui::RunsPanel::selectionChanged, run_list_, &hnclip::gui::RunListView::selectRuns);

  connect(runs_, &hnclip::gui::RunsPanel::selectionChanged, this, &MainWindow::showRunsInPlots);
  connect(runs_, &hnclip::gui::RunsPanel::resumeRequested, this, [this](qint64 id) {
    tabs_->setCurrentWidget(train_);
    train_->resumeRun(id);
  });
  connect(runs_, &hnclip::gui::RunsPanel::sameAsRequested, this, &MainWindow::copyConfigOfRun);
  connect(train_->form(), &hnclip::gui::TrainConfigForm::sameAsRunRequested, this, &MainWindow::chooseSameAsRun);
  connect(train_, &hnclip::gui::TrainPanel::runStarted, runs_, &hnclip::gui::RunsPanel::refresh);
  connect(train_, &hnclip::gui::TrainPanel::runStarted, gbar_, &hnclip::gui::GbarHeatmapPanel::refreshRuns);
  // The heatmap page follows a running run: an epoch's checkpoint comes after its Ḡ snapshots.
  connect(train_->controller(), &hnclip::gui::TrainingController::checkpointed, this, [this] {
    if (gbar_->runId() == train_->controller()->runId()) gbar_->showRun(gbar_->runId());
  });
  connect(train_, &hnclip::gui::TrainPanel::runEnded, this, [this](qint64) {
    runs_->refresh();
    if (closing_) close();
  });
  connect(train_, &hnclip::gui::TrainPanel::epochEvaluated, this, &MainWindow::onEpochEvaluated);
  // The Retrieval tab rereads the runs whenever it is shown (new evaluations, renamed runs).
  connect(tabs_, &QTabWidget::currentChanged, this, [this] {
    if (tabs_->currentWidget() == retrieval_) retrieval_->refresh();
  });
  connect(train_, &hnclip::gui::TrainPanel::historyNeeded, this, [this](qint64 id) { loadHistories({id}); });
  connect(train_->controller(), &hnclip::gui::TrainingController::stateChanged, this,
          [this](hnclip::gui::TrainingController::State s) {
            statusBar()->showMessage(s == hnclip::gui::TrainingController::State::Idle
                                         ? tr("Idle")
                                         : tr("Training run %1").arg(train_->controller()->runId()));
          });

  buildActions();
  restoreSettings();
  if (!options_.initial_config_json.isEmpty()) {
    hnclip::TrainConfig config;
    QString error;
    if (parse_config(options_.initial_config_json, &config, &error)) {
      train_->form()->setConfig(config);
    } else {
      statusBar()->showMessage(tr("--config: %1").arg(error));
    }
  }
  statusBar()->showMessage(tr("Database: %1").arg(options_.database));

  if (!options_.caption_encoder.isEmpty()) captions_->setEncoder(options_.caption_encoder);
  if (!options_.caption_overlay.isEmpty()) captions_->setOverlayEncoder(options_.caption_overlay);
  if (!options_.show_tab.isEmpty()) showTabNamed(options_.show_tab);
  if (options_.select_caption >= 0) {
    connect(captions_, &hnclip::gui::CaptionsPanel::detailImagesShown, this, &MainWindow::onCaptionImagesShown);
    connect(captions_, &hnclip::gui::CaptionsPanel::loadFailed, this, [](const QString& message) {
      qWarning("--select-caption: the caption geometry could not be loaded: %s", qPrintable(message));
      QApplication::exit(3);
    });
    if (!options_.show_tab.contains(QLatin1Char('/'))) {
      showTabNamed(QStringLiteral("captions"));
      captions_->showCaptionsPage();
    }
    captions_->selectCaption(options_.select_caption);
  }

  latency_ = new hnclip::gui::EventLoopLatencyMonitor(10, this);
  latency_->start();
  runs_->refresh();
  startRetrievalFromOptions();
  startHeatmapFromOptions();
  if (options_.autostart) {
    // Measure the event loop during the run only, not during start-up.
    QTimer::singleShot(0, this, [this] {
      latency_->reset();
      train_->startRun();
      if (!train_->controller()->busy()) {
        qWarning("--autostart: the configuration is not valid: %s", qPrintable(train_->form()->problem()));
        QApplication::exit(2);
      }
    });
  }
}

MainWindow::~MainWindow() = default;

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
  auto* start = run->addAction(tr("&Start"), train_, &hnclip::gui::TrainPanel::startRun);
  start->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
  auto* pause = run->addAction(tr("&Pause / Resume"), train_, &hnclip::gui::TrainPanel::togglePause);
  pause->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_P));
  auto* stop = run->addAction(tr("S&top"), train_, &hnclip::gui::TrainPanel::stopRun);
  stop->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Period));
}

void MainWindow::restoreSettings() {
  QSettings s;
  if (!restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray())) {
    const QRect avail = screen() ? screen()->availableGeometry() : QRect(0, 0, 1400, 900);
    resize(std::min(1400, avail.width()), std::min(900, avail.height()));
  }
  restoreState(s.value(QStringLiteral("window/state")).toByteArray());
  train_->splitter()->restoreState(s.value(QStringLiteral("train/splitter")).toByteArray());
  tabs_->setCurrentIndex(s.value(QStringLiteral("window/tab"), 0).toInt());
  train_->plots()->setOptions(s.value(QStringLiteral("train/plotOptions")).toMap());
  runs_->setOptions(s.value(QStringLiteral("runs/options")).toMap());
  const QString config_json = s.value(QStringLiteral("train/lastConfig")).toString();
  hnclip::TrainConfig config;
  QString error;
  if (!config_json.isEmpty() && parse_config(config_json, &config, &error)) train_->form()->setConfig(config);
  QList<int64_t> selected;
  for (const auto& v : s.value(QStringLiteral("runs/selected")).toList()) selected << v.toLongLong();
  if (!selected.isEmpty()) {
    // The run model fills in asynchronously: select once the first refresh has landed.
    auto* once = new QMetaObject::Connection;
    *once = connect(runs_, &hnclip::gui::RunsPanel::runsChanged, this, [this, selected, once] {
      disconnect(*once);
      delete once;
      runs_->selectRuns(selected);
    });
  }
}

void MainWindow::saveSettings() {
  QSettings s;
  s.setValue(QStringLiteral("window/geometry"), saveGeometry());
  s.setValue(QStringLiteral("window/state"), saveState());
  s.setValue(QStringLiteral("window/tab"), tabs_->currentIndex());
  s.setValue(QStringLiteral("train/splitter"), train_->splitter()->saveState());
  s.setValue(QStringLiteral("train/plotOptions"), train_->plots()->options());
  s.setValue(QStringLiteral("runs/options"), runs_->options());
  const nlohmann::json config = train_->form()->config();
  s.setValue(QStringLiteral("train/lastConfig"), QString::fromStdString(config.dump()));
  QVariantList selected;
  for (const int64_t id : runs_->selectedRuns()) selected << QVariant::fromValue<qlonglong>(id);
  s.setValue(QStringLiteral("runs/selected"), selected);
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (train_->controller()->busy()) {
    if (!closing_) {
      const auto answer = QMessageBox::question(
          this, tr("Training in progress"),
          tr("Run %1 is training. Stop it after the current step and quit?\n"
             "It keeps its checkpoints and can be resumed later.")
              .arg(train_->controller()->runId()),
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
  saveSettings();
  writeLatencyReport();
  event->accept();
}

void MainWindow::loadHistories(const QList<int64_t>& runs) {
  if (runs.isEmpty()) return;
  const std::string db = options_.database.toStdString();
  const std::vector<int64_t> ids(runs.begin(), runs.end());
  auto* watcher = new QFutureWatcher<std::vector<hnclip::gui::RunHistory>>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher] {
    watcher->deleteLater();
    std::vector<hnclip::gui::RunHistory> histories;
    try {
      histories = watcher->result();
    } catch (const std::exception& e) {
      statusBar()->showMessage(tr("Could not read runs: %1").arg(QString::fromStdString(e.what())));
      return;
    }
    for (const auto& h : histories) {
      const bool live = train_->controller()->busy() && h.run_id == train_->controller()->runId();
      if (!live && !shown_runs_.contains(h.run_id)) continue;  // deselected meanwhile
      if (live) train_->applyRunHistory(h);
      else train_->plots()->setRunHistory(h.run_id, QString::fromStdString(h.name), h.steps, h.probes, h.evals);
    }
  });
  watcher->setFuture(QtConcurrent::run([db, ids] { return hnclip::gui::load_run_histories(db, ids); }));
}

void MainWindow::showRunsInPlots(const QList<int64_t>& runs) {
  const qint64 live = train_->controller()->busy() ? train_->controller()->runId() : 0;
  for (const int64_t id : train_->plots()->runs()) {
    if (id != live && !runs.contains(id)) train_->plots()->removeRun(id);
  }
  QList<int64_t> to_load;
  for (const int64_t id : runs) {
    if (id != live && !train_->plots()->runs().contains(id)) to_load << id;
  }
  shown_runs_ = runs;
  loadHistories(to_load);
}

void MainWindow::chooseSameAsRun() {
  auto* model = runs_->runModel();
  QStringList items;
  QList<int64_t> ids;
  for (int r = 0; r < model->rowCount(); ++r) {
    const auto index = model->index(r, 0);
    ids << model->data(index, hnclip::gui::RunTableModel::RunIdRole).toLongLong();
    items << tr("%1 — %2").arg(ids.back()).arg(model->data(index, Qt::DisplayRole).toString());
  }
  if (items.isEmpty()) {
    QMessageBox::information(this, tr("Same as run"), tr("There are no stored runs yet."));
    return;
  }
  bool ok = false;
  const QString item = QInputDialog::getItem(this, tr("Same as run"), tr("Copy the configuration of:"), items, 0, false, &ok);
  if (ok) copyConfigOfRun(ids.at(items.indexOf(item)));
}

void MainWindow::copyConfigOfRun(qint64 run_id) {
  const std::string db = options_.database.toStdString();
  auto* watcher = new QFutureWatcher<std::vector<hnclip::gui::RunHistory>>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, run_id] {
    watcher->deleteLater();
    std::vector<hnclip::gui::RunHistory> h;
    try {
      h = watcher->result();
    } catch (const std::exception& e) {
      statusBar()->showMessage(QString::fromStdString(e.what()));
      return;
    }
    if (h.empty()) return;
    hnclip::TrainConfig config;
    QString error;
    if (!parse_config(QString::fromStdString(h.front().config_json), &config, &error)) {
      QMessageBox::warning(this, tr("Same as run"), tr("Run %1's configuration cannot be read: %2").arg(run_id).arg(error));
      return;
    }
    config.name.clear();  // a new run gets its own name
    train_->form()->setConfig(config);
    tabs_->setCurrentWidget(train_);
    statusBar()->showMessage(tr("Configuration copied from run %1").arg(run_id));
  });
  watcher->setFuture(QtConcurrent::run([db, run_id] { return hnclip::gui::load_run_histories(db, {run_id}); }));
}

void MainWindow::exportCurrent() {
  if (tabs_->currentWidget() == runs_) {
    runs_->exportRecall(false);
    return;
  }
  if (tabs_->currentWidget() == captions_) {
    captions_->exportInteractive();
    return;
  }
  if (tabs_->currentWidget() == retrieval_) {
    // The side-by-side view as a figure (PNG), or the query list (CSV), by the chosen extension.
    const QString path = QFileDialog::getSaveFileName(this, tr("Export retrieval"), QStringLiteral("retrieval.png"),
                                                      tr("Side-by-side view (*.png);;Query list (*.csv)"));
    if (path.isEmpty()) return;
    QString error;
    const bool done = path.endsWith(QStringLiteral(".csv"), Qt::CaseInsensitive) ? retrieval_->exportCsv(path, &error)
                                                                                : retrieval_->exportPng(path, &error);
    if (!done) QMessageBox::warning(this, tr("Export"), error);
    else statusBar()->showMessage(tr("Saved %1").arg(path));
    return;
  }
  auto* plots = train_->plots();
  bool ok = false;
  const QString chart = QInputDialog::getItem(this, tr("Export plot"), tr("Chart:"), plots->chartNames(), 0, false, &ok);
  if (!ok) return;
  const QString path = QFileDialog::getSaveFileName(this, tr("Export %1").arg(chart), chart + QStringLiteral(".png"),
                                                    tr("PNG (*.png);;SVG (*.svg);;PDF (*.pdf);;CSV data (*.csv)"));
  if (path.isEmpty()) return;
  QString error;
  const bool done = path.endsWith(QStringLiteral(".csv"), Qt::CaseInsensitive) ? plots->exportCsv(chart, path, &error)
                                                                              : plots->exportChart(chart, path, &error);
  if (!done) QMessageBox::warning(this, tr("Export"), error);
  else statusBar()->showMessage(tr("Saved %1").arg(path));
}

void MainWindow::find() {
  if (tabs_->currentWidget() == captions_) {
    captions_->focusSearch();
    return;
  }
  tabs_->setCurrentWidget(runs_);
  runs_->focusFilter();
}

void MainWindow::onEpochEvaluated(qint64 run_id, int epoch) {
  runs_->refresh();
  if (epoch < 1) return;
  if (!options_.screenshot_path.isEmpty() && epoch == 1) {
    // Let the queued replot of this epoch's points land first.
    QTimer::singleShot(300, this, [this] {
      if (!grab().save(options_.screenshot_path)) qWarning("--screenshot: cannot write %s", qPrintable(options_.screenshot_path));
    });
  }
  if (options_.quit_after_epochs > 0 && epoch >= options_.quit_after_epochs) {
    Q_UNUSED(run_id);
    QTimer::singleShot(600, this, [this] {
      closing_ = true;  // no question: the command line asked for it
      close();
    });
  }
}

void MainWindow::startRetrievalFromOptions() {
  if (options_.retrieval_runs.size() != 2) return;
  retrieval_->setRuns(options_.retrieval_runs[0], options_.retrieval_runs[1]);
  if (!options_.retrieval_direction.isEmpty()) retrieval_->setDirection(options_.retrieval_direction);
  tabs_->setCurrentWidget(retrieval_);
  retrieval_->refresh();
  if (!options_.retrieval_select_largest_diff) return;
  // Select once both the query list and both runs' embeddings are there (either may come first).
  auto select = [this] {
    if (retrieval_->queryModel()->rowCount() == 0 || retrieval_->isBusy() || retrieval_->selectedQuery()) return;
    if (!retrieval_->retrieversReady()) {
      qWarning("--retrieval-runs: %s", qPrintable(retrieval_->lastError().isEmpty() ? retrieval_->warning()
                                                                                     : retrieval_->lastError()));
      if (!options_.retrieval_screenshot_path.isEmpty()) QApplication::exit(3);
      return;
    }
    if (!retrieval_->selectLargestDifference()) {
      qWarning("--select-largest-diff: no query to select");
      if (!options_.retrieval_screenshot_path.isEmpty()) QApplication::exit(3);
    }
  };
  connect(retrieval_, &hnclip::gui::RetrievalPanel::queriesLoaded, this, select);
  connect(retrieval_, &hnclip::gui::RetrievalPanel::retrieversFinished, this, select);
  connect(retrieval_, &hnclip::gui::RetrievalPanel::runsLoaded, this, [this] {
    if (!retrieval_->warning().isEmpty()) {
      qWarning("--retrieval-runs: %s", qPrintable(retrieval_->warning()));
      if (!options_.retrieval_screenshot_path.isEmpty()) QApplication::exit(3);
    }
  });
  if (options_.retrieval_screenshot_path.isEmpty()) return;
  auto* once = new QMetaObject::Connection;
  *once = connect(retrieval_, &hnclip::gui::RetrievalPanel::viewSettled, this, [this, once] {
    disconnect(*once);
    delete once;
    // One more event-loop turn so the last thumbnail's repaint has landed in the backing store.
    QTimer::singleShot(100, this, [this] {
      if (!grab().save(options_.retrieval_screenshot_path)) {
        qWarning("--screenshot-retrieval: cannot write %s", qPrintable(options_.retrieval_screenshot_path));
        QApplication::exit(3);
        return;
      }
      close();
    });
  });
}

void MainWindow::writeLatencyReport() {
  if (options_.latency_report_path.isEmpty()) return;
  const auto s = latency_->summary();
  QJsonObject o{{QStringLiteral("samples"), s.samples},
                {QStringLiteral("p50_ms"), s.p50_ms},
                {QStringLiteral("p95_ms"), s.p95_ms},
                {QStringLiteral("p99_ms"), s.p99_ms},
                {QStringLiteral("max_ms"), s.max_ms}};
  QFile f(options_.latency_report_path);
  if (f.open(QIODevice::WriteOnly)) f.write(QJsonDocument(o).toJson());
}

}  // namespace hnclip::app

namespace hnclip::app {

// "captions/overview": a tab, then a page of that tab's inner tabs (the Captions tab has some).
void MainWindow::showTabNamed(const QString& name) {
  const QString tab = name.section(QLatin1Char('/'), 0, 0);
  const QString page = name.section(QLatin1Char('/'), 1);
  const auto find_in = [](QTabWidget* tabs, const QString& text) {
    for (int i = 0; i < tabs->count(); ++i) {
      if (tabs->tabText(i).remove(QLatin1Char('&')).compare(text, Qt::CaseInsensitive) == 0) return i;
      if (tabs->widget(i)->objectName().compare(text, Qt::CaseInsensitive) == 0) return i;  // "heatmaps"
    }
    return -1;
  };
  const int at = find_in(tabs_, tab);
  if (at < 0) {
    qWarning("--show-tab: no tab named '%s'", qPrintable(tab));
    return;
  }
  tabs_->setCurrentIndex(at);
  if (page.isEmpty()) return;
  const int inner = tabs_->widget(at) == captions_ ? find_in(captions_->pages(), page) : -1;
  if (inner < 0) qWarning("--show-tab: tab '%s' has no page named '%s'", qPrintable(tab), qPrintable(page));
  else captions_->pages()->setCurrentIndex(inner);
}

// --select-caption: the first showing of the caption is the cold one (thumbnails not in memory);
// with --caption-timing the next caption is shown and then Back, so the same caption is timed
// again with its thumbnails in memory.
void MainWindow::onCaptionImagesShown(qint64 caption, qint64 elapsed_ms) {
  if (caption_cli_stage_ == 0 && caption == options_.select_caption) {
    caption_first_ms_ = elapsed_ms;
    if (!options_.caption_timing_path.isEmpty()) {
      caption_cli_stage_ = 1;
      captions_->selectCaption(caption + 1 < captions_->data()->record.stats.captions ? caption + 1 : caption - 1);
      return;
    }
    caption_cli_stage_ = 3;
    finishCaptionCommandLine();
  } else if (caption_cli_stage_ == 1) {
    caption_cli_stage_ = 2;
    captions_->goBack();
  } else if (caption_cli_stage_ == 2 && caption == options_.select_caption) {
    caption_reselect_ms_ = elapsed_ms;
    caption_cli_stage_ = 3;
    finishCaptionCommandLine();
  }
}

void MainWindow::finishCaptionCommandLine() {
  const bool quit = !options_.caption_detail_screenshot.isEmpty() || !options_.caption_window_screenshot.isEmpty() ||
                    !options_.caption_timing_path.isEmpty();
  if (!quit) return;
  // Let the detail view's layout settle (its rows were just created) before grabbing.
  QTimer::singleShot(300, this, [this] {
    int failures = 0;
    QString error;
    if (!options_.caption_detail_screenshot.isEmpty() && !captions_->saveDetailPng(options_.caption_detail_screenshot, &error)) {
      qWarning("--screenshot-detail: %s", qPrintable(error));
      ++failures;
    }
    if (!options_.caption_window_screenshot.isEmpty() && !grab().save(options_.caption_window_screenshot)) {
      qWarning("--screenshot-captions-window: cannot write %s", qPrintable(options_.caption_window_screenshot));
      ++failures;
    }
    if (!options_.caption_timing_path.isEmpty()) {
      const auto* data = captions_->data();
      QJsonObject o{{QStringLiteral("caption"), options_.select_caption},
                    {QStringLiteral("captions"), static_cast<qint64>(data ? data->record.stats.captions : 0)},
                    {QStringLiteral("neighbors_shown"), captions_->detailView()->neighborCount()},
                    {QStringLiteral("first_show_ms"), caption_first_ms_},
                    {QStringLiteral("reshow_from_memory_ms"), caption_reselect_ms_},
                    {QStringLiteral("thumbnail_memory_bytes"), captions_->thumbnails()->memoryBytes()},
                    {QStringLiteral("thumbnail_memory_count"), captions_->thumbnails()->memoryCount()}};
      QFile f(options_.caption_timing_path);
      if (!f.open(QIODevice::WriteOnly) || f.write(QJsonDocument(o).toJson()) < 0) {
        qWarning("--caption-timing: cannot write %s", qPrintable(options_.caption_timing_path));
        ++failures;
      }
    }
    if (failures > 0) {
      QApplication::exit(4);
      return;
    }
    closing_ = true;
    close();
  });
}

// --gbar-run ID [--screenshot-heatmap PNG]: the Ḡ heatmaps page on that run's last snapshot, the
// largest off-diagonal entry's pair selected; with a screenshot path the page is saved once both
// images of the pair are in, then the window quits (exit 3 if the run has no snapshot).
void MainWindow::startHeatmapFromOptions() {
  if (options_.gbar_run <= 0) return;
  tabs_->setCurrentWidget(captions_);
  captions_->pages()->setCurrentWidget(gbar_);
  auto once = std::make_shared<QMetaObject::Connection>();
  *once = connect(gbar_, &hnclip::gui::GbarHeatmapPanel::loaded, this, [this, once](qint64 run) {
    if (run != options_.gbar_run) return;
    disconnect(*once);
    const auto* snapshot = gbar_->currentSnapshot();
    if (!snapshot) {
      qWarning("--gbar-run %lld: %s", static_cast<long long>(run), qPrintable(gbar_->statusText()));
      if (!options_.gbar_screenshot_path.isEmpty()) QApplication::exit(3);
      return;
    }
    gbar_->selectCell(static_cast<int>(snapshot->max_i), static_cast<int>(snapshot->max_j));
    if (options_.gbar_screenshot_path.isEmpty()) return;
    // Wait (at most 10 s) for the pair's thumbnails, then let the queued replot paint.
    auto waited = std::make_shared<int>(0);
    auto* poll = new QTimer(this);
    connect(poll, &QTimer::timeout, this, [this, poll, waited] {
      if (!gbar_->pairImagesShown() && ++*waited < 100) return;
      poll->stop();
      poll->deleteLater();
      QTimer::singleShot(200, this, [this] {
        if (!gbar_->grab().save(options_.gbar_screenshot_path)) {
          qWarning("--screenshot-heatmap: cannot write %s", qPrintable(options_.gbar_screenshot_path));
          QApplication::exit(4);
          return;
        }
        closing_ = true;
        close();
      });
    });
    poll->start(100);
  });
  gbar_->showRun(options_.gbar_run);
}

}  // namespace hnclip::app
