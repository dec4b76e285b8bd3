// ExperimentsPanel over a store another process fills (as the CLI would: the experiment is
// created with the core's create_experiment, its runs are written here with hand-made recall):
// the experiment appears, its grid fills in as runs finish without anything being clicked (the
// poll), an interrupted experiment offers Resume, grid rows announce their runs, "compare with
// its control" names the control's and the method's run of one seed, and the exports write the
// table (CSV, LaTeX) and the charts (PNG, SVG, PDF). Without an experiment the progress bar gives
// no count and the charts span their page.
#include <unistd.h>

#include <map>

#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QtTest>

#include "qcustomplot.h"
#include "store/host_process.h"
#include "support/test_dirs.h"
#include "widgets/experiments/experiment_grid_model.h"
#include "widgets/experiments/experiment_list_model.h"
#include "widgets/experiments/experiment_plots.h"
#include "widgets/experiments/experiments_panel.h"
#include "widgets/runs_fixture.h"

using hnclip::RunStatus;
using hnclip::RunStore;
using hnclip::gui::ExperimentGridModel;
using hnclip::gui::ExperimentsPanel;

namespace {

constexpr int kPollWaitMs = 10000;  // several of the panel's 2 s polls

// γ 0.5 at s 100 with its paired γ = 0, a learnt scale and s = 10: 4 cells × 2 seeds.
hnclip::ExperimentSpec spec() {
  hnclip::ExperimentSpec s;
  s.name = "panel";
  s.axes = {{"loss_gamma", {0.5}}};
  s.base = {{"logit_scale", 100.0}, {"fixed_scale", true}};
  s.seeds = {1, 2};
  s.control_scales = {10};
  s.selection = hnclip::kSelectLast;
  return s;
}

QString cell_text(const ExperimentsPanel& panel, int row, int column) {
  auto* model = const_cast<ExperimentsPanel&>(panel).gridModel();
  return model->index(row, column).data().toString();
}

}  // namespace

class TestExperimentsPanel : public QObject {
  Q_OBJECT
 private slots:
  void followsAnExperimentFilledByAnotherProcess();
  void withoutAnExperimentShowsNoCountAndFullWidthCharts();
};

// Before any experiment: the progress bar gives no count (it read "0/1 runs"), and the γ sweep
// and sample-efficiency charts, whose legends are still empty, span their page (an empty legend
// below the axis rect squeezed it to its minimum width).
void TestExperimentsPanel::withoutAnExperimentShowsNoCountAndFullWidthCharts() {
  hnclip::test::ScratchDir dir;
  ExperimentsPanel panel(QString::fromStdString((dir / "runs.db").string()),
                         QString::fromStdString((dir / "cache").string()));
  panel.resize(1200, 800);
  panel.show();
  QVERIFY(QTest::qWaitForWindowExposed(&panel));
  auto* progress = panel.findChild<QProgressBar*>(QStringLiteral("experimentProgress"));
  auto* progress_text = panel.findChild<QLabel*>(QStringLiteral("experimentProgressText"));
  QVERIFY(progress && progress_text);
  // The (empty) experiment list has been read: the bar shows what the panel made of it.
  QTRY_VERIFY_WITH_TIMEOUT(progress_text->text().startsWith(QStringLiteral("No experiment yet")),
                           kPollWaitMs);
  QCOMPARE(progress->text(), QString());
  auto* plots = panel.plots();
  QVERIFY(plots);
  for (const QString page : {QStringLiteral("gamma"), QStringLiteral("fractions")}) {
    QVERIFY(plots->showPage(page));
    auto* plot = panel.findChild<QCustomPlot*>(QStringLiteral("plot_") + page);
    QVERIFY(plot);
    QTRY_VERIFY(plot->isVisible() && plot->width() > 600);
    plot->replot();
    QVERIFY2(plot->axisRect()->width() > plot->width() / 2,
             qPrintable(QStringLiteral("%1: axis rect %2 px of a %3 px plot")
                            .arg(page)
                            .arg(plot->axisRect()->width())
                            .arg(plot->width())));
    QVERIFY(!plot->legend->visible());
  }
}

