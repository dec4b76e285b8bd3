// Tests of core/store/experiment_store.cpp (schema v7): an experiment, its cells and slots round
// trip; a slot links to a run; deleting the run empties the slot (the experiment trains it
// again), deleting the experiment keeps its runs; a dead experiment process is marked
// interrupted; a slot that does not exist is refused.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/host_process.h"
#include "store/run_store.h"
#include "support/test_dirs.h"

namespace hnclip {
namespace {

using test::ScratchDir;

class ExperimentStoreTest : public ::testing::Test {
 protected:
  ScratchDir dir;
  RunStore store{(dir / "runs.db").string()};

  int64_t add_run(const std::string& name) {
    RunRecord r;
    r.name = name;
    r.status = RunStatus::Finished;
    return store.create_run(r);
  }
  int64_t add_experiment(int64_t reused_run = 0) {
    ExperimentRecord e;
    e.name = "grid, \"quoted\"";
    e.spec_json = R"({"seeds":[1,2]})";
    return store.create_experiment(
        e, {{0, "HN γ 0.5 · s 100 fixed", "method", R"({"loss_gamma":0.5})"},
            {1, "InfoNCE · s 100 fixed", "paired", R"({"loss_gamma":0.0})"}},
        {{0, 1, R"({"seed":1})", 0, false},
         {0, 2, R"({"seed":2})", 0, false},
         {1, 1, R"({"seed":1})", reused_run, reused_run != 0},
         {1, 2, R"({"seed":2})", 0, false}});
  }
};

TEST_F(ExperimentStoreTest, RoundTrip) {
  EXPECT_GE(store.schema_version(), 7);
  const int64_t old_run = add_run("before");
  const int64_t id = add_experiment(old_run);
  const auto e = store.find_experiment(id);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->name, "grid, \"quoted\"");
  EXPECT_EQ(e->status, kExperimentPending);
  EXPECT_GT(e->created_at_ms, 0);
  const auto cells = store.experiment_cells(id);
  ASSERT_EQ(cells.size(), 2u);
  EXPECT_EQ(cells[0].label, "HN γ 0.5 · s 100 fixed");
  EXPECT_EQ(cells[1].role, "paired");
  const auto slots = store.experiment_slots(id);
  ASSERT_EQ(slots.size(), 4u);
  EXPECT_EQ(slots[2].run_id, old_run);
  EXPECT_TRUE(slots[2].reused);
  EXPECT_EQ(slots[3].run_id, 0);
  EXPECT_EQ(slots[1].config_json, R"({"seed":2})");
  EXPECT_EQ(store.list_experiments().size(), 1u);
  EXPECT_EQ(store.experiments_of_run(old_run), std::vector<int64_t>{id});
}

TEST_F(ExperimentStoreTest, SlotsLinkRunsAndDeletingARunEmptiesItsSlot) {
  const int64_t id = add_experiment();
  const int64_t run = add_run("cell 0 seed 2");
  store.set_experiment_slot_run(id, 0, 2, run, false);
  EXPECT_EQ(store.experiment_slots(id)[1].run_id, run);
  EXPECT_THROW(store.set_experiment_slot_run(id, 0, 9, run, false), StoreError);
  ASSERT_TRUE(store.delete_run(run));
  EXPECT_EQ(store.experiment_slots(id)[1].run_id, 0);
  // Deleting the experiment keeps the runs that filled it.
  const int64_t kept = add_run("kept");
  store.set_experiment_slot_run(id, 1, 1, kept, false);
  ASSERT_TRUE(store.delete_experiment(id));
  EXPECT_FALSE(store.find_experiment(id));
  EXPECT_TRUE(store.find_run(kept));
  EXPECT_TRUE(store.experiment_slots(id).empty());
  EXPECT_FALSE(store.delete_experiment(id));
}

TEST_F(ExperimentStoreTest, StatusAndDeadProcesses) {
  const int64_t id = add_experiment();
  // A pid that certainly does not exist any more: a child that has exited and been reaped.
  const pid_t child = fork();
  if (child == 0) _exit(0);
  waitpid(child, nullptr, 0);
  store.set_experiment_running(id, child, current_host_name());
  EXPECT_EQ(store.find_experiment(id)->status, kExperimentRunning);
  EXPECT_EQ(store.mark_dead_experiments_interrupted(), 1);
  const auto e = store.find_experiment(id);
  EXPECT_EQ(e->status, kExperimentInterrupted);
  EXPECT_NE(e->status_message.find(std::to_string(child)), std::string::npos);
  // A live process (this one) is left alone.
  store.set_experiment_running(id, getpid(), current_host_name());
  EXPECT_EQ(store.mark_dead_experiments_interrupted(), 0);
  store.set_experiment_finished(id, kExperimentFinished, "", 1234);
  EXPECT_EQ(store.find_experiment(id)->finished_at_ms, 1234);
  EXPECT_THROW(store.set_experiment_status(id + 1, kExperimentFinished, ""), StoreError);
}

}  // namespace
}  // namespace hnclip
