// TrainingCurves alone (no Qt widgets): the debiased EMA, zero clamping, bounds, a resumed run's
// truncation, per-epoch probe fractions, dropped non-finite values, recall mapping, the step →
// wall-time lookup and a chart's CSV table. Expected values are computed by hand in comments.
#include <QtTest>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "widgets/train/training_curves.h"

using hnclip::ProbeRow;
using hnclip::StepMetricRow;
using hnclip::gui::CurveSeries;
using hnclip::gui::CurveTable;
using hnclip::gui::TrainingCurves;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

StepMetricRow step(int64_t s, double loss, double loss_standard, double wall, double lr = 1e-4) {
  StepMetricRow r;
  r.step = s;
  r.epoch = 1;
  r.wall_time_s = wall;
  r.loss = loss;
  r.loss_standard = loss_standard;
  r.lr = lr;
  return r;
}

ProbeRow probe(int64_t s, int epoch, double loss_standard, double gn_standard, double gn_boosted,
               double ratio = 1.0, double cosine = 0.5) {
  ProbeRow p;
  p.step = s;
  p.epoch = epoch;
  p.loss_standard = loss_standard;
  p.loss_boosted = loss_standard * 2;
  p.grad_norm_standard = gn_standard;
  p.grad_norm_boosted = gn_boosted;
  p.grad_ratio = ratio;
  p.grad_cosine = cosine;
  return p;
}

// The series of a run on a chart; fails the test (returns nullptr) when the run has none.
const CurveSeries* series(const TrainingCurves& c, int chart, int64_t run, size_t index) {
  const auto& all = c.seriesOf(chart);
  const auto it = all.find(run);
  if (it == all.end() || index >= it->second.size()) return nullptr;
  return &it->second[index];
}

bool near(double a, double b) { return std::abs(a - b) <= 1e-12 * std::max(1.0, std::abs(b)); }

}  // namespace

class TestTrainingCurves : public QObject {
  Q_OBJECT

 private slots:
  void emaIsDebiased() {
    TrainingCurves c;
    c.setSmoothing(0.6);
    c.addStep(1, step(1, 1.0, 10.0, 0.1));
    c.addStep(1, step(2, 2.0, 10.0, 0.2));
    c.addStep(1, step(3, 4.0, 10.0, 0.3));
    const CurveSeries* s = series(c, TrainingCurves::kLoss, 1, 0);
    QVERIFY(s);
    QCOMPARE(s->smoothed.size(), size_t(3));
    // n=1: last = 0.4·1 = 0.4, debias 1 − 0.6 = 0.4 → 1 (the first value itself).
    QVERIFY(near(s->smoothed[0].value, 1.0));
    // n=2: last = 0.6·0.4 + 0.4·2 = 1.04, debias 1 − 0.36 = 0.64 → 1.625.
    QVERIFY(near(s->smoothed[1].value, 1.625));
    // n=3: last = 0.6·1.04 + 0.4·4 = 2.224, debias 1 − 0.216 = 0.784 → 2.836734693877551.
    QVERIFY(near(s->smoothed[2].value, 2.224 / 0.784));
    QCOMPARE(s->smoothed[1].key, 2.0);
    // A constant series stays constant when debiased (a biased EMA would start at 0.4·10 = 4).
    const CurveSeries* standard = series(c, TrainingCurves::kLoss, 1, 1);
    QVERIFY(standard);
    for (const auto& p : standard->smoothed) QVERIFY(near(p.value, 10.0));

    // Changing the weight recomputes: w = 0 makes the EMA the raw values.
    const uint64_t revision = s->revision;
    c.setSmoothing(0.0);
    s = series(c, TrainingCurves::kLoss, 1, 0);
    QVERIFY(s->revision != revision);
    QVERIFY(near(s->smoothed[1].value, 2.0));
    QVERIFY(near(s->smoothed[2].value, 4.0));
  }

