#pragma once
// MainWindow: composes the workbench — a run-list dock beside the tabs (Train, Runs, Captions with
// its Ḡ heatmaps page, Retrieval, Experiments), each a WorkbenchTab it registers — wires the tabs
// to one another, owns the menus and persists the window's state (each tab persists its own). It
// owns no training state (the Train and Experiments tabs' controllers do) and reads nothing from
// the RunStore itself.
// Scripted behaviour (screenshots, timings, quitting) lives in ScriptedSession, outside it.

#include <cstdint>

#include <QList>
#include <QMainWindow>
#include <QString>

class QTabWidget;

namespace hnclip::gui {
class CaptionsPanel;
class ExperimentsPanel;
class GbarHeatmapPanel;
class ThumbnailCache;
class RetrievalPanel;
class MessageBanner;
class RunListView;
class RunsPanel;
class TrainPanel;
class WorkbenchTab;
}  // namespace hnclip::gui

namespace hnclip::app {

// What a user sets on the command line (scripting options are ScriptedSession's).
struct WorkbenchOptions {
  QString database;
  QString cache_dir;
  QString initial_config_json;    // --config: replaces the form's remembered configuration
  QString show_tab;               // --show-tab NAME: the tab shown first ("captions/overview", ...)
  QString caption_encoder;        // --caption-encoder run:ID|ckpt:PATH|init:pretrained
  QString caption_overlay;        // --caption-overlay: a second encoder drawn over the first
  QList<int64_t> retrieval_runs;  // --retrieval-runs A,B: open the Retrieval tab on these runs
  QString retrieval_direction;    // --retrieval-direction t2i|i2t
  qint64 gbar_run = 0;            // --gbar-run ID: the Ḡ heatmaps page on this run, largest pair
};

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(const WorkbenchOptions& options, QWidget* parent = nullptr);
  ~MainWindow() override;

  hnclip::gui::TrainPanel* trainTab() const { return train_; }
  hnclip::gui::RunsPanel* runsTab() const { return runs_; }
  hnclip::gui::CaptionsPanel* captionsTab() const { return captions_; }
  hnclip::gui::GbarHeatmapPanel* heatmapsPage() const { return gbar_; }
  hnclip::gui::RetrievalPanel* retrievalTab() const { return retrieval_; }
  hnclip::gui::ExperimentsPanel* experimentsTab() const { return experiments_; }
  // "captions/overview": a tab by its title or object name, then a page of that tab.
  void showTabNamed(const QString& name);
  // Closes without asking (a running run is stopped first; the window closes once it has).
  void closeWithoutAsking();

 signals:
  void closing();  // the window accepted its close (settings saved)

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  void addTab(QWidget* tab, const QString& title);
  hnclip::gui::WorkbenchTab* currentTab() const;
  void buildDock();
  void wireTabs();
  void buildActions();
  void applyOptions();
  void restoreSettings();
  void saveSettings();
  void chooseSameAsRun();
  void exportCurrent();
  void find();

  WorkbenchOptions options_;
  QTabWidget* tabs_ = nullptr;
  hnclip::gui::TrainPanel* train_ = nullptr;
  hnclip::gui::RunsPanel* runs_ = nullptr;
  hnclip::gui::ThumbnailCache* thumbnails_ = nullptr;  // one cache for every tab's images
  hnclip::gui::CaptionsPanel* captions_ = nullptr;
  hnclip::gui::GbarHeatmapPanel* gbar_ = nullptr;
  hnclip::gui::RunListView* run_list_ = nullptr;
  hnclip::gui::MessageBanner* banner_ = nullptr;
  hnclip::gui::RetrievalPanel* retrieval_ = nullptr;
  hnclip::gui::ExperimentsPanel* experiments_ = nullptr;
  bool closing_ = false;  // close requested while training: close once the run has stopped
  // ... or while an experiment runs: close once it has been cancelled
};

}  // namespace hnclip::app
