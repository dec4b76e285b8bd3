#include "widgets/train/training_controller.h"

#include <exception>

#include "job/local_ranks.h"
#include "job/training_job.h"
#include "train/train_observer.h"

namespace hnclip::gui {
namespace {

// Forwards the trainer's callbacks (training thread) as the worker's signals; the connections to
// the controller are queued because the controller lives on the GUI thread.
class SignalObserver : public hnclip::TrainObserver {
 public:
  explicit SignalObserver(TrainingWorker* worker) : w_(worker) {}
  void on_step(const hnclip::StepEvent& e) override { emit w_->step(e); }
  void on_probe(const hnclip::ProbeEvent& e) override { emit w_->probe(e); }
  void on_gbar_snapshot(const hnclip::GbarSnapshotEvent& e) override { emit w_->gbarSnapshot(e); }
  void on_eval(const hnclip::EvalEvent& e) override { emit w_->evaluated(e); }
  void on_checkpoint(const hnclip::CheckpointEvent& e) override { emit w_->checkpointed(e); }
  void on_status(const hnclip::StatusEvent& e) override { emit w_->status(e); }

 private:
  TrainingWorker* w_;
};

}  // namespace

void TrainingWorker::run(const TrainingRequest& request) {
  try {
    const hnclip::JobPaths paths{request.database.toStdString(), request.cache_dir.toStdString()};
    hnclip::JobLog job_log = [this](const std::string& line) {
      emit log(QString::fromStdString(line));
    };
    const bool resume = request.resume_run_id > 0;
    const int world = resume ? hnclip::stored_world_size(paths.database, request.resume_run_id)
                             : request.config.world_size;
    // Declared before the job, so destroyed after it: the other ranks outlive rank 0's run.
    std::unique_ptr<hnclip::LocalRanks> ranks;
    if (world > 1) {
      emit log(tr("data-parallel: starting ranks 1-%1 as %2").arg(world - 1).arg(request.rank_program));
      ranks = std::make_unique<hnclip::LocalRanks>(world, request.rank_program.toStdString(), paths,
                                                   std::chrono::minutes(5));
    }
    const auto group = ranks ? ranks->group() : nullptr;
    std::unique_ptr<hnclip::TrainingJob> job;
    if (resume) {
      job = hnclip::TrainingJob::resume(request.resume_run_id, paths, job_log, group);
    } else {
      job = std::make_unique<hnclip::TrainingJob>(request.config, paths, job_log, group);
    }
    if (ranks) {
      const auto b = job->config().batch_size;
      emit log(tr("data-parallel: %1 processes (%2), global batch %3, %4-%5 rows per rank")
                   .arg(world)
                   .arg(QString::fromStdString(job->config().dist_backend))
                   .arg(b)
                   .arg(b / world)
                   .arg((b + world - 1) / world));
    }
    emit runCreated(job->run_id(), job->config());
    SignalObserver observer(this);
    // No pausing a data-parallel run: the other ranks would wait in a collective meanwhile and
    // give up after the timeout (the panel disables the button).
    const auto result = job->run(*stop_, {&observer}, ranks ? nullptr : pause_);
    if (ranks) {
      const double ips = result.train_seconds > 0 ? result.images_seen / result.train_seconds : 0;
      emit log(tr("rank 0: %1, %2 steps, %3 images/s of the global batch")
                   .arg(QString::fromStdString(result.status))
                   .arg(result.steps)
                   .arg(ips, 0, 'f', 1));
      for (const auto& line : ranks->finish()) emit log(QString::fromStdString(line));
    }
    emit finished(result);
  } catch (const std::exception& e) {
    emit failed(QString::fromStdString(e.what()));
  }
}

TrainingController::TrainingController(QObject* parent) : QObject(parent) {
  register_train_event_types();
  qRegisterMetaType<TrainingRequest>();
  thread_.setObjectName(QStringLiteral("training"));
  worker_ = new TrainingWorker(&stop_, &pause_);
  worker_->moveToThread(&thread_);
  connect(&thread_, &QThread::finished, worker_, &QObject::deleteLater);
  connect(this, &TrainingController::runRequested, worker_, &TrainingWorker::run,
          Qt::QueuedConnection);
  connect(worker_, &TrainingWorker::log, this, &TrainingController::log);
  connect(worker_, &TrainingWorker::runCreated, this,
          [this](qint64 id, const hnclip::TrainConfig& c) {
            run_id_ = id;
            if (state_ == State::Preparing)
              setState(pause_.paused() ? State::Paused : State::Running);
            emit runCreated(id, c);
          });
  connect(worker_, &TrainingWorker::step, this, &TrainingController::step);
  connect(worker_, &TrainingWorker::probe, this, &TrainingController::probe);
  connect(worker_, &TrainingWorker::gbarSnapshot, this, &TrainingController::gbarSnapshot);
  connect(worker_, &TrainingWorker::evaluated, this, &TrainingController::evaluated);
  connect(worker_, &TrainingWorker::checkpointed, this, &TrainingController::checkpointed);
  connect(worker_, &TrainingWorker::finished, this, [this](const hnclip::TrainResult& r) {
    onWorkerDone();
    emit finished(r);
  });
  connect(worker_, &TrainingWorker::failed, this, [this](const QString& m) {
    onWorkerDone();
    emit failed(m);
  });
  thread_.start();
}

TrainingController::~TrainingController() {
  stop_ = true;
  pause_.set_paused(false);
  thread_.quit();
  thread_.wait();
}

bool TrainingController::start(const TrainingRequest& request) {
  if (busy()) return false;
  stop_ = false;
  pause_.set_paused(false);
  run_id_ = request.resume_run_id;
  setState(State::Preparing);
  emit runRequested(request);
  return true;
}

void TrainingController::stop() {
  if (!busy()) return;
  stop_ = true;
  pause_.set_paused(false);
  setState(State::Stopping);
}

void TrainingController::setPaused(bool paused) {
  if (state_ != State::Running && state_ != State::Paused && state_ != State::Preparing) return;
  pause_.set_paused(paused);
  if (state_ != State::Preparing) setState(paused ? State::Paused : State::Running);
}

bool TrainingController::waitForIdle(int timeout_ms) {
  QElapsedTimer timer;
  timer.start();
  while (busy()) {
    if (timer.elapsed() > timeout_ms) return false;
    // The worker's last signal is queued to this thread: process it while waiting.
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    QThread::msleep(5);
  }
  return true;
}

void TrainingController::setState(State s) {
  if (s == state_) return;
  state_ = s;
  emit stateChanged(s);
}

void TrainingController::onWorkerDone() {
  pause_.set_paused(false);
  setState(State::Idle);
}

}  // namespace hnclip::gui