  void zeroGradNormIsClamped() {
    TrainingCurves c;
    c.addProbe(1, probe(10, 1, 0.5, 0.0, 3.0));
    c.addProbe(1, probe(20, 1, 0.5, -0.0, 4.0));
    const CurveSeries* boosted = series(c, TrainingCurves::kGradNorm, 1, 0);
    const CurveSeries* standard = series(c, TrainingCurves::kGradNorm, 1, 1);
    QVERIFY(boosted && standard);
    QVERIFY(!boosted->has_zeros);
    QVERIFY(boosted->zeros.empty());
    QVERIFY(standard->has_zeros);
    QCOMPARE(standard->raw.size(), size_t(2));
    QCOMPARE(standard->raw[0].value, TrainingCurves::kZeroClamp);
    QCOMPARE(standard->raw[1].value, TrainingCurves::kZeroClamp);
    QCOMPARE(standard->zeros.size(), size_t(2));
    QCOMPARE(standard->zeros[0].key, 10.0);
    QCOMPARE(standard->zeros[1].key, 20.0);
    QCOMPARE(standard->zeros[0].value, TrainingCurves::kZeroClamp);
    // The EMA runs over the clamped values: both 1e-10, so the debiased mean is 1e-10.
    QVERIFY(near(standard->smoothed[1].value, TrainingCurves::kZeroClamp));
    // The clamped value is the chart's smallest positive value (what a log axis starts from).
    QCOMPARE(c.bounds(TrainingCurves::kGradNorm).pos_min, TrainingCurves::kZeroClamp);
    // Only the gradient-norm chart clamps: a zero loss stays 0.
    c.addStep(1, step(1, 0.0, 1.0, 0.1));
    QCOMPARE(series(c, TrainingCurves::kLoss, 1, 0)->raw[0].value, 0.0);
    QVERIFY(!series(c, TrainingCurves::kLoss, 1, 0)->has_zeros);

    const CurveTable t = c.table(TrainingCurves::kGradNorm);
    const std::vector<std::string> header = {"step",
                                             "wall_time_s",
                                             "run1:grad_norm_boosted",
                                             "run1:grad_norm_boosted_smoothed",
                                             "run1:grad_norm_standard",
                                             "run1:grad_norm_standard_smoothed",
                                             "run1:grad_norm_standard_zero"};
    QVERIFY(t.header == header);
    QCOMPARE(t.rows.size(), size_t(2));
    QCOMPARE(t.rows[0][6], 1.0);  // "_zero" = 1 where the value was clamped
  }

  void boundsFollowTheData() {
    TrainingCurves c;
    QVERIFY(!c.bounds(TrainingCurves::kLoss).any);
    QVERIFY(std::isinf(c.bounds(TrainingCurves::kLoss).pos_min));
    c.addStep(1, step(2, 3.0, 0.0, 1.0, 0.5));
    c.addStep(1, step(5, 1.5, 0.25, 2.0, 0.5));
    c.addStep(2, step(4, -1.0, 2.0, 3.0, 0.5));
    const auto& b = c.bounds(TrainingCurves::kLoss);
    QVERIFY(b.any);
    QCOMPARE(b.key_min, 2.0);
    QCOMPARE(b.key_max, 5.0);
    QCOMPARE(b.val_min, -1.0);
    QCOMPARE(b.val_max, 3.0);
    QCOMPARE(b.pos_min, 0.25);  // 0 and −1 are not positive
    // The learning rate chart has its own bounds.
    QCOMPARE(c.bounds(TrainingCurves::kLr).val_max, 0.5);
    QCOMPARE(c.bounds(TrainingCurves::kLr).val_min, 0.5);
    // Removing a run recomputes them.
    c.removeRun(2);
    QCOMPARE(c.bounds(TrainingCurves::kLoss).val_min, 0.0);
    QCOMPARE(c.bounds(TrainingCurves::kLoss).key_min, 2.0);
  }

