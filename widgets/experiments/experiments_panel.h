#pragma once
// ExperimentsPanel: the Experiments tab. The experiments of the store with their status and
// progress (kept current by a poll, so one started by the CLI on the same database appears and
// moves); "New experiment…" (NewExperimentDialog), and Pause / Resume / Cancel of the experiment
// this window runs — Resume also continues an interrupted or cancelled one; the selected
// experiment's results grid (ExperimentGridModel: mean ± std, Δ to its controls with
// significance, coloured by the difference) under its epoch-selection rule, filling in as runs
// finish; its plots (ExperimentPlots). Selecting grid rows announces their runs (the window
// selects them in the Runs tab); "Compare with its control" asks for the Retrieval tab with the
// control's run as A and the method's as B. Exports: the table as CSV or LaTeX (the core's
// experiment_report), the current chart as PNG, SVG or PDF.
//
// The store is read only by an ExperimentLoader (its own pool), and experiments run in an
// ExperimentController (a worker thread): the GUI thread never waits on SQLite or training.
// GUI thread only.

#include <cstdint>
#include <functional>
#include <memory>

#include <QList>
#include <QString>
#include <QWidget>

#include "train/train_config.h"
#include "widgets/common/workbench_tab.h"
#include "widgets/experiments/experiment_controller.h"
#include "widgets/experiments/experiment_snapshot.h"
#include "widgets/experiments/experiment_spec_for_qt.h"

class QLabel;
class QProgressBar;
class QPushButton;
class QSplitter;
class QTableView;
class QTimer;
class QTreeView;

namespace hnclip::gui {

class ExperimentGridModel;
class ExperimentListModel;
class ExperimentLoader;
class ExperimentPlots;

class ExperimentsPanel : public QWidget, public WorkbenchTab {
  Q_OBJECT
 public:
  ExperimentsPanel(QString db_path, QString cache_dir, QWidget* parent = nullptr);
  ~ExperimentsPanel() override;  // cancels a running experiment and waits for its runs to stop

  // WorkbenchTab. Shown: the list is reread. Export: the table (CSV / LaTeX) or the current
  // chart (PNG / SVG / PDF) by the chosen file's extension. State under "experiments/…".
  void activated() override;
  QString exportInteractive() override;
  void saveState(QSettings& settings) const override;
  void restoreState(QSettings& settings) override;

  // The Train tab's configuration, offered as the base of a new experiment.
  void setFormConfigSource(std::function<hnclip::TrainConfig()> source) {
    form_config_ = std::move(source);
  }

  // Opens "New experiment…"; starts what it describes when accepted.
  void newExperiment();
  // Starts an experiment in this window; false (with experimentFailed) when one already runs.
  bool startExperiment(const hnclip::ExperimentSpec& spec, bool confirmed);
  // Continues a stored experiment (interrupted, cancelled, or still pending) in this window.
  bool resumeExperiment(int64_t experiment_id);
  void setPaused(bool paused);
  void cancelExperiment();
  bool isRunning() const;  // this window runs an experiment
  ExperimentController* controller() { return controller_; }

  // Rereads the list (and the shown experiment's table when its progress moved).
  void refresh();
  void selectExperiment(int64_t experiment_id);
  int64_t selectedExperiment() const { return selected_; }

  ExperimentListModel* listModel() { return list_model_; }
  ExperimentGridModel* gridModel() { return grid_model_; }
  QTableView* gridView() { return grid_; }
  ExperimentPlots* plots() { return plots_; }
  std::shared_ptr<const ExperimentSnapshot> snapshot() const { return snapshot_; }

  // The grid's selected rows' runs; the control/method pair "Compare with its control" uses.
  QList<int64_t> selectedRuns() const;
  bool exportTable(const QString& path, QString* error) const;  // .csv or .tex

 signals:
  void runsSelected(QList<int64_t> run_ids);
  void compareRequested(qint64 control_run, qint64 method_run);
  void experimentStarted(qint64 experiment_id);
  void experimentEnded(qint64 experiment_id, const QString& status);
  void experimentFailed(const QString& message);
  void runsChanged();  // a run of an experiment this window runs started or finished
  // The grid now shows this snapshot (tests and scripts wait for it).
  void snapshotShown(qint64 experiment_id);

 protected:
  void showEvent(QShowEvent* event) override;
  void hideEvent(QHideEvent* event) override;

 private:
  void buildLayout();
  void onListLoaded(std::shared_ptr<const std::vector<ExperimentListEntry>> list);
  void onSnapshotLoaded(std::shared_ptr<const ExperimentSnapshot> snapshot);
  void onProgress(const hnclip::ExperimentProgress& progress);
  void onGridSelection();
  void compareWithControl();
  void updateButtons();
  void updateProgress();
  void showRunCount(int done, int total);  // "done/total runs" on the progress bar
  void showMessage(const QString& text, bool error);

  QString db_path_;
  QString cache_dir_;
  std::function<hnclip::TrainConfig()> form_config_;
  ExperimentLoader* loader_ = nullptr;
  ExperimentController* controller_ = nullptr;
  ExperimentListModel* list_model_ = nullptr;
  ExperimentGridModel* grid_model_ = nullptr;
  QTreeView* list_ = nullptr;
  QTableView* grid_ = nullptr;
  ExperimentPlots* plots_ = nullptr;
  QSplitter* splitter_ = nullptr;
  QPushButton* new_ = nullptr;
  QPushButton* pause_ = nullptr;
  QPushButton* resume_ = nullptr;
  QPushButton* cancel_ = nullptr;
  QPushButton* compare_ = nullptr;
  QPushButton* export_table_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QLabel* progress_text_ = nullptr;
  QLabel* title_ = nullptr;
  QLabel* rule_ = nullptr;
  QLabel* message_ = nullptr;
  QTimer* poll_ = nullptr;
  int64_t selected_ = 0;
  int64_t pending_selection_ = 0;  // selectExperiment before the list had it
  std::shared_ptr<const ExperimentSnapshot> snapshot_;
  hnclip::ExperimentProgress last_progress_;
  bool has_progress_ = false;
  bool columns_fitted_ = false;        // the list's columns, fitted to the first entries
  bool grid_header_restored_ = false;  // the user's grid column widths came back from settings
};

}  // namespace hnclip::gui
