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
// split — runs on QtConcurrent workers with a progress bar and a Cancel button (workers check the
// flag between batches: they stop within one batch). GUI thread only.

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include <QFutureWatcher>
#include <QString>
#include <QWidget>

#include "widgets/retrieval/query_list_model.h"
#include "widgets/retrieval/retrieval_data.h"
#include "widgets/common/run_summary.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QStandardItemModel;
class QTableView;
class QTimer;

namespace hnclip {
class RunRetriever;
struct ScoredCandidate;
}  // namespace hnclip

namespace hnclip::gui {

class RetrievalView;
class ThumbnailCache;

class RetrievalPanel : public QWidget {
  Q_OBJECT
 public:
  // `thumbnails`: a cache shared with other tabs; null = the panel makes its own, on disk under
  // <cache_dir>/thumbnails.
  RetrievalPanel(QString db_path, QString cache_dir, ThumbnailCache* thumbnails = nullptr, QWidget* parent = nullptr);
  ~RetrievalPanel() override;  // cancels running work and waits for it (at most one batch)

  // Reloads the run list on a worker; `runsLoaded` follows.
  void refresh();
  // Chooses runs A and B (applied once the runs are loaded). B must have been evaluated on A's
  // split, else warning() says so and nothing is compared.
  void setRuns(int64_t run_a, int64_t run_b);
  void setDirection(const QString& direction);  // "t2i" | "i2t"
  QString direction() const;
  void setEpochs(int epoch_a, int epoch_b);     // evaluated epochs only
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
  bool retrieversReady() const;     // both runs' embeddings are loaded
  QString warning() const;          // "" or why the two runs are not compared
  QString lastError() const { return last_error_; }
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
  void retrieversLoaded();   // both runs' embeddings are loaded
  void retrieversFinished(); // a load of embeddings ended (loaded, failed or cancelled)
  void viewUpdated();    // the side-by-side view shows a new query or ad-hoc result
  void viewSettled();    // ... and every thumbnail in it is painted
  void adhocFinished();

 private:
  struct RunsResult;
  struct RetrieverJob;
  using RetrieverKey = std::pair<int64_t, int>;
  using RetrieverMap = std::map<RetrieverKey, std::shared_ptr<const RunRetriever>>;
  struct AdhocResult;
  struct QueriesResult;

  void onRunsLoaded();
  void fillRunCombos();
  void fillEpochCombo(QComboBox* combo, int64_t run);
  void fillPartnerCombo();
  void onSelectionChanged();
  void loadQueries();
  void onQueriesLoaded();
  void loadRetrievers();
  void onRetrieversLoaded();
  void onAdhocFinished();
  void rebuildRecallTable();
  void updateCounts();
  void showSelected();
  void showQuery(int64_t query);
  void showAdhoc();
  void setProgress(int64_t done, int64_t total, const QString& message);
  void updateBusy();
  void startSettleWatch();
  const RunSummary* summary(int64_t run) const;
  std::shared_ptr<const RunRetriever> retriever(int64_t run, int epoch) const;

  QString db_path_, cache_dir_;
  ThumbnailCache* thumbs_;
  QComboBox *run_a_, *run_b_, *epoch_a_, *epoch_b_, *direction_;
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

  std::vector<RunSummary> summaries_;
  std::map<int64_t, RetrievalSplit> splits_;
  int64_t pending_a_ = 0, pending_b_ = 0;
  int pending_epoch_a_ = -1, pending_epoch_b_ = -1;
  bool filling_ = false;  // combos are being refilled: their signals do not reload
  QString warning_text_;
  QString last_error_;

  QFutureWatcher<std::shared_ptr<RunsResult>>* runs_watcher_;
  QFutureWatcher<std::shared_ptr<QueriesResult>>* queries_watcher_;
  QFutureWatcher<std::shared_ptr<RetrieverJob>>* retrievers_watcher_;
  QFutureWatcher<std::shared_ptr<AdhocResult>>* adhoc_watcher_;
  int queries_generation_ = 0;
  std::shared_ptr<std::atomic<bool>> queries_cancel_, retrievers_cancel_;
  bool retrievers_pending_ = false;  // selection changed while retrievers were loading
  RetrievalQueries queries_;
  std::string catalog_key_;
  std::vector<int64_t> caption_image_;  // of queries_.catalog
  RetrieverMap retrievers_;
  std::map<RetrieverKey, QString> retriever_errors_;
  std::optional<int64_t> selected_query_;
  QString adhoc_text_;
  std::shared_ptr<AdhocResult> adhoc_;
  bool showing_adhoc_ = false;
};

}  // namespace hnclip::gui
