#pragma once
// ExperimentLoader: reads the Experiments tab's data on a thread pool of its own — the experiment
// list (with progress) and one experiment's snapshot (results and cell configs) — and hands the
// results to the GUI thread. A list load asked for while one runs is done once more after it (so
// a poll never piles up); a snapshot asked for while one runs replaces any older request, and a
// result that is no longer the newest request's is dropped.
// Work goes to the pool as task objects released and acquired with thread_handoff.h (DESIGN §2).
// Threading: create and call on the GUI thread; signals arrive on it. Destroying the loader
// waits for running tasks (one store read each).

#include <cstdint>
#include <memory>
#include <vector>

#include <QObject>
#include <QString>
#include <QThreadPool>

#include "widgets/experiments/experiment_snapshot.h"

namespace hnclip::gui {

class ExperimentLoader : public QObject {
  Q_OBJECT
 public:
  explicit ExperimentLoader(QString db_path, QObject* parent = nullptr);
  ~ExperimentLoader() override;

  void loadList();
  void loadSnapshot(int64_t experiment_id);
  bool isBusy() const { return list_running_ || snapshot_running_; }

  // Internal: a finished task's result, on the GUI thread.
  struct ListResult {
    std::vector<ExperimentListEntry> entries;
    QString error;
  };
  struct SnapshotResult {
    int64_t experiment_id = 0;
    int generation = 0;
    ExperimentSnapshot snapshot;
    QString error;
  };
  void finishList(std::shared_ptr<ListResult> result);
  void finishSnapshot(std::shared_ptr<SnapshotResult> result);

 signals:
  void listLoaded(std::shared_ptr<const std::vector<hnclip::gui::ExperimentListEntry>> list);
  void listFailed(const QString& error);
  void snapshotLoaded(std::shared_ptr<const hnclip::gui::ExperimentSnapshot> snapshot);
  void snapshotFailed(qint64 experiment_id, const QString& error);

 private:
  void startList();
  void startSnapshot();

  QString db_path_;
  QThreadPool pool_;
  bool list_running_ = false;
  bool list_pending_ = false;
  bool snapshot_running_ = false;
  int64_t snapshot_wanted_ = 0;  // the newest request (0: none)
  int snapshot_generation_ = 0;  // bumped by every request
  int snapshot_started_generation_ = -1;
};

}  // namespace hnclip::gui
