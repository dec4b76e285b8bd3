#pragma once
// RetrievalPanel: the Retrieval tab. Two runs evaluated on the same benchmark split (A and B), a
// direction and each run's epoch (default: its best) select the query list — every test query
// with the ground truth's rank under A and B and their difference, sortable, filterable ("A
// correct / B wrong", the reverse, "both wrong", text), with summary counts and the two runs'
// recall table on top. The selected query is shown side by side (RetrievalView): each run's top-k
// with scores, ground truth outlined, near-twins marked. An ad-hoc caption is encoded with both
// runs' checkpoints and retrieved from the split's cached image embeddings (RunRetriever).
//
// Everything slow — reading runs and ranks, opening the split, loading checkpoints, encoding the
// split — runs in a RetrievalLoader (QtConcurrent workers) with a progress bar and a Cancel button
// (workers check the flag between batches: they stop within one batch); the panel lays out and
// shows what the loader's signals bring. GUI thread only.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include <QString>
#include <QWidget>

#include "widgets/common/run_summary.h"
#include "widgets/common/workbench_tab.h"
#include "widgets/retrieval/query_list_model.h"
#include "widgets/retrieval/retrieval_content.h"
#include "widgets/retrieval/retrieval_data.h"
#include "widgets/retrieval/retrieval_loader.h"
#include "widgets/retrieval/retrieval_run_picker.h"

class QComboBox;
class QLabel;
class QLayout;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QStandardItemModel;
class QTableView;
class QTimer;

namespace hnclip::gui {

class RetrievalView;
class ThumbnailCache;

class RetrievalPanel : public QWidget, public WorkbenchTab {
  Q_OBJECT
 public:
  // `thumbnails`: a cache shared with other tabs; null = the panel makes its own, on disk under
  // <cache_dir>/thumbnails.
  RetrievalPanel(QString db_path, QString cache_dir, ThumbnailCache* thumbnails = nullptr,
                 QWidget* parent = nullptr);
  ~RetrievalPanel() override;  // cancels running work and waits for it (at most one batch)

  // WorkbenchTab. Shown: the runs are reread (new evaluations, renamed runs). Export: the
  // side-by-side view (PNG) or the query list (CSV), by the chosen file's extension. No search
  // field of its own, nothing persisted.
  void activated() override { refresh(); }
  QString exportInteractive() override;
  bool focusSearch() override { return false; }
  void saveState(QSettings&) const override {}
  void restoreState(QSettings&) override {}

  // Reloads the run list on a worker; `runsLoaded` follows.
  void refresh();
  // Chooses runs A and B (applied once the runs are loaded). B must have been evaluated on A's
  // split, else warning() says so and nothing is compared.
  void setRuns(int64_t run_a, int64_t run_b);
  void setDirection(const QString& direction);  // "t2i" | "i2t"
  QString direction() const;
  void setEpochs(int epoch_a, int epoch_b);  // evaluated epochs only
  int epochA() const;
  int epochB() const;
  int64_t runA() const;
  int64_t runB() const;
  void setK(int k);
  int k() const;

  // Selects (and shows) the query with the largest |rank A − rank B| (ties: lower query id) among
  // the rows the filter shows; false when there is none.
  bool selectLargestDifference();
  bool selectQuery(int64_t query);
  std::optional<int64_t> selectedQuery() const { return selected_query_; }
  // Encodes `text` with both runs' checkpoints on a worker; `adhocFinished` follows.
  void runAdhocQuery(const QString& text);
  // Stops every running worker (they stop within one batch).
  void cancel();

  bool isBusy() const;
  bool retrieversReady() const;  // both runs' embeddings are loaded
  QString warning() const;       // "" or why the two runs are not compared
  // The status line's whole text (the line itself may be elided).
  QString statusText() const;
  QString lastError() const { return last_error_; }
  int queryCount() const;  // rows of the query list (all of them, not only those the filter shows)
  QueryListModel* queryModel() { return model_; }
  QueryListFilter* queryFilter() { return filter_; }
  QTableView* queryView() { return table_; }
  RetrievalView* view() { return view_; }
  QueryListCounts counts() const { return model_->counts(); }

  bool exportCsv(const QString& path, QString* error) const;
  bool exportPng(const QString& path, QString* error) const;

 signals:
  void runsLoaded();
  void queriesLoaded();
  void retrieversLoaded();    // both runs' embeddings are loaded
  void retrieversFinished();  // a load of embeddings ended (loaded, failed or cancelled)
  void viewUpdated();         // the side-by-side view shows a new query or ad-hoc result
  void viewSettled();         // ... and every thumbnail in it is painted
  void adhocFinished();

 private:
  // Construction.
  QLayout* buildStatusRow();
  void buildQueryTable();
  QWidget* buildQueryList();
  QWidget* buildViewSide();
  QWidget* buildSplitter();
  void connectQueryList();
  void connectViewTools();
  void connectLoader();

  void onRunsLoaded(const RetrievalRunList& list);
  void onSelectionChanged();

  // The query list.
  void onQueriesLoaded(const RetrievalQueries& queries);
  void onQueriesFailed(const QString& error);
  void rebuildRecallTable();
  void updateCounts();

  // The side-by-side view.
  void onRetrieversLoaded(const RetrieverErrors& errors, bool cancelled);
  void onRetrieversFinished();
  void onAdhocFinished(std::shared_ptr<const RetrievalAdhocResult> result);
  void showSelected();
  void showQuery(int64_t query);
  void showAdhoc();
  void showContent(const RetrievalViewContent& content);
  QString rowName(size_t i, int64_t run, int epoch) const;

  // Status.
  // The status line elides a long message (an error naming files): its tooltip holds all of it.
  void setStatus(const QString& text);
  void setProgress(qint64 done, qint64 total, const QString& message);
  void updateBusy();
  const RunSummary* summary(int64_t run) const;
  QString runName(int64_t run, const QString& fallback) const;
  // runName, with the epoch when run A is compared with itself at another epoch.
  QString sideName(int64_t run, int epoch, const QString& fallback) const;
  std::shared_ptr<const RunRetriever> retriever(int64_t run, int epoch) const;

  QString db_path_, cache_dir_;
  ThumbnailCache* thumbs_;
  RetrievalLoader* loader_;
  RetrievalRunPicker* picker_;
  QLabel* warning_label_;
  QProgressBar* progress_;
  QLabel* status_;
  QPushButton* cancel_button_;
  QStandardItemModel* recall_model_;
  QTableView* recall_view_;
  QLabel* counts_label_;
  QComboBox* filter_mode_;
  QLineEdit* search_;
  QueryListModel* model_;
  QueryListFilter* filter_;
  QTableView* table_;
  QSpinBox* k_spin_;
  QLineEdit* adhoc_edit_;
  QPushButton* adhoc_button_;
  RetrievalView* view_;
  QTimer* settle_timer_;

  QString last_error_;

  RetrievalContent content_;  // of the loaded queries
  std::optional<int64_t> selected_query_;
  QString adhoc_text_;
  std::shared_ptr<const RetrievalAdhocResult> adhoc_;
  bool showing_adhoc_ = false;
};

}  // namespace hnclip::gui
