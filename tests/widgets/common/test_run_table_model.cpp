// RunTableModel over a hand-made store: QAbstractItemModelTester across refreshes, minimal
// updates (no reset, persistent indexes survive), typed sorting, displayed values.
#include <algorithm>
#include <cmath>

#include <QAbstractItemModelTester>
#include <QSortFilterProxyModel>
#include <QtTest>

#include "support/test_dirs.h"
#include "widgets/common/run_colors.h"
#include "widgets/common/run_table_model.h"
#include "widgets/runs_fixture.h"

using hnclip::RunStatus;
using hnclip::RunStore;
using hnclip::gui::load_run_summaries;
using hnclip::gui::RunTableModel;
using hnclip::test::add_eval;
using hnclip::test::add_run;
using hnclip::test::make_config_json;

namespace {
// 2026-01-05, 2025-10-03, 2024-02-01 (UTC): the short-date texts do not sort chronologically.
constexpr int64_t kJan2026 = 1767571200000;
constexpr int64_t kOct2025 = 1759449600000;
constexpr int64_t kFeb2024 = 1706745600000;

QList<int64_t> ids_in_order(const QAbstractItemModel& m) {
  QList<int64_t> ids;
  for (int r = 0; r < m.rowCount(); ++r)
    ids << m.index(r, 0).data(RunTableModel::RunIdRole).toLongLong();
  return ids;
}
}  // namespace

class TestRunTableModel : public QObject {
  Q_OBJECT
 private:
  std::unique_ptr<hnclip::test::ScratchDir> dir_;
  std::string db_;
  int64_t a_ = 0, b_ = 0, c_ = 0;

 private slots:
  void init() {
    dir_ = std::make_unique<hnclip::test::ScratchDir>();
    db_ = (*dir_ / "runs.db").string();
    RunStore store(db_);
    a_ = add_run(store, "gamma-10", RunStatus::Finished,
                 make_config_json("synthetic", 10, "recomputed", 4), kOct2025, "sweep");
    b_ = add_run(store, "gamma-2", RunStatus::Running, make_config_json("flickr8k", 2, "frozen", 8),
                 kJan2026);
    c_ = add_run(store, "gamma-0.5", RunStatus::Interrupted,
                 make_config_json("synthetic", 0.5, "recomputed", 6), kFeb2024);
    add_eval(store, a_, 1, {20, 40, 50, 60, 70}, {22, 41, 51, 61, 71});
    add_eval(store, a_, 2, {25, 45, 55, 65, 75}, {21, 42, 52, 62, 72});
    store.set_best_epoch(a_, 2);
  }
  void cleanup() { dir_.reset(); }

  // The Framework column names the framework and says when its global term has no margins;
  // sorting by it puts each framework's runs together (a framework sweep's Δ pairs side by side).
  void framework_column_groups_runs_by_framework() {
    RunStore store(db_);
    auto with = [](const std::string& framework, bool hn, double gamma) {
      return make_config_json("synthetic", gamma, "recomputed", 4,
                              "\"framework\": \"" + framework + "\", \"hn\": " +
                                  (hn ? "true" : "false"));
    };
    const int64_t own = add_run(store, "lc-own", RunStatus::Finished, with("longclip", false, 0),
                                kOct2025);
    const int64_t lhn = add_run(store, "lc-hn", RunStatus::Finished, with("longclip", true, 0.5),
                                kOct2025);
    const int64_t db = add_run(store, "db-hn", RunStatus::Finished, with("debias", true, 0.5),
                               kOct2025);
    RunTableModel model;
    model.setRuns(load_run_summaries(db_));
    const auto text = [&](int64_t id) {
      return model.index(model.rowOfRun(id), RunTableModel::ColFramework).data().toString();
    };
    QCOMPARE(text(own), QString("longclip (HN off)"));
    QCOMPARE(text(lhn), QString("longclip"));
    QCOMPARE(text(db), QString("debias"));
    QCOMPARE(text(a_), QString("plain"));  // a config without the key: the default framework
    QCOMPARE(model.headerData(RunTableModel::ColFramework, Qt::Horizontal).toString(),
             QString("Framework"));
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(RunTableModel::SortRole);
    proxy.sort(RunTableModel::ColFramework, Qt::AscendingOrder);
    QStringList order;
    for (int r = 0; r < proxy.rowCount(); ++r)
      order << proxy.index(r, RunTableModel::ColFramework).data().toString();
    QCOMPARE(order, (QStringList{"debias", "longclip", "longclip (HN off)", "plain", "plain",
                                 "plain"}));
  }