  void resumeTruncates() {
    TrainingCurves c;
    c.setSmoothing(0.6);
    for (int s = 1; s <= 10; ++s) c.addStep(1, step(s, s, s, 10.0 * s));
    const CurveSeries* loss = series(c, TrainingCurves::kLoss, 1, 0);
    QVERIFY(loss);
    const uint64_t revision = loss->revision;
    const uint64_t changes = c.changeCount(TrainingCurves::kLoss);
    QCOMPARE(c.bounds(TrainingCurves::kLoss).val_max, 10.0);
    QCOMPARE(c.wallTimeAt(1, 7), 70.0);

    c.addStep(1, step(5, 0.5, 0.5, 500.0));  // a resume from the checkpoint after step 4
    loss = series(c, TrainingCurves::kLoss, 1, 0);
    QVERIFY(loss->revision != revision);
    QVERIFY(c.changeCount(TrainingCurves::kLoss) > changes);
    QCOMPARE(loss->raw.size(), size_t(5));
    for (int i = 0; i < 4; ++i) {
      QCOMPARE(loss->raw[i].key, static_cast<double>(i + 1));
      QCOMPARE(loss->raw[i].value, static_cast<double>(i + 1));
    }
    QCOMPARE(loss->raw[4].key, 5.0);
    QCOMPARE(loss->raw[4].value, 0.5);
    // The EMA was recomputed over the kept points, not continued from step 10's.
    QCOMPARE(loss->smoothed.size(), size_t(5));
    QVERIFY(near(loss->smoothed[0].value, 1.0));
    QVERIFY(near(loss->smoothed[1].value, 1.625));
    // The learning rate (same stream) was truncated too.
    QCOMPARE(series(c, TrainingCurves::kLr, 1, 0)->raw.size(), size_t(5));
    // Bounds: the dropped steps 6..10 (up to 10) no longer count; the max is step 4's 4.
    QCOMPARE(c.bounds(TrainingCurves::kLoss).val_max, 4.0);
    QCOMPARE(c.bounds(TrainingCurves::kLoss).key_max, 5.0);
    QCOMPARE(c.bounds(TrainingCurves::kLoss).val_min, 0.5);
    // The wall-time timeline: step 5 is the resumed one, 6..10 are gone, 1..4 kept.
    QCOMPARE(c.wallTimeAt(1, 5), 500.0);
    QCOMPARE(c.wallTimeAt(1, 4), 40.0);
    QVERIFY(std::isnan(c.wallTimeAt(1, 7)));
    // The run continues after the resume with appends.
    c.addStep(1, step(6, 0.25, 0.25, 600.0));
    QCOMPARE(series(c, TrainingCurves::kLoss, 1, 0)->raw.size(), size_t(6));
  }

  void solvedFractionComesFromEveryStep() {
    // The solved fraction counts every step's plain InfoNCE (as the CLI's progress line does),
    // not the probed batches: probes saying "unsolved" do not change it.
    TrainingCurves c;
    const int chart = TrainingCurves::kProbeFractions;
    auto at = [](int64_t s, int epoch, double loss_standard) {
      StepMetricRow r = step(s, 1.0, loss_standard, 0.1 * static_cast<double>(s));
      r.epoch = epoch;
      return r;
    };
    // Epoch 1: steps 1-4 with plain losses 1e-4 (solved), 0.5, 2e-4 (solved), 1e-3 (not: the
    // threshold is strict) -> 2 of 4.
    c.addStep(1, at(1, 1, 1e-4));
    const CurveSeries* solved = series(c, chart, 1, 0);
    QVERIFY(solved);
    QCOMPARE(solved->raw.size(), size_t(1));
    QCOMPARE(solved->raw[0].value, 1.0);
    const uint64_t revision = solved->revision;
    c.addStep(1, at(2, 1, 0.5));
    c.addStep(1, at(3, 1, 2e-4));
    c.addStep(1, at(4, 1, 1e-3));
    c.addProbe(1, probe(4, 1, 0.9, 1.0, 1.0));  // a probe's loss does not count
    solved = series(c, chart, 1, 0);
    QCOMPARE(solved->raw.size(), size_t(1));
    QCOMPARE(solved->raw[0].key, 4.0);  // the point moves with the epoch's last step
    QCOMPARE(solved->raw[0].value, 0.5);
    QVERIFY(solved->revision != revision);  // edited in place, not appended
    // Epoch 2: five steps, four solved (one of them exactly 0) -> 0.8; a NaN (not recorded)
    // plain loss is left out of the count.
    c.addStep(1, at(5, 2, 0.0));
    c.addStep(1, at(6, 2, 1e-5));
    c.addStep(1, at(7, 2, 3.0));
    c.addStep(1, at(8, 2, 9e-4));
    c.addStep(1, at(9, 2, kNaN));
    c.addStep(1, at(10, 2, 5e-4));
    solved = series(c, chart, 1, 0);
    QCOMPARE(solved->raw.size(), size_t(2));
    QCOMPARE(solved->raw[0].value, 0.5);  // epoch 1 untouched
    QCOMPARE(solved->raw[1].key, 10.0);
    QCOMPARE(solved->raw[1].value, 0.8);
    QVERIFY(solved->smoothed.empty());  // the fractions chart keeps no EMA
    // A resume repeats step 7 onwards: epoch 2 is counted again from steps 5-6 plus the new one.
    c.addStep(1, at(7, 2, 0.7));
    solved = series(c, chart, 1, 0);
    QCOMPARE(solved->raw.size(), size_t(2));
    QCOMPARE(solved->raw[1].key, 7.0);
    QCOMPARE(solved->raw[1].value, 2.0 / 3.0);
  }

