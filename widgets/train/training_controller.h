#pragma once
// TrainingController: starts, pauses, resumes and stops one training run of the core (a
// TrainingJob) on a worker thread, and re-emits the trainer's events on the GUI thread.
//
// Threading: the controller lives on the GUI thread. A TrainingWorker object is moved to a
// QThread and runs the job there; it reaches the GUI only through queued signals carrying plain
// value structs (train_event_types.h), so no widget is ever touched off the GUI thread. Stop and
// pause are an atomic flag and a PauseGate the trainer checks before every step.
// Ownership: owns the thread and the worker; destroying the controller stops a running job and
// waits for the thread.

#include <atomic>
#include <cstdint>
#include <memory>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QThread>

#include "train/pause_gate.h"
#include "widgets/train/train_event_types.h"

namespace hnclip::gui {

// What to run: a new run from `config`, or (resume_run_id > 0) an interrupted/stopped run.
// A run of world_size > 1 (new, or resumed from one) is data-parallel on this machine: the worker
// is rank 0 and starts the other ranks as `rank_program` (the hnclip CLI) processes
// (job/local_ranks.h); they are reaped, and their throughput logged, when the run ends.
struct TrainingRequest {
  hnclip::TrainConfig config;
  int64_t resume_run_id = 0;
  QString database;   // RunStore file
  QString cache_dir;  // generated benchmarks
  QString rank_program;  // the hnclip executable; needed for world_size > 1 only
};

class TrainingWorker : public QObject {
  Q_OBJECT
 public:
  TrainingWorker(const std::atomic<bool>* stop, hnclip::PauseGate* pause)
      : stop_(stop), pause_(pause) {}

 public slots:
  void run(const hnclip::gui::TrainingRequest& request);

 signals:
  void log(const QString& line);
  // The run exists in the store (after data, tokenizer and model were built).
  void runCreated(qint64 run_id, const hnclip::TrainConfig& config);
  void step(const hnclip::StepEvent& e);
  void probe(const hnclip::ProbeEvent& e);
  void gbarSnapshot(const hnclip::GbarSnapshotEvent& e);
  void evaluated(const hnclip::EvalEvent& e);
  void checkpointed(const hnclip::CheckpointEvent& e);
  void status(const hnclip::StatusEvent& e);
  // Exactly one of these ends every run() call.
  void finished(const hnclip::TrainResult& result);
  void failed(const QString& message);

 private:
  const std::atomic<bool>* stop_;
  hnclip::PauseGate* pause_;
};

class TrainingController : public QObject {
  Q_OBJECT
 public:
  enum class State { Idle, Preparing, Running, Paused, Stopping };
  Q_ENUM(State)

  explicit TrainingController(QObject* parent = nullptr);
  ~TrainingController() override;

  State state() const { return state_; }
  bool busy() const { return state_ != State::Idle; }
  qint64 runId() const { return run_id_; }

  // Starts the request on the worker thread; false (and nothing happens) when a run is busy.
  bool start(const TrainingRequest& request);
  // Asks the trainer to stop after its current step (also while paused or preparing).
  void stop();
  void setPaused(bool paused);
  // Blocks until the worker has finished its run (for shutdown); returns false on timeout.
  bool waitForIdle(int timeout_ms);

 signals:
  void stateChanged(hnclip::gui::TrainingController::State state);
  void log(const QString& line);
  void runCreated(qint64 run_id, const hnclip::TrainConfig& config);
  void step(const hnclip::StepEvent& e);
  void probe(const hnclip::ProbeEvent& e);
  void gbarSnapshot(const hnclip::GbarSnapshotEvent& e);
  void evaluated(const hnclip::EvalEvent& e);
  void checkpointed(const hnclip::CheckpointEvent& e);
  void finished(const hnclip::TrainResult& result);
  void failed(const QString& message);
  // Internal: carries the request to the worker's thread.
  void runRequested(const hnclip::gui::TrainingRequest& request);

 private:
  void setState(State s);
  void onWorkerDone();

  QThread thread_;
  TrainingWorker* worker_ = nullptr;  // owned by thread_ (deleteLater on finish)
  std::atomic<bool> stop_{false};
  hnclip::PauseGate pause_;
  State state_ = State::Idle;
  qint64 run_id_ = 0;
};

}  // namespace hnclip::gui

Q_DECLARE_METATYPE(hnclip::gui::TrainingRequest)
