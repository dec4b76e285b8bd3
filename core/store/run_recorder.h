#pragma once
// RunRecorder: the TrainObserver that writes one run's training events into a RunStore. Step
// metrics are buffered and written in batches (one transaction per batch) so the training loop
// does not pay a disk sync per step; everything else is written at once, after the pending
// steps, so the database never shows an evaluation or checkpoint ahead of the curve leading up
// to it.
//
// Ownership/threading: borrows the RunStore (which must outlive it and should be a connection of
// the training thread's own). Not thread-safe: lives and is called on the training thread.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "store/run_store.h"
#include "train/train_observer.h"

namespace hnclip {

class RunRecorder : public TrainObserver {
 public:
  static constexpr std::size_t kDefaultBatchRows = 64;
  static constexpr std::chrono::milliseconds kDefaultMaxDelay{2000};

  // Buffered steps are written once `batch_rows` are pending or the oldest pending one is
  // `max_delay` old (checked when the next step arrives), whichever comes first.
  RunRecorder(RunStore& store, int64_t run_id, std::size_t batch_rows = kDefaultBatchRows,
              std::chrono::milliseconds max_delay = kDefaultMaxDelay);
  // Writes what is still buffered; a failure is reported on stderr (destructors do not throw).
  ~RunRecorder() override;
  RunRecorder(const RunRecorder&) = delete;
  RunRecorder& operator=(const RunRecorder&) = delete;

  void on_step(const StepEvent& e) override;
  void on_probe(const ProbeEvent& e) override;            // buffered until the next flush
  void on_gbar_snapshot(const GbarSnapshotEvent& e) override;  // -> write_gbar_snapshot
  void on_eval(const EvalEvent& e) override;            // -> write_epoch_eval
  void on_checkpoint(const CheckpointEvent& e) override;  // -> add_checkpoint (created now)
  // -> set_status; finished/failed/stopped also set the finish time. An unknown status string
  // throws StoreError. (Start pid/host/device are the program's to record with set_started.)
  void on_status(const StatusEvent& e) override;

  // Writes the buffered steps now. On a StoreError the batch is dropped (not retried on every
  // later step) and the error propagates.
  void flush();
  std::size_t buffered_rows() const { return buffer_.size(); }
  int64_t run_id() const { return run_id_; }

 private:
  RunStore& store_;
  int64_t run_id_;
  std::size_t batch_rows_;
  std::chrono::milliseconds max_delay_;
  std::vector<StepMetricRow> buffer_;
  std::vector<ProbeRow> probe_buffer_;
  std::chrono::steady_clock::time_point oldest_buffered_{};
};

}  // namespace hnclip
