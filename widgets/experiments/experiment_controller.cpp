#include "widgets/experiments/experiment_controller.h"

#include <exception>

#include <QCoreApplication>
#include <QElapsedTimer>

#include "store/run_store.h"

namespace hnclip::gui {

void ExperimentWorker::run(const ExperimentRequest& request) {
  try {
    const hnclip::JobPaths paths{request.database.toStdString(), request.cache_dir.toStdString()};
    hnclip::JobLog job_log = [this](const std::string& line) {
      emit log(QString::fromStdString(line));
    };
    int64_t id = request.resume_id;
    if (id > 0) {
      const RunStore store(paths.database);
      if (!store.find_experiment(id))
        throw StoreError(paths.database + ": no experiment with id " + std::to_string(id));
      emit created(id, static_cast<int>(store.experiment_slots(id).size()), 0);
    } else {
      const auto creation =
          hnclip::create_experiment(request.spec, request.confirmed, paths, job_log);
      id = creation.id;
      emit created(id, creation.runs, creation.reused);
    }
    hnclip::ExperimentRunner runner(id, paths, job_log);
    const std::string status = runner.run(
        *stop_, pause_, [this](const hnclip::ExperimentProgress& p) { emit progress(p); });
    emit finished(id, QString::fromStdString(status));
  } catch (const std::exception& e) {
    emit failed(QString::fromStdString(e.what()));
  }
}

ExperimentController::ExperimentController(QObject* parent) : QObject(parent) {
  qRegisterMetaType<ExperimentRequest>();
  qRegisterMetaType<hnclip::ExperimentProgress>();
  thread_.setObjectName(QStringLiteral("experiment"));
  worker_ = new ExperimentWorker(&stop_, &pause_);
  worker_->moveToThread(&thread_);
  connect(&thread_, &QThread::finished, worker_, &QObject::deleteLater);
  connect(this, &ExperimentController::runRequested, worker_, &ExperimentWorker::run,
          Qt::QueuedConnection);
  connect(worker_, &ExperimentWorker::log, this, &ExperimentController::log);
  connect(worker_, &ExperimentWorker::created, this, [this](qint64 id, int runs, int reused) {
    experiment_id_ = id;
    if (state_ == State::Preparing) setState(pause_.paused() ? State::Paused : State::Running);
    emit created(id, runs, reused);
  });
  connect(worker_, &ExperimentWorker::progress, this, &ExperimentController::progress);
  connect(worker_, &ExperimentWorker::finished, this, [this](qint64 id, const QString& status) {
    onWorkerDone();
    emit finished(id, status);
  });
  connect(worker_, &ExperimentWorker::failed, this, [this](const QString& m) {
    onWorkerDone();
    emit failed(m);
  });
  thread_.start();
}

ExperimentController::~ExperimentController() {
  stop_ = true;
  pause_.set_paused(false);
  thread_.quit();
  thread_.wait();
}

bool ExperimentController::start(const ExperimentRequest& request) {
  if (busy()) return false;
  stop_ = false;
  pause_.set_paused(false);
  experiment_id_ = request.resume_id;
  setState(State::Preparing);
  emit runRequested(request);
  return true;
}

void ExperimentController::cancel() {
  if (!busy()) return;
  stop_ = true;
  pause_.set_paused(false);
  setState(State::Cancelling);
}

void ExperimentController::setPaused(bool paused) {
  if (state_ != State::Running && state_ != State::Paused && state_ != State::Preparing) return;
  pause_.set_paused(paused);
  if (state_ != State::Preparing) setState(paused ? State::Paused : State::Running);
}

bool ExperimentController::waitForIdle(int timeout_ms) {
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

void ExperimentController::setState(State s) {
  if (s == state_) return;
  state_ = s;
  emit stateChanged(s);
}

void ExperimentController::onWorkerDone() {
  pause_.set_paused(false);
  setState(State::Idle);
}

}  // namespace hnclip::gui
