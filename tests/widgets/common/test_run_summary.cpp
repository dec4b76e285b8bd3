// load_run_summaries: a run left `running` by a process that no longer exists is reported as
// `interrupted` (and stored so), which the run list offers to resume; a live process's run is not.
#include <sys/wait.h>
#include <unistd.h>

#include <QtTest>

#include "store/host_process.h"
#include "store/run_store.h"
#include "support/test_dirs.h"
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
};

QTEST_MAIN(TestRunSummary)
#include "test_run_summary.moc"
