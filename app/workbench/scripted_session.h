#pragma once
// ScriptedSession: what the workbench does on its own when the command line scripts it — press
// Start, grab screenshots once the view they show has settled, time how long a caption's images
// take, report the event loop's lateness, and quit. It listens to the window's tabs through their
// public signals and never reaches into them; the main window knows nothing of it (the shape of
// QGIS's QgsAppScreenShots). Its delays are named constants, each with the reason it is needed.
// Exit codes: 2 an invalid autostart configuration or experiment, 3 the scripted view could not
// be shown (or the experiment failed), 4 a file could not be written.
// Threading: GUI thread.

#include <QList>
#include <QObject>
#include <QString>

namespace hnclip::gui {
class EventLoopLatencyMonitor;
}

namespace hnclip::app {

class MainWindow;
struct WorkbenchOptions;

struct ScriptOptions {
  bool autostart = false;             // --autostart: press Start once the window is up
  int quit_after_epochs = 0;          // --quit-after-epochs N: stop the run and quit after epoch N
  QString screenshot_path;            // --screenshot: grab the window after the first trained epoch
  QString latency_report_path;        // --latency-report: JSON of event-loop lateness at exit
  qint64 select_caption = -1;         // --select-caption N: Captions tab, caption N once loaded
  QString caption_detail_screenshot;  // --screenshot-detail: that caption's detail view, then quit
  QString caption_window_screenshot;  // --screenshot-captions-window: the window at that moment
  QString caption_timing_path;  // --caption-timing: JSON of selection → images shown, then quit
  bool retrieval_select_largest_diff =
      false;  // --select-largest-diff: the query A and B split on most
  QString
      retrieval_screenshot_path;  // --screenshot-retrieval: the window once that view is painted
  QString gbar_screenshot_path;  // --screenshot-heatmap: the heatmaps page of --gbar-run, then quit
  // --start-experiment JSON: start this experiment (an ExperimentSpec, a preset filling what it
  // leaves out) from the Experiments tab; once it has ended and its grid shows the final table:
  QString experiment_json;
  QString experiment_screenshot_path;  // --screenshot-experiment: the window (grid and γ plot)
  QString experiment_plot_path;  // --experiment-plot: its chart (γ sweep or sample efficiency)
  QString experiment_grid_path;        // --experiment-grid: the grid as shown, tab-separated
};

class ScriptedSession : public QObject {
  Q_OBJECT
 public:
  ScriptedSession(MainWindow* window, const WorkbenchOptions& user, ScriptOptions options);
  ~ScriptedSession() override;

 private:
  void startAutostart();
  void onEpochEvaluated(qint64 run_id, int epoch);
  void startCaptionSelection(const QString& show_tab);
  void onCaptionImagesShown(qint64 caption, qint64 elapsed_ms);
  void finishCaptionSelection();
  void startRetrievalSelection();
  void startHeatmapScreenshot(qint64 run);
  void startExperiment();
  void finishExperiment();
  void writeLatencyReport();

  MainWindow* window_;
  ScriptOptions options_;
  hnclip::gui::EventLoopLatencyMonitor* latency_ = nullptr;
  int caption_stage_ = 0;  // --select-caption: 0 first show, 1 next caption, 2 back again, 3 done
  qint64 caption_first_ms_ = -1, caption_reshow_ms_ = -1;
  qint64 experiment_ended_ = 0;  // --start-experiment: the experiment that ended (0: not yet)
};

}  // namespace hnclip::app