  void values_and_roles() {
    RunTableModel model;
    model.setRuns(load_run_summaries(db_));
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(ids_in_order(model), (QList<int64_t>{b_, a_, c_}));  // the store lists newest first
    const int ra = model.rowOfRun(a_);
    const auto cell = [&](int col, int role = Qt::DisplayRole) {
      return model.index(ra, col).data(role);
    };
    QCOMPARE(cell(RunTableModel::ColName).toString(), QString("gamma-10"));
    QCOMPARE(cell(RunTableModel::ColName, Qt::DecorationRole).value<QColor>(),
             hnclip::gui::run_color(a_));
    QCOMPARE(cell(RunTableModel::ColStatus).toString(), QString("finished"));
    QVERIFY(!cell(RunTableModel::ColStatus, Qt::DecorationRole).value<QIcon>().isNull());
    // The test set, with the defaults the config leaves out (size default, data seed 1).
    QCOMPARE(cell(RunTableModel::ColBenchmark).toString(),
             QString("synthetic default (seed 1) / test"));
    QCOMPARE(cell(RunTableModel::ColGamma).toString(), QString("10"));
    QCOMPARE(cell(RunTableModel::ColGbar).toString(), QString("recomputed"));
    QCOMPARE(cell(RunTableModel::ColEpochs).toString(), QString("4"));
    // Both at the best epoch (2, the higher mean), not each direction's own maximum (22 in 1).
    QCOMPARE(cell(RunTableModel::ColBestR1T2I).toString(), QString("25.00"));
    QCOMPARE(cell(RunTableModel::ColBestR1I2T).toString(), QString("21.00"));
    QCOMPARE(cell(RunTableModel::ColStartR1T2I).toString(), QString());  // epoch 0 not evaluated
    QCOMPARE(cell(RunTableModel::ColSolved).toString(), QString());      // no steps recorded
    QCOMPARE(cell(RunTableModel::ColDuration).toString(), QString("1 min 05 s"));
    QCOMPARE(cell(RunTableModel::ColTags).toString(), QString("sweep"));
    QCOMPARE(cell(RunTableModel::ColGamma, RunTableModel::SortRole).typeId(), QMetaType::Double);
    QCOMPARE(cell(RunTableModel::ColCreated, RunTableModel::SortRole).typeId(),
             QMetaType::QDateTime);
    QCOMPARE(model.run(a_)->report_epoch, 2);
    // No evaluation: empty cells, sorted below every real value.
    QCOMPARE(model.index(model.rowOfRun(c_), RunTableModel::ColBestR1T2I).data().toString(),
             QString());
    QCOMPARE(model.index(model.rowOfRun(c_), RunTableModel::ColBestR1T2I)
                 .data(RunTableModel::SortRole)
                 .toDouble(),
             -1.0);
  }

  // A run whose fine-tuning loses accuracy: the start (epoch 0) shows as its own columns and
  // never as the best; the solved column counts every stored step of the first and last epoch.
  void start_is_apart_from_best_and_solved_comes_from_every_step() {
    {
      RunStore store(db_);
      add_eval(store, c_, 0, {87.32, 95, 97, 98, 99}, {86, 94, 96, 97, 98});
      add_eval(store, c_, 1, {80, 90, 92, 93, 94}, {81, 90, 92, 93, 94});
      add_eval(store, c_, 2, {79, 89, 91, 92, 93}, {80, 89, 91, 92, 93});
      std::vector<hnclip::StepMetricRow> steps;
      for (int step = 1; step <= 8; ++step) {
        hnclip::StepMetricRow r;
        r.step = step;
        r.epoch = step <= 4 ? 1 : 2;
        // Epoch 1: one of four below 1e-3; epoch 2: three of four.
        r.loss_standard = (step == 1 || step >= 6) ? 5e-4 : 0.3;
        steps.push_back(r);
      }
      store.append_step_metrics(c_, steps);
    }
    RunTableModel model;
    model.setRuns(load_run_summaries(db_));
    const int rc = model.rowOfRun(c_);
    const auto cell = [&](int col, int role = Qt::DisplayRole) {
      return model.index(rc, col).data(role);
    };
    QCOMPARE(model.run(c_)->report_epoch, 1);
    QCOMPARE(cell(RunTableModel::ColStartR1T2I).toString(), QString("87.32"));
    QCOMPARE(cell(RunTableModel::ColStartR1I2T).toString(), QString("86.00"));
    QCOMPARE(cell(RunTableModel::ColBestR1T2I).toString(), QString("80.00"));
    QCOMPARE(cell(RunTableModel::ColBestR1I2T).toString(), QString("81.00"));
    QVERIFY(cell(RunTableModel::ColBestR1T2I, Qt::ToolTipRole).toString().contains("best epoch 1"));
    QCOMPARE(cell(RunTableModel::ColSolved).toString(), QString("25% / 75%"));
    QCOMPARE(cell(RunTableModel::ColSolved, RunTableModel::SortRole).toDouble(), 0.75);
    QVERIFY(
        model.headerData(RunTableModel::ColSolved, Qt::Horizontal).toString().contains("solved"));

    // Only the start evaluated (a run before its first epoch ends): no best at all.
    {
      RunStore store(db_);
      add_eval(store, b_, 0, {50, 60, 70, 80, 90}, {50, 60, 70, 80, 90});
    }
    model.setRuns(load_run_summaries(db_));
    QCOMPARE(model.run(b_)->report_epoch, -1);
    QCOMPARE(model.index(model.rowOfRun(b_), RunTableModel::ColBestR1T2I).data().toString(),
             QString());
    QCOMPARE(model.index(model.rowOfRun(b_), RunTableModel::ColStartR1T2I).data().toString(),
             QString("50.00"));
  }

