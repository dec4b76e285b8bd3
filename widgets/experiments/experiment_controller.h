#pragma once
// ExperimentController: creates and runs an experiment of the core (create_experiment, then an
// ExperimentRunner), or resumes a stored one, on a worker thread — the Experiments tab's
// counterpart of the Train tab's TrainingController, built the same way.
//
// Threading: the controller lives on the GUI thread. An ExperimentWorker is moved to a QThread
// and runs the experiment there; it reaches the GUI only through queued signals carrying plain
// values. Cancel and pause are an atomic flag and a PauseGate that every run of the experiment
// checks before each step: cancel ends the runs under way after their current step (they stay
// resumable, as does the experiment), pause holds them.
// Ownership: owns the thread and the worker; destroying the controller cancels a running
// experiment and waits for the thread.

#include <atomic>
#include <cstdint>

#include <QMetaType>
#include <QObject>
#include <QString>
#include <QThread>

// First: the core's experiment header is read with Qt's `slots` macro lifted.
#include "widgets/experiments/experiment_spec_for_qt.h"

#include "job/experiment_runner.h"
#include "train/pause_gate.h"

namespace hnclip::gui {

// What to run: a new experiment from `spec` (resume_id 0), or the stored experiment resume_id.
struct ExperimentRequest {
  hnclip::ExperimentSpec spec;
  bool confirmed = false;  // more than kMaxRunsWithoutConfirmation runs were confirmed
  int64_t resume_id = 0;
  QString database;
  QString cache_dir;
};

class ExperimentWorker : public QObject {
  Q_OBJECT
 public:
  ExperimentWorker(const std::atomic<bool>* stop, hnclip::PauseGate* pause)
      : stop_(stop), pause_(pause) {}

 public slots:
  void run(const hnclip::gui::ExperimentRequest& request);

 signals:
  void log(const QString& line);
  void created(qint64 experiment_id, int runs, int reused);  // stored (or found, on resume)
  void progress(const hnclip::ExperimentProgress& progress);
  // Exactly one of these ends every run() call; `status` is the experiment's stored status.
  void finished(qint64 experiment_id, const QString& status);
  void failed(const QString& message);

 private:
  const std::atomic<bool>* stop_;
  hnclip::PauseGate* pause_;
};

class ExperimentController : public QObject {
  Q_OBJECT
 public:
  enum class State { Idle, Preparing, Running, Paused, Cancelling };
  Q_ENUM(State)

  explicit ExperimentController(QObject* parent = nullptr);
  ~ExperimentController() override;

  State state() const { return state_; }
  bool busy() const { return state_ != State::Idle; }
  qint64 experimentId() const { return experiment_id_; }

  // Starts the request on the worker thread; false (and nothing happens) when one is busy.
  bool start(const ExperimentRequest& request);
  // Ends the runs under way after their current step (also while paused or preparing).
  void cancel();
  void setPaused(bool paused);
  // Blocks until the worker is done (for shutdown and tests); false on timeout.
  bool waitForIdle(int timeout_ms);

 signals:
  void stateChanged(hnclip::gui::ExperimentController::State state);
  void log(const QString& line);
  void created(qint64 experiment_id, int runs, int reused);
  void progress(const hnclip::ExperimentProgress& progress);
  void finished(qint64 experiment_id, const QString& status);
  void failed(const QString& message);
  // Internal: carries the request to the worker's thread.
  void runRequested(const hnclip::gui::ExperimentRequest& request);

 private:
  void setState(State s);
  void onWorkerDone();

  QThread thread_;
  ExperimentWorker* worker_ = nullptr;  // owned by thread_ (deleteLater on finish)
  std::atomic<bool> stop_{false};
  hnclip::PauseGate pause_;
  State state_ = State::Idle;
  qint64 experiment_id_ = 0;
};

}  // namespace hnclip::gui

Q_DECLARE_METATYPE(hnclip::gui::ExperimentRequest)
Q_DECLARE_METATYPE(hnclip::ExperimentProgress)