  void zeroGradientFractionComesFromProbes() {
    TrainingCurves c;
    const int chart = TrainingCurves::kProbeFractions;
    c.addProbe(1, probe(10, 1, 1e-4, 0.0, 1.0));
    c.addProbe(1, probe(20, 1, 0.5, 1.0, 1.0));
    c.addProbe(1, probe(30, 2, 0.5, 2.0, 1.0));
    const CurveSeries* zero = series(c, chart, 1, 1);
    QVERIFY(zero);
    QCOMPARE(zero->raw.size(), size_t(2));
    QCOMPARE(zero->raw[0].key, 20.0);
    QCOMPARE(zero->raw[0].value, 0.5);
    QCOMPARE(zero->raw[1].value, 0.0);
    // No steps were fed: the solved series has no point (probes do not make one).
    const CurveSeries* solved = series(c, chart, 1, 0);
    QVERIFY(!solved || solved->raw.empty());
  }

  void gradientMassIsTheEpochMeanPerBucket() {
    TrainingCurves c;
    auto with_mass = [](int64_t s, int epoch, std::vector<double> plain,
                        std::vector<double> boosted) {
      ProbeRow p = probe(s, epoch, 0.5, 1.0, 2.0);
      p.mass_share_plain = std::move(plain);
      p.mass_share_boosted = std::move(boosted);
      return p;
    };
    c.addProbe(2, with_mass(5, 1, {0.5, 0.25, 0.25, 0, 0}, {0.25, 0.25, 0.25, 0.25, 0}));
    c.addProbe(2, with_mass(10, 1, {1.0, 0, 0, 0, 0}, {0, 0, 0.5, 0, 0.5}));
    c.addProbe(2, probe(12, 1, 0.5, 1.0, 2.0));  // no shares recorded: not in the mean
    c.addProbe(2, with_mass(15, 2, {0, 0, 0, 0, 1}, {0, 0, 0, 0, 1}));
    const std::vector<double> plain1{0.75, 0.125, 0.125, 0, 0};
    const std::vector<double> boosted1{0.125, 0.125, 0.375, 0.125, 0.25};
    for (int b = 0; b < TrainingCurves::kMassBuckets; ++b) {
      const auto* p = series(c, TrainingCurves::kGradientMassPlain, 2, static_cast<size_t>(b));
      const auto* q = series(c, TrainingCurves::kGradientMassBoosted, 2, static_cast<size_t>(b));
      QVERIFY(p && q);
      QCOMPARE(p->raw.size(), size_t(2));
      QCOMPARE(p->raw[0].key, 1.0);  // keys are epochs
      QCOMPARE(p->raw[1].key, 2.0);
      QCOMPARE(p->raw[0].value, plain1[static_cast<size_t>(b)]);
      QCOMPARE(q->raw[0].value, boosted1[static_cast<size_t>(b)]);
      QCOMPARE(q->raw[1].value, b == 4 ? 1.0 : 0.0);
    }
    // The CSV names the key column "epoch".
    QCOMPARE(c.table(TrainingCurves::kGradientMassPlain).header[0], std::string("epoch"));
    // A resume repeating step 10 drops that probe: epoch 1 is the first probe's shares alone.
    c.addProbe(2, probe(10, 1, 0.5, 1.0, 2.0));
    const auto* p0 = series(c, TrainingCurves::kGradientMassPlain, 2, 0);
    QCOMPARE(p0->raw.size(), size_t(1));
    QCOMPARE(p0->raw[0].value, 0.5);
  }

