// GradientMassBars: each run's five Ḡ-bucket layers are stacked (every layer on the one before,
// values the model's per-epoch shares, so a bar's top is 1), runs stand side by side inside
// their epoch, bucket colours are shared and outlines are the run's colour, and the tooltip of a
// bar names its run, epoch and shares.
#include <QtTest>

#include <cmath>

#include "qcustomplot.h"
#include "widgets/common/hardness_buckets.h"
#include "widgets/common/run_colors.h"
#include "widgets/train/gradient_mass_bars.h"
#include "widgets/train/training_curves.h"

using hnclip::ProbeRow;
using hnclip::gui::GradientMassBars;
using hnclip::gui::TrainingCurves;

namespace {

ProbeRow probe(int64_t step, int epoch, std::vector<double> plain) {
  ProbeRow p;
  p.step = step;
  p.epoch = epoch;
  p.grad_norm_standard = 1.0;
  p.grad_norm_boosted = 2.0;
  p.mass_share_boosted = plain;
  p.mass_share_plain = std::move(plain);
  return p;
}

double value_at(QCPBars* bars, double key) {
  for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it) {
    if (std::abs(it->key - key) < 1e-9) return it->value;
  }
  return std::nan("");
}

}  // namespace

class TestGradientMassBars : public QObject {
  Q_OBJECT
 private slots:
  void layers_are_stacked_shares_and_runs_stand_side_by_side() {
    TrainingCurves curves;
    curves.addProbe(1, probe(5, 1, {0.5, 0.25, 0.125, 0.125, 0.0}));
    curves.addProbe(1, probe(10, 2, {0.25, 0.25, 0.25, 0.125, 0.125}));
    curves.addProbe(4, probe(5, 1, {0.0, 0.0, 0.5, 0.25, 0.25}));
    QCustomPlot plot;
    GradientMassBars bars(&plot, [](int64_t id) { return QStringLiteral("run %1").arg(id); });
    bars.mirror(curves.seriesOf(TrainingCurves::kGradientMassPlain));
    QCOMPARE(plot.plottableCount(), 10);  // 2 runs x 5 buckets
    QVERIFY(bars.runs() == (std::vector<int64_t>{1, 4}));
    for (const int64_t run : {1, 4}) {
      QVERIFY(bars.bars(run, 0)->barBelow() == nullptr);
      for (int b = 1; b < 5; ++b) QCOMPARE(bars.bars(run, b)->barBelow(), bars.bars(run, b - 1));
      for (int b = 0; b < 5; ++b) {
        QCOMPARE(bars.bars(run, b)->brush().color(), hnclip::gui::hardness_bucket_color(b));
        QCOMPARE(bars.bars(run, b)->pen().color(), hnclip::gui::run_color(run));
      }
    }
    // Run 1 left of run 4 within epoch 1, both inside [0.6, 1.4].
    const double k1 = bars.barKey(0, 1), k4 = bars.barKey(1, 1);
    QVERIFY(k1 < 1.0 && k4 > 1.0 && k1 > 0.6 && k4 < 1.4);
    const std::vector<double> run1{0.5, 0.25, 0.125, 0.125, 0.0};
    double top = 0;
    for (int b = 0; b < 5; ++b) {
      QCOMPARE(value_at(bars.bars(1, b), k1), run1[static_cast<size_t>(b)]);
      top += value_at(bars.bars(1, b), k1);
    }
    QCOMPARE(top, 1.0);  // the stack's top: all of the negatives' gradient
    QCOMPARE(value_at(bars.bars(4, 2), k4), 0.5);
    QCOMPARE(bars.bars(4, 0)->dataCount(), 1);  // run 4 has epoch 1 only
    QCOMPARE(value_at(bars.bars(1, 4), bars.barKey(0, 2)), 0.125);

    const QString tip = bars.tooltip(k4);
    QVERIFY2(tip.contains(QStringLiteral("run 4")) && tip.contains(QStringLiteral("epoch 1")) &&
                 tip.contains(QStringLiteral("50.0%")),
             qPrintable(tip));
    QVERIFY(bars.tooltip(1.5).isEmpty());  // between epochs: no bar

    // A run dropped from the model loses its bars; the other takes the whole group width.
    curves.removeRun(4);
    bars.mirror(curves.seriesOf(TrainingCurves::kGradientMassPlain));
    QCOMPARE(plot.plottableCount(), 5);
    QCOMPARE(bars.barKey(0, 1), 1.0);
  }
};

QTEST_MAIN(TestGradientMassBars)
#include "test_gradient_mass_bars.moc"
