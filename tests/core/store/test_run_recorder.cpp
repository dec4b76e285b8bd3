// Tests of core/store/run_recorder.cpp: step batching (by count, by age, on flush and on
// destruction), and that evaluations, checkpoints and status changes are written after the
// pending steps.

#include "store/run_recorder.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "support/test_dirs.h"

namespace hnclip {
namespace {

using namespace std::chrono_literals;
using test::ScratchDir;

// Long enough that no test here reaches it unless it means to.
constexpr std::chrono::milliseconds kNever = std::chrono::hours(1);

StepEvent step_event(int64_t step) {
  StepEvent e;
  e.step = step;
  e.epoch = static_cast<int>((step - 1) / 10) + 1;
  e.steps_per_epoch = 10;
  e.total_steps = 1000;
  e.wall_time_s = 0.25 * static_cast<double>(step);
  e.loss = 4.0 - 0.01 * static_cast<double>(step);
  e.loss_standard = 3.5 - 0.01 * static_cast<double>(step);
  e.lr = 1e-5 * static_cast<double>(step);
  e.logit_scale = 4.6 + 1e-3 * static_cast<double>(step);
  e.grad_norm = 1.0 / static_cast<double>(step);
  return e;
}

RetrievalResult result(const std::string& direction, double r1) {
  RetrievalResult r;
  r.direction = direction;
  r.recall = {{1, r1}, {5, r1 + 10}};
  r.ranks = {1, 4};
  r.topk = {{0, 1}, {3, 1}};
  return r;
}

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class RunRecorderTest : public ::testing::Test {
 protected:
  RunRecorderTest() : store_((dir_ / "runs.db").string()) {
    RunRecord r;
    r.name = "recorded";
    r.status = RunStatus::Running;
    run_ = store_.create_run(r);
  }
  std::size_t stored_steps() { return store_.step_metrics(run_).size(); }

  ScratchDir dir_;
  RunStore store_;
  int64_t run_ = 0;
};

TEST_F(RunRecorderTest, StepsAreWrittenInBatchesOfTheConfiguredSize) {
  RunRecorder recorder(store_, run_, 64, kNever);
  for (int64_t s = 1; s <= 63; ++s) recorder.on_step(step_event(s));
  EXPECT_EQ(stored_steps(), 0u);
  EXPECT_EQ(recorder.buffered_rows(), 63u);
  recorder.on_step(step_event(64));
  EXPECT_EQ(stored_steps(), 64u);
  EXPECT_EQ(recorder.buffered_rows(), 0u);
  for (int64_t s = 65; s <= 100; ++s) recorder.on_step(step_event(s));
  EXPECT_EQ(stored_steps(), 64u);
}

TEST_F(RunRecorderTest, DefaultBatchIs64Steps) {
  RunRecorder recorder(store_, run_);
  for (int64_t s = 1; s < static_cast<int64_t>(RunRecorder::kDefaultBatchRows); ++s) {
    recorder.on_step(step_event(s));
  }
  EXPECT_EQ(stored_steps(), 0u);
  recorder.on_step(step_event(RunRecorder::kDefaultBatchRows));
  EXPECT_EQ(stored_steps(), RunRecorder::kDefaultBatchRows);
  EXPECT_EQ(RunRecorder::kDefaultBatchRows, 64u);
  EXPECT_EQ(RunRecorder::kDefaultMaxDelay, 2s);
}

TEST_F(RunRecorderTest, OldStepsAreWrittenWhenTheMaxDelayHasPassed) {
  RunRecorder recorder(store_, run_, 1000, 50ms);
  recorder.on_step(step_event(1));
  recorder.on_step(step_event(2));
  EXPECT_EQ(stored_steps(), 0u);
  std::this_thread::sleep_for(80ms);
  recorder.on_step(step_event(3));
  EXPECT_EQ(stored_steps(), 3u);
  recorder.on_step(step_event(4));  // a fresh batch starts its own clock
  EXPECT_EQ(stored_steps(), 3u);
}

TEST_F(RunRecorderTest, FlushAndDestructionWriteWhatIsBuffered) {
  {
    RunRecorder recorder(store_, run_, 64, kNever);
    for (int64_t s = 1; s <= 10; ++s) recorder.on_step(step_event(s));
    recorder.flush();
    EXPECT_EQ(stored_steps(), 10u);
    recorder.flush();  // nothing pending: no error, nothing duplicated
    for (int64_t s = 11; s <= 15; ++s) recorder.on_step(step_event(s));
    EXPECT_EQ(stored_steps(), 10u);
  }
  EXPECT_EQ(stored_steps(), 15u);
}

TEST_F(RunRecorderTest, EveryStepFieldLandsInItsColumn) {
  RunRecorder recorder(store_, run_, 64, kNever);
  recorder.on_step(step_event(7));
  recorder.flush();
  const auto rows = store_.step_metrics(run_);
  ASSERT_EQ(rows.size(), 1u);
  const StepEvent want = step_event(7);
  EXPECT_EQ(rows[0].step, want.step);
  EXPECT_EQ(rows[0].epoch, want.epoch);
  EXPECT_EQ(rows[0].wall_time_s, want.wall_time_s);
  EXPECT_EQ(rows[0].loss, want.loss);
  EXPECT_EQ(rows[0].loss_standard, want.loss_standard);
  EXPECT_EQ(rows[0].lr, want.lr);
  EXPECT_EQ(rows[0].logit_scale, want.logit_scale);
  EXPECT_EQ(rows[0].grad_norm, want.grad_norm);
}

TEST_F(RunRecorderTest, PendingStepsAreWrittenBeforeAnEvaluation) {
  RunRecorder recorder(store_, run_, 64, kNever);
  for (int64_t s = 1; s <= 10; ++s) recorder.on_step(step_event(s));
  EvalEvent e;
  e.epoch = 1;
  e.step = 10;
  e.split = "test";
  e.t2i = result("t2i", 25.0);
  e.i2t = result("i2t", 30.0);
  recorder.on_eval(e);
  EXPECT_EQ(recorder.buffered_rows(), 0u);
  EXPECT_EQ(stored_steps(), 10u);
  const auto evals = store_.epoch_evals(run_);
  ASSERT_EQ(evals.size(), 4u);
  EXPECT_EQ(evals[0].direction, "i2t");
  EXPECT_EQ(evals[0].recall, 30.0);
  EXPECT_EQ(evals[2].direction, "t2i");
  EXPECT_EQ(evals[2].step, 10);
  const auto ranks = store_.query_ranks(run_, 1, "test", "t2i");
  ASSERT_EQ(ranks.size(), 2u);
  EXPECT_EQ(ranks[1].rank, 4);
  EXPECT_EQ(ranks[1].topk, (std::vector<int64_t>{3, 1}));
}

TEST_F(RunRecorderTest, PendingStepsAreWrittenBeforeACheckpoint) {
  RunRecorder recorder(store_, run_, 64, kNever);
  for (int64_t s = 1; s <= 5; ++s) recorder.on_step(step_event(s));
  const int64_t before = now_ms();
  recorder.on_checkpoint(CheckpointEvent{1, 5, "/runs/1/epoch1.pt", 27.5});
  EXPECT_EQ(stored_steps(), 5u);
  const auto ckpts = store_.checkpoints(run_);
  ASSERT_EQ(ckpts.size(), 1u);
  EXPECT_EQ(ckpts[0].epoch, 1);
  EXPECT_EQ(ckpts[0].step, 5);
  EXPECT_EQ(ckpts[0].path, "/runs/1/epoch1.pt");
  EXPECT_EQ(ckpts[0].mean_r1, 27.5);
  EXPECT_GE(ckpts[0].created_at_ms, before);
}

TEST_F(RunRecorderTest, StatusIsWrittenAfterPendingStepsAndEndingStatusesSetTheFinishTime) {
  RunRecorder recorder(store_, run_, 64, kNever);
  recorder.on_step(step_event(1));
  recorder.on_status(StatusEvent{"running", "epoch 1"});
  EXPECT_EQ(stored_steps(), 1u);
  EXPECT_EQ(store_.find_run(run_)->status, RunStatus::Running);
  EXPECT_EQ(store_.find_run(run_)->status_message, "epoch 1");
  EXPECT_EQ(store_.find_run(run_)->finished_at_ms, 0);

  const int64_t before = now_ms();
  recorder.on_step(step_event(2));
  recorder.on_status(StatusEvent{"stopped", "stopped by the user"});
  EXPECT_EQ(stored_steps(), 2u);
  const auto run = store_.find_run(run_);
  EXPECT_EQ(run->status, RunStatus::Stopped);
  EXPECT_EQ(run->status_message, "stopped by the user");
  EXPECT_GE(run->finished_at_ms, before);

  EXPECT_THROW(recorder.on_status(StatusEvent{"exploded", ""}), StoreError);
  EXPECT_EQ(store_.find_run(run_)->status, RunStatus::Stopped);
}

TEST_F(RunRecorderTest, FailedAndFinishedAlsoSetTheFinishTime) {
  for (const char* status : {"failed", "finished"}) {
    store_.set_finished(run_, 0);
    RunRecorder recorder(store_, run_, 64, kNever);
    recorder.on_status(StatusEvent{status, ""});
    EXPECT_GT(store_.find_run(run_)->finished_at_ms, 0) << status;
    EXPECT_EQ(to_string(store_.find_run(run_)->status), status);
  }
}

TEST_F(RunRecorderTest, ARefusedBatchIsDroppedNotRetriedForever) {
  RunRecorder recorder(store_, run_, 64, kNever);
  store_.append_step_metrics(run_, {StepMetricRow{3, 1, 0, 0, 0, 0, 0, 0}});
  for (int64_t s = 1; s <= 4; ++s) recorder.on_step(step_event(s));  // step 3 clashes
  EXPECT_THROW(recorder.flush(), StoreError);
  EXPECT_EQ(recorder.buffered_rows(), 0u);
  recorder.on_step(step_event(5));
  recorder.flush();
  EXPECT_EQ(stored_steps(), 2u);  // step 3 from before + step 5
}

}  // namespace
}  // namespace hnclip
