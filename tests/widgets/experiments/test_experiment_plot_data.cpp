// The numbers behind the Experiments tab's plots: the γ sweep (one series per scale with its
// paired γ = 0 as the point at 0, the other controls as bands), sample efficiency (a series per
// method and control over the data fraction in percent, the strongest control at 100 % chosen on
// the selection score), and the hyper-parameter scatter (varying keys first, words on categories,
// one point per run with a result).
#include <cmath>
#include <limits>

#include <QtTest>

#include "experiment_results_fixture.h"
#include "widgets/experiments/experiment_plot_data.h"

using hnclip::test::FixtureCell;
using nlohmann::json;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

json config(double gamma, double scale, bool fixed, double fraction = 1.0,
            const char* gbar = "recomputed") {
  return {{"loss_gamma", gamma},       {"logit_scale", scale}, {"fixed_scale", fixed},
          {"data_fraction", fraction}, {"loss_gbar", gbar},    {"lr", 5e-4}};
}

const hnclip::gui::ExperimentPlotSeries* series_named(
    const std::vector<hnclip::gui::ExperimentPlotSeries>& all, const std::string& name) {
  for (const auto& s : all) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

}  // namespace

class TestExperimentPlotData : public QObject {
  Q_OBJECT
 private slots:
  void gammaSweepSeriesAndBands();
  void gammaSweepOfAnExperimentWithoutGamma();
  void sampleEfficiencySeriesAndStrongestControl();
  void hparamKeysAndScatter();
};

void TestExperimentPlotData::gammaSweepSeriesAndBands() {
  const auto snap = hnclip::test::make_snapshot(1, {
                                                       {"HN γ 0.5 · s 100 fixed",
                                                        hnclip::kRoleMethod,
                                                        config(0.5, 100, true),
                                                        {87.0, 87.4},
                                                        {86.0, 86.2},
                                                        {1, 2}},
                                                       {"HN γ 0.25 · s 100 fixed",
                                                        hnclip::kRoleMethod,
                                                        config(0.25, 100, true),
                                                        {85.0, kNaN},
                                                        {84.0, kNaN},
                                                        {3, 4}},
                                                       {"InfoNCE · s 100 fixed",
                                                        hnclip::kRolePaired,
                                                        config(0, 100, true),
                                                        {83.0, 83.4},
                                                        {82.0, 82.4},
                                                        {5, 6}},
                                                       {"InfoNCE · s learnt",
                                                        hnclip::kRoleLearnableScale,
                                                        config(0, 0, false),
                                                        {85.0, 85.2},
                                                        {84.0, 84.0},
                                                        {7, 8}},
                                                       {"InfoNCE · s 10 fixed",
                                                        hnclip::kRoleFixedScale,
                                                        config(0, 10, true),
                                                        {88.0, 88.4},
                                                        {87.0, 87.2},
                                                        {9, 10}},
                                                   });
  const auto plot = hnclip::gui::gamma_sweep_plot(snap, 0);
  QVERIFY(plot.applicable());
  QCOMPARE(plot.series.size(), size_t{1});
  const auto& s = plot.series[0];
  QCOMPARE(s.name, std::string("HN · s 100 fixed"));
  QCOMPARE(s.points.size(), size_t{3});  // γ 0 (the paired control), 0.25, 0.5 — by γ
  QCOMPARE(s.points[0].x, 0.0);
  QCOMPARE(s.points[0].cell, 2);
  QCOMPARE(s.points[1].x, 0.25);
  QCOMPARE(s.points[1].n, 1);
  QVERIFY(std::isnan(s.points[1].std));  // one seed: no error bar
  QCOMPARE(s.points[2].x, 0.5);
  QVERIFY(std::abs(s.points[2].mean - 87.2) < 1e-9);
  QVERIFY(std::abs(s.points[2].std - std::sqrt(0.08)) < 1e-9);
  QCOMPARE(plot.bands.size(), size_t{2});
  QCOMPARE(plot.bands[0].name, std::string("InfoNCE · s learnt"));
  QVERIFY(std::abs(plot.bands[1].mean - 88.2) < 1e-9);
  // The other direction reads the other numbers.
  const auto i2t = hnclip::gui::gamma_sweep_plot(snap, 1);
  QVERIFY(std::abs(i2t.series[0].points[2].mean - 86.1) < 1e-9);
}

void TestExperimentPlotData::gammaSweepOfAnExperimentWithoutGamma() {
  // Recomputed vs frozen at one γ: two series of one point each — nothing swept.
  const auto snap = hnclip::test::make_snapshot(2, {
                                                       {"HN γ 0.5 · s 100 fixed",
                                                        hnclip::kRoleMethod,
                                                        config(0.5, 100, true),
                                                        {87.0},
                                                        {86.0},
                                                        {1}},
                                                       {"HN γ 0.5 Ḡ frozen · s 100 fixed",
                                                        hnclip::kRoleMethod,
                                                        config(0.5, 100, true, 1.0, "frozen"),
                                                        {86.0},
                                                        {85.0},
                                                        {2}},
                                                   });
  const auto plot = hnclip::gui::gamma_sweep_plot(snap, 0);
  QCOMPARE(plot.series.size(), size_t{2});
  QVERIFY(series_named(plot.series, "HN Ḡ frozen · s 100 fixed"));
  QVERIFY(!plot.applicable());
}

