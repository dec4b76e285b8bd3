// ExperimentGridModel over hand-made results (the README's γ = 0.5 row and its three controls):
// QAbstractItemModelTester across updates; the numbers as shown (mean ± std, Δ with its
// significance mark); controls marked; colours by the sign of the difference; best bold and
// second underlined; the runs a row stands for and the pair "compare with its control" opens;
// an update of the same experiment keeps the selection (no reset).
#include <cmath>
#include <limits>

#include <QAbstractItemModelTester>
#include <QBrush>
#include <QFont>
#include <QItemSelectionModel>
#include <QSignalSpy>
#include <QtTest>

#include "experiment_results_fixture.h"
#include "widgets/experiments/experiment_grid_model.h"

using hnclip::gui::ExperimentGridModel;
using hnclip::test::FixtureCell;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

hnclip::ExperimentResults results(int64_t experiment_id, double first_seed_t2i = 87.0) {
  const std::vector<FixtureCell> cells{
      {"HN γ 0.5 · s 100 fixed",
       hnclip::kRoleMethod,
       {{"loss_gamma", 0.5}},
       {first_seed_t2i, 87.5, 86.7},
       {86.6, 86.7, 86.5},
       {11, 12, 13}},
      {"InfoNCE · s 100 fixed",
       hnclip::kRolePaired,
       {{"loss_gamma", 0.0}},
       {83.3, 83.2, 83.3},
       {82.2, 82.7, 81.7},
       {21, 22, 23}},
      {"InfoNCE · s learnt",
       hnclip::kRoleLearnableScale,
       {{"loss_gamma", 0.0}},
       {85.0, 84.8, 85.1},
       {83.9, 83.8, 83.9},
       {31, 32, 33}},
      {"InfoNCE · s 10 fixed",
       hnclip::kRoleFixedScale,
       {{"loss_gamma", 0.0}},
       {88.3, 88.6, 88.0},
       {87.8, 87.9, 87.7},
       {41, 42, 43}},
  };
  auto snap = hnclip::test::make_snapshot(experiment_id, cells);
  hnclip::test::add_comparison(snap.results, 0, 1, "paired");
  hnclip::test::add_comparison(snap.results, 0, 2, "learnt scale");
  hnclip::test::add_comparison(snap.results, 0, 3, "strongest");
  return snap.results;
}

QString text(const ExperimentGridModel& m, int row, int column) {
  return m.index(row, column).data().toString();
}

bool reddish(const QVariant& v) {
  const QColor c = v.value<QBrush>().color();
  return c.alpha() > 0 && c.red() > c.green();
}

bool greenish(const QVariant& v) {
  const QColor c = v.value<QBrush>().color();
  return c.alpha() > 0 && c.green() > c.red();
}

}  // namespace

class TestExperimentGridModel : public QObject {
  Q_OBJECT
 private slots:
  void modelTesterAcrossUpdates();
  void showsMeansStdsAndDifferences();
  void marksControlsColoursAndBest();
  void runsOfARowAndItsControl();
  void updateOfTheSameExperimentKeepsTheSelection();
  void transferTargetsAddTwoColumnsEach();
  void differenceThatShowsAsZeroHasNoColourOrMinus();
  void aDifferenceOfOneSeedIsMarkedAndNotColoured();
  void cellsOnDifferentTestSetsAreRankedApart();
};

void TestExperimentGridModel::modelTesterAcrossUpdates() {
  ExperimentGridModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
  model.setResults(results(1));
  QCOMPARE(model.rowCount(), 4);
  QCOMPARE(model.columnCount(), int(ExperimentGridModel::kColumnCount));
  model.setResults(results(1, 86.0));  // same experiment: in place
  model.setResults(results(2));        // another one: reset
  auto fewer = results(3);
  fewer.cells.pop_back();
  model.setResults(fewer);
  QCOMPARE(model.rowCount(), 3);
  // A transfer target appearing (experiment eval) changes the columns: a reset, not an update.
  auto with_transfer = results(3);
  with_transfer.cells.pop_back();
  hnclip::TransferColumn t;
  t.benchmark = "synthetic:size=default:seed=1";
  t.split = "shifted";
  t.images = 1000;
  for (size_t c = 0; c < with_transfer.cells.size(); ++c) {
    t.r1.push_back({hnclip::summarize_seeds({60, 62}), hnclip::summarize_seeds({50, 51})});
    t.evaluated.push_back(2);
  }
  with_transfer.transfers.push_back(t);
  model.setResults(with_transfer);
  QCOMPARE(model.columnCount(), int(ExperimentGridModel::kColumnCount) + 2);
  model.clear();
  QCOMPARE(model.rowCount(), 0);
}

