#include "store/run_recorder.h"

#include <iostream>
#include <utility>

namespace hnclip {

RunRecorder::RunRecorder(RunStore& store, int64_t run_id, std::size_t batch_rows,
                         std::chrono::milliseconds max_delay)
    : store_(store),
      run_id_(run_id),
      batch_rows_(batch_rows == 0 ? 1 : batch_rows),
      max_delay_(max_delay) {
  buffer_.reserve(batch_rows_);
}

RunRecorder::~RunRecorder() {
  try {
    flush();
  } catch (const std::exception& e) {
    std::cerr << "hnclip: run " << run_id_ << ": last step metrics not saved: " << e.what() << "\n";
  }
}

void RunRecorder::on_step(const StepEvent& e) {
  if (buffer_.empty()) oldest_buffered_ = std::chrono::steady_clock::now();
  StepMetricRow row;
  row.step = e.step;
  row.epoch = e.epoch;
  row.wall_time_s = e.wall_time_s;
  row.loss = e.loss;
  row.loss_standard = e.loss_standard;
  row.lr = e.lr;
  row.logit_scale = e.logit_scale;
  row.grad_norm = e.grad_norm;
  row.loss_terms = e.loss_terms;
  buffer_.push_back(std::move(row));
  if (buffer_.size() >= batch_rows_ ||
      std::chrono::steady_clock::now() - oldest_buffered_ >= max_delay_) {
    flush();
  }
}

void RunRecorder::on_probe(const ProbeEvent& e) {
  // Probes are rare (every K steps): they wait for the next flush of step metrics.
  probe_buffer_.push_back(ProbeRow{e.step, e.epoch, e.loss_standard, e.loss_boosted,
                                   e.grad_norm_standard, e.grad_norm_boosted, e.grad_ratio,
                                   e.grad_cosine, e.mass_share_plain, e.mass_share_boosted});
}

void RunRecorder::on_gbar_snapshot(const GbarSnapshotEvent& e) {
  store_.write_gbar_snapshot(run_id_, GbarSnapshotRow{e.epoch, e.batch, e.captions, e.matrix,
                                                      e.max_value, e.max_i, e.max_j});
}

void RunRecorder::flush() {
  std::vector<ProbeRow> probes;
  probes.swap(probe_buffer_);
  if (!buffer_.empty()) {
    std::vector<StepMetricRow> batch;
    batch.swap(buffer_);  // dropped on failure: retrying a refused batch would fail every step
    buffer_.reserve(batch_rows_);
    store_.append_step_metrics(run_id_, batch);
  }
  store_.append_probes(run_id_, probes);
}

void RunRecorder::on_eval(const EvalEvent& e) {
  flush();
  store_.write_epoch_eval(run_id_, e.epoch, e.step, e.split, e.t2i, e.i2t);
}

void RunRecorder::on_checkpoint(const CheckpointEvent& e) {
  flush();
  CheckpointRow row;
  row.epoch = e.epoch;
  row.step = e.step;
  row.path = e.path;
  row.mean_r1 = e.mean_r1;
  row.created_at_ms = unix_time_ms();
  store_.add_checkpoint(run_id_, row);
}

void RunRecorder::on_status(const StatusEvent& e) {
  const RunStatus status = run_status_from_string(e.status);  // refuse before writing anything
  flush();
  store_.set_status(run_id_, status, e.message);
  if (status == RunStatus::Finished || status == RunStatus::Failed ||
      status == RunStatus::Stopped) {
    store_.set_finished(run_id_, unix_time_ms());
  }
}

}  // namespace hnclip