  void nonFiniteValuesAreDropped() {
    TrainingCurves c;
    c.addProbe(1, probe(1, 1, 0.5, 1.0, 2.0, 2.0, 0.5));
    c.addProbe(1, probe(2, 1, 0.5, 1.0, 2.0, kInf, kNaN));
    QCOMPARE(series(c, TrainingCurves::kGradNorm, 1, 0)->raw.size(), size_t(2));
    QCOMPARE(series(c, TrainingCurves::kGradRatio, 1, 0)->raw.size(), size_t(1));
    QCOMPARE(series(c, TrainingCurves::kGradCosine, 1, 0)->raw.size(), size_t(1));
    QCOMPARE(series(c, TrainingCurves::kGradRatio, 1, 0)->smoothed.size(), size_t(1));
    QCOMPARE(c.bounds(TrainingCurves::kGradRatio).val_max, 2.0);

    c.addStep(2, step(1, kNaN, 3.0, 0.1));
    const CurveSeries* boosted = series(c, TrainingCurves::kLoss, 2, 0);
    QVERIFY(boosted);
    QVERIFY(!boosted->present);  // never had a point: no graph for it
    QVERIFY(boosted->raw.empty());
    QCOMPARE(series(c, TrainingCurves::kLoss, 2, 1)->raw.size(), size_t(1));
    QCOMPARE(c.bounds(TrainingCurves::kLoss).val_min, 3.0);
  }

  void recallMapping() {
    TrainingCurves c;
    const int chart = TrainingCurves::kRecall;
    c.beginEval(1, 100, "test");
    c.addRecall(1, 100, "test", "t2i", 5, 42.0);
    c.addRecall(1, 100, "test", "i2t", 10, 33.0);
    c.addRecall(1, 100, "test", "t2i", 3, 7.0);  // no such series
    // Another split is not mixed into the first split's curves.
    c.beginEval(1, 100, "val");
    c.addRecall(1, 100, "val", "t2i", 1, 99.0);
    c.addRecall(1, 100, "val", "t2i", 5, 98.0);

    const auto& runs = c.seriesOf(chart);
    QVERIFY(runs.count(1));
    const auto& list = runs.at(1);
    QCOMPARE(list.size(), size_t(6));  // t2i R@1, R@5, R@10, i2t R@1, R@5, R@10
    QVERIFY(!list[0].present);         // t2i R@1 came only from "val"
    QVERIFY(list[1].present);
    QCOMPARE(list[1].raw.size(), size_t(1));
    QCOMPARE(list[1].raw[0].key, 100.0);
    QCOMPARE(list[1].raw[0].value, 42.0);
    QVERIFY(!list[2].present);
    QVERIFY(!list[3].present);
    QVERIFY(!list[4].present);
    QVERIFY(list[5].present);
    QCOMPARE(list[5].raw[0].value, 33.0);
    QCOMPARE(c.bounds(chart).val_max, 42.0);
    QCOMPARE(c.bounds(chart).val_min, 33.0);

    // A repeated eval step of the same split (a resume) replaces the earlier eval.
    c.beginEval(1, 100, "test");
    c.addRecall(1, 100, "test", "t2i", 5, 50.0);
    QCOMPARE(c.seriesOf(chart).at(1)[1].raw.size(), size_t(1));
    QCOMPARE(c.seriesOf(chart).at(1)[1].raw[0].value, 50.0);
  }

  void wallTime() {
    TrainingCurves c;
    c.addStep(1, step(1, 1.0, 1.0, 12.5));
    c.addStep(1, step(2, 1.0, 1.0, 25.0));
    QCOMPARE(c.wallTimeAt(1, 1), 12.5);
    QCOMPARE(c.wallTimeAt(1, 2), 25.0);
    QVERIFY(std::isnan(c.wallTimeAt(1, 3)));
    QVERIFY(std::isnan(c.wallTimeAt(1, 1.5)));
    QVERIFY(std::isnan(c.wallTimeAt(99, 1)));  // unknown run
    QCOMPARE(c.wallTimeAt(1, 0), 0.0);         // the starting point precedes training
    QCOMPARE(c.wallTimeAt(99, 0), 0.0);
    // A step 0 in the step stream has its own wall time.
    c.addStep(2, step(0, 1.0, 1.0, 7.0));
    QCOMPARE(c.wallTimeAt(2, 0), 7.0);
  }