  void tester_across_refreshes_without_reset() {
    RunTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(RunTableModel::SortRole);
    proxy.sort(RunTableModel::ColGamma);
    QAbstractItemModelTester proxy_tester(&proxy,
                                          QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setRuns(load_run_summaries(db_));
    const QPersistentModelIndex a_index = model.index(model.rowOfRun(a_), RunTableModel::ColName);

    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    int64_t d = 0;
    {
      RunStore store(db_);
      d = add_run(store, "new", RunStatus::Queued,
                  make_config_json("synthetic", 1, "recomputed", 2), kJan2026 + 5);
      store.delete_run(c_);
      store.rename_run(b_, "renamed");
    }
    model.setRuns(load_run_summaries(db_));
    QCOMPARE(ids_in_order(model), (QList<int64_t>{d, b_, a_}));
    QCOMPARE(resets.count(), 0);
    QCOMPARE(inserted.count(), 1);
    QCOMPARE(removed.count(), 1);
    QCOMPARE(changed.count(), 1);  // only the renamed run; a's row is untouched
    QCOMPARE(changed.at(0).at(0).value<QModelIndex>().row(), model.rowOfRun(b_));
    QVERIFY(a_index.isValid());
    QCOMPARE(a_index.data(RunTableModel::RunIdRole).toLongLong(), a_);
    QCOMPARE(model.index(model.rowOfRun(b_), 0).data().toString(), QString("renamed"));

    // The same data again: nothing to report.
    model.setRuns(load_run_summaries(db_));
    QCOMPARE(changed.count(), 1);
    QCOMPARE(inserted.count(), 1);

    // Survivors in a different order (not what the store does, but allowed): a reset, still valid.
    auto reversed = load_run_summaries(db_);
    std::reverse(reversed.begin(), reversed.end());
    model.setRuns(reversed);
    QCOMPARE(resets.count(), 1);
    QCOMPARE(ids_in_order(model), (QList<int64_t>{a_, b_, d}));

    model.setRuns({});
    QCOMPARE(model.rowCount(), 0);
    model.setRuns(load_run_summaries(db_));
    QCOMPARE(model.rowCount(), 3);
    model.refreshRunningDurations();
  }

  void sorts_gamma_as_number() {
    RunTableModel model;
    model.setRuns(load_run_summaries(db_));
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(RunTableModel::SortRole);
    proxy.sort(RunTableModel::ColGamma, Qt::AscendingOrder);
    QCOMPARE(ids_in_order(proxy),
             (QList<int64_t>{c_, b_, a_}));  // 0.5 < 2 < 10 (text: "0.5" < "10" < "2")
    proxy.sort(RunTableModel::ColGamma, Qt::DescendingOrder);
    QCOMPARE(ids_in_order(proxy), (QList<int64_t>{a_, b_, c_}));
  }

  void sorts_created_as_date() {
    RunTableModel model;
    model.setRuns(load_run_summaries(db_));
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(RunTableModel::SortRole);
    proxy.sort(RunTableModel::ColCreated, Qt::AscendingOrder);
    QCOMPARE(ids_in_order(proxy), (QList<int64_t>{c_, a_, b_}));  // 2024, 2025, 2026
    proxy.sort(RunTableModel::ColBestR1T2I, Qt::DescendingOrder);
    QCOMPARE(ids_in_order(proxy).first(), a_);
  }

  void unreadable_config_shows_question_mark() {
    int64_t bad = 0;
    {
      RunStore store(db_);
      bad = add_run(store, "broken", RunStatus::Failed, "{not json", kJan2026 + 10);
    }
    RunTableModel model;
    model.setRuns(load_run_summaries(db_));
    QCOMPARE(model.index(model.rowOfRun(bad), RunTableModel::ColGamma).data().toString(),
             QString("?"));
    QCOMPARE(model.index(model.rowOfRun(bad), RunTableModel::ColName).data().toString(),
             QString("broken"));
  }

  void duration_format() {
    QCOMPARE(hnclip::gui::format_duration_ms(-1), QString());
    QCOMPARE(hnclip::gui::format_duration_ms(42'400), QString("42 s"));
    QCOMPARE(hnclip::gui::format_duration_ms(185'000), QString("3 min 05 s"));
    QCOMPARE(hnclip::gui::format_duration_ms(3'720'000), QString("1 h 02 min"));
  }
};

QTEST_MAIN(TestRunTableModel)
#include "test_run_table_model.moc"