void TestExperimentGridModel::transferTargetsAddTwoColumnsEach() {
  ExperimentGridModel model;
  auto r = results(1);
  hnclip::TransferColumn t;
  t.benchmark = "synthetic:size=default:seed=1";
  t.split = "shifted";
  t.images = 1064;
  for (size_t c = 0; c < r.cells.size(); ++c) {
    t.r1.push_back({hnclip::summarize_seeds({60.0 + static_cast<double>(c), 62.0 + static_cast<double>(c)}),
                    hnclip::summarize_seeds({50, 51})});
    t.evaluated.push_back(2);
  }
  r.transfers.push_back(t);
  model.setResults(r);
  const int first = ExperimentGridModel::kColumnCount;
  QCOMPARE(model.columnCount(), first + 2);
  QCOMPARE(model.headerData(first, Qt::Horizontal).toString(), QStringLiteral("shifted t→i"));
  QCOMPARE(model.headerData(first + 1, Qt::Horizontal).toString(), QStringLiteral("shifted i→t"));
  QVERIFY(model.headerData(first, Qt::Horizontal, Qt::ToolTipRole).toString().contains("1064"));
  QVERIFY(!model.headerData(first, Qt::Horizontal, Qt::ToolTipRole)
               .toString()
               .contains("training images"));
  // A target naming some of the runs' training images says how many.
  r.transfers[0].training_images = 12;
  model.setResults(r);
  QVERIFY(model.headerData(first, Qt::Horizontal, Qt::ToolTipRole)
              .toString()
              .contains("12 of these images are training images of its runs"));
  QCOMPARE(text(model, 1, first), QStringLiteral("62.00 ± 1.41"));
  QCOMPARE(text(model, 1, first + 1), QStringLiteral("50.50 ± 0.71"));
  QCOMPARE(model.index(1, first).data(ExperimentGridModel::kValueRole).toDouble(), 62.0);
  QCOMPARE(model.index(0, first + 2).data().toString(), QString());  // beyond the last column
}

void TestExperimentGridModel::showsMeansStdsAndDifferences() {
  ExperimentGridModel model;
  model.setResults(results(1));
  QCOMPARE(text(model, 0, ExperimentGridModel::kConfiguration),
           QStringLiteral("HN γ 0.5 · s 100 fixed"));
  QCOMPARE(text(model, 0, ExperimentGridModel::kSeeds), QStringLiteral("3/3"));
  // mean 87.0667, sample std 0.4041
  QCOMPARE(text(model, 0, ExperimentGridModel::kR1T2i), QStringLiteral("87.07 ± 0.40"));
  // paired differences 3.7, 4.3, 3.4: mean 3.80, std 0.458, t 14.4 (p < 0.05)
  QCOMPARE(text(model, 0, ExperimentGridModel::kDeltaPairedT2i), QStringLiteral("+3.80 ± 0.46 *"));
  // against the strongest (s 10): −1.3, −1.1, −1.3: mean −1.23, std 0.115, t −18.5
  QCOMPARE(text(model, 0, ExperimentGridModel::kDeltaStrongestT2i),
           QStringLiteral("-1.23 ± 0.12 *"));
  // i2t against the learnt scale: 2.7, 2.9, 2.6 — also significant
  QVERIFY(text(model, 0, ExperimentGridModel::kDeltaLearntI2t).startsWith(QStringLiteral("+2.73")));
  // Controls have no differences of their own.
  QCOMPARE(text(model, 1, ExperimentGridModel::kDeltaPairedT2i), QString());
  // One seed: no std, no test, and it says so.
  hnclip::PairedComparison one;
  one.n = 1;
  one.mean_diff = 0.5;
  QCOMPARE(ExperimentGridModel::deltaText(one), QStringLiteral("+0.50 (1 seed)"));
  QCOMPARE(ExperimentGridModel::meanStdText(hnclip::summarize_seeds({kNaN, kNaN})), QString());
  // A difference that is not significant carries no mark.
  const auto noisy = hnclip::compare_paired({1.0, -0.5, 0.7}, {0.0, 0.0, 0.0});
  QVERIFY(!ExperimentGridModel::deltaText(noisy).contains(QLatin1Char('*')));
  // Nor does one with no spread (the same difference at every seed: no t-test), however sure it
  // would look as t = inf.
  const auto flat = hnclip::compare_paired({80.1, 81.1, 79.1}, {80.0, 81.0, 79.0});
  QCOMPARE(ExperimentGridModel::deltaText(flat), QStringLiteral("+0.10 ± 0.00"));
  // The value behind a cell.
  QVERIFY(std::abs(model.index(0, ExperimentGridModel::kDeltaPairedT2i)
                       .data(ExperimentGridModel::kValueRole)
                       .toDouble() -
                   3.8) < 1e-9);
}

