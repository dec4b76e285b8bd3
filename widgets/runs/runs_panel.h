#pragma once
// RunsPanel: the Runs tab. A filterable, sortable table of every run in the store; with two or
// more runs selected, a config diff (keys × runs) and a recall table (runs × R@K at each run's
// reported epoch, exportable as CSV and LaTeX); with one or more, their transfer evaluations
// (other data or splits; the only page for one run that has some); a context menu to rename, tag,
// delete, resume and repeat ("Same as run…") runs.
//
// The database is read and written only on QtConcurrent workers, each with its own RunStore: the
// GUI thread never waits on SQLite. GUI thread only.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <QFutureWatcher>
#include <QList>
#include <QVariantMap>
#include <QWidget>

#include "widgets/common/recall_table.h"
#include "widgets/common/run_summary.h"
#include "widgets/common/workbench_tab.h"

class QAbstractItemModel;
class QCheckBox;
class QLabel;
class QLineEdit;
class QMenu;
class QSortFilterProxyModel;
class QSplitter;
class QStackedWidget;
class QTabWidget;
class QStandardItemModel;
class QTableView;
class QTimer;
class QTreeView;

namespace hnclip::gui {

class RunTableModel;

class RunsPanel : public QWidget, public WorkbenchTab {
  Q_OBJECT
 public:
  explicit RunsPanel(QString db_path, QWidget* parent = nullptr);
  ~RunsPanel() override;

  // WorkbenchTab: export writes the recall table as CSV; find focuses the filter; the state is
  // options() and the selected runs ("runs/…" keys; the selection is applied once runs arrive).
  QString exportInteractive() override;
  bool focusSearch() override;
  void saveState(QSettings& settings) const override;
  void restoreState(QSettings& settings) override;
  // Every stored run as (id, "name" as the table shows it), in model order.
  QList<QPair<int64_t, QString>> runChoices();

  const QString& databasePath() const { return db_path_; }

  // Reloads every run on a worker and merges the result into the model (selection survives).
  // A call while a reload runs schedules one more after it; `refreshed` follows each merge.
  void refresh();
  bool isRefreshing() const;
  // True while a reload or a store edit is still on its way (tests wait for false).
  bool isBusy() const;
  // Why the last load could not read the store (the database cannot be opened, is not one, is
  // too new); empty after a load that worked. Read it on refreshed().
  QString loadError() const { return load_error_; }

  // Selected run ids, in table order. selectRuns before the first load completes is applied
  // once the runs are there.
  QList<int64_t> selectedRuns() const;
  void selectRuns(const QList<int64_t>& ids);
  // The unfiltered run model (source of this panel's filter/sort proxy), for other views.
  QAbstractItemModel* runModel();
  RunTableModel* runTableModel() { return model_; }
  // The view's proxy model (filter + sort); exposed for tests and for the main window.
  QSortFilterProxyModel* proxyModel() { return proxy_; }

  // Header state, filter text, sort, "only keys that differ" and splitter sizes.
  QVariantMap options() const;
  void setOptions(const QVariantMap& options);

  // Filter text (case-insensitive, over name, benchmark, status and tags).
  void setFilterText(const QString& text);
  QString filterText() const;
  void focusFilter();  // also bound to Ctrl+F while the panel is visible

  // Store edits, each done on a worker and followed by runsChanged and a refresh (or by
  // operationFailed with the reason). deleteRuns refuses when any of the runs is running.
  void renameRun(int64_t id, const QString& name);
  void setRunTags(int64_t id, const QString& tags);
  void deleteRuns(const QList<int64_t>& ids);

  // What the comparison area shows for the current selection (empty below two runs).
  QStandardItemModel* configDiffModel() { return diff_model_; }
  QStandardItemModel* recallModel() { return recall_model_; }
  // The selected runs' transfer evaluations (widgets/runs/transfer_table_model.h).
  QStandardItemModel* transferModel() { return transfer_model_; }
  // The comparison area's pages: Recall, Config diff, Transfer (tests read which are enabled).
  QTabWidget* comparisonTabs() { return compare_tabs_; }
  const RecallTable& recallTable() const { return recall_table_; }
  // Above the recall table when the selected runs were tested on different data: which runs on
  // which test set, and that no best is marked; "" when they share one.
  QString recallNote() const;
  void setDiffOnly(bool only_differing);
  bool diffOnly() const;

  // The actions of the table's context menu for the current selection (Rename…, Tags…, Resume,
  // Same as run…, Delete…, exports, Refresh), enabled as they apply; also for a main-window menu.
  void fillContextMenu(QMenu* menu);

 signals:
  void selectionChanged(QList<int64_t> ids);
  void resumeRequested(int64_t id);
  void sameAsRequested(int64_t id);
  void runsChanged();  // this panel changed the store
  void refreshed();    // a reload was merged into the model
  void operationFailed(const QString& message);

 public:
  // Asks for a file and writes the selected runs' recall table as CSV or LaTeX (File > Export…).
  void exportRecall(bool latex);

 protected:
  void changeEvent(QEvent* event) override;

 private:
  struct LoadResult {
    std::vector<RunSummary> runs;
    QString error;
  };
  struct EditResult {
    QString error;         // empty: done
    bool changed = false;  // the store was changed (also possible with an error: files left)
  };
  // Shows and emits "<what> failed: <rule> <the control character>" and returns true when `text`
  // holds a control character; false (nothing done) otherwise.
  bool refuseControlCharacters(const QString& what, const QString& rule, const std::string& text);
  void onLoaded();
  void onSelectionChanged();
  void updateComparison();
  void rebuildDiffModel();
  void rebuildRecallModel();
  void rebuildTransferModel();
  void showContextMenu(const QPoint& pos);
  void runStoreEdit(const QString& what, std::function<EditResult()> work);
  void promptRename();
  void promptTags();
  void promptDelete();
  void showMessage(const QString& text, bool error);
  std::vector<RunSummary> selectedSummaries() const;

  QString db_path_;
  RunTableModel* model_ = nullptr;
  QSortFilterProxyModel* proxy_ = nullptr;
  QLineEdit* filter_ = nullptr;
  QTreeView* view_ = nullptr;
  QSplitter* splitter_ = nullptr;
  QStackedWidget* compare_stack_ = nullptr;
  QCheckBox* diff_only_ = nullptr;
  QTableView* diff_view_ = nullptr;
  QTableView* recall_view_ = nullptr;
  QLabel* recall_note_ = nullptr;
  QStandardItemModel* diff_model_ = nullptr;
  QStandardItemModel* recall_model_ = nullptr;
  QTabWidget* compare_tabs_ = nullptr;
  QStandardItemModel* transfer_model_ = nullptr;
  QTableView* transfer_view_ = nullptr;
  QLabel* transfer_note_ = nullptr;
  QLabel* message_ = nullptr;
  QTimer* clock_ = nullptr;
  QFutureWatcher<LoadResult>* loader_ = nullptr;
  bool loading_ = false;  // a load was started and onLoaded has not run yet
  bool reload_pending_ = false;
  int edits_in_flight_ = 0;
  QList<int64_t> last_selection_;
  QList<int64_t> pending_selection_;
  bool has_pending_selection_ = false;
  bool loaded_once_ = false;
  QString load_error_;
  bool columns_fitted_ = false;  // widths set over content: fitted once, or the user's restored
  RecallTable recall_table_{std::vector<RecallTable::Row>{}};
};

}  // namespace hnclip::gui
