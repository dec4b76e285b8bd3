#pragma once
// RetrievalLoader: the Retrieval tab's slow work, run on QtConcurrent workers — reading the runs
// and their splits, reading two runs' ranks for one direction (opening the split), opening the
// two chosen checkpoints with their split embeddings (RunRetriever), and encoding an ad-hoc
// caption. It owns the futures, the cancel flags, the generation counter that drops superseded
// rank loads, the opened RunRetrievers (only the two chosen ones stay loaded) and the last split
// catalog (reused while the split stays the same). Results come back as signals; it knows nothing
// of the widgets that show them.
// Threading: GUI thread only (its workers report back through queued calls).

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <QFutureWatcher>
#include <QObject>
#include <QString>

#include "job/run_retriever.h"
#include "train/run_test_set.h"
#include "widgets/common/run_summary.h"
#include "widgets/retrieval/retrieval_data.h"

namespace hnclip::gui {

using RetrieverKey = std::pair<int64_t, int>;  // (run, epoch)
using RetrieverErrors = std::map<RetrieverKey, QString>;

// Every stored run and the split each was evaluated on.
struct RetrievalRunList {
  std::vector<RunSummary> runs;
  std::map<int64_t, RunTestSet> splits;  // each run's RunSummary::test_set
};

// What loadQueries() reads: run A and B at their epochs, one direction, on the split `split_key`
// (RunTestSet::key of run A).
struct RetrievalQueryRequest {
  int64_t run_a = 0;
  int epoch_a = -1;
  int64_t run_b = 0;
  int epoch_b = -1;
  std::string direction;  // "t2i" | "i2t"
  std::string split_key;
};

// An ad-hoc caption's top-k under each of the two runs, in the order asked (A, then B).
struct RetrievalAdhocResult {
  QString text;
  int k = 0;
  std::vector<std::pair<RetrieverKey, std::vector<ScoredCandidate>>> results;
  // Per result: the words of `text` its run's word vocabulary lacks (RunRetriever::unknown_words).
  std::vector<std::vector<std::string>> unknown_words;
  QString error;  // why there are no results
};

class RetrievalLoader : public QObject {
  Q_OBJECT
 public:
  RetrievalLoader(QString db_path, QString cache_dir, QObject* parent = nullptr);
  ~RetrievalLoader() override;  // cancels running work and waits for it (at most one batch)

  // Reads every run and its split; runsLoaded or runsFailed follows. False (and nothing is
  // started) while a read is running.
  bool loadRuns();
  // Reads the ranks of `request`. A load still running is superseded: it is cancelled, its result
  // is dropped, and the newest request starts once it has stopped; queriesLoaded or queriesFailed
  // follows for the newest request only.
  void loadQueries(const RetrievalQueryRequest& request);
  // Makes `a` and `b` the chosen checkpoints: every other retriever (and error) is forgotten, the
  // missing ones are opened. While a load is running, the new choice is loaded once it ends.
  void loadRetrievers(RetrieverKey a, RetrieverKey b);
  // Encodes `text` with the retrievers of `a` and `b` (both must be loaded); adhocFinished
  // follows. False (nothing started) while an ad-hoc query runs or a retriever is missing.
  bool runAdhoc(const QString& text, int k, RetrieverKey a, RetrieverKey b);
  // Stops the running rank and checkpoint loads (within one batch); a checkpoint load waiting for
  // the running one is dropped.
  void cancel();

  bool isBusy() const;
  bool isAdhocRunning() const;
  // Null when not loaded (yet, or it failed: retrieverError says why).
  std::shared_ptr<const RunRetriever> retriever(RetrieverKey key) const;
  QString retrieverError(RetrieverKey key) const;

 signals:
  void runsLoaded(const hnclip::gui::RetrievalRunList& runs);
  void runsFailed(const QString& error);
  void queriesLoaded(const hnclip::gui::RetrievalQueries& queries);
  void queriesFailed(const QString& error);  // "cancelled" when cancel() stopped it
  // A checkpoint load ended: the chosen ones it opened are kept; `errors` of those that failed.
  void retrieversLoaded(const hnclip::gui::RetrieverErrors& errors, bool cancelled);
  // ... and the load of a newer choice, if one was waiting, has started (isBusy() says so).
  void retrieversFinished();
  void adhocFinished(std::shared_ptr<const hnclip::gui::RetrievalAdhocResult> result);
  // From the workers: what is being done; total 0 = no measure of progress.
  void progress(qint64 done, qint64 total, const QString& message);
  // A load started or ended; `busy` is isBusy() now.
  void busyChanged(bool busy);

 private:
  struct RunsJob;
  struct QueriesJob;
  struct RetrieversJob;

  void startQueries();
  void onRunsFinished();
  void onQueriesFinished();
  void startRetrievers();
  void onRetrieversFinished();
  void onAdhocFinished();
  void emitBusy();

  QString db_path_, cache_dir_;
  QFutureWatcher<std::shared_ptr<RunsJob>>* runs_watcher_;
  QFutureWatcher<std::shared_ptr<QueriesJob>>* queries_watcher_;
  QFutureWatcher<std::shared_ptr<RetrieversJob>>* retrievers_watcher_;
  QFutureWatcher<std::shared_ptr<const RetrievalAdhocResult>>* adhoc_watcher_;

  int queries_generation_ = 0;  // of the newest request; a result of an older one is dropped
  std::optional<RetrievalQueryRequest> queries_waiting_;  // starts when the running load ends
  std::shared_ptr<std::atomic<bool>> queries_cancel_, retrievers_cancel_;
  std::string catalog_key_;  // split key of `catalog_`
  std::shared_ptr<const SplitCatalog> catalog_;

  RetrieverKey chosen_a_{0, -1}, chosen_b_{0, -1};
  bool retrievers_waiting_ = false;  // the choice changed while a checkpoint load was running
  std::map<RetrieverKey, std::shared_ptr<const RunRetriever>> retrievers_;
  RetrieverErrors retriever_errors_;
};

}  // namespace hnclip::gui