void TestExperimentGridModel::marksControlsColoursAndBest() {
  ExperimentGridModel model;
  model.setResults(results(1));
  QVERIFY(!model.index(0, 0).data(ExperimentGridModel::kIsControlRole).toBool());
  for (int row = 1; row < 4; ++row) {
    QVERIFY(model.index(row, 0).data(ExperimentGridModel::kIsControlRole).toBool());
    QVERIFY(text(model, row, ExperimentGridModel::kRole).startsWith(QStringLiteral("control")));
    QVERIFY(
        model.index(row, ExperimentGridModel::kRole).data(Qt::FontRole).value<QFont>().italic());
    QVERIFY(model.index(row, ExperimentGridModel::kRole).data(Qt::BackgroundRole).isValid());
  }
  QCOMPARE(text(model, 0, ExperimentGridModel::kRole), QStringLiteral("method"));
  // Above the paired control: green; below the strongest: red — and the method's R@1 is coloured
  // by the strongest control.
  QVERIFY(greenish(model.index(0, ExperimentGridModel::kDeltaPairedT2i).data(Qt::BackgroundRole)));
  QVERIFY(
      reddish(model.index(0, ExperimentGridModel::kDeltaStrongestT2i).data(Qt::BackgroundRole)));
  QVERIFY(reddish(model.index(0, ExperimentGridModel::kR1T2i).data(Qt::BackgroundRole)));
  // Best t→i mean: s 10 (88.30) bold; second: the method (87.07) underlined; others neither.
  const auto f = [&](int row) {
    return model.index(row, ExperimentGridModel::kR1T2i).data(Qt::FontRole).value<QFont>();
  };
  QVERIFY(f(3).bold());
  QVERIFY(!f(3).underline());
  QVERIFY(f(0).underline());
  QVERIFY(!f(0).bold());
  QVERIFY(!model.index(1, ExperimentGridModel::kR1T2i).data(Qt::FontRole).isValid());
}

// Recall is 100·hits/N: a method at 120 and 124 of 142 hits over two seeds against a control at
// 122 twice differs by a residue of -7e-15, not by anything. The cell reads +0.00 (not -0.00) and
// is neither green nor red, nor is the method's own R@1; a real difference is still coloured.
void TestExperimentGridModel::differenceThatShowsAsZeroHasNoColourOrMinus() {
  const auto hits = [](int h) { return 100.0 * h / 142; };
  const std::vector<FixtureCell> cells{
      {"HN γ 0.5 · s learnt",
       hnclip::kRoleMethod,
       {{"loss_gamma", 0.5}},
       {hits(120), hits(124)},
       {hits(120), hits(121)},
       {1, 2}},
      {"InfoNCE · s learnt",
       hnclip::kRolePaired,
       {{"loss_gamma", 0.0}},
       {hits(122), hits(122)},
       {hits(122), hits(122)},
       {3, 4}},
  };
  auto snap = hnclip::test::make_snapshot(1, cells);
  hnclip::test::add_comparison(snap.results, 0, 1, "paired");
  QVERIFY2(snap.results.comparisons[0].r1[0].mean_diff < 0, "the residue is meant to be negative");
  ExperimentGridModel model;
  model.setResults(snap.results);
  QCOMPARE(text(model, 0, ExperimentGridModel::kDeltaPairedT2i), QStringLiteral("+0.00 ± 1.99"));
  QVERIFY(!model.index(0, ExperimentGridModel::kDeltaPairedT2i).data(Qt::BackgroundRole).isValid());
  QVERIFY(!model.index(0, ExperimentGridModel::kR1T2i).data(Qt::BackgroundRole).isValid());
  // i→t: 1.5 hits below on average, -1.06 points: red.
  QCOMPARE(text(model, 0, ExperimentGridModel::kDeltaPairedI2t), QStringLiteral("-1.06 ± 0.50"));
  QVERIFY(reddish(model.index(0, ExperimentGridModel::kDeltaPairedI2t).data(Qt::BackgroundRole)));
  QVERIFY(reddish(model.index(0, ExperimentGridModel::kR1I2t).data(Qt::BackgroundRole)));
}