void TestExperimentsPanel::followsAnExperimentFilledByAnotherProcess() {
  hnclip::test::ScratchDir dir;
  const std::string db = (dir / "runs.db").string();
  const hnclip::JobPaths paths{db, (dir / "cache").string()};
  const auto created = hnclip::create_experiment(spec(), false, paths);
  QCOMPARE(created.runs, 8);

  ExperimentsPanel panel(QString::fromStdString(db), QString::fromStdString(paths.cache_dir));
  panel.resize(1200, 800);
  panel.show();
  QTRY_COMPARE_WITH_TIMEOUT(panel.listModel()->rowCount(), 1, kPollWaitMs);
  QTRY_COMPARE_WITH_TIMEOUT(panel.gridModel()->rowCount(), 4, kPollWaitMs);
  QCOMPARE(panel.selectedExperiment(), created.id);
  QCOMPARE(cell_text(panel, 0, ExperimentGridModel::kSeeds), QStringLiteral("0/2"));
  QCOMPARE(cell_text(panel, 0, ExperimentGridModel::kR1T2i), QString());

  // Another process trains the slots: the grid fills in on its own.
  RunStore store(db);
  const double r1[4][2] = {{80.0, 81.0}, {75.0, 75.5}, {77.0, 77.4}, {82.0, 82.2}};  // per cell
  std::map<std::pair<int, int64_t>, int64_t> runs;
  for (const auto& slot : store.experiment_slots(created.id)) {
    const double v = r1[slot.cell][slot.seed - 1];
    const int64_t run =
        hnclip::test::add_run(store, "run", RunStatus::Finished, slot.config_json, 1767571200000);
    hnclip::test::add_eval(store, run, 1, {v, 90, 95, 98, 99}, {v - 1, 90, 95, 98, 99});
    store.set_experiment_slot_run(created.id, slot.cell, slot.seed, run, false);
    runs[{slot.cell, slot.seed}] = run;
  }
  QTRY_COMPARE_WITH_TIMEOUT(cell_text(panel, 0, ExperimentGridModel::kSeeds), QStringLiteral("2/2"),
                            kPollWaitMs);
  int method = -1, paired = -1;
  for (int row = 0; row < 4; ++row) {
    const QString role = cell_text(panel, row, ExperimentGridModel::kRole);
    if (role == QLatin1String("method")) method = row;
    if (role.startsWith(QStringLiteral("control · paired"))) paired = row;
  }
  QVERIFY(method >= 0 && paired >= 0);
  QCOMPARE(cell_text(panel, method, ExperimentGridModel::kR1T2i), QStringLiteral("80.50 ± 0.71"));
  // Paired by seed: 5.0 and 5.5 points, t 21 on 1 degree of freedom, p 0.03: significant.
  QCOMPARE(cell_text(panel, method, ExperimentGridModel::kDeltaPairedT2i),
           QStringLiteral("+5.25 ± 0.35 *"));

  // Selecting the method's row announces its runs; "compare" names control and method, seed 1.
  QSignalSpy selected(&panel, &ExperimentsPanel::runsSelected);
  QSignalSpy compare(&panel, &ExperimentsPanel::compareRequested);
  panel.gridView()->selectRow(method);
  QCOMPARE(selected.count(), 1);
  const auto ids = selected.takeFirst().at(0).value<QList<int64_t>>();
  QCOMPARE(ids, (QList<int64_t>{runs[std::make_pair(method, int64_t{1})],
                                runs[std::make_pair(method, int64_t{2})]}));
  auto* compare_button = panel.findChild<QPushButton*>(QStringLiteral("compareWithControl"));
  QVERIFY(compare_button && compare_button->isEnabled());
  compare_button->click();
  QCOMPARE(compare.count(), 1);
  QCOMPARE(compare.at(0).at(0).toLongLong(), runs[std::make_pair(paired, int64_t{1})]);
  QCOMPARE(compare.at(0).at(1).toLongLong(), runs[std::make_pair(method, int64_t{1})]);

  // Never run (pending): Resume is offered; while a live process runs it, not.
  auto* resume = panel.findChild<QPushButton*>(QStringLiteral("resumeExperiment"));
  QVERIFY(resume && resume->isEnabled());
  store.set_experiment_running(created.id, getpid(), hnclip::current_host_name());
  QTRY_VERIFY_WITH_TIMEOUT(!resume->isEnabled(), kPollWaitMs);
  // Its process died: the list says so and Resume is offered again.
  store.set_experiment_status(created.id, hnclip::kExperimentInterrupted, "killed");
  QTRY_VERIFY_WITH_TIMEOUT(resume->isEnabled(), kPollWaitMs);
  QCOMPARE(panel.listModel()->index(0, hnclip::gui::ExperimentListModel::kStatus).data().toString(),
           QStringLiteral("interrupted"));
  QCOMPARE(
      panel.listModel()->index(0, hnclip::gui::ExperimentListModel::kProgress).data().toString(),
      QStringLiteral("8/8 runs"));

  // Exports: the core's tables, the charts by extension.
  QString error;
  const QString csv = QString::fromStdString((dir / "table.csv").string());
  QVERIFY2(panel.exportTable(csv, &error), qPrintable(error));
  QFile csv_file(csv);
  QVERIFY(csv_file.open(QIODevice::ReadOnly));
  QVERIFY(csv_file.readAll().startsWith("cell,label,role"));
  const QString tex = QString::fromStdString((dir / "table.tex").string());
  QVERIFY2(panel.exportTable(tex, &error), qPrintable(error));
  QFile tex_file(tex);
  QVERIFY(tex_file.open(QIODevice::ReadOnly));
  QVERIFY(tex_file.readAll().contains("\\toprule"));
  QVERIFY(!panel.exportTable(QString::fromStdString((dir / "table.txt").string()), &error));
  for (const char* ext : {"png", "svg", "pdf"}) {
    const QString path = QString::fromStdString((dir / (std::string("gamma.") + ext)).string());
    QVERIFY2(panel.plots()->exportPlot(QStringLiteral("gamma"), path, &error), qPrintable(error));
    QVERIFY(QFileInfo(path).size() > 0);
  }
}

QTEST_MAIN(TestExperimentsPanel)
#include "test_experiments_panel.moc"
