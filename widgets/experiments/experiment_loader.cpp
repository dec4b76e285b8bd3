#include "widgets/experiments/experiment_loader.h"

#include <exception>
#include <functional>
#include <utility>

#include <QMetaObject>
#include <QRunnable>

#include "widgets/common/thread_handoff.h"

namespace hnclip::gui {
namespace {

// A list read and a snapshot read may overlap (a poll during a long results read).
constexpr int kLoaderThreads = 2;

// One store read on the pool. A task object rather than a lambda: its fields are written before
// handoff_release and read after handoff_acquire, and so is the result it hands back, which lets
// ThreadSanitizer see Qt's hand-off in both directions.
template <typename Result>
class LoadTask : public QRunnable {
 public:
  using Work = std::function<void(Result&)>;
  using Finish = void (ExperimentLoader::*)(std::shared_ptr<Result>);
  LoadTask(ExperimentLoader* loader, Finish finish, std::shared_ptr<Result> result, Work work)
      : loader_(loader), finish_(finish), result_(std::move(result)), work_(std::move(work)) {
    handoff_release(this);
  }
  void run() override {
    handoff_acquire(this);
    try {
      work_(*result_);
    } catch (const std::exception& e) {
      result_->error = QString::fromStdString(e.what());
    }
    handoff_release(result_.get());
    // Queued to the loader's thread; dropped by Qt when the loader is gone.
    QMetaObject::invokeMethod(
        loader_,
        [loader = loader_, finish = finish_, result = result_] {
          handoff_acquire(result.get());
          (loader->*finish)(result);
        },
        Qt::QueuedConnection);
  }

 private:
  ExperimentLoader* loader_;
  Finish finish_;
  std::shared_ptr<Result> result_;
  Work work_;
};

}  // namespace

ExperimentLoader::ExperimentLoader(QString db_path, QObject* parent)
    : QObject(parent), db_path_(std::move(db_path)) {
  pool_.setMaxThreadCount(kLoaderThreads);
}

ExperimentLoader::~ExperimentLoader() {
  pool_.clear();
  pool_.waitForDone();
}

void ExperimentLoader::loadList() {
  if (list_running_) {
    list_pending_ = true;
    return;
  }
  startList();
}

void ExperimentLoader::startList() {
  list_running_ = true;
  list_pending_ = false;
  const std::string db = db_path_.toStdString();
  pool_.start(
      new LoadTask<ListResult>(this, &ExperimentLoader::finishList, std::make_shared<ListResult>(),
                               [db](ListResult& r) { r.entries = load_experiment_list(db); }));
}

void ExperimentLoader::finishList(std::shared_ptr<ListResult> result) {
  list_running_ = false;
  if (result->error.isEmpty()) {
    emit listLoaded(
        std::make_shared<const std::vector<ExperimentListEntry>>(std::move(result->entries)));
  } else {
    emit listFailed(result->error);
  }
  if (list_pending_) startList();
}

void ExperimentLoader::loadSnapshot(int64_t experiment_id) {
  snapshot_wanted_ = experiment_id;
  ++snapshot_generation_;
  if (!snapshot_running_) startSnapshot();
}

void ExperimentLoader::startSnapshot() {
  if (snapshot_wanted_ <= 0) return;
  snapshot_running_ = true;
  snapshot_started_generation_ = snapshot_generation_;
  auto result = std::make_shared<SnapshotResult>();
  result->experiment_id = snapshot_wanted_;
  result->generation = snapshot_generation_;
  const std::string db = db_path_.toStdString();
  const int64_t id = snapshot_wanted_;
  pool_.start(new LoadTask<SnapshotResult>(
      this, &ExperimentLoader::finishSnapshot, std::move(result),
      [db, id](SnapshotResult& r) { r.snapshot = load_experiment_snapshot(db, id); }));
}

void ExperimentLoader::finishSnapshot(std::shared_ptr<SnapshotResult> result) {
  snapshot_running_ = false;
  const bool newest = result->generation == snapshot_generation_;
  if (newest) {
    if (result->error.isEmpty()) {
      emit snapshotLoaded(std::make_shared<const ExperimentSnapshot>(std::move(result->snapshot)));
    } else {
      emit snapshotFailed(result->experiment_id, result->error);
    }
    return;
  }
  startSnapshot();  // a newer request came in meanwhile
}

}  // namespace hnclip::gui
