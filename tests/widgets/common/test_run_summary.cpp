// load_run_summaries: a run left `running` by a process that no longer exists is reported as
// `interrupted` (and stored so), which the run list offers to resume; a live process's run is not.
// make_run_summary: the Ḡ mode a run trained with.
#include <sys/wait.h>
#include <unistd.h>

#include <QtTest>

#include <nlohmann/json.hpp>

#include "store/host_process.h"
#include "store/run_store.h"
#include "support/test_dirs.h"
#include "train/train_config.h"
#include "widgets/common/run_summary.h"

class TestRunSummary : public QObject {
  Q_OBJECT
 private slots:
  void dead_running_runs_become_interrupted() {
    hnclip::test::ScratchDir dir;
    const auto db = (dir / "runs.db").string();
    const pid_t child = fork();
    if (child == 0) _exit(0);
    waitpid(child, nullptr, 0);  // its pid is now free: the "killed workbench"
    int64_t dead = 0, alive = 0;
    {
      hnclip::RunStore store(db);
      hnclip::RunRecord r;
      r.name = "killed";
      r.status = hnclip::RunStatus::Running;
      dead = store.create_run(r);
      store.set_started(dead, child, hnclip::current_host_name(), "cpu", 1);
      r.name = "alive";
      alive = store.create_run(r);
      store.set_started(alive, ::getpid(), hnclip::current_host_name(), "cpu", 1);
    }
    const auto runs = hnclip::gui::load_run_summaries(db);
    QCOMPARE(static_cast<int>(runs.size()), 2);
    for (const auto& s : runs) {
      if (s.record.id == dead) QCOMPARE(s.record.status, hnclip::RunStatus::Interrupted);
      if (s.record.id == alive) QCOMPARE(s.record.status, hnclip::RunStatus::Running);
    }
    hnclip::RunStore again(db);
    QCOMPARE(again.find_run(dead)->status, hnclip::RunStatus::Interrupted);
  }

  // Earlier versions recorded `--gamma 0 --gbar frozen` as frozen; such a run trained as plain
  // InfoNCE with the live encoder's Ḡ snapshots, and listed as "frozen" it read as a control it
  // is not. Shown as recomputed; with margins the stored mode is shown.
  void a_plain_infonce_run_stored_as_frozen_is_shown_recomputed() {
    hnclip::RunRecord r;
    r.id = 1;
    hnclip::TrainConfig c;
    c.loss_gbar = hnclip::GbarMode::kFrozen;
    r.config_json = nlohmann::json(c).dump();
    QCOMPARE(hnclip::gui::make_run_summary(r, {}, "runs.db").gbar, std::string("recomputed"));
    c.loss_gamma = 0.5;
    r.config_json = nlohmann::json(c).dump();
    QCOMPARE(hnclip::gui::make_run_summary(r, {}, "runs.db").gbar, std::string("frozen"));
  }
};

QTEST_MAIN(TestRunSummary)
#include "test_run_summary.moc"
