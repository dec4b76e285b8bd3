// TrainingController: a real tiny run on the built-in benchmark, driven from the GUI thread —
// progress arrives as queued signals, pause holds the steps, stop ends the run, and the store
// says `stopped`. A data-parallel run of two processes on this machine (the worker is rank 0 and
// starts rank 1 as the hnclip program): it trains, its step events carry both ranks' pace, it
// stops within seconds on both ranks, logs each rank's throughput, and its record says world size
// 2 and Gloo.
#include <filesystem>

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QtTest>

#include "store/run_store.h"
#include "support/test_dirs.h"
#include "widgets/train/training_controller.h"

using hnclip::gui::TrainingController;

class TestTrainingController : public QObject {
  Q_OBJECT
 private slots:
  void start_pause_stop_leaves_a_stopped_run();
  void a_bad_config_fails_without_creating_a_run();
  void a_two_process_run_trains_stops_and_reports_both_ranks();
  void a_two_process_run_without_the_program_fails_naming_it();
};

namespace {

hnclip::TrainConfig tiny_config() {
  hnclip::TrainConfig c;
  c.benchmark = "synthetic";
  c.benchmark_size = hnclip::BenchmarkSize::kSmall;
  c.init = "pretrained";
  c.epochs = 50;  // far more than the test lets it run: it must be stopped
  c.batch_size = 16;
  c.loss_gamma = 0.5;
  c.probe_every = 2;
  c.device = hnclip::DeviceSpec{hnclip::DeviceKind::kCpu};
  c.threads = 1;
  c.eval_at_start = false;
  c.name = "controller test";
  return c;
}

// tiny_config() in a database and cache of `dir`.
hnclip::gui::TrainingRequest tiny_request(const hnclip::test::ScratchDir& dir) {
  hnclip::gui::TrainingRequest r;
  r.config = tiny_config();
  r.database = QString::fromStdString((dir / "runs.db").string());
  r.cache_dir = QString::fromStdString((dir / "cache").string());
  return r;
}

// Waits (processing events) until `done` holds or the timeout passes.
template <typename F>
bool wait_until(F done, int timeout_ms) {
  QElapsedTimer t;
  t.start();
  while (!done()) {
    if (t.elapsed() > timeout_ms) return false;
    QTest::qWait(10);
  }
  return true;
}

}  // namespace