void TestExperimentPlotData::sampleEfficiencySeriesAndStrongestControl() {
  const auto snap =
      hnclip::test::make_snapshot(3, {
                                         {"HN γ 0.5 · s 100 fixed · data_fraction 0.2",
                                          hnclip::kRoleMethod,
                                          config(0.5, 100, true, 0.2),
                                          {70.0, 72.0},
                                          {69.0, 71.0},
                                          {1, 2}},
                                         {"HN γ 0.5 · s 100 fixed · data_fraction 1",
                                          hnclip::kRoleMethod,
                                          config(0.5, 100, true, 1.0),
                                          {87.0, 87.0},
                                          {86.0, 86.0},
                                          {3, 4}},
                                         {"InfoNCE · s 100 fixed · data_fraction 0.2",
                                          hnclip::kRolePaired,
                                          config(0, 100, true, 0.2),
                                          {65.0, 66.0},
                                          {64.0, 65.0},
                                          {5, 6}},
                                         {"InfoNCE · s 100 fixed · data_fraction 1",
                                          hnclip::kRolePaired,
                                          config(0, 100, true, 1.0),
                                          {83.0, 83.0},
                                          {82.0, 82.0},
                                          {7, 8}},
                                         {"InfoNCE · s 10 fixed · data_fraction 0.2",
                                          hnclip::kRoleFixedScale,
                                          config(0, 10, true, 0.2),
                                          {75.0, 75.0},
                                          {74.0, 74.0},
                                          {9, 10}},
                                         {"InfoNCE · s 10 fixed · data_fraction 1",
                                          hnclip::kRoleFixedScale,
                                          config(0, 10, true, 1.0),
                                          {88.0, 88.5},
                                          {87.5, 87.9},
                                          {11, 12}},
                                     });
  const auto plot = hnclip::gui::sample_efficiency_plot(snap, 0);
  QVERIFY(plot.applicable());
  QCOMPARE(plot.series.size(), size_t{3});
  const auto* method = series_named(plot.series, "HN γ 0.5 · s 100 fixed");
  QVERIFY(method);
  QVERIFY(!method->control);
  QCOMPARE(method->points.size(), size_t{2});
  QCOMPARE(method->points[0].x, 20.0);  // percent
  QCOMPARE(method->points[1].x, 100.0);
  QVERIFY(std::abs(method->points[0].mean - 71.0) < 1e-9);
  const auto* s10 = series_named(plot.series, "InfoNCE · s 10 fixed");
  QVERIFY(s10 && s10->control);
  // The strongest control at 100 %: s 10 (best selection score), its t→i mean.
  QVERIFY(plot.strongest_full.has_value());
  QCOMPARE(plot.strongest_full->cell, 5);
  QVERIFY(std::abs(plot.strongest_full->mean - 88.25) < 1e-9);
}

void TestExperimentPlotData::hparamKeysAndScatter() {
  const auto snap = hnclip::test::make_snapshot(4, {
                                                       {"HN γ 0.5 · s 100 fixed",
                                                        hnclip::kRoleMethod,
                                                        config(0.5, 100, true),
                                                        {87.0, kNaN},
                                                        {86.0, kNaN},
                                                        {1, 2}},
                                                       {"HN γ 0.5 Ḡ frozen · s 100 fixed",
                                                        hnclip::kRoleMethod,
                                                        config(0.5, 100, true, 1.0, "frozen"),
                                                        {86.0, 86.5},
                                                        {85.0, 85.5},
                                                        {3, 4}},
                                                       {"InfoNCE · s 100 fixed",
                                                        hnclip::kRolePaired,
                                                        config(0, 100, true),
                                                        {83.0, 83.2},
                                                        {82.0, 82.2},
                                                        {5, 6}},
                                                   });
  const auto keys = hnclip::gui::hparam_keys(snap);
  // Varying first (alphabetical), then the rest.
  QCOMPARE(keys.size(), size_t{6});
  QCOMPARE(keys[0], std::string("loss_gamma"));
  QCOMPARE(keys[1], std::string("loss_gbar"));
  QCOMPARE(keys[2], std::string("data_fraction"));

  const auto& metrics = hnclip::gui::hparam_metrics();
  QCOMPARE(metrics.front().name, std::string("R@1 t→i"));
  QCOMPARE(metrics.size(), size_t{11});
  const auto gamma = hnclip::gui::hparam_scatter(snap, "loss_gamma", metrics.front());
  QVERIFY(gamma.categories.empty());
  QCOMPARE(gamma.points.size(), size_t{5});  // six runs, one without a result
  QCOMPARE(gamma.points[0].x, 0.5);
  QCOMPARE(gamma.points[0].y, 87.0);
  QCOMPARE(gamma.points[0].run_id, int64_t{1});
  QVERIFY(gamma.points[4].control);

  const auto gbar = hnclip::gui::hparam_scatter(snap, "loss_gbar", metrics[5]);  // R@1 i→t
  QCOMPARE(gbar.categories, (std::vector<std::string>{"recomputed", "frozen"}));
  QCOMPARE(gbar.points[1].x, 1.0);  // frozen
  QCOMPARE(gbar.points[1].y, 85.0);
  const auto score = hnclip::gui::hparam_scatter(snap, "fixed_scale", metrics.back());
  QCOMPARE(score.categories, (std::vector<std::string>{"true"}));
  QCOMPARE(score.points[0].y, 86.5);  // (87 + 86) / 2
}

QTEST_MAIN(TestExperimentPlotData)
#include "test_experiment_plot_data.moc"