  void lossTable() {
    TrainingCurves c;
    c.setSmoothing(0.6);
    c.addStep(7, step(1, 2.0, 1.0, 0.5));
    c.addStep(7, step(2, 4.0, kNaN, 1.5));  // loss_standard dropped: an empty cell
    c.addStep(3, step(5, 1.0, 1.0, 9.0));
    const CurveTable t = c.table(TrainingCurves::kLoss);
    const std::vector<std::string> header = {
        "step",
        "wall_time_s",
        "run3:loss_boosted",
        "run3:loss_boosted_smoothed",
        "run3:loss_standard",
        "run3:loss_standard_smoothed",
        "run7:loss_boosted",
        "run7:loss_boosted_smoothed",
        "run7:loss_standard",
        "run7:loss_standard_smoothed",
    };
    QVERIFY(t.header == header);
    QCOMPARE(t.rows.size(), size_t(3));
    for (const auto& row : t.rows) QCOMPARE(row.size(), header.size());
    // Run 3 first (ascending ids), its cells of run 7 empty.
    const std::vector<double>& r0 = t.rows[0];
    QCOMPARE(r0[0], 5.0);
    QCOMPARE(r0[1], 9.0);
    QCOMPARE(r0[2], 1.0);
    QCOMPARE(r0[3], 1.0);
    QCOMPARE(r0[4], 1.0);
    QCOMPARE(r0[5], 1.0);
    for (size_t i = 6; i < 10; ++i) QVERIFY(std::isnan(r0[i]));
    // Run 7, step 1: loss 2 (EMA 2), standard 1 (EMA 1).
    const std::vector<double>& r1 = t.rows[1];
    QCOMPARE(r1[0], 1.0);
    QCOMPARE(r1[1], 0.5);
    for (size_t i = 2; i < 6; ++i) QVERIFY(std::isnan(r1[i]));
    QCOMPARE(r1[6], 2.0);
    QVERIFY(near(r1[7], 2.0));
    QCOMPARE(r1[8], 1.0);
    QVERIFY(near(r1[9], 1.0));
    // Run 7, step 2: loss 4, EMA (0.6·0.8 + 0.4·4) / 0.64 = 2.08 / 0.64 = 3.25; standard empty.
    const std::vector<double>& r2 = t.rows[2];
    QCOMPARE(r2[0], 2.0);
    QCOMPARE(r2[1], 1.5);
    QCOMPARE(r2[6], 4.0);
    QVERIFY(near(r2[7], 3.25));
    QVERIFY(std::isnan(r2[8]));
    QVERIFY(std::isnan(r2[9]));
  }

  // A framework's loss terms go to their own chart, one series per term name (train/
  // loss_term.h), smoothed like the loss; a step without terms adds nothing there, and a name
  // this build does not know is dropped rather than drawn as another term.
  void lossTermsGoToTheirSeries() {
    TrainingCurves c;
    c.setSmoothing(0.0);
    StepMetricRow a = step(1, 3.0, 1.0, 0.1);
    a.loss_terms = {{"global", 1.0, 1.25}, {"short", 1.0, 1.75}};
    StepMetricRow b = step(2, 2.0, 0.5, 0.2);
    b.loss_terms = {{"global", 1.0, 0.75}, {"short", 1.0, 1.25}, {"future_term", 1.0, 9.0}};
    c.addStep(4, a);
    c.addStep(4, b);
    c.addStep(5, step(1, 1.0, 1.0, 0.1));  // plain: no terms
    QVERIFY(c.seriesOf(TrainingCurves::kLossTerms).count(5) == 0);
    const CurveSeries* global = series(c, TrainingCurves::kLossTerms, 4, 0);
    const CurveSeries* shrt = series(c, TrainingCurves::kLossTerms, 4, 2);
    QVERIFY(global && shrt);
    QVERIFY(global->present && shrt->present);
    QVERIFY(!series(c, TrainingCurves::kLossTerms, 4, 1)->present);  // token
    QVERIFY(!series(c, TrainingCurves::kLossTerms, 4, 3)->present);  // augmented
    QCOMPARE(global->raw.size(), size_t(2));
    QCOMPARE(global->raw[1].value, 0.75);
    QCOMPARE(shrt->raw[0].value, 1.75);
    QCOMPARE(shrt->smoothed.size(), size_t(2));
    QCOMPARE(c.bounds(TrainingCurves::kLossTerms).val_max, 1.75);  // 9.0 was not drawn
    // A resumed run's repeated step truncates the terms with the rest of the step stream.
    StepMetricRow again = step(2, 2.5, 0.5, 0.2);
    again.loss_terms = {{"global", 1.0, 0.5}, {"short", 1.0, 2.0}};
    c.addStep(4, again);
    QCOMPARE(global->raw.size(), size_t(2));
    QCOMPARE(global->raw[1].value, 0.5);
    QCOMPARE(std::string(TrainingCurves::charts()[TrainingCurves::kLossTerms].name),
             std::string("loss_terms"));
  }
};

QTEST_APPLESS_MAIN(TestTrainingCurves)
#include "test_training_curves.moc"