void TestTrainingController::start_pause_stop_leaves_a_stopped_run() {
  hnclip::test::ScratchDir dir;
  TrainingController controller;
  QSignalSpy steps(&controller, &TrainingController::step);
  QSignalSpy created(&controller, &TrainingController::runCreated);
  QSignalSpy finished(&controller, &TrainingController::finished);
  QSignalSpy failed(&controller, &TrainingController::failed);
  const QThread* gui_thread = QThread::currentThread();
  bool every_step_on_gui_thread = true;
  connect(&controller, &TrainingController::step, this,
          [&] { every_step_on_gui_thread &= QThread::currentThread() == gui_thread; });

  hnclip::gui::TrainingRequest request = tiny_request(dir);
  QVERIFY(controller.start(request));
  QVERIFY(!controller.start(request));  // one run at a time
  QCOMPARE(controller.state(), TrainingController::State::Preparing);

  QVERIFY2(wait_until([&] { return steps.count() >= 3 || !failed.isEmpty(); }, 300000),
           "no progress from the worker");
  QVERIFY2(failed.isEmpty(),
           qPrintable(failed.isEmpty() ? QString() : failed.first().first().toString()));
  QCOMPARE(created.count(), 1);
  QVERIFY(every_step_on_gui_thread);
  const qint64 run_id = created.first().first().toLongLong();
  QCOMPARE(controller.runId(), run_id);
  const auto first = steps.last().first().value<hnclip::StepEvent>();
  QVERIFY(first.step >= 3 && first.total_steps > first.step);

  // Pause: at most the step in flight arrives, then nothing.
  controller.setPaused(true);
  QCOMPARE(controller.state(), TrainingController::State::Paused);
  QTest::qWait(1500);
  const int while_paused = steps.count();
  QTest::qWait(1000);
  QCOMPARE(steps.count(), while_paused);
  controller.setPaused(false);
  QVERIFY(wait_until([&] { return steps.count() > while_paused; }, 60000));

  QElapsedTimer stop_timer;
  stop_timer.start();
  controller.stop();
  QCOMPARE(controller.state(), TrainingController::State::Stopping);
  QVERIFY(wait_until([&] { return !finished.isEmpty() || !failed.isEmpty(); }, 60000));
  qInfo("stop -> finished signal: %lld ms", static_cast<long long>(stop_timer.elapsed()));
  QVERIFY(failed.isEmpty());
  QCOMPARE(controller.state(), TrainingController::State::Idle);
  const auto result = finished.first().first().value<hnclip::TrainResult>();
  QCOMPARE(QString::fromStdString(result.status), QStringLiteral("stopped"));

  hnclip::RunStore store((dir / "runs.db").string());
  const auto run = store.find_run(run_id);
  QVERIFY(run.has_value());
  QCOMPARE(run->status, hnclip::RunStatus::Stopped);
  QCOMPARE(static_cast<int>(store.step_metrics(run_id).size()), steps.count());

  // Resume (what the run list's Resume does): the same run id continues from its last checkpoint.
  // It was stopped in epoch 1, before any checkpoint, so it starts again at step 1 — and the
  // stored curve is cut back so the steps are not doubled.
  steps.clear();
  created.clear();
  finished.clear();
  hnclip::gui::TrainingRequest resume;
  resume.resume_run_id = run_id;
  resume.database = request.database;
  resume.cache_dir = request.cache_dir;
  QVERIFY(controller.start(resume));
  QVERIFY(wait_until([&] { return steps.count() >= 2 || !failed.isEmpty(); }, 300000));
  QVERIFY(failed.isEmpty());
  QCOMPARE(created.count(), 1);
  QCOMPARE(created.first().first().toLongLong(), run_id);
  QCOMPARE(steps.first().first().value<hnclip::StepEvent>().step, int64_t{1});
  controller.stop();
  QVERIFY(wait_until([&] { return !finished.isEmpty(); }, 60000));
  hnclip::RunStore after((dir / "runs.db").string());
  QCOMPARE(after.find_run(run_id)->status, hnclip::RunStatus::Stopped);
  QCOMPARE(static_cast<int>(after.step_metrics(run_id).size()), steps.count());
  QCOMPARE(static_cast<int>(after.list_runs().size()), 1);
}

void TestTrainingController::a_bad_config_fails_without_creating_a_run() {
  hnclip::test::ScratchDir dir;
  TrainingController controller;
  QSignalSpy failed(&controller, &TrainingController::failed);
  QSignalSpy created(&controller, &TrainingController::runCreated);
  hnclip::gui::TrainingRequest request = tiny_request(dir);
  request.config.gbar_snapshots = -1;  // an unknown --gbar word cannot be held by the enum
  QVERIFY(controller.start(request));
  QVERIFY(wait_until([&] { return !failed.isEmpty(); }, 60000));
  QVERIFY2(failed.first().first().toString().contains(QStringLiteral("gbar")),
           qPrintable(failed.first().first().toString()));
  QCOMPARE(created.count(), 0);
  QCOMPARE(controller.state(), TrainingController::State::Idle);
  hnclip::RunStore store((dir / "runs.db").string());
  QVERIFY(store.list_runs().empty());
}

