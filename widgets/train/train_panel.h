#pragma once
// TrainPanel: the Train tab. The configuration form on the left; on the right the run controls
// (Start, Pause/Resume, Stop), a progress line (step, epoch, elapsed training time without pauses,
// ETA once a few steps have been timed), the live plots and a log. It owns the
// TrainingController that runs the core trainer on a worker thread.
// Threading: GUI thread only; everything from the trainer arrives as queued signals.

#include <cstdint>
#include <string>
#include <vector>

#include <QFutureWatcher>
#include <QTimer>
#include <QWidget>

#include "train/train_config.h"
#include "widgets/common/workbench_tab.h"
#include "widgets/train/training_controller.h"

class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSplitter;

namespace hnclip::gui {

class TrainConfigForm;
struct RunHistory;
class TrainingPlotsPanel;

class TrainPanel : public QWidget, public WorkbenchTab {
  Q_OBJECT
 public:
  TrainPanel(QString database, QString cache_dir, const std::vector<std::string>& devices,
             QWidget* parent = nullptr);

  // WorkbenchTab. Export asks for a chart and a file (PNG, SVG, PDF or CSV); the state is the
  // splitter, the plot options and the form's last configuration ("train/…" keys).
  QString exportInteractive() override;
  void saveState(QSettings& settings) const override;
  void restoreState(QSettings& settings) override;

  // The form's configuration, and a new one for it (a stored run's, --config).
  hnclip::TrainConfig currentConfig() const;
  void setConfig(const hnclip::TrainConfig& config);
  bool setConfigJson(const QString& json, QString* error);  // TrainConfig keys; false: why in error
  // Copies a stored run's configuration into the form (its name cleared), read off the GUI thread.
  void copyConfigOfRun(qint64 run_id);
  // Overlays these stored runs' curves on the plots (besides the live run), reading their
  // histories off the GUI thread; runs no longer listed are removed.
  void showStoredRuns(const QList<int64_t>& runs);
  bool isTraining();
  QString configProblem() const;  // why Start is disabled ("" when the form is valid)
  // Why no run can be recorded ("" when it can): the window's run database cannot be used. Start
  // stays off while it is set, and says why beside it.
  void setStoreProblem(const QString& problem);
  qint64 trainingRunId();

  // The hnclip program a data-parallel run starts its other ranks as (default: the one next to
  // this program, as built and as installed).
  void setRankProgram(const QString& path) { rank_program_ = path; }
  QString rankProgram() const { return rank_program_; }

  TrainConfigForm* form() const { return form_; }
  TrainingPlotsPanel* plots() const { return plots_; }
  TrainingController* controller() { return &controller_; }
  QSplitter* splitter() const { return splitter_; }
  QPushButton* startButton() const { return start_; }
  QString progressText() const;

 public slots:
  // Start a new run from the form (ignored while busy or invalid).
  void startRun();
  // Continue an interrupted or stopped run under the same id and the same curves.
  void resumeRun(qint64 run_id);
  // The running run's stored curves (answer to historyNeeded): plotted, then the live events that
  // arrived while they were being read are appended again, so none is lost to the replacement.
  void applyRunHistory(const RunHistory& history);
  void stopRun();
  void togglePause();

 signals:
  void runStarted(qint64 run_id);
  void runEnded(qint64 run_id);  // finished, stopped or failed; the store has its final status
  void epochEvaluated(qint64 run_id, int epoch);
  // The panel needs a run's stored curves (a resumed run's earlier steps); the owner loads them
  // off the GUI thread and calls plots()->setRunHistory.
  void checkpointed(qint64 run_id);          // the running run wrote an epoch's checkpoint
  void trainingStateChanged(bool training);  // started, or back to idle
  void sameAsRunRequested();                 // the form's "Same as run…" button
  void configCopied(qint64 run_id);          // copyConfigOfRun put that run's config in the form
  void statusMessage(const QString& text);   // a line for the window's status bar

 private:
  void start(const TrainingRequest& request);
  void onStateChanged(TrainingController::State state);
  void onStep(const hnclip::StepEvent& e);
  void appendLog(const QString& line);
  // The Table-A1 line of the configured benchmark, computed on a worker when it changes.
  void scheduleBenchmarkRow();
  void computeBenchmarkRow();
  void loadHistories(const QList<int64_t>& runs);

  QString database_, cache_dir_;
  QString rank_program_;
  bool data_parallel_ = false;  // the current run has world_size > 1: no pausing
  TrainingController controller_;
  TrainConfigForm* form_ = nullptr;
  TrainingPlotsPanel* plots_ = nullptr;
  QSplitter* splitter_ = nullptr;
  QPushButton* start_ = nullptr;
  QPushButton* pause_ = nullptr;
  QPushButton* stop_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QLabel* progress_text_ = nullptr;
  QLabel* state_text_ = nullptr;
  QLabel* start_problem_ = nullptr;  // shown while idle with a form the core would refuse
  QString store_problem_;
  QPlainTextEdit* log_ = nullptr;
  // Timing of this session of the run (a resumed run starts counting again for the ETA).
  int64_t first_step_ = -1;
  double first_wall_ = 0;
  int steps_seen_ = 0;
  QTimer* row_timer_ = nullptr;  // debounces typing in the benchmark fields
  QFutureWatcher<QString>* row_watcher_ = nullptr;
  // Live events kept until the run's stored history has been plotted (applyRunHistory).
  bool awaiting_history_ = false;
  std::vector<hnclip::StepEvent> pending_steps_;
  std::vector<hnclip::ProbeEvent> pending_probes_;
  std::vector<hnclip::EvalEvent> pending_evals_;
  QString row_key_;            // benchmark fields the shown (or pending) row is for
  bool row_again_ = false;     // fields changed while a row was being computed
  QList<int64_t> shown_runs_;  // stored runs overlaid in the plots (besides the live one)
  std::string val_split_;      // the live run's validation split ("" = none): logged, not plotted
};

}  // namespace hnclip::gui
