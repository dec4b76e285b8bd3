#pragma once
// MainWindow: composes the workbench's panels — a run-list dock, and the Train and Runs tabs —
// wires them together, and persists window state with QSettings. It owns no training state (the
// TrainPanel's controller does) and reads the RunStore only off the GUI thread.

#include <cstdint>

#include <QList>
#include <QMainWindow>
#include <QString>

class QTabWidget;

namespace hnclip::gui {
class CaptionsPanel;
class EventLoopLatencyMonitor;
class GbarHeatmapPanel;
class ThumbnailCache;
class RetrievalPanel;
class RunListView;
class RunsPanel;
class TrainPanel;
}  // namespace hnclip::gui

namespace hnclip::app {

struct WorkbenchOptions {
  QString database;
  QString cache_dir;
  QString initial_config_json;  // --config: replaces the form's remembered configuration
  bool autostart = false;       // --autostart: press Start once the window is up
  int quit_after_epochs = 0;    // --quit-after-epochs N: stop the run and quit after epoch N
  QString screenshot_path;      // --screenshot: grab the window after the first trained epoch
  QString latency_report_path;  // --latency-report: JSON of event-loop lateness at exit
  QString show_tab;             // --show-tab NAME: the tab shown first ("captions", ...)
  qint64 select_caption = -1;   // --select-caption N: Captions tab, caption N once its geometry is in
  QString caption_detail_screenshot;  // --screenshot-detail: that caption's detail view, then quit
  QString caption_window_screenshot;  // --screenshot-captions-window: the window at the same moment
  QString caption_timing_path;  // --caption-timing: JSON of selection → images shown, then quit
  QString caption_encoder;      // --caption-encoder run:ID|ckpt:PATH|init:pretrained
  QString caption_overlay;      // --caption-overlay: a second encoder drawn over the first
  QList<int64_t> retrieval_runs;       // --retrieval-runs A,B: open the Retrieval tab on these runs
  QString retrieval_direction;         // --retrieval-direction t2i|i2t
  bool retrieval_select_largest_diff = false;  // --select-largest-diff: show the query A and B disagree on most
  QString retrieval_screenshot_path;
  qint64 gbar_run = 0;                 // --gbar-run ID: the Captions tab's Ḡ heatmaps page on this run
  QString gbar_screenshot_path;        // --screenshot-heatmap: grab that page (largest entry selected), then quit   // --screenshot-retrieval: grab the window once that view is painted, then quit
};

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(const WorkbenchOptions& options, QWidget* parent = nullptr);
  ~MainWindow() override;

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  void buildActions();
  void restoreSettings();
  void saveSettings();
  void loadHistories(const QList<int64_t>& runs);
  void showRunsInPlots(const QList<int64_t>& runs);
  void chooseSameAsRun();
  void copyConfigOfRun(qint64 run_id);
  void exportCurrent();
  void find();
  void onEpochEvaluated(qint64 run_id, int epoch);
  void writeLatencyReport();
  void showTabNamed(const QString& name);
  void startHeatmapFromOptions();
  void onCaptionImagesShown(qint64 caption, qint64 elapsed_ms);
  void finishCaptionCommandLine();
  void startRetrievalFromOptions();

  WorkbenchOptions options_;
  QTabWidget* tabs_ = nullptr;
  hnclip::gui::TrainPanel* train_ = nullptr;
  hnclip::gui::RunsPanel* runs_ = nullptr;
  hnclip::gui::ThumbnailCache* thumbnails_ = nullptr;  // one cache for every tab's images
  hnclip::gui::CaptionsPanel* captions_ = nullptr;
  hnclip::gui::GbarHeatmapPanel* gbar_ = nullptr;
  int caption_cli_stage_ = 0;        // --select-caption: 0 first show, 1 next caption, 2 back again
  qint64 caption_first_ms_ = -1, caption_reselect_ms_ = -1;
  hnclip::gui::RunListView* run_list_ = nullptr;
  hnclip::gui::EventLoopLatencyMonitor* latency_ = nullptr;
  hnclip::gui::RetrievalPanel* retrieval_ = nullptr;
  QList<int64_t> shown_runs_;  // stored runs overlaid in the plots (besides the live one)
  bool closing_ = false;      // close requested while training: close once the run has stopped
};

}  // namespace hnclip::app