void TestTrainingController::a_two_process_run_trains_stops_and_reports_both_ranks() {
  hnclip::test::ScratchDir dir;
  TrainingController controller;
  QSignalSpy steps(&controller, &TrainingController::step);
  QSignalSpy created(&controller, &TrainingController::runCreated);
  QSignalSpy finished(&controller, &TrainingController::finished);
  QSignalSpy failed(&controller, &TrainingController::failed);
  QStringList log;
  connect(&controller, &TrainingController::log, this, [&](const QString& l) { log << l; });
  hnclip::gui::TrainingRequest request = tiny_request(dir);
  request.config.world_size = 2;
  request.rank_program = QStringLiteral(HNCLIP_CLI_PATH);
  QVERIFY(controller.start(request));
  QVERIFY2(wait_until([&] { return steps.count() >= 3 || !failed.isEmpty(); }, 300000),
           "no progress from the worker");
  QVERIFY2(failed.isEmpty(),
           qPrintable(failed.isEmpty() ? QString() : failed.first().first().toString()));
  // Steps of the global batch: 16 images each.
  const auto e = steps.last().first().value<hnclip::StepEvent>();
  QVERIFY(e.step >= 3);
  // Every rank's pace arrives live with rank 0's steps (after an epoch's first step).
  QCOMPARE(static_cast<int>(e.ranks.size()), 2);
  for (int r = 0; r < 2; ++r) {
    QCOMPARE(e.ranks[r].rank, r);
    QVERIFY2(e.ranks[r].images_per_second > 0, qPrintable(QString::number(e.ranks[r].images_per_second)));
    QVERIFY(e.ranks[r].collective_fraction >= 0 && e.ranks[r].collective_fraction < 1);
  }
  QElapsedTimer stop_timer;
  stop_timer.start();
  controller.stop();
  QVERIFY(wait_until([&] { return !finished.isEmpty() || !failed.isEmpty(); }, 60000));
  QVERIFY2(failed.isEmpty(),
           qPrintable(failed.isEmpty() ? QString() : failed.first().first().toString()));
  qInfo("two processes: stop -> finished signal %lld ms", static_cast<long long>(stop_timer.elapsed()));
  const auto result = finished.first().first().value<hnclip::TrainResult>();
  QCOMPARE(QString::fromStdString(result.status), QStringLiteral("stopped"));
  QCOMPARE(result.images_seen, result.steps * 16);
  const QString joined = log.join(QLatin1Char('\n'));
  QVERIFY2(joined.contains(QStringLiteral("2 processes (gloo), global batch 16, 8-8 rows per rank")),
           qPrintable(joined));
  QVERIFY2(joined.contains(QStringLiteral("rank 0: stopped")), qPrintable(joined));
  // Rank 1 stopped at the same step, agreed with rank 0, and exited cleanly (no "(exit N)").
  const QString rank1 = QStringLiteral("rank 1: stopped, %1 steps").arg(result.steps);
  QVERIFY2(joined.contains(rank1) && !joined.contains(QStringLiteral("(exit")), qPrintable(joined));

  hnclip::RunStore store((dir / "runs.db").string());
  const auto run = store.find_run(created.first().first().toLongLong());
  QVERIFY(run.has_value());
  QCOMPARE(run->status, hnclip::RunStatus::Stopped);
  const auto config = hnclip::parse_train_config(run->config_json);
  QCOMPARE(config.world_size, 2);
  QCOMPARE(QString::fromStdString(config.dist_backend), QStringLiteral("gloo"));
  QCOMPARE(static_cast<int>(store.list_runs().size()), 1);
}

void TestTrainingController::a_two_process_run_without_the_program_fails_naming_it() {
  hnclip::test::ScratchDir dir;
  TrainingController controller;
  QSignalSpy failed(&controller, &TrainingController::failed);
  QSignalSpy created(&controller, &TrainingController::runCreated);
  hnclip::gui::TrainingRequest request = tiny_request(dir);
  request.config.world_size = 2;
  request.rank_program = QString::fromStdString((dir / "no-such-hnclip").string());
  QVERIFY(controller.start(request));
  QVERIFY(wait_until([&] { return !failed.isEmpty(); }, 60000));
  QVERIFY2(failed.first().first().toString().contains(QStringLiteral("no-such-hnclip")),
           qPrintable(failed.first().first().toString()));
  QCOMPARE(created.count(), 0);
  QVERIFY(!std::filesystem::exists(dir / "runs.db") ||
          hnclip::RunStore((dir / "runs.db").string()).list_runs().empty());
}

QTEST_MAIN(TestTrainingController)
#include "test_training_controller.moc"
