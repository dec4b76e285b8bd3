#pragma once
// TrainObserver: the trainer's only way out. Callbacks run on the training thread, in order;
// an observer that feeds a GUI must copy the event and hand it over (queued signal).

#include "train/train_events.h"

namespace hnclip {

class TrainObserver {
 public:
  virtual ~TrainObserver() = default;
  virtual void on_step(const StepEvent&) {}
  virtual void on_probe(const ProbeEvent&) {}
  virtual void on_gbar_snapshot(const GbarSnapshotEvent&) {}
  virtual void on_eval(const EvalEvent&) {}
  virtual void on_checkpoint(const CheckpointEvent&) {}
  virtual void on_status(const StatusEvent&) {}
};

}  // namespace hnclip