// One seed per cell (a quick look before a sweep): a difference of one draw has no spread and no
// test. It is shown as such, and neither it nor the method's R@1 is coloured as above or below.
void TestExperimentGridModel::aDifferenceOfOneSeedIsMarkedAndNotColoured() {
  const std::vector<FixtureCell> cells{
      {"HN γ 0.5 · s learnt", hnclip::kRoleMethod, {{"loss_gamma", 0.5}}, {87.0}, {80.0}, {1}},
      {"InfoNCE · s learnt", hnclip::kRolePaired, {{"loss_gamma", 0.0}}, {83.0}, {84.0}, {2}},
  };
  auto snap = hnclip::test::make_snapshot(1, cells);
  hnclip::test::add_comparison(snap.results, 0, 1, "paired");
  ExperimentGridModel model;
  model.setResults(snap.results);
  QCOMPARE(text(model, 0, ExperimentGridModel::kDeltaPairedT2i), QStringLiteral("+4.00 (1 seed)"));
  QCOMPARE(text(model, 0, ExperimentGridModel::kDeltaPairedI2t), QStringLiteral("-4.00 (1 seed)"));
  for (int column :
       {int(ExperimentGridModel::kDeltaPairedT2i), int(ExperimentGridModel::kDeltaPairedI2t),
        int(ExperimentGridModel::kR1T2i), int(ExperimentGridModel::kR1I2t)}) {
    QVERIFY2(!model.index(0, column).data(Qt::BackgroundRole).isValid(),
             qPrintable(QStringLiteral("column %1 is coloured").arg(column)));
  }
  QVERIFY(model.index(0, ExperimentGridModel::kDeltaPairedT2i)
              .data(Qt::ToolTipRole)
              .toString()
              .contains(QStringLiteral("one seed pair is one draw")));
  // The value itself stays available (sorting, export).
  QCOMPARE(model.index(0, ExperimentGridModel::kDeltaPairedT2i)
               .data(ExperimentGridModel::kValueRole)
               .toDouble(),
           4.0);
}

void TestExperimentGridModel::runsOfARowAndItsControl() {
  ExperimentGridModel model;
  model.setResults(results(1));
  QCOMPARE(model.runIds(0), (QList<int64_t>{11, 12, 13}));
  QCOMPARE(model.index(2, 0).data(ExperimentGridModel::kRunIdsRole).toList().size(), 3);
  auto pair = model.controlComparisonRuns(0);
  QVERIFY(pair.has_value());
  QCOMPARE(pair->first, int64_t{21});                    // A: the paired control
  QCOMPARE(pair->second, int64_t{11});                   // B: the method, same seed
  QVERIFY(!model.controlComparisonRuns(1).has_value());  // a control has no control
  // The first seed of the method has no result yet: the pair is the next seed's.
  model.setResults(results(1, kNaN));
  pair = model.controlComparisonRuns(0);
  QVERIFY(pair.has_value());
  QCOMPARE(pair->first, int64_t{22});
  QCOMPARE(pair->second, int64_t{12});
  QCOMPARE(text(model, 0, ExperimentGridModel::kSeeds), QStringLiteral("2/3"));
}

void TestExperimentGridModel::updateOfTheSameExperimentKeepsTheSelection() {
  ExperimentGridModel model;
  model.setResults(results(1, kNaN));
  QItemSelectionModel selection(&model);
  selection.select(model.index(2, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
  QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
  QSignalSpy changes(&model, &QAbstractItemModel::dataChanged);
  model.setResults(results(1));  // a run finished: the grid fills in
  QCOMPARE(resets.count(), 0);
  QVERIFY(changes.count() >= 1);
  QVERIFY(selection.isRowSelected(2, {}));
  QCOMPARE(text(model, 0, ExperimentGridModel::kSeeds), QStringLiteral("3/3"));
  model.setResults(results(9));
  QCOMPARE(resets.count(), 1);
}

// Cells tested on different data (an axis over the benchmark's size) are ranked within their own
// test set: the method is the best of its set, though s 10 on the other set is higher.
void TestExperimentGridModel::cellsOnDifferentTestSetsAreRankedApart() {
  auto r = results(7);
  r.cells[0].test_set = r.cells[1].test_set = "synthetic|default|1|test";
  r.cells[2].test_set = r.cells[3].test_set = "synthetic|small|1|test";
  ExperimentGridModel model;
  model.setResults(r);
  const auto f = [&](int row) {
    return model.index(row, ExperimentGridModel::kR1T2i).data(Qt::FontRole).value<QFont>();
  };
  QVERIFY(f(0).bold());       // method 87.07, best of its set
  QVERIFY(f(1).underline());  // paired 83.27, second of its set
  QVERIFY(f(3).bold());       // s 10 88.30, best of the other set
  QVERIFY(f(2).underline());  // learnt 84.97, second there
  QVERIFY(!f(0).underline() && !f(3).underline());
}

QTEST_MAIN(TestExperimentGridModel)
#include "test_experiment_grid_model.moc"
