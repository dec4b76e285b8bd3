#include "scripted_session.h"

#include <memory>

#include <QApplication>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QTableView>
#include <QTimer>

#include "main_window.h"
#include "widgets/captions/caption_view_data.h"
#include "widgets/captions/captions_panel.h"
#include "widgets/captions/gbar_heatmap_panel.h"
#include "widgets/common/event_loop_latency_monitor.h"
#include "widgets/common/thumbnail_cache.h"
#include "widgets/experiments/experiment_grid_model.h"
#include "widgets/experiments/experiment_plots.h"
#include "widgets/experiments/experiment_spec_json.h"
#include "widgets/experiments/experiments_panel.h"
#include "widgets/retrieval/retrieval_panel.h"
#include "widgets/train/train_panel.h"

namespace hnclip::app {
namespace {

constexpr int kLatencySampleMs = 10;    // event-loop lateness is sampled this often
constexpr int kEpochReplotMs = 300;     // the queued replot of an epoch's points lands first
constexpr int kQuitAfterEpochMs = 600;  // ... and the screenshot of it, before quitting
constexpr int kLastRepaintMs = 100;     // one more turn: the last thumbnail's repaint is in
constexpr int kDetailLayoutMs = 300;    // the detail view's new rows settle their layout
constexpr int kPairPollMs = 100;        // how often the heatmap's pair images are looked for
constexpr int kPairPollLimit = 100;     // ... at most this often (10 s), then grab anyway
constexpr int kHeatmapReplotMs = 200;   // the queued replot of the selected cell lands
constexpr int kGridRepaintMs = 300;     // the grid's and plots' repaint of the final table lands

}  // namespace

using namespace hnclip::gui;

ScriptedSession::ScriptedSession(MainWindow* window, const WorkbenchOptions& user,
                                 ScriptOptions options)
    : QObject(window), window_(window), options_(std::move(options)) {
  latency_ = new EventLoopLatencyMonitor(kLatencySampleMs, this);
  latency_->start();
  connect(window_, &MainWindow::closing, this, &ScriptedSession::writeLatencyReport);
  connect(window_->trainTab(), &TrainPanel::epochEvaluated, this,
          &ScriptedSession::onEpochEvaluated);
  if (options_.select_caption >= 0) startCaptionSelection(user.show_tab);
  if (user.retrieval_runs.size() == 2 && options_.retrieval_select_largest_diff)
    startRetrievalSelection();
  if (user.gbar_run > 0 && !options_.gbar_screenshot_path.isEmpty())
    startHeatmapScreenshot(user.gbar_run);
  if (options_.autostart) startAutostart();
  if (!options_.experiment_json.isEmpty()) startExperiment();
}

ScriptedSession::~ScriptedSession() = default;

void ScriptedSession::startAutostart() {
  // Measure the event loop during the run only, not during start-up.
  QTimer::singleShot(0, this, [this] {
    latency_->reset();
    window_->trainTab()->startRun();
    if (!window_->trainTab()->isTraining()) {
      qWarning("--autostart: the configuration is not valid: %s",
               qPrintable(window_->trainTab()->configProblem()));
      QApplication::exit(2);
    }
  });
}

void ScriptedSession::onEpochEvaluated(qint64, int epoch) {
  if (epoch < 1) return;
  if (!options_.screenshot_path.isEmpty() && epoch == 1) {
    QTimer::singleShot(kEpochReplotMs, this, [this] {
      if (!window_->grab().save(options_.screenshot_path)) {
        qWarning("--screenshot: cannot write %s", qPrintable(options_.screenshot_path));
      }
    });
  }
  if (options_.quit_after_epochs > 0 && epoch >= options_.quit_after_epochs) {
    QTimer::singleShot(kQuitAfterEpochMs, window_, &MainWindow::closeWithoutAsking);
  }
}

// --select-caption: the first showing of the caption is the cold one (thumbnails not in memory);
// with --caption-timing the next caption is shown and then Back, so the same caption is timed
// again with its thumbnails in memory.
void ScriptedSession::startCaptionSelection(const QString& show_tab) {
  CaptionsPanel* captions = window_->captionsTab();
  connect(captions, &CaptionsPanel::detailImagesShown, this,
          &ScriptedSession::onCaptionImagesShown);
  connect(captions, &CaptionsPanel::loadFailed, this, [](const QString& message) {
    qWarning("--select-caption: the caption geometry could not be loaded: %s", qPrintable(message));
    QApplication::exit(3);
  });
  if (!show_tab.contains(QLatin1Char('/'))) {
    window_->showTabNamed(QStringLiteral("captions"));
    captions->showCaptionsPage();
  }
  captions->selectCaption(options_.select_caption);
}

void ScriptedSession::onCaptionImagesShown(qint64 caption, qint64 elapsed_ms) {
  CaptionsPanel* captions = window_->captionsTab();
  if (caption_stage_ == 0 && caption == options_.select_caption) {
    caption_first_ms_ = elapsed_ms;
    if (!options_.caption_timing_path.isEmpty()) {
      caption_stage_ = 1;
      const bool has_next = caption + 1 < captions->data()->record.stats.captions;
      captions->selectCaption(has_next ? caption + 1 : caption - 1);
      return;
    }
    caption_stage_ = 3;
    finishCaptionSelection();
  } else if (caption_stage_ == 1) {
    caption_stage_ = 2;
    captions->goBack();
  } else if (caption_stage_ == 2 && caption == options_.select_caption) {
    caption_reshow_ms_ = elapsed_ms;
    caption_stage_ = 3;
    finishCaptionSelection();
  }
}

void ScriptedSession::finishCaptionSelection() {
  const bool quit = !options_.caption_detail_screenshot.isEmpty() ||
                    !options_.caption_window_screenshot.isEmpty() ||
                    !options_.caption_timing_path.isEmpty();
  if (!quit) return;
  QTimer::singleShot(kDetailLayoutMs, this, [this] {
    CaptionsPanel* captions = window_->captionsTab();
    int failures = 0;
    QString error;
    if (!options_.caption_detail_screenshot.isEmpty() &&
        !captions->saveDetailPng(options_.caption_detail_screenshot, &error)) {
      qWarning("--screenshot-detail: %s", qPrintable(error));
      ++failures;
    }
    if (!options_.caption_window_screenshot.isEmpty() &&
        !window_->grab().save(options_.caption_window_screenshot)) {
      qWarning("--screenshot-captions-window: cannot write %s",
               qPrintable(options_.caption_window_screenshot));
      ++failures;
    }
    if (!options_.caption_timing_path.isEmpty()) {
      const auto* data = captions->data();
      QJsonObject o{
          {QStringLiteral("caption"), options_.select_caption},
          {QStringLiteral("captions"), static_cast<qint64>(data ? data->record.stats.captions : 0)},
          {QStringLiteral("neighbors_shown"), captions->detailNeighborCount()},
          {QStringLiteral("first_show_ms"), caption_first_ms_},
          {QStringLiteral("reshow_from_memory_ms"), caption_reshow_ms_},
          {QStringLiteral("thumbnail_memory_bytes"), captions->thumbnails()->memoryBytes()},
          {QStringLiteral("thumbnail_memory_count"), captions->thumbnails()->memoryCount()}};
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
    window_->closeWithoutAsking();
  });
}

// --select-largest-diff: once the query list and both runs' embeddings are in (either may come
// first), show the query A and B rank most differently; with a screenshot path, grab the window
// once that view has painted every thumbnail, then quit.
void ScriptedSession::startRetrievalSelection() {
  RetrievalPanel* retrieval = window_->retrievalTab();
  const bool scripted = !options_.retrieval_screenshot_path.isEmpty();
  auto select = [retrieval, scripted] {
    if (retrieval->queryCount() == 0 || retrieval->isBusy() || retrieval->selectedQuery()) return;
    if (!retrieval->retrieversReady()) {
      qWarning("--retrieval-runs: %s",
               qPrintable(retrieval->lastError().isEmpty() ? retrieval->warning()
                                                           : retrieval->lastError()));
      if (scripted) QApplication::exit(3);
      return;
    }
    if (!retrieval->selectLargestDifference()) {
      qWarning("--select-largest-diff: no query to select");
      if (scripted) QApplication::exit(3);
    }
  };
  connect(retrieval, &RetrievalPanel::queriesLoaded, this, select);
  connect(retrieval, &RetrievalPanel::retrieversFinished, this, select);
  connect(retrieval, &RetrievalPanel::runsLoaded, this, [retrieval, scripted] {
    if (retrieval->warning().isEmpty()) return;
    qWarning("--retrieval-runs: %s", qPrintable(retrieval->warning()));
    if (scripted) QApplication::exit(3);
  });
  if (!scripted) return;
  auto once = std::make_shared<QMetaObject::Connection>();
  *once = connect(retrieval, &RetrievalPanel::viewSettled, this, [this, once] {
    disconnect(*once);
    QTimer::singleShot(kLastRepaintMs, this, [this] {
      if (!window_->grab().save(options_.retrieval_screenshot_path)) {
        qWarning("--screenshot-retrieval: cannot write %s",
                 qPrintable(options_.retrieval_screenshot_path));
        QApplication::exit(3);
        return;
      }
      window_->close();
    });
  });
}

// --screenshot-heatmap: once --gbar-run's snapshot is shown and its largest pair selected (the
// window does that), wait for the pair's images, grab the page and quit; exit 3 without a snapshot.
void ScriptedSession::startHeatmapScreenshot(qint64 run) {
  GbarHeatmapPanel* gbar = window_->heatmapsPage();
  auto once = std::make_shared<QMetaObject::Connection>();
  *once = connect(gbar, &GbarHeatmapPanel::loaded, this, [this, gbar, once, run](qint64 loaded) {
    if (loaded != run) return;
    disconnect(*once);
    if (!gbar->currentSnapshot()) {
      QApplication::exit(3);
      return;
    }
    auto waited = std::make_shared<int>(0);
    auto* poll = new QTimer(this);
    connect(poll, &QTimer::timeout, this, [this, gbar, poll, waited] {
      if (!gbar->pairImagesShown() && ++*waited < kPairPollLimit) return;
      poll->stop();
      poll->deleteLater();
      QTimer::singleShot(kHeatmapReplotMs, this, [this, gbar] {
        if (!gbar->grab().save(options_.gbar_screenshot_path)) {
          qWarning("--screenshot-heatmap: cannot write %s",
                   qPrintable(options_.gbar_screenshot_path));
          QApplication::exit(4);
          return;
        }
        window_->closeWithoutAsking();
      });
    });
    poll->start(kPairPollMs);
  });
}

// --start-experiment: the Experiments tab starts the experiment; once it has ended, the next
// table the grid shows was read after its last run finished — then the files, then quit.
void ScriptedSession::startExperiment() {
  ExperimentsPanel* panel = window_->experimentsTab();
  hnclip::ExperimentSpec spec;
  try {
    spec = experiment_spec_from_json(nlohmann::json::parse(options_.experiment_json.toStdString()));
    settle_experiment_base(spec);
  } catch (const std::exception& e) {
    qWarning("--start-experiment: %s", e.what());
    QTimer::singleShot(0, this, [] { QApplication::exit(2); });
    return;
  }
  connect(panel, &ExperimentsPanel::experimentFailed, this, [](const QString& message) {
    qWarning("--start-experiment: %s", qPrintable(message));
    QApplication::exit(3);
  });
  connect(panel, &ExperimentsPanel::experimentEnded, this,
          [this](qint64 id, const QString& status) {
            qInfo("--start-experiment: experiment %lld %s", static_cast<long long>(id),
                  qPrintable(status));
            experiment_ended_ = id;
          });
  connect(panel, &ExperimentsPanel::snapshotShown, this, [this](qint64 id) {
    if (experiment_ended_ == 0 || id != experiment_ended_) return;
    experiment_ended_ = -1;  // once
    QTimer::singleShot(kGridRepaintMs, this, &ScriptedSession::finishExperiment);
  });
  QTimer::singleShot(0, this, [this, panel, spec] {
    window_->showTabNamed(QStringLiteral("experiments"));
    panel->startExperiment(spec, false);
  });
}

void ScriptedSession::finishExperiment() {
  ExperimentsPanel* panel = window_->experimentsTab();
  int failures = 0;
  if (!options_.experiment_screenshot_path.isEmpty() &&
      !window_->grab().save(options_.experiment_screenshot_path)) {
    qWarning("--screenshot-experiment: cannot write %s",
             qPrintable(options_.experiment_screenshot_path));
    ++failures;
  }
  QString error;
  if (!options_.experiment_plot_path.isEmpty() &&
      !panel->plots()->exportPlot(panel->plots()->currentPage(), options_.experiment_plot_path,
                                  &error)) {
    qWarning("--experiment-plot: %s", qPrintable(error));
    ++failures;
  }
  if (!options_.experiment_grid_path.isEmpty()) {
    // What the grid shows, cell for cell: the test compares it with the store.
    const QAbstractItemModel* grid = panel->gridModel();
    QStringList lines;
    QStringList header;
    for (int c = 0; c < grid->columnCount(); ++c)
      header << grid->headerData(c, Qt::Horizontal).toString();
    lines << header.join(QLatin1Char('\t'));
    for (int r = 0; r < grid->rowCount(); ++r) {
      QStringList cells;
      for (int c = 0; c < grid->columnCount(); ++c)
        cells << grid->data(grid->index(r, c)).toString();
      lines << cells.join(QLatin1Char('\t'));
    }
    QSaveFile f(options_.experiment_grid_path);
    if (!f.open(QIODevice::WriteOnly) || f.write(lines.join(QLatin1Char('\n')).toUtf8()) < 0 ||
        !f.commit()) {
      qWarning("--experiment-grid: cannot write %s", qPrintable(options_.experiment_grid_path));
      ++failures;
    }
  }
  if (failures > 0) {
    QApplication::exit(4);
    return;
  }
  window_->closeWithoutAsking();
}

void ScriptedSession::writeLatencyReport() {
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
